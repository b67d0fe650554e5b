// Reconstructed for gpuia's tests: the gradient layout of DirectX-Graphics-Samples'
// Samples/Desktop/D3D12HDR/src/D3D12HDR.cpp (LoadAssets): an explicit 0 then append-aligned.
#include "stdafx.h"

void D3D12HDR::LoadAssets()
{
    D3D12_INPUT_ELEMENT_DESC gradientElementDescs[] =
    {
        { "POSITION", 0, DXGI_FORMAT_R32G32B32_FLOAT, 0, 0, D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA, 0 },
        { "COLOR", 0, DXGI_FORMAT_R32G32B32_FLOAT, 0, D3D12_APPEND_ALIGNED_ELEMENT, D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA, 0 }
    };
    D3D12_INPUT_LAYOUT_DESC gradientInputLayoutDesc = { gradientElementDescs, _countof(gradientElementDescs) };
}
