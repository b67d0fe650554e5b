// The lit demos' scene constants: root constant buffer 0, packed by D3D's rules (five 16-byte
// registers after the two matrices; column_major, as fxc/dxc default, so a C++ engine uploads
// each matrix transposed, its columns in consecutive registers).
cbuffer Scene : register(b0)
{
    float4x4 ViewProj;   // offset 0
    float4x4 Model;      // offset 64
    float4   LightDir;   // offset 128: towards the light, world space
    float4   Eye;        // offset 144
    float4   BaseColor;  // offset 160
};

struct LitVertex
{
    float4 position : SV_Position;
    float3 normal   : NORMAL;
    float2 uv       : TEXCOORD0;
    float3 world    : TEXCOORD1;
};
