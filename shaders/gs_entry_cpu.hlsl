
// ---- gpuia: the CPU reference's compute entry of the geometry shader ----
// The entry of gs_entry.hlsl with the host's gathering: invocation t reads its primitive's
// vertex records, then SV_PrimitiveID and SV_GSInstanceID, from hlslw_in[t * in words ...]; its
// region of gpuia_gs_out (the same format as on the GPU) is cleared, then the shader fills it.
#line 1 "gpuia-gs-cpu.hlsl"
StructuredBuffer<uint> hlslw_in;
cbuffer hlslw_cpu_count { uint hlslw_count; };
{{RECORDS}}
[shader("compute")] [numthreads({{GROUP}}, 1, 1)]
void {{ENTRY}}(uint3 gpuia_t : SV_DispatchThreadID) {
    if (gpuia_t.x >= hlslw_count) return;
    uint gpuia_region = gpuia_t.x * {{REGION_WORDS}}u;
    for (uint gpuia_w = 0u; gpuia_w < {{REGION_WORDS}}u; gpuia_w++) {
        gpuia_gs_out[gpuia_region + gpuia_w] = 0u;
    }
    uint gpuia_in = gpuia_t.x * {{IN_WORDS}}u;
    {{INPUT_TYPE}} gpuia_v[{{VERTICES}}];
    for (uint gpuia_j = 0u; gpuia_j < {{VERTICES}}u; gpuia_j++) {
        uint gpuia_b = gpuia_in + gpuia_j * {{VERTEX_WORDS}}u;
        {{READ}}
    }
    uint gpuia_primitive_id = hlslw_in[gpuia_in + {{ID_WORD}}u];
    uint gpuia_instance = hlslw_in[gpuia_in + {{ID_WORD}}u + 1u];
    {{STREAMS}}
    {{CALL}}
}
