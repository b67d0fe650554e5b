@group(0) @binding(1) var<storage, read_write> gpuia_gs_scan: array<vec4<u32>>;
var<workgroup> gpuia_gs_part: array<vec4<u32>, {{WORKGROUP}}>;

// Entry j of scan level `level`, 0 past its length.
fn gpuia_gs_load(level: u32, j: u32) -> vec4<u32> {
  if (j >= gpuia_gs.level_length[level]) { return vec4<u32>(0u); }
  return gpuia_gs_scan[gpuia_gs.level_offset[level] + j];
}

// The exclusive prefix of `x` over the workgroup's invocations, in local order.
fn gpuia_gs_workgroup_scan(lid: u32, x: vec4<u32>) -> vec4<u32> {
  gpuia_gs_part[lid] = x;
  workgroupBarrier();
  for (var d = 1u; d < {{WORKGROUP}}u; d = d << 1u) {
    var y = vec4<u32>(0u);
    if (lid >= d) { y = gpuia_gs_part[lid - d]; }
    workgroupBarrier();
    gpuia_gs_part[lid] += y;
    workgroupBarrier();
  }
  return gpuia_gs_part[lid] - x;
}

// One total per block of {{BLOCK}} entries of `level`, into level + 1.
@compute @workgroup_size({{WORKGROUP}})
fn gpuia_gs_reduce(@builtin(workgroup_id) wid: vec3<u32>,
                   @builtin(num_workgroups) nwg: vec3<u32>,
                   @builtin(local_invocation_index) lid: u32) {
  let level = gpuia_gs.level;
  let block = gpuia_gs_group(wid, nwg);
  if (block >= gpuia_gs.level_length[level + 1u]) { return; }
  let first = block * {{BLOCK}}u + lid * {{ITEMS}}u;
  var sum = vec4<u32>(0u);
  for (var k = 0u; k < {{ITEMS}}u; k++) { sum += gpuia_gs_load(level, first + k); }
  let before = gpuia_gs_workgroup_scan(lid, sum);
  if (lid == {{WORKGROUP}}u - 1u) {
    gpuia_gs_scan[gpuia_gs.level_offset[level + 1u] + block] = before + sum;
  }
}

// Each entry of `level` becomes its exclusive prefix: within its block, plus the block's
// prefix from level + 1 (already scanned). The top level is one block; it also records the
// grand totals at total_at.
@compute @workgroup_size({{WORKGROUP}})
fn gpuia_gs_scan_level(@builtin(workgroup_id) wid: vec3<u32>,
                       @builtin(num_workgroups) nwg: vec3<u32>,
                       @builtin(local_invocation_index) lid: u32) {
  let level = gpuia_gs.level;
  let length = gpuia_gs.level_length[level];
  let block = gpuia_gs_group(wid, nwg);
  if (block * {{BLOCK}}u >= length) { return; }
  let first = block * {{BLOCK}}u + lid * {{ITEMS}}u;
  var items: array<vec4<u32>, {{ITEMS}}>;
  var sum = vec4<u32>(0u);
  for (var k = 0u; k < {{ITEMS}}u; k++) {
    items[k] = gpuia_gs_load(level, first + k);
    sum += items[k];
  }
  var run = gpuia_gs_workgroup_scan(lid, sum);
  if (level < gpuia_gs.top) {
    run += gpuia_gs_scan[gpuia_gs.level_offset[level + 1u] + block];
  } else if (lid == {{WORKGROUP}}u - 1u) {
    gpuia_gs_scan[gpuia_gs.total_at] = run + sum;
  }
  let offset = gpuia_gs.level_offset[level];
  for (var k = 0u; k < {{ITEMS}}u; k++) {
    if (first + k < length) { gpuia_gs_scan[offset + first + k] = run; }
    run += items[k];
  }
}
