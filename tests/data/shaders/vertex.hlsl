// A vertex shader with a system-value input, an integer input, an array and a matrix output.
struct VSIn {
    float3 position : POSITION;
    float2 uv : TEXCOORD0;
    uint4 bones : BLENDINDICES;
    uint vertex_id : SV_VertexID;
};

struct VSOut {
    float4 position : SV_Position;
    float2 uv : TEXCOORD0;
    nointerpolation uint bone : TEXCOORD1;
    float3 normal : NORMAL;
};

VSOut main(VSIn i)
{
    VSOut o;
    o.position = float4(i.position, 1.0) + float(i.vertex_id);
    o.uv = i.uv;
    o.bone = i.bones.x + i.bones.w;
    o.normal = i.position.zyx;
    return o;
}
