// The mesh demo's shaders: a vertex shader for the two-slot teapot layout (normals arrive as
// R10G10B10A2_UNORM, n * 0.5 + 0.5), one for already transformed vertices (the Stream Output
// demo draws its captured buffer with it), and a Lambert + Blinn-Phong pixel shader tinted by a
// 4 x 4 checker of the UVs.
#include "scene.hlsli"

struct MeshVertex
{
    float3 position : POSITION;
    float4 normal   : NORMAL;
    float2 uv       : TEXCOORD0;
};

LitVertex vs_mesh(MeshVertex v)
{
    LitVertex o;
    float4 world = mul(Model, float4(v.position, 1));
    o.position = mul(ViewProj, world);
    // The model matrix scales uniformly, so it turns normals too.
    o.normal = mul(Model, float4(v.normal.xyz * 2 - 1, 0)).xyz;
    o.uv = v.uv;
    o.world = world.xyz;
    return o;
}

struct StreamedVertex
{
    float3 position : POSITION;
    float3 normal   : NORMAL;
    float2 uv       : TEXCOORD0;
};

LitVertex vs_streamed(StreamedVertex v)
{
    LitVertex o;
    float4 world = mul(Model, float4(v.position, 1));
    o.position = mul(ViewProj, world);
    o.normal = mul(Model, float4(v.normal, 0)).xyz;
    o.uv = v.uv;
    o.world = world.xyz;
    return o;
}

float4 ps_lit(LitVertex i) : SV_Target
{
    float3 n = normalize(i.normal);
    float3 l = normalize(LightDir.xyz);
    float3 v = normalize(Eye.xyz - i.world);
    float3 h = normalize(l + v);
    float diffuse = max(dot(n, l), 0.0);
    float specular = diffuse > 0.0 ? pow(max(dot(n, h), 0.0), 48.0) : 0.0;
    int2 cell = int2(floor(i.uv * 4.0));
    float checker = 0.86 + 0.14 * float((cell.x + cell.y) & 1);
    float3 lit = BaseColor.rgb * checker * (0.16 + 0.84 * diffuse) + 0.4 * specular;
    return float4(pow(saturate(lit), 1.0 / 2.2), 1.0);
}
