// ---- gpuia: a geometry shader's output streams, as gpuia runs the shader (a compute entry) ----
// PointStream, LineStream and TriangleStream are gpuia's own generic structs, which shadow
// Slang's: an Append writes the invocation's next entry of its region in gpuia_gs_out (a header
// word, then the record's words; gpuia.wgsl.blocks, GS_REGION) while fewer than maxvertexcount
// Appends of any stream took effect (rules 13.4), and counts it in the region's word 0; a
// RestartStrip makes the stream's next Append start a strip. No static state: a stream's state
// is its own fields and the region's word 0 (the CPU build runs invocations on several threads).
interface gpuia_IRecord { void gpuia_store(uint gpuia_at); }
RWStructuredBuffer<uint> gpuia_gs_out;
#define GPUIA_STREAM(NAME) \
struct NAME<T : gpuia_IRecord> { \
    uint gpuia_stream; \
    uint gpuia_region; \
    uint gpuia_open; \
    [mutating] void Append(T gpuia_v) { \
        uint gpuia_kept = gpuia_gs_out[gpuia_region]; \
        if (gpuia_kept >= {{MAX_VERTEX_COUNT}}u) return; \
        uint gpuia_at = gpuia_region + 1u + gpuia_kept * {{ENTRY_WORDS}}u; \
        gpuia_gs_out[gpuia_at] = gpuia_stream | (gpuia_open != 0u ? 0u : 4u); \
        gpuia_v.gpuia_store(gpuia_at + 1u); \
        gpuia_open = 1u; \
        gpuia_gs_out[gpuia_region] = gpuia_kept + 1u; \
    } \
    [mutating] void RestartStrip() { gpuia_open = 0u; } \
};
GPUIA_STREAM(PointStream)
GPUIA_STREAM(LineStream)
GPUIA_STREAM(TriangleStream)
#undef GPUIA_STREAM
