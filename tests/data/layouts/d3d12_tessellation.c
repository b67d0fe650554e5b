/* Reconstructed for gpuia's tests: vkd3d-proton tests/d3d12_tessellation.c, whose tests stream
 * out the domain shader's outputs with strides of 32, 48 and 16 bytes. */
#include "d3d12_crosstest.h"

void test_tessellation_read_tesslevel(void)
{
    static const D3D12_SO_DECLARATION_ENTRY so_declaration[] =
    {
        {0, "SV_POSITION", 0, 0, 4, 0},
        {0, "COLOR",       0, 0, 4, 0},
    };
    static const unsigned int strides[] = {32};
    D3D12_GRAPHICS_PIPELINE_STATE_DESC pso_desc;

    pso_desc.StreamOutput.pSODeclaration = so_declaration;
    pso_desc.StreamOutput.pBufferStrides = strides;
}

void test_line_tessellation(void)
{
    static const D3D12_SO_DECLARATION_ENTRY so_declaration[] =
    {
        {0, "SV_POSITION",  0, 0, 4, 0},
        {0, "COLOR",        0, 0, 4, 0},
        {0, "PRIMITIVE_ID", 0, 0, 4, 0},
    };
    static const unsigned int strides[] = {48};
    D3D12_GRAPHICS_PIPELINE_STATE_DESC pso_desc;

    pso_desc.StreamOutput.pSODeclaration = so_declaration;
    pso_desc.StreamOutput.pBufferStrides = strides;
}

void test_quad_tessellation(void)
{
    static const D3D12_SO_DECLARATION_ENTRY so_declaration[] =
    {
        {0, "SV_POSITION", 0, 0, 4, 0},
    };
    static const unsigned int strides[] = {16};
    D3D12_GRAPHICS_PIPELINE_STATE_DESC pso_desc;

    pso_desc.StreamOutput.pSODeclaration = so_declaration;
    pso_desc.StreamOutput.pBufferStrides = strides;
}
