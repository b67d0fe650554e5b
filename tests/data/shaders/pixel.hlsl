// A pixel shader with two render targets and a depth output: their DXBC signature entries store
// SystemValueType 0 where D3DReflect reports TARGET and DEPTH.
struct PSIn {
    float4 position : SV_Position;
    float2 uv : TEXCOORD0;
    nointerpolation uint bone : TEXCOORD1;
};

struct PSOut {
    float4 color : SV_Target0;
    uint2 id : SV_Target3;
    float depth : SV_Depth;
};

PSOut main(PSIn i)
{
    PSOut o;
    o.color = float4(i.uv, 0.0, 1.0);
    o.id = uint2(i.bone, 7);
    o.depth = i.position.z;
    return o;
}
