// A triangle-domain hull shader and its domain shader: the patch-constant signature (PCSG, PSG1)
// holds the tessellation factors and one patch constant.
struct ControlPoint {
    float4 position : POSITION;
};

struct PatchConstants {
    float edges[3] : SV_TessFactor;
    float inside : SV_InsideTessFactor;
    float3 center : CENTER;
};

PatchConstants constants(InputPatch<ControlPoint, 3> patch)
{
    PatchConstants c;
    c.edges[0] = 2.0;
    c.edges[1] = 3.0;
    c.edges[2] = 4.0;
    c.inside = 5.0;
    c.center = (patch[0].position.xyz + patch[1].position.xyz + patch[2].position.xyz) / 3.0;
    return c;
}

[domain("tri")]
[partitioning("integer")]
[outputtopology("triangle_cw")]
[outputcontrolpoints(3)]
[patchconstantfunc("constants")]
ControlPoint hull(InputPatch<ControlPoint, 3> patch, uint i : SV_OutputControlPointID)
{
    return patch[i];
}

[domain("tri")]
float4 domain(PatchConstants c, float3 uvw : SV_DomainLocation,
              const OutputPatch<ControlPoint, 3> patch) : SV_Position
{
    return patch[0].position * uvw.x + patch[1].position * uvw.y + patch[2].position * uvw.z
        + float4(c.center, 0.0);
}
