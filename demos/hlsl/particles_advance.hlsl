// The particles demo's simulation step, in the shape of the D3D10 ParticlesGS sample's
// GSAdvanceParticlesMain: the particles are vertex records that this geometry shader rewrites
// through Stream Output every step. The emitter (TYPE_EMITTER, always the first record) ages
// and appends itself, then SPAWN new sparks; a spark ages, falls and moves, and appends itself
// while it is younger than Lifetime steps. Nothing is rasterized (NO_RASTERIZED_STREAM): the
// output buffer is the next step's input, drawn with DrawAuto.
// gpuia compiles one geometry shader per file (the other's stream record type would not be
// one of the compiled entry's), so gs_sprite is in particles_sprite.hlsl.
#ifndef SPAWN
#define SPAWN 8
#endif

#include "particles.hlsli"

Particle vs_pass(Particle p)
{
    return p;
}

// Chris Wellons' lowbias32 integer hash: the same bits on every adapter.
uint lowbias32(uint x)
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

// A value in [0, 1) with 24 random bits, exact in a float.
float unit(uint i)
{
    return float(lowbias32(i) >> 8) * (1.0 / 16777216.0);
}

[maxvertexcount(1 + SPAWN)]
void gs_advance(point Particle p[1], inout PointStream<Particle> stream)
{
    Particle q = p[0];
    q.age = p[0].age + 1;
    if (p[0].type == TYPE_EMITTER)
    {
        stream.Append(q);
        for (uint k = 0; k < SPAWN; k++)
        {
            // Spark k of step n (the emitter's new age) draws its random numbers from
            // 3 (n SPAWN + k) + 0, 1, 2.
            uint seed = 3 * (q.age * SPAWN + k);
            float azimuth = 6.28318530718 * unit(seed);
            float tilt = Cone * unit(seed + 1);
            float speed = SpeedMin + (SpeedMax - SpeedMin) * unit(seed + 2);
            Particle s;
            s.position = p[0].position;
            s.velocity = speed * float3(sin(tilt) * cos(azimuth), cos(tilt),
                                        sin(tilt) * sin(azimuth));
            s.age = 0;
            s.type = TYPE_SPARK;
            stream.Append(s);
        }
    }
    else if (q.age < Lifetime)
    {
        // Semi-implicit Euler: the velocity first, then the position with the new velocity.
        q.velocity.y -= Gravity * Dt;
        q.position += q.velocity * Dt;
        stream.Append(q);
    }
}
