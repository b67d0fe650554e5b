// Hand-made layouts for gpuia's lint tests: each array breaks one rule (see the comments).

// W001: COLOR starts inside POSITION.
const D3D12_INPUT_ELEMENT_DESC overlap[] = {
    { "POSITION", 0, DXGI_FORMAT_R32G32B32_FLOAT, 0, 0, D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA, 0 },
    { "COLOR", 0, DXGI_FORMAT_R8G8B8A8_UNORM, 0, 8, D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA, 0 },
};

// W002: bytes 12..15 unused between POSITION and TEXCOORD.
const D3D12_INPUT_ELEMENT_DESC hole[] = {
    { "POSITION", 0, DXGI_FORMAT_R32G32B32_FLOAT, 0, 0, D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA, 0 },
    { "TEXCOORD", 0, DXGI_FORMAT_R32G32_FLOAT, 0, 16, D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA, 0 },
};

// W003 + W006: R11G11B10_FLOAT has no WebGPU vertex format, so the layout is pulled.
const D3D12_INPUT_ELEMENT_DESC packed_float[] = {
    { "NORMAL", 0, DXGI_FORMAT_R11G11B10_FLOAT, 0, 0, D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA, 0 },
};

// W004: slot 20 is past WebGPU's default 8 vertex buffers (gpuia compacts, so native still).
const D3D12_INPUT_ELEMENT_DESC high_slot[] = {
    { "POSITION", 0, DXGI_FORMAT_R32G32B32A32_FLOAT, 20, 0, D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA, 0 },
};

// W007 + W003: per-instance data stepping every 2 instances.
const D3D12_INPUT_ELEMENT_DESC step_two[] = {
    { "POSITION", 0, DXGI_FORMAT_R32G32_FLOAT, 0, 0, D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA, 0 },
    { "OFFSET", 0, DXGI_FORMAT_R32G32_FLOAT, 1, 0, D3D12_INPUT_CLASSIFICATION_PER_INSTANCE_DATA, 2 },
};

// W008: "TEXCOORD1" is HLSL's TEXCOORD index 1, so no shader input can match it.
const D3D12_INPUT_ELEMENT_DESC digit_name[] = {
    { "TEXCOORD1", 0, DXGI_FORMAT_R32G32_FLOAT, 0, 0, D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA, 0 },
};

// E001: R32_FLOAT at offset 2 (alignment 4, rules 3.2).
const D3D12_INPUT_ELEMENT_DESC misaligned[] = {
    { "PSIZE", 0, DXGI_FORMAT_R32_FLOAT, 0, 2, D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA, 0 },
};

// E001: the same semantic twice, in two spellings (rules 3.12).
const D3D12_INPUT_ELEMENT_DESC duplicate[] = {
    { "COLOR", 0, DXGI_FORMAT_R8G8B8A8_UNORM, 0, 0, D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA, 0 },
    { "color", 0, DXGI_FORMAT_R8G8B8A8_UNORM, 1, 0, D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA, 0 },
};

// E002: components 2..4 of a 4-component output: StartComponent + ComponentCount > 4 (rules 8.2).
const D3D12_SO_DECLARATION_ENTRY so_range[] = {
    { 0, "TEXCOORD", 0, 2, 3, 0 },
};
