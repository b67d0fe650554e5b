// Reconstructed for gpuia's tests: the scaling pass layout of DirectX-Graphics-Samples'
// Samples/Desktop/D3D12Fullscreen/src/D3D12Fullscreen.cpp (LoadAssets).
#include "stdafx.h"

void D3D12Fullscreen::LoadAssets()
{
    D3D12_INPUT_ELEMENT_DESC scaleInputElementDescs[] =
    {
        { "POSITION", 0, DXGI_FORMAT_R32G32B32A32_FLOAT, 0, 0, D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA, 0 },
        { "TEXCOORD", 0, DXGI_FORMAT_R32G32_FLOAT, 0, D3D12_APPEND_ALIGNED_ELEMENT, D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA, 0 },
    };
}
