// A pixel shader gpuia draws (render targets only, no depth): an interpolated color, the pixel
// center from SV_Position and a flat integer, each in a register of its own. Drawn as DXBC
// through vkd3d-compiler and SPIRV-Cross (tests/gpu/test_dxbc_gpu.py).
struct PSIn {
    float4 position : SV_Position;
    float4 color : COLOR0;
    nointerpolation uint id : TEXCOORD1;
};

struct PSOut {
    float4 color : SV_Target0;
    uint4 id : SV_Target1;
};

PSOut main(PSIn i)
{
    PSOut o;
    o.color = i.color * 0.5 + float4(0.0, 0.0, 0.0, 0.5);
    o.id = uint4(i.id, uint2(i.position.xy), 7);
    return o;
}
