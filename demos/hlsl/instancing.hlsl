// The instancing demo's shaders. Each instance brings its world matrix as four per-instance
// elements WORLD0..3 (one row each: row_major) and a colour; the vertex shader lights the
// vertex (Gouraud) and the pixel shader only encodes the colour for the screen.
cbuffer Scene : register(b0)
{
    float4x4 ViewProj;   // offset 0 (column_major)
    float4   LightDir;   // offset 64
};

struct InstancedVertex
{
    float3 position : POSITION;
    float3 normal   : NORMAL;
    row_major float4x4 world : WORLD;   // WORLD0..WORLD3: the matrix's rows
    float4 color    : COLOR0;
};

struct ColoredVertex
{
    float4 position : SV_Position;
    float4 color    : COLOR0;
};

ColoredVertex vs_instanced(InstancedVertex v)
{
    float3 world = mul(v.world, float4(v.position, 1)).xyz;
    float3 n = normalize(mul(v.world, float4(v.normal, 0)).xyz);
    float diffuse = max(dot(n, normalize(LightDir.xyz)), 0.0);
    ColoredVertex o;
    o.position = mul(ViewProj, float4(world, 1));
    o.color = float4(v.color.rgb * (0.25 + 0.75 * diffuse), 1.0);
    return o;
}

float4 ps_color(ColoredVertex i) : SV_Target
{
    return float4(pow(i.color.rgb, 1.0 / 2.2), 1.0);
}
