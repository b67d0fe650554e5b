// Reconstructed for gpuia's tests: GlareEngine's EngineCore/Engine/InputLayout.h, the class whose
// static vectors InputLayout.cpp defines.
#pragma once
#include <d3d12.h>
#include <vector>

class InputLayout
{
public:
    static std::vector<D3D12_INPUT_ELEMENT_DESC> SkinAnimeVertex;
    static std::vector<D3D12_INPUT_ELEMENT_DESC> Particle;
};
