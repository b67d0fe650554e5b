// Reconstructed for gpuia's tests: the vertex description of DirectX-Graphics-Samples'
// Samples/Desktop/D3D12Bundles/src/occcity.h (the mesh data arrays are left out).
#pragma once

namespace SampleAssets
{
    static const D3D12_INPUT_ELEMENT_DESC StandardVertexDescription[] =
    {
        { "POSITION", 0, DXGI_FORMAT_R32G32B32_FLOAT, 0, 0, D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA, 0 },
        { "NORMAL", 0, DXGI_FORMAT_R32G32B32_FLOAT, 0, 12, D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA, 0 },
        { "TEXCOORD", 0, DXGI_FORMAT_R32G32_FLOAT, 0, 24, D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA, 0 },
        { "TANGENT", 0, DXGI_FORMAT_R32G32B32_FLOAT, 0, 32, D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA, 0 }
    };

    static const UINT StandardVertexStride = 44;
    static const DXGI_FORMAT StandardIndexFormat = DXGI_FORMAT_R32_UINT;
}
