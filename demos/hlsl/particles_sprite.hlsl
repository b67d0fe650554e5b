// The particles demo's drawing, in the shape of the D3D10 ParticlesGS sample's GSScenemain:
// gs_sprite turns each spark into a camera-facing quad, a 4-vertex triangle strip, and its
// stream is rasterized (the pipeline state has no Stream Output declaration, so stream 0 is)
// with ps_sprite, which reads the stream's outputs.
#include "particles.hlsli"

struct Sprite
{
    float4 position : SV_Position;
    float4 color    : COLOR;
    float2 uv       : TEXCOORD0;
};

// The quad's corners in the strip's order, as ParticlesGS lists them: top left, top right,
// bottom left, bottom right (triangles TL TR BL and TR BR BL, both clockwise on screen).
static const float2 CORNERS[4] = { float2(-1, 1), float2(1, 1), float2(-1, -1), float2(1, -1) };

// White-hot when spawned, orange at half its life, dark red when it dies.
float4 spark_color(float t)
{
    float3 hot = float3(1.0, 0.95, 0.65), orange = float3(1.0, 0.45, 0.08);
    float3 ember = float3(0.45, 0.06, 0.04);
    float3 c = t < 0.5 ? lerp(hot, orange, 2 * t) : lerp(orange, ember, 2 * t - 1);
    return float4(c, 1);
}

[maxvertexcount(4)]
void gs_sprite(point Particle p[1], inout TriangleStream<Sprite> stream)
{
    if (p[0].type == TYPE_EMITTER)
        return;  // the emitter is not drawn
    float t = float(p[0].age) / Up.w;
    float size = Right.w * (1 - 0.5 * t);
    float4 color = spark_color(t);
    for (uint i = 0; i < 4; i++)
    {
        Sprite s;
        float3 corner = p[0].position + size * (CORNERS[i].x * Right.xyz + CORNERS[i].y * Up.xyz);
        s.position = mul(ViewProj, float4(corner, 1));
        s.color = color;
        s.uv = CORNERS[i] * float2(0.5, -0.5) + 0.5;
        stream.Append(s);
    }
}

// A round spark: the quad's corners are discarded, the centre is brightest.
float4 ps_sprite(Sprite s) : SV_Target
{
    float2 d = s.uv * 2 - 1;
    float r2 = dot(d, d);
    if (r2 > 1)
        discard;
    return float4(s.color.rgb * (1 - 0.45 * r2), 1);
}
