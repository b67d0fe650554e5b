// Hand-made layouts gpuia cannot resolve without running the code: each must be an error that
// names file:line:column, the array, the element and the field.
struct Known { float p[3]; unsigned int c; };

D3D12_INPUT_ELEMENT_DESC from_call[] = {
    { "POSITION", 0, DXGI_FORMAT_R32G32B32_FLOAT, 0, GetOffset(), D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA, 0 },
};

D3D12_INPUT_ELEMENT_DESC unknown_struct[] = {
    { "COLOR", 0, DXGI_FORMAT_R8G8B8A8_UNORM, 0, offsetof(Unknown, c), D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA, 0 },
};

D3D12_INPUT_ELEMENT_DESC known_struct[] = {
    { "COLOR", 0, DXGI_FORMAT_R8G8B8A8_UNORM, 0, offsetof(Known, c), D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA, 0 },
};

void fill(int count)
{
    std::vector<D3D12_INPUT_ELEMENT_DESC> looped;
    for (int i = 0; i < count; ++i)
        looped.push_back({ "TEXCOORD", (UINT)i, DXGI_FORMAT_R32G32_FLOAT, 0, D3D12_APPEND_ALIGNED_ELEMENT });
}

D3D12_INPUT_ELEMENT_DESC runtime_format[] = {
    { "POSITION", 0, g_positionFormat, 0, 0, D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA, 0 },
};
