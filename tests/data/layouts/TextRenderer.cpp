// Reconstructed for gpuia's tests: MiniEngine/Core/TextRenderer.cpp (TextRenderer::Initialize):
// one instance per glyph, every element per-instance.
#include "pch.h"

static GraphicsPSO s_TextPSO[2];

void TextRenderer::Initialize( void )
{
    D3D12_INPUT_ELEMENT_DESC vertElem[] =
    {
        { "POSITION", 0, DXGI_FORMAT_R32G32_FLOAT     , 0, 0, D3D12_INPUT_CLASSIFICATION_PER_INSTANCE_DATA, 1 },
        { "TEXCOORD", 0, DXGI_FORMAT_R16G16B16A16_UINT, 0, 8, D3D12_INPUT_CLASSIFICATION_PER_INSTANCE_DATA, 1 }
    };
    s_TextPSO[0].SetInputLayout(_countof(vertElem), vertElem);
}
