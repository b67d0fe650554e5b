{{GS_SO_STATE}}
@group(0) @binding(1) var<storage, read> gpuia_gs_scan: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read> gpuia_gs_regions: array<u32>;
@group(0) @binding(3) var<storage, read> gpuia_gs_state: GpuiaGSSOState;
// The targets' data buffers, each buffer bound once.
@group(0) @binding(4) var<storage, read_write> gpuia_gs_target0: array<u32>;
@group(0) @binding(5) var<storage, read_write> gpuia_gs_target1: array<u32>;
@group(0) @binding(6) var<storage, read_write> gpuia_gs_target2: array<u32>;
@group(0) @binding(7) var<storage, read_write> gpuia_gs_target3: array<u32>;
// The slots' entries that are no gap: (record word, word in the slot's vertex, components, 0).
@group(0) @binding(8) var<storage, read> gpuia_gs_entries: array<vec4<u32>>;

fn gpuia_gs_store(b: u32, w: u32, x: u32) {
  switch b {
    case 0u: { gpuia_gs_target0[w] = x; }
    case 1u: { gpuia_gs_target1[w] = x; }
    case 2u: { gpuia_gs_target2[w] = x; }
    default: { gpuia_gs_target3[w] = x; }
  }
}

// Vertex k of the chunk's primitive g of stream s, whose record starts at regions word `at`,
// into every slot of the stream; a gap's words are left untouched.
fn gpuia_gs_vertex(s: u32, g: u32, k: u32, at: u32) {
  let v = gpuia_gs.vertices[s];
  for (var j = 0u; j < 4u; j++) {
    let slot = gpuia_gs.slots[j];
    if (slot.declared == 0u || slot.bound == 0u || slot.stream != s) { continue; }
    // The word in the slot's data binding: its window starts at data_base of the buffer.
    let at_k = select(k, (k + v - 1u) % v, slot.rotate != 0u);
    let base = (slot.location + gpuia_gs_state.filled[j] + (g * v + at_k) * slot.stride) / 4u
               - gpuia_gs.data_base[slot.data];
    for (var e = slot.entry_first; e < slot.entry_first + slot.entry_count; e++) {
      let row = gpuia_gs_entries[e];
      for (var c = 0u; c < row.z; c++) {
        gpuia_gs_store(slot.data, base + row.y + c, gpuia_gs_regions[at + row.x + c]);
      }
    }
  }
}

// One invocation per GS invocation: its primitives whose index in their stream is below what
// the fit step let the stream write, in D3D's strip order (rules 9.3, 13.5): triangle t of a
// strip (t, t+1, t+2) for even t, (t, t+2, t+1) for odd t; segment t (t, t+1).
@compute @workgroup_size({{WORKGROUP}})
fn gpuia_gs_write(@builtin(workgroup_id) wid: vec3<u32>,
                  @builtin(num_workgroups) nwg: vec3<u32>,
                  @builtin(local_invocation_index) lid: u32) {
  let i = gpuia_gs_group(wid, nwg) * {{WORKGROUP}}u + lid;
  if (i >= gpuia_gs.invocations) { return; }
  var next = gpuia_gs_scan[i];  // the stream index of each stream's next primitive
  let written = gpuia_gs_state.written;
  if (all(next >= written)) { return; }
  let base = (gpuia_gs.first + i) * gpuia_gs.region_words;
  let n = min(gpuia_gs_regions[base], gpuia_gs.max_appends);
  let step = 1u + gpuia_gs.record_words;
  var strip = vec4<u32>(0u);
  var older = vec4<u32>(0u);  // per stream, the record of the Append before the previous one
  var previous = vec4<u32>(0u);  // and of the previous one
  for (var a = 0u; a < n; a++) {
    let at = base + 1u + a * step;
    let h = gpuia_gs_regions[at];
    let s = h & 3u;
    if ((h & 4u) != 0u) { strip[s] = 0u; }
    strip[s] += 1u;
    let v = gpuia_gs.vertices[s];
    let rec = at + 1u;
    if (v != 0u && strip[s] >= v) {
      let g = next[s];
      if (g < written[s]) {
        if (v == 1u) {
          gpuia_gs_vertex(s, g, 0u, rec);
        } else if (v == 2u) {
          gpuia_gs_vertex(s, g, 0u, previous[s]);
          gpuia_gs_vertex(s, g, 1u, rec);
        } else if (((strip[s] - 3u) & 1u) == 0u) {
          gpuia_gs_vertex(s, g, 0u, older[s]);
          gpuia_gs_vertex(s, g, 1u, previous[s]);
          gpuia_gs_vertex(s, g, 2u, rec);
        } else {
          gpuia_gs_vertex(s, g, 0u, older[s]);
          gpuia_gs_vertex(s, g, 1u, rec);
          gpuia_gs_vertex(s, g, 2u, previous[s]);
        }
      }
      next[s] = g + 1u;
    }
    older[s] = previous[s];
    previous[s] = rec;
  }
}
