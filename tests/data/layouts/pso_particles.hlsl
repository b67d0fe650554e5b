// The particle pipeline's vertex shader: one Euler step of 1/8 (exact in float32).
struct VSIn { float3 pos : POSITION; float3 vel : VELOCITY; };
struct VSOut { float3 pos : POSITION; float3 vel : VELOCITY; };
VSOut main(VSIn i)
{
    VSOut o;
    o.pos = i.pos + i.vel * 0.125;
    o.vel = i.vel;
    return o;
}
