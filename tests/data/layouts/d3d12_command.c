/* Reconstructed for gpuia's tests: vkd3d-proton tests/d3d12_command.c. Every test function
 * names its layout layout_desc; gpuia reports each with its own line. */
#include "d3d12_crosstest.h"

void test_unaligned_vertex_stride(void)
{
    static const D3D12_INPUT_ELEMENT_DESC instance_layout_desc[] =
    {
        {"sv_position", 0, DXGI_FORMAT_R16G16B16A16_SNORM, 0, D3D12_APPEND_ALIGNED_ELEMENT, D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA, 0},
        {"color",       0, DXGI_FORMAT_R16G16B16A16_SNORM, 1, D3D12_APPEND_ALIGNED_ELEMENT, D3D12_INPUT_CLASSIFICATION_PER_INSTANCE_DATA, 0},
    };
    struct unaligned_color { uint8_t blob[9]; };
    D3D12_VERTEX_BUFFER_VIEW vbv[2];
    vbv[1].StrideInBytes = sizeof(struct unaligned_color);
    (void)instance_layout_desc;
}

void test_execute_indirect(void)
{
    static const D3D12_INPUT_ELEMENT_DESC layout_desc[] =
    {
        {"SV_POSITION", 0, DXGI_FORMAT_R32G32B32A32_FLOAT, 0, 0,  D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA, 0},
        {"COLOR",       0, DXGI_FORMAT_R8G8B8A8_UNORM,     0, 16, D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA, 0},
    };
    (void)layout_desc;
}

void test_execute_indirect_state_vbo_offsets(void)
{
    static const D3D12_INPUT_ELEMENT_DESC layout_desc[] =
    {
        {"I", 0, DXGI_FORMAT_R32_UINT, 0, 0, D3D12_INPUT_CLASSIFICATION_PER_INSTANCE_DATA, 0},
    };
    (void)layout_desc;
}
