// Pipeline state descs that pair an input layout with a Stream Output declaration, in the
// forms engines write them (gpuia layout pairs each desc's two arrays into one check).
#include <d3d12.h>

// A minimal stand-in for d3dx12.h's stream subobjects: a struct holding the inner desc with
// an assignment from it, as CD3DX12_PIPELINE_STATE_STREAM_SUBOBJECT does.
template <typename Inner> struct Subobject {
    int type;
    Inner inner;
    Subobject &operator=(const Inner &i) { inner = i; return *this; }
};
typedef Subobject<D3D12_INPUT_LAYOUT_DESC> CD3DX12_PIPELINE_STATE_STREAM_INPUT_LAYOUT;
typedef Subobject<D3D12_STREAM_OUTPUT_DESC> CD3DX12_PIPELINE_STATE_STREAM_STREAM_OUTPUT;

static const D3D12_INPUT_ELEMENT_DESC particleLayout[] = {
    {"POSITION", 0, DXGI_FORMAT_R32G32B32_FLOAT, 0, 0, D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA, 0},
    {"VELOCITY", 0, DXGI_FORMAT_R32G32B32_FLOAT, 0, 12, D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA, 0},
};
static const D3D12_SO_DECLARATION_ENTRY particleSO[] = {
    {0, "POSITION", 0, 0, 3, 0},
    {0, "VELOCITY", 0, 0, 3, 0},
};
static const UINT particleStrides[] = {24};

static const D3D12_INPUT_ELEMENT_DESC skinLayout[] = {
    {"POSITION", 0, DXGI_FORMAT_R32G32B32_FLOAT, 0, 0, D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA, 0},
    {"NORMAL", 0, DXGI_FORMAT_R32G32B32_FLOAT, 0, D3D12_APPEND_ALIGNED_ELEMENT, D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA, 0},
};
static const D3D12_SO_DECLARATION_ENTRY skinSO[] = {
    {0, "POSITION", 0, 0, 3, 0},
    {0, "NORMAL", 0, 0, 3, 1},
};
static const UINT skinStrides[] = {12, 12};

static const D3D12_INPUT_ELEMENT_DESC streamLayout[] = {
    {"POSITION", 0, DXGI_FORMAT_R32G32B32A32_FLOAT, 0, 0, D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA, 0},
};
static const D3D12_SO_DECLARATION_ENTRY streamSO[] = {
    {0, "POSITION", 0, 0, 4, 0},
};

void CreateParticlePipeline()
{
    // The desc's members assigned brace lists.
    D3D12_GRAPHICS_PIPELINE_STATE_DESC psoDesc = {};
    psoDesc.InputLayout = { particleLayout, _countof(particleLayout) };
    psoDesc.StreamOutput = { particleSO, _countof(particleSO), particleStrides, 1, D3D12_SO_NO_RASTERIZED_STREAM };
}

void CreateSkinPipeline()
{
    // D3D12_INPUT_LAYOUT_DESC and D3D12_STREAM_OUTPUT_DESC variables assigned to the desc.
    D3D12_INPUT_LAYOUT_DESC layoutDesc = { skinLayout, _countof(skinLayout) };
    D3D12_STREAM_OUTPUT_DESC soDesc = {};
    soDesc.pSODeclaration = skinSO;
    soDesc.NumEntries = _countof(skinSO);
    soDesc.pBufferStrides = skinStrides;
    soDesc.NumStrides = 2;
    D3D12_GRAPHICS_PIPELINE_STATE_DESC desc = {};
    desc.InputLayout = layoutDesc;
    desc.StreamOutput = soDesc;
}

void CreateStreamPipeline()
{
    // A pipeline state stream: the subobjects assigned as d3dx12.h's are.
    struct PipelineStateStream {
        CD3DX12_PIPELINE_STATE_STREAM_INPUT_LAYOUT InputLayout;
        CD3DX12_PIPELINE_STATE_STREAM_STREAM_OUTPUT StreamOutput;
    } stream;
    stream.InputLayout = { streamLayout, _countof(streamLayout) };
    stream.StreamOutput = { streamSO, _countof(streamSO), nullptr, 0, 0 };
}

#ifdef BROKEN
// Each array alone is valid, but the declaration names TEXCOORD0, which the layout does not
// give the pass-through shader: the pipeline state is refused (rules 8.3).
static const D3D12_INPUT_ELEMENT_DESC brokenLayout[] = {
    {"POSITION", 0, DXGI_FORMAT_R32G32B32_FLOAT, 0, 0, D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA, 0},
};
static const D3D12_SO_DECLARATION_ENTRY brokenSO[] = {
    {0, "TEXCOORD", 0, 0, 2, 0},
};

void CreateBrokenPipeline()
{
    D3D12_GRAPHICS_PIPELINE_STATE_DESC broken = {};
    broken.InputLayout.pInputElementDescs = brokenLayout;
    broken.InputLayout.NumElements = _countof(brokenLayout);
    broken.StreamOutput.pSODeclaration = brokenSO;
    broken.StreamOutput.NumEntries = _countof(brokenSO);
}
#endif

static const D3D12_INPUT_ELEMENT_DESC designatedLayout[] = {
    {"POSITION", 0, DXGI_FORMAT_R32G32B32A32_FLOAT, 0, 0, D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA, 0},
};
static const D3D12_SO_DECLARATION_ENTRY designatedSO[] = {
    {0, "POSITION", 0, 0, 4, 0},
};

void CreateDesignatedPipeline()
{
    // A desc variable's designated initializer (members in the header's order).
    D3D12_GRAPHICS_PIPELINE_STATE_DESC designated = {
        .StreamOutput = { designatedSO, 1, nullptr, 0, 0 },
        .InputLayout = { designatedLayout, 1 },
    };
    (void)designated;
}
