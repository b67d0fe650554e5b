// The particles demo's shared declarations: the particle record and the constants of
// particles_advance.hlsl and particles_sprite.hlsl.
#define TYPE_EMITTER 0
#define TYPE_SPARK   1

cbuffer Simulation : register(b0)
{
    float Dt;        // seconds per step
    float Gravity;   // metres per second squared, along -y
    uint  Lifetime;  // steps a spark lives
    float SpeedMin;  // a new spark's speed, metres per second: SpeedMin .. SpeedMax
    float SpeedMax;
    float Cone;      // a new spark's largest angle from +y, radians
};

cbuffer Camera : register(b1)
{
    float4x4 ViewProj;  // column_major
    float4   Right;     // xyz: the camera's right axis in world space; w: a new spark's size
    float4   Up;        // xyz: the camera's up axis in world space; w: Lifetime in steps
};

struct Particle
{
    float3 position : POSITION;
    float3 velocity : NORMAL;
    uint   age      : TIMER;   // steps since it was spawned (the emitter: steps taken)
    uint   type     : TYPE;
};
