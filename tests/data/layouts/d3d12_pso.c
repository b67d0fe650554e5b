/* Reconstructed for gpuia's tests: vkd3d-proton tests/d3d12_pso.c. The append-aligned test
 * spells one semantic in several cases across sparse slots; the pipeline-state tests declare
 * Stream Output the way vkd3d-proton's tests fill D3D12_GRAPHICS_PIPELINE_STATE_DESC. */
#include "d3d12_crosstest.h"

void test_append_aligned_element(void)
{
    static const D3D12_INPUT_ELEMENT_DESC layout_desc[] =
    {
        {"CoLoR",    2, DXGI_FORMAT_R32G32_FLOAT,       1, D3D12_APPEND_ALIGNED_ELEMENT, D3D12_INPUT_CLASSIFICATION_PER_INSTANCE_DATA, 1},
        {"ColoR",    3, DXGI_FORMAT_R32G32_FLOAT,       5, D3D12_APPEND_ALIGNED_ELEMENT, D3D12_INPUT_CLASSIFICATION_PER_INSTANCE_DATA, 1},
        {"POSITION", 0, DXGI_FORMAT_R32G32B32A32_FLOAT, 0, D3D12_APPEND_ALIGNED_ELEMENT, D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA, 0},
        {"ColoR",    0, DXGI_FORMAT_R32G32_FLOAT,       5, D3D12_APPEND_ALIGNED_ELEMENT, D3D12_INPUT_CLASSIFICATION_PER_INSTANCE_DATA, 1},
        {"cOLOr",    1, DXGI_FORMAT_R32G32_FLOAT,       1, D3D12_APPEND_ALIGNED_ELEMENT, D3D12_INPUT_CLASSIFICATION_PER_INSTANCE_DATA, 1},
    };
    (void)layout_desc;
}

void test_create_graphics_pipeline_state(void)
{
    D3D12_GRAPHICS_PIPELINE_STATE_DESC pipeline_state_desc;
    static const D3D12_SO_DECLARATION_ENTRY so_declaration[] =
    {
        {0, "SV_Position", 0, 0, 4, 0},
    };
    static const unsigned int strides[] = {16};

    pipeline_state_desc.StreamOutput.NumEntries = ARRAY_SIZE(so_declaration);
    pipeline_state_desc.StreamOutput.pSODeclaration = so_declaration;
    pipeline_state_desc.StreamOutput.pBufferStrides = strides;
    pipeline_state_desc.StreamOutput.NumStrides = ARRAY_SIZE(strides);
    pipeline_state_desc.StreamOutput.RasterizedStream = 0;
}

void test_shader_io_mismatch(void)
{
    static const D3D12_SO_DECLARATION_ENTRY so_basic[] =
    {
        {0, "SV_POSITION", 0, 0, 4, 0},
    };
    static const D3D12_SO_DECLARATION_ENTRY so_multi_stream[] =
    {
        {0, "SV_POSITION", 0, 0, 4, 0},
        {0, "ARG", 0, 0, 3, 0},
        {0, "ARG", 2, 0, 4, 0},
        {1, "ARG", 1, 0, 2, 1},
    };
    static const UINT so_strides[] = {64, 64};
    D3D12_STREAM_OUTPUT_DESC so_desc = { so_basic, ARRAY_SIZE(so_basic), so_strides, ARRAY_SIZE(so_strides), D3D12_SO_NO_RASTERIZED_STREAM };
    D3D12_STREAM_OUTPUT_DESC so_multi_desc = { so_multi_stream, ARRAY_SIZE(so_multi_stream), so_strides, ARRAY_SIZE(so_strides), 0 };
    (void)so_desc;
    (void)so_multi_desc;
}
