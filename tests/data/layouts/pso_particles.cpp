// One particle pipeline state: its input layout and Stream Output declaration go through the
// vertex shader given with --shader (tests/data/layouts/pso_particles.hlsl).
#include <d3d12.h>

static const D3D12_INPUT_ELEMENT_DESC particleLayout[] = {
    {"POSITION", 0, DXGI_FORMAT_R32G32B32_FLOAT, 0, 0, D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA, 0},
    {"VELOCITY", 0, DXGI_FORMAT_R32G32B32_FLOAT, 0, 12, D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA, 0},
};
static const D3D12_SO_DECLARATION_ENTRY particleSO[] = {
    {0, "POSITION", 0, 0, 3, 0},
    {0, "VELOCITY", 0, 0, 3, 0},
};
static const UINT particleStrides[] = {24};

void CreateParticlePipeline(D3D12_GRAPHICS_PIPELINE_STATE_DESC &psoDesc)
{
    psoDesc.InputLayout = { particleLayout, _countof(particleLayout) };
    psoDesc.StreamOutput = { particleSO, _countof(particleSO), particleStrides, 1, D3D12_SO_NO_RASTERIZED_STREAM };
}
