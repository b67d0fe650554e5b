// The Stream Output demo's deforming vertex shader: it fits the teapot to the unit box and
// twists it about its vertical axis (the angle grows with height). Stream Output captures
// POSITION, NORMAL and TEXCOORD0; nothing is rasterized (NO_RASTERIZED_STREAM).
cbuffer Deform : register(b0)
{
    float4x4 Fit;       // offset 0 (column_major)
    float    Twist;     // offset 64: radians per unit of height
};

struct MeshVertex
{
    float3 position : POSITION;
    float4 normal   : NORMAL;    // R10G10B10A2_UNORM: n * 0.5 + 0.5
    float2 uv       : TEXCOORD0;
};

struct Twisted
{
    float4 clip     : SV_Position;
    float3 position : POSITION;
    float3 normal   : NORMAL;
    float2 uv       : TEXCOORD0;
};

float3 turn_y(float3 v, float angle)
{
    float c = cos(angle), s = sin(angle);
    return float3(c * v.x + s * v.z, v.y, c * v.z - s * v.x);
}

Twisted vs_twist(MeshVertex v)
{
    float3 p = mul(Fit, float4(v.position, 1)).xyz;
    float3 n = mul(Fit, float4(v.normal.xyz * 2 - 1, 0)).xyz;
    float angle = Twist * p.y;
    Twisted o;
    o.position = turn_y(p, angle);
    // The twist's shear is ignored for the normal: close enough for lighting.
    o.normal = normalize(turn_y(n, angle));
    o.uv = v.uv;
    o.clip = float4(o.position, 1);
    return o;
}
