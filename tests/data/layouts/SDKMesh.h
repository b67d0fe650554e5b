// Reconstructed for gpuia's tests: the DXUT vertex element of DirectXTK12's Src/SDKMesh.h that
// ModelLoadSDKMESH.cpp's GetInputLayoutDesc takes.
#pragma once
#include <stdint.h>

namespace DXUT
{
    struct D3DVERTEXELEMENT9
    {
        uint16_t Stream;
        uint16_t Offset;
        uint8_t Type;
        uint8_t Method;
        uint8_t Usage;
        uint8_t UsageIndex;
    };
}
