/* Reconstructed for gpuia's tests: vkd3d-proton tests/d3d12_streamout.c, three vertex-shader
 * Stream Output tests, each with its own so_declaration and strides. */
#include "d3d12_crosstest.h"

void test_vertex_shader_stream_output(void)
{
    static const D3D12_SO_DECLARATION_ENTRY so_declaration[] =
    {
        {0, "SV_Position", 0, 0, 4, 0},
    };
    static const unsigned int strides[] = {16};
    D3D12_GRAPHICS_PIPELINE_STATE_DESC pso_desc;

    pso_desc.StreamOutput.NumEntries = ARRAY_SIZE(so_declaration);
    pso_desc.StreamOutput.pSODeclaration = so_declaration;
    pso_desc.StreamOutput.pBufferStrides = strides;
    pso_desc.StreamOutput.NumStrides = ARRAY_SIZE(strides);
}

void test_primitive_restart_list_topology_stream_output(void)
{
    static const D3D12_SO_DECLARATION_ENTRY so_declaration[] =
    {
        {0, "SV_Position", 0, 0, 4, 0},
    };
    static const unsigned int strides[] = {16};
    D3D12_GRAPHICS_PIPELINE_STATE_DESC pso_desc;

    pso_desc.StreamOutput.pSODeclaration = so_declaration;
    pso_desc.StreamOutput.NumEntries = ARRAY_SIZE(so_declaration);
    pso_desc.StreamOutput.pBufferStrides = strides;
    pso_desc.StreamOutput.NumStrides = ARRAY_SIZE(strides);
}

void test_index_buffer_edge_case_stream_output(void)
{
    static const D3D12_SO_DECLARATION_ENTRY so_declaration[] =
    {
        {0, "SV_Position", 0, 0, 4, 0},
    };
    static const unsigned int strides[] = {16};
    D3D12_GRAPHICS_PIPELINE_STATE_DESC pso_desc;

    pso_desc.StreamOutput.pSODeclaration = so_declaration;
    pso_desc.StreamOutput.pBufferStrides = strides;
}
