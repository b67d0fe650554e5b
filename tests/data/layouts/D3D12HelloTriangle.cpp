// Reconstructed for gpuia's tests: the input layout of DirectX-Graphics-Samples'
// Samples/Desktop/D3D12HelloWorld/src/HelloTriangle/D3D12HelloTriangle.cpp (LoadAssets),
// reduced to what the array needs.
#include "stdafx.h"

struct Vertex
{
    XMFLOAT3 position;
    XMFLOAT4 color;
};

void D3D12HelloTriangle::LoadAssets()
{
    // Define the vertex input layout.
    D3D12_INPUT_ELEMENT_DESC inputElementDescs[] =
    {
        { "POSITION", 0, DXGI_FORMAT_R32G32B32_FLOAT, 0, 0, D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA, 0 },
        { "COLOR", 0, DXGI_FORMAT_R32G32B32A32_FLOAT, 0, 12, D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA, 0 }
    };

    D3D12_GRAPHICS_PIPELINE_STATE_DESC psoDesc = {};
    psoDesc.InputLayout = { inputElementDescs, _countof(inputElementDescs) };
    m_vertexBufferView.StrideInBytes = sizeof(Vertex);
}
