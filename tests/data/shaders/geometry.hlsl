// Geometry shaders: one stream of triangles, and two streams from two instances.
struct GSIn {
    float4 position : SV_Position;
    float2 uv : TEXCOORD0;
};

struct GSOut {
    float4 position : SV_Position;
    float2 uv : TEXCOORD0;
};

struct Marker {
    float4 position : SV_Position;
    uint id : MARKER;
};

[maxvertexcount(3)]
void triangles(triangle GSIn v[3], inout TriangleStream<GSOut> s)
{
    for (uint k = 0; k < 3; k++) {
        GSOut o;
        o.position = v[k].position;
        o.uv = v[k].uv;
        s.Append(o);
    }
}

[instance(2)]
[maxvertexcount(4)]
void streams(line GSIn v[2], uint instance : SV_GSInstanceID, uint primitive : SV_PrimitiveID,
             inout PointStream<GSOut> s0, inout PointStream<Marker> s1)
{
    GSOut o;
    o.position = v[0].position;
    o.uv = v[1].uv;
    s0.Append(o);
    Marker m;
    m.position = v[1].position;
    m.id = instance + primitive;
    s1.Append(m);
    s1.Append(m);
}
