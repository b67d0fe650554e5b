{{GS_SO_STATE}}
@group(0) @binding(1) var<storage, read> gpuia_gs_scan: array<vec4<u32>>;
@group(0) @binding(3) var<storage, read_write> gpuia_gs_state: GpuiaGSSOState;
// The targets' BufferFilledSize counters, each buffer bound once.
@group(0) @binding(4) var<storage, read_write> gpuia_gs_counter0: array<u32>;
@group(0) @binding(5) var<storage, read_write> gpuia_gs_counter1: array<u32>;
@group(0) @binding(6) var<storage, read_write> gpuia_gs_counter2: array<u32>;
@group(0) @binding(7) var<storage, read_write> gpuia_gs_counter3: array<u32>;

fn gpuia_gs_counter_load(b: u32, w: u32) -> u32 {
  switch b {
    case 0u: { return gpuia_gs_counter0[w]; }
    case 1u: { return gpuia_gs_counter1[w]; }
    case 2u: { return gpuia_gs_counter2[w]; }
    default: { return gpuia_gs_counter3[w]; }
  }
}

fn gpuia_gs_counter_store(b: u32, w: u32, x: u32) {
  switch b {
    case 0u: { gpuia_gs_counter0[w] = x; }
    case 1u: { gpuia_gs_counter1[w] = x; }
    case 2u: { gpuia_gs_counter2[w] = x; }
    default: { gpuia_gs_counter3[w] = x; }
  }
}

// Adds x to the 64-bit count at words k, k + 1 of stream s's statistics.
fn gpuia_gs_add64(s: u32, k: u32, x: u32) {
  let lo = gpuia_gs_state.stats[s][k] + x;
  if (lo < x) { gpuia_gs_state.stats[s][k + 1u] += 1u; }
  gpuia_gs_state.stats[s][k] = lo;
}

// The fit step of one stream needing `needed` primitives of v vertices: the largest prefix of
// whole primitives that fits in every slot of the stream (none once it overflowed; a declared
// slot without a target is full), each slot's BufferFilledSize before it kept in the state.
fn gpuia_gs_fit_stream(s: u32, v: u32, needed: u32) -> u32 {
  var written = needed;
  if (gpuia_gs_state.overflowed[s] != 0u) { written = 0u; }
  for (var k = 0u; k < 4u; k++) {
    let slot = gpuia_gs.slots[k];
    if (slot.declared == 0u || slot.stream != s) { continue; }
    if (slot.bound == 0u) { written = 0u; continue; }
    let filled = gpuia_gs_counter_load(slot.counter, slot.counter_word);
    var room = 0u;
    if (filled <= slot.size) { room = slot.size - filled; }
    written = min(written, room / (v * slot.stride));
    gpuia_gs_state.filled[k] = filled;
  }
  return written;
}

// One invocation: per stream, the fit, the counters, the overflow flag and the statistics
// (rules 9.7, 9.8, 10.1, 10.2, 13.8). A stream writing no slot counts nothing.
@compute @workgroup_size(1)
fn gpuia_gs_fit() {
  let needed = gpuia_gs_scan[gpuia_gs.total_at];
  for (var s = 0u; s < 4u; s++) {
    let v = gpuia_gs.vertices[s];
    var written = 0u;
    if (v != 0u) {
      written = gpuia_gs_fit_stream(s, v, needed[s]);
      if (written < needed[s]) { gpuia_gs_state.overflowed[s] = 1u; }
      for (var k = 0u; k < 4u; k++) {
        let slot = gpuia_gs.slots[k];
        if (slot.declared == 0u || slot.bound == 0u || slot.stream != s) { continue; }
        gpuia_gs_counter_store(slot.counter, slot.counter_word,
                               gpuia_gs_state.filled[k] + written * v * slot.stride);
      }
      gpuia_gs_add64(s, 0u, written);
      gpuia_gs_add64(s, 2u, needed[s]);
    }
    gpuia_gs_state.written[s] = written;
  }
}
