// A vertex shader with an input it never reads: FXC keeps TEXCOORD0 in the input signature
// (ReadWriteMask 0) without declaring it in the code, and D3D still requires an input layout
// to provide it (rules 3.8).
float4 main(float4 position : POSITION, float2 unread : TEXCOORD0) : SV_Position
{
    return position;
}
