@group(0) @binding(1) var<storage, read_write> gpuia_gs_scan: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read> gpuia_gs_regions: array<u32>;
// One invocation per GS invocation: the complete primitives each stream's strips make in its
// region (a strip of L vertices makes max(L - (v - 1), 0); header bit 2 starts a strip).
@compute @workgroup_size({{WORKGROUP}})
fn gpuia_gs_count(@builtin(workgroup_id) wid: vec3<u32>,
                  @builtin(num_workgroups) nwg: vec3<u32>,
                  @builtin(local_invocation_index) lid: u32) {
  let i = gpuia_gs_group(wid, nwg) * {{WORKGROUP}}u + lid;
  if (i >= gpuia_gs.invocations) { return; }
  let base = (gpuia_gs.first + i) * gpuia_gs.region_words;
  let n = min(gpuia_gs_regions[base], gpuia_gs.max_appends);
  let step = 1u + gpuia_gs.record_words;
  var strip = vec4<u32>(0u);
  var prims = vec4<u32>(0u);
  for (var a = 0u; a < n; a++) {
    let h = gpuia_gs_regions[base + 1u + a * step];
    let s = h & 3u;
    if ((h & 4u) != 0u) { strip[s] = 0u; }
    strip[s] += 1u;
    let v = gpuia_gs.vertices[s];
    if (v != 0u && strip[s] >= v) { prims[s] += 1u; }
  }
  gpuia_gs_scan[i] = prims;
}
