// Reconstructed for gpuia's tests: what MiniEngine's pch.h and the headers of TextRenderer.cpp,
// SponzaRenderer.cpp and Renderer.cpp (PipelineState.h, Camera.h, TextRenderer.h, Renderer.h,
// SponzaRenderer.h) declare that those reconstructions use.
#pragma once
#include <d3d12.h>
#include <stdint.h>
#include <vector>

class GraphicsPSO
{
public:
    void SetInputLayout(UINT NumElements, const D3D12_INPUT_ELEMENT_DESC* pInputElementDescs);
};

namespace Math { class Camera; }
using namespace Math;

namespace TextRenderer { void Initialize(void); }
namespace Sponza { void Startup(Camera& Camera); }
namespace Renderer
{
    void Initialize(void);
    uint8_t GetPSO(uint16_t psoFlags);
}
