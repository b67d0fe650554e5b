// Skinned particles streamed out: each vertex is moved by two bones of a row-major skeleton,
// pushed along its velocity, and written to a Stream Output buffer (no rasterization).
#include "common.hlsli"

cbuffer Skeleton : register(b0)
{
    row_major float3x4 Bones[4];   // register 0..11, three rows each
};

cbuffer Frame : register(b1)
{
    float  TimeStep;               // offset 0
    float2 Wind;                   // offset 4: packs into register 0 (WGSL would put it at 8)
    uint   FrameIndex;             // offset 12
};

struct Particle
{
    float3 position : POSITION;
    float3 velocity : VELOCITY;
    uint4  bones    : BLENDINDICES;
    float2 weights  : BLENDWEIGHT;
};

struct Streamed
{
    float3 position : POSITION;
    float3 velocity : VELOCITY;
    uint   tag      : TEXCOORD0;
};

Streamed main(Particle p, uint id : SV_VertexID)
{
    Streamed o;
    float4 rest = float4(p.position, 1);
    float3 skinned = mul(Bones[p.bones.x], rest) * p.weights.x
                   + mul(Bones[p.bones.y], rest) * p.weights.y;
    o.velocity = damp(p.velocity + float3(Wind, 0) * TimeStep);
    o.position = skinned + o.velocity * TimeStep;
    o.tag = id * 1000 + FrameIndex;
    return o;
}
