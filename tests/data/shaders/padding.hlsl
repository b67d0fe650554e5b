// Vertex shaders of different lengths, so that both padding cases of the DXBC checksum (the
// container's size after byte 20, modulo 64, below 56 and from 56 on) come from FXC: with vs_4_0,
// "short" leaves 20 bytes, "long" 60.
float4 short(float4 p : POSITION) : SV_Position { return p; }
float4 long(float4 p : POSITION) : SV_Position { return p * 2.0 + 1.0; }
