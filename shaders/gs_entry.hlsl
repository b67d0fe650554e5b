
// ---- gpuia: the compute entry that runs the geometry shader, one thread per invocation ----
// Invocation i of the dispatch (first + thread) is GS instance i % instances of primitive
// i / instances (rules 13.3); its region of gpuia_gs_out is cleared, then the shader fills it.
#line 1 "gpuia-gs.hlsl"
StructuredBuffer<uint> gpuia_gs_vertices;
StructuredBuffer<uint> gpuia_gs_prims;
cbuffer gpuia_gs_params {
    uint gpuia_first;
    uint gpuia_count;
    uint gpuia_instances;
    uint gpuia_vertex_words;
    uint gpuia_region_words;
};
{{RECORDS}}
[shader("compute")] [numthreads({{GROUP}}, 1, 1)]
void {{ENTRY}}(uint3 gpuia_t : SV_DispatchThreadID) {
    if (gpuia_t.x >= gpuia_count) return;
    uint gpuia_i = gpuia_first + gpuia_t.x;
    uint gpuia_p = gpuia_i / gpuia_instances;
    uint gpuia_region = gpuia_t.x * gpuia_region_words;
    for (uint gpuia_w = 0u; gpuia_w < gpuia_region_words; gpuia_w++) {
        gpuia_gs_out[gpuia_region + gpuia_w] = 0u;
    }
    uint gpuia_prim = gpuia_p * {{PRIM_WORDS}}u;
    {{INPUT_TYPE}} gpuia_v[{{VERTICES}}];
    for (uint gpuia_j = 0u; gpuia_j < {{VERTICES}}u; gpuia_j++) {
        uint gpuia_b = gpuia_gs_prims[gpuia_prim + gpuia_j] * gpuia_vertex_words;
        {{READ}}
    }
    uint gpuia_primitive_id = gpuia_gs_prims[gpuia_prim + {{VERTICES}}u];
    uint gpuia_instance = gpuia_i % gpuia_instances;
    {{STREAMS}}
    {{CALL}}
}
