// Reconstructed for gpuia's tests: the vertex types of DirectXTK12's Inc/VertexTypes.h that
// ModelLoadCMO.cpp and VertexTypes.cpp define InputElements for (members and the private
// InputElements declarations as the library has them).
#pragma once
#include <d3d12.h>
#include <DirectXMath.h>

namespace DirectX
{
    struct VertexPositionDualTexture
    {
        XMFLOAT3 position;
        XMFLOAT2 textureCoordinate0;
        XMFLOAT2 textureCoordinate1;

    private:
        static constexpr unsigned int InputElementCount = 3;
        static const D3D12_INPUT_ELEMENT_DESC InputElements[InputElementCount];
    };

    struct VertexPositionNormalTangentColorTexture
    {
        XMFLOAT3 position;
        XMFLOAT3 normal;
        XMFLOAT4 tangent;
        uint32_t color;
        XMFLOAT2 textureCoordinate;

    private:
        static constexpr unsigned int InputElementCount = 5;
        static const D3D12_INPUT_ELEMENT_DESC InputElements[InputElementCount];
    };

    struct VertexPositionNormalTangentColorTextureSkinning : public VertexPositionNormalTangentColorTexture
    {
        uint32_t indices;
        uint32_t weights;

    private:
        static constexpr unsigned int InputElementCount = 7;
        static const D3D12_INPUT_ELEMENT_DESC InputElements[InputElementCount];
    };
}
