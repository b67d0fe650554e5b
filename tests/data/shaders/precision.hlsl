// Minimum-precision types: FXC and DXC store them in ISG1/OSG1 rows (MinPrecision).
struct VSIn {
    min16float4 position : POSITION;
    min16int2 offset : OFFSET;
    min16uint id : ID;
};

struct VSOut {
    float4 position : SV_Position;
    min16float2 uv : TEXCOORD0;
};

VSOut main(VSIn i)
{
    VSOut o;
    o.position = float4(i.position) + float(i.offset.x + i.offset.y) + float(i.id);
    o.uv = i.position.xy;
    return o;
}
