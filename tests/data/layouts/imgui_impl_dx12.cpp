// Reconstructed for gpuia's tests: the input layout of Dear ImGui's backends/imgui_impl_dx12.cpp
// (ImGui_ImplDX12_CreateDeviceObjects): offsets are offsetof(ImDrawVert, ...) from imgui.h.
#include "imgui.h"
#include <d3d12.h>

bool ImGui_ImplDX12_CreateDeviceObjects()
{
    D3D12_GRAPHICS_PIPELINE_STATE_DESC psoDesc;
    // Create the input layout
    {
        static D3D12_INPUT_ELEMENT_DESC local_layout[] =
        {
            { "POSITION", 0, DXGI_FORMAT_R32G32_FLOAT,   0, (UINT)offsetof(ImDrawVert, pos), D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA, 0 },
            { "TEXCOORD", 0, DXGI_FORMAT_R32G32_FLOAT,   0, (UINT)offsetof(ImDrawVert, uv),  D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA, 0 },
            { "COLOR",    0, DXGI_FORMAT_R8G8B8A8_UNORM, 0, (UINT)offsetof(ImDrawVert, col), D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA, 0 },
        };
        psoDesc.InputLayout = { local_layout, 3 };
    }
    return true;
}
