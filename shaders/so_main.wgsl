// Each invocation streams {{PER_THREAD}} vertices, a dispatch-wide stride apart (neighbouring
// invocations stay on neighbouring vertices): the per-invocation setup is paid once for several
// vertices. All their inputs are fetched before any output is stored, so the loads are in
// flight together: a store to a storage buffer may alias a later load, which would otherwise
// keep the compiler from issuing loads early. `live`: the vertex is one this draw writes
// (false, as a zeroed struct, otherwise), decided once in the fetch and reused by the emit.
struct GpuiaSOFetched {
  {{FETCHED}}
  live: bool,
}
fn gpuia_so_run(gid: vec3<u32>, nwg: vec3<u32>, base: GpuiaSOBase) {
  let threads = nwg.x * nwg.y * {{WORKGROUP}}u;
  let i = gid.x + gid.y * nwg.x * {{WORKGROUP}}u + gpuia_so.t_base;
  {{FETCHES}}
  {{EMITS}}
}
@compute @workgroup_size({{WORKGROUP}})
fn gpuia_so_main(@builtin(global_invocation_id) gid: vec3<u32>,
                 @builtin(num_workgroups) nwg: vec3<u32>) {
  gpuia_so_run(gid, nwg, GpuiaSOBase(gpuia_so_state_u.written, gpuia_so_state_u.base[0]));
}
// The fused pass's invocation 0 stores what the prepare step would: the state (read by a
// later prepare step and the chunked path), each bound slot's counter, the statistics.
@compute @workgroup_size({{WORKGROUP}})
fn gpuia_so_fused(@builtin(global_invocation_id) gid: vec3<u32>,
                  @builtin(num_workgroups) nwg: vec3<u32>) {
  if (gid.x == 0u && gid.y == 0u) {
    gpuia_so_state[{{WRITTEN}}] = gpuia_so.fused.x;
    gpuia_so_state[{{OVERFLOWED}}] = gpuia_so.fused.y;
    {{FUSED_STORES}}
    gpuia_so_stats[{{STATS_WRITTEN}}] = gpuia_so.stats[0];
    gpuia_so_stats[{{STATS_WRITTEN_HI}}] = gpuia_so.stats[1];
    gpuia_so_stats[{{STATS_NEEDED}}] = gpuia_so.stats[2];
    gpuia_so_stats[{{STATS_NEEDED_HI}}] = gpuia_so.stats[3];
  }
  let s = gpuia_so.slots;
  gpuia_so_run(gid, nwg, GpuiaSOBase(gpuia_so.fused.x, vec4<u32>(s[0].filled, s[1].filled, s[2].filled, s[3].filled)));
}
fn gpuia_so_live(t: u32, written: u32) -> bool {
  return (gpuia_so.t_end == 0u || t < gpuia_so.t_end)
      && t < written * {{VERTICES}}u;
}
fn gpuia_so_fetch(t: u32, base: GpuiaSOBase) -> GpuiaSOFetched {
  var f: GpuiaSOFetched;
  if (!gpuia_so_live(t, base.written)) { return f; }
  let prim = t / {{VERTICES}}u;
  let k = t % {{VERTICES}}u;
  {{VERTEX}}
  let vi = gpuia_draw.vertex_base + sv_vertex_id;
  let ii = gpuia_draw.first_instance + sv_instance_id;
  {{ELEMENTS}}
  {{KEEP}}
  f.live = true;
  return f;
}
fn gpuia_so_emit(t: u32, f: GpuiaSOFetched, base: GpuiaSOBase) {
  if (!f.live) { return; }
  {{UNPACK}}
{{CALL}}
  {{STORES}}
}
