// Constant buffers whose D3D packing has traps: a float after a float3 shares its register, a
// float3 after a float2 moves to the next, array elements and structs start registers, matrices
// take one register per column (column_major) or per row (row_major), packoffset places a
// member. FXC's and DXC's reflection of them is the truth gpuia's HLSL front end is held to.
struct Light {
    float3 direction;
    float intensity;
    float2 cone;
};

cbuffer Frame : register(b0)
{
    float3 eye;
    float time;
    float2 jitter;
    float3 sun;
    float weights[3];
    float4x4 view;
    row_major float3x3 normal_matrix;
    Light light;
    float after_struct;
    bool enabled;
    uint2 tiles;
};

cbuffer Placed : register(b2)
{
    float4 tint : packoffset(c1);
    float bias : packoffset(c0.z);
};

float4 main(float4 p : POSITION) : SV_Position
{
    float3 n = mul(normal_matrix, p.xyz);
    float w = weights[0] + weights[1] + weights[2];
    float4 q = mul(view, p) + float4(eye * time, w) + float4(jitter, sun.x, after_struct);
    q += float4(light.direction * light.intensity, light.cone.x + light.cone.y);
    q.xyz += n;
    if (enabled)
        q += float4(tiles, 0.0, 0.0);
    return q * tint + bias;
}
