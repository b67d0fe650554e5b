// golden: index_null_view
// index pass of an indexed point list through a NULL index view (every index reads 0): the kept
// stream only
// regenerate: pytest tests/unit/test_wgsl_golden.py --regenerate-golden

// gpuia index pass: D3D index sequencing, strip cuts and primitive order
// topology POINTLIST, source null, cut none, rotate false, program closed
struct GpuiaIndexParams {
  count: u32,  // word 0
  start: u32,  // word 1
  ib_base: u32,  // word 2
  held: u32,  // word 3
  instance_count: u32,  // word 4
  base_vertex: u32,  // word 5
  first_instance: u32,  // word 6
  items_per_group: u32,  // word 7
  max_groups: u32,  // word 8
  level: u32,  // word 9
  scan: u32,  // word 10
  pad: u32,  // word 11
  level_offset: vec4<u32>,  // word 12
  level_length: vec4<u32>,  // word 16
}
struct GpuiaIndexArgs {
  list: array<u32, 5>,  // word 0
  kept: array<u32, 5>,  // word 5
  primitives: u32,  // word 10
  needed: array<u32, 2>,  // word 11
  dispatch: array<u32, 3>,  // word 13
  sums: array<u32, 4>,  // word 16
}
@group(0) @binding(0) var<uniform> gpuia_ix: GpuiaIndexParams;
@group(0) @binding(1) var<storage, read> gpuia_ix_words: array<u32>;
@group(0) @binding(2) var<storage, read_write> gpuia_ix_codes: array<u32>;
@group(0) @binding(3) var<storage, read_write> gpuia_ix_totals: array<vec2<u32>>;
@group(0) @binding(4) var<storage, read_write> gpuia_ix_list: array<u32>;
@group(0) @binding(5) var<storage, read_write> gpuia_ix_kept: array<u32>;
@group(0) @binding(6) var<storage, read_write> gpuia_ix_args: GpuiaIndexArgs;
var<workgroup> gpuia_ix_shared: array<vec2<u32>, 256>;

//@piece index_value_null.wgsl

fn gpuia_ix_is_cut(v: u32) -> bool {
  return false;  // the PSO's literal, whatever the index width (5.3)
}
// Complete primitives of a cut-free run of n positions (the topology table's form).
fn gpuia_ix_primitives(n: u32) -> u32 {
  if (n <= 0u) { return 0u; }
  return (n - 1u - 0u) / 1u + 1u;
}
// Runs combine by (sum of cuts, max of run start); the primitive scan uses x only.
fn gpuia_ix_combine(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
  return vec2<u32>(a.x + b.x, max(a.y, b.y));
}
struct GpuiaIxScan { before: vec2<u32>, total: vec2<u32> }
// Exclusive scan of one value per invocation over the workgroup (Hillis-Steele), and
// the workgroup's total. Every invocation must call it (it holds barriers).
fn gpuia_ix_workgroup_scan(lid: u32, value: vec2<u32>) -> GpuiaIxScan {
  gpuia_ix_shared[lid] = value;
  workgroupBarrier();
  for (var d = 1u; d < 256u; d = d << 1u) {
    var earlier = vec2<u32>(0u, 0u);
    if (lid >= d) { earlier = gpuia_ix_shared[lid - d]; }
    workgroupBarrier();
    if (lid >= d) {
      gpuia_ix_shared[lid] = gpuia_ix_combine(earlier, gpuia_ix_shared[lid]);
    }
    workgroupBarrier();
  }
  var r: GpuiaIxScan;
  if (lid > 0u) { r.before = gpuia_ix_shared[lid - 1u]; }
  r.total = gpuia_ix_shared[255u];
  workgroupBarrier();  // everyone has read before the array is written again
  return r;
}
// Workgroups of a dispatch laid out in two dimensions, in order.
fn gpuia_ix_group(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
  return wid.x + wid.y * nwg.x;
}

// One run: position j keeps its value at j, and starts primitive j / step when
// j % step == 0 and the primitive's last position j + span is in the draw.
@compute @workgroup_size(256)
fn gpuia_ix_closed(@builtin(workgroup_id) wid: vec3<u32>,
                   @builtin(num_workgroups) nwg: vec3<u32>,
                   @builtin(local_invocation_index) lid: u32) {
  let j = gpuia_ix_group(wid, nwg) * 256u + lid;
  let n = gpuia_ix.count;
  if (j >= n) { return; }
  gpuia_ix_kept[j] = gpuia_ix_value(j);
}

// Scan entries: a level's entry e (identity past the level's length).
fn gpuia_ix_entry(level: u32, e: u32) -> vec2<u32> {
  if (e >= gpuia_ix.level_length[level]) { return vec2<u32>(0u, 0u); }
  return gpuia_ix_totals[gpuia_ix.level_offset[level] + e];
}
// The cut scan's value at position j: a cut at j starts the next run at j + 1.
fn gpuia_ix_cut_item(j: u32) -> vec2<u32> {
  if (j >= gpuia_ix.count || !gpuia_ix_is_cut(gpuia_ix_value(j))) {
    return vec2<u32>(0u, 0u);
  }
  return vec2<u32>(1u, j + 1u);
}
// The primitive scan's value at position j: 1 where a primitive starts.
fn gpuia_ix_prim_item(j: u32) -> vec2<u32> {
  if (j >= gpuia_ix.count || gpuia_ix_codes[j] == 0u) { return vec2<u32>(0u, 0u); }
  return vec2<u32>(1u, 0u);
}
// Position j with its exclusive prefix (cuts before j, start of j's run).
fn gpuia_ix_cut_emit(j: u32, pre: vec2<u32>) {
  if (j >= gpuia_ix.count) { return; }
  let v = gpuia_ix_value(j);
  var code = 0u;
  if (!gpuia_ix_is_cut(v)) {
    gpuia_ix_kept[j - pre.x] = v;
    let place = j - pre.y;  // position within its cut-free run
    var whole = place % 1u == 0u && gpuia_ix.count > 0u && j < gpuia_ix.count - 0u;
    for (var k = 1u; k <= 0u; k = k + 1u) {
      if (whole && gpuia_ix_is_cut(gpuia_ix_value(j + k))) { whole = false; }
    }
    if (whole) { code = 1u + ((place / 1u) & 1u); }
  }
  gpuia_ix_codes[j] = code;
}
fn gpuia_ix_prim_emit(j: u32, pre: vec2<u32>) {
  if (j >= gpuia_ix.count) { return; }
  let code = gpuia_ix_codes[j];
  if (code != 0u) {
    let parity = code - 1u;
    gpuia_ix_list[pre.x * 1u + 0u] = gpuia_ix_value(j + 0u);
  }
}

@compute @workgroup_size(256)
fn gpuia_ix_cuts_reduce(@builtin(workgroup_id) wid: vec3<u32>,
           @builtin(num_workgroups) nwg: vec3<u32>,
           @builtin(local_invocation_index) lid: u32) {
  let block = gpuia_ix_group(wid, nwg);
  if (block >= gpuia_ix.level_length[0u + 1u]) { return; }
  let first = block * 1024u + lid * 4u;
  let a0 = gpuia_ix_cut_item(first + 0u);
  let a1 = gpuia_ix_cut_item(first + 1u);
  let a2 = gpuia_ix_cut_item(first + 2u);
  let a3 = gpuia_ix_cut_item(first + 3u);
  let pre0 = vec2<u32>(0u, 0u);
  let pre1 = gpuia_ix_combine(pre0, a0);
  let pre2 = gpuia_ix_combine(pre1, a1);
  let pre3 = gpuia_ix_combine(pre2, a2);
  let s = gpuia_ix_workgroup_scan(lid, gpuia_ix_combine(pre3, a3));
  if (lid == 0u) { gpuia_ix_totals[gpuia_ix.level_offset[1] + block] = s.total; }
}

@compute @workgroup_size(256)
fn gpuia_ix_cuts_final(@builtin(workgroup_id) wid: vec3<u32>,
           @builtin(num_workgroups) nwg: vec3<u32>,
           @builtin(local_invocation_index) lid: u32) {
  let block = gpuia_ix_group(wid, nwg);
  if (block >= gpuia_ix.level_length[0u + 1u]) { return; }
  let first = block * 1024u + lid * 4u;
  let a0 = gpuia_ix_cut_item(first + 0u);
  let a1 = gpuia_ix_cut_item(first + 1u);
  let a2 = gpuia_ix_cut_item(first + 2u);
  let a3 = gpuia_ix_cut_item(first + 3u);
  let pre0 = vec2<u32>(0u, 0u);
  let pre1 = gpuia_ix_combine(pre0, a0);
  let pre2 = gpuia_ix_combine(pre1, a1);
  let pre3 = gpuia_ix_combine(pre2, a2);
  let s = gpuia_ix_workgroup_scan(lid, gpuia_ix_combine(pre3, a3));
  let base = gpuia_ix_combine(gpuia_ix_entry(1u, block), s.before);
  gpuia_ix_cut_emit(first + 0u, gpuia_ix_combine(base, pre0));
  gpuia_ix_cut_emit(first + 1u, gpuia_ix_combine(base, pre1));
  gpuia_ix_cut_emit(first + 2u, gpuia_ix_combine(base, pre2));
  gpuia_ix_cut_emit(first + 3u, gpuia_ix_combine(base, pre3));
}

@compute @workgroup_size(256)
fn gpuia_ix_prims_reduce(@builtin(workgroup_id) wid: vec3<u32>,
           @builtin(num_workgroups) nwg: vec3<u32>,
           @builtin(local_invocation_index) lid: u32) {
  let block = gpuia_ix_group(wid, nwg);
  if (block >= gpuia_ix.level_length[0u + 1u]) { return; }
  let first = block * 1024u + lid * 4u;
  let a0 = gpuia_ix_prim_item(first + 0u);
  let a1 = gpuia_ix_prim_item(first + 1u);
  let a2 = gpuia_ix_prim_item(first + 2u);
  let a3 = gpuia_ix_prim_item(first + 3u);
  let pre0 = vec2<u32>(0u, 0u);
  let pre1 = gpuia_ix_combine(pre0, a0);
  let pre2 = gpuia_ix_combine(pre1, a1);
  let pre3 = gpuia_ix_combine(pre2, a2);
  let s = gpuia_ix_workgroup_scan(lid, gpuia_ix_combine(pre3, a3));
  if (lid == 0u) { gpuia_ix_totals[gpuia_ix.level_offset[1] + block] = s.total; }
}

@compute @workgroup_size(256)
fn gpuia_ix_prims_final(@builtin(workgroup_id) wid: vec3<u32>,
           @builtin(num_workgroups) nwg: vec3<u32>,
           @builtin(local_invocation_index) lid: u32) {
  let block = gpuia_ix_group(wid, nwg);
  if (block >= gpuia_ix.level_length[0u + 1u]) { return; }
  let first = block * 1024u + lid * 4u;
  let a0 = gpuia_ix_prim_item(first + 0u);
  let a1 = gpuia_ix_prim_item(first + 1u);
  let a2 = gpuia_ix_prim_item(first + 2u);
  let a3 = gpuia_ix_prim_item(first + 3u);
  let pre0 = vec2<u32>(0u, 0u);
  let pre1 = gpuia_ix_combine(pre0, a0);
  let pre2 = gpuia_ix_combine(pre1, a1);
  let pre3 = gpuia_ix_combine(pre2, a2);
  let s = gpuia_ix_workgroup_scan(lid, gpuia_ix_combine(pre3, a3));
  let base = gpuia_ix_combine(gpuia_ix_entry(1u, block), s.before);
  gpuia_ix_prim_emit(first + 0u, gpuia_ix_combine(base, pre0));
  gpuia_ix_prim_emit(first + 1u, gpuia_ix_combine(base, pre1));
  gpuia_ix_prim_emit(first + 2u, gpuia_ix_combine(base, pre2));
  gpuia_ix_prim_emit(first + 3u, gpuia_ix_combine(base, pre3));
}

@compute @workgroup_size(256)
fn gpuia_ix_up(@builtin(workgroup_id) wid: vec3<u32>,
           @builtin(num_workgroups) nwg: vec3<u32>,
           @builtin(local_invocation_index) lid: u32) {
  let block = gpuia_ix_group(wid, nwg);
  if (block >= gpuia_ix.level_length[gpuia_ix.level + 1u]) { return; }
  let first = block * 1024u + lid * 4u;
  let a0 = gpuia_ix_entry(gpuia_ix.level, first + 0u);
  let a1 = gpuia_ix_entry(gpuia_ix.level, first + 1u);
  let a2 = gpuia_ix_entry(gpuia_ix.level, first + 2u);
  let a3 = gpuia_ix_entry(gpuia_ix.level, first + 3u);
  let pre0 = vec2<u32>(0u, 0u);
  let pre1 = gpuia_ix_combine(pre0, a0);
  let pre2 = gpuia_ix_combine(pre1, a1);
  let pre3 = gpuia_ix_combine(pre2, a2);
  let s = gpuia_ix_workgroup_scan(lid, gpuia_ix_combine(pre3, a3));
  if (lid == 0u) {
    gpuia_ix_totals[gpuia_ix.level_offset[gpuia_ix.level + 1u] + block] = s.total;
  }
}

@compute @workgroup_size(256)
fn gpuia_ix_down(@builtin(workgroup_id) wid: vec3<u32>,
           @builtin(num_workgroups) nwg: vec3<u32>,
           @builtin(local_invocation_index) lid: u32) {
  let block = gpuia_ix_group(wid, nwg);
  if (block >= gpuia_ix.level_length[gpuia_ix.level + 1u]) { return; }
  let first = block * 1024u + lid * 4u;
  let a0 = gpuia_ix_entry(gpuia_ix.level, first + 0u);
  let a1 = gpuia_ix_entry(gpuia_ix.level, first + 1u);
  let a2 = gpuia_ix_entry(gpuia_ix.level, first + 2u);
  let a3 = gpuia_ix_entry(gpuia_ix.level, first + 3u);
  let pre0 = vec2<u32>(0u, 0u);
  let pre1 = gpuia_ix_combine(pre0, a0);
  let pre2 = gpuia_ix_combine(pre1, a1);
  let pre3 = gpuia_ix_combine(pre2, a2);
  let s = gpuia_ix_workgroup_scan(lid, gpuia_ix_combine(pre3, a3));
  let base = gpuia_ix_combine(gpuia_ix_entry(gpuia_ix.level + 1u, block), s.before);
  let here = gpuia_ix.level_offset[gpuia_ix.level];
  let length = gpuia_ix.level_length[gpuia_ix.level];
  if (first + 0u < length) { gpuia_ix_totals[here + first + 0u] = gpuia_ix_combine(base, pre0); }
  if (first + 1u < length) { gpuia_ix_totals[here + first + 1u] = gpuia_ix_combine(base, pre1); }
  if (first + 2u < length) { gpuia_ix_totals[here + first + 2u] = gpuia_ix_combine(base, pre2); }
  if (first + 3u < length) { gpuia_ix_totals[here + first + 3u] = gpuia_ix_combine(base, pre3); }
}

// The last level fits one workgroup: scanned in place; the grand total is recorded.
@compute @workgroup_size(256)
fn gpuia_ix_top(@builtin(local_invocation_index) lid: u32) {
  let first = lid * 4u;
  let a0 = gpuia_ix_entry(gpuia_ix.level, first + 0u);
  let a1 = gpuia_ix_entry(gpuia_ix.level, first + 1u);
  let a2 = gpuia_ix_entry(gpuia_ix.level, first + 2u);
  let a3 = gpuia_ix_entry(gpuia_ix.level, first + 3u);
  let pre0 = vec2<u32>(0u, 0u);
  let pre1 = gpuia_ix_combine(pre0, a0);
  let pre2 = gpuia_ix_combine(pre1, a1);
  let pre3 = gpuia_ix_combine(pre2, a2);
  let s = gpuia_ix_workgroup_scan(lid, gpuia_ix_combine(pre3, a3));
  let base = s.before;
  let here = gpuia_ix.level_offset[gpuia_ix.level];
  let length = gpuia_ix.level_length[gpuia_ix.level];
  if (first + 0u < length) { gpuia_ix_totals[here + first + 0u] = gpuia_ix_combine(base, pre0); }
  if (first + 1u < length) { gpuia_ix_totals[here + first + 1u] = gpuia_ix_combine(base, pre1); }
  if (first + 2u < length) { gpuia_ix_totals[here + first + 2u] = gpuia_ix_combine(base, pre2); }
  if (first + 3u < length) { gpuia_ix_totals[here + first + 3u] = gpuia_ix_combine(base, pre3); }
  if (lid == 0u) {
    gpuia_ix_args.sums[2u * gpuia_ix.scan] = s.total.x;
    gpuia_ix_args.sums[2u * gpuia_ix.scan + 1u] = s.total.y;
  }
}

// a * b as a 64-bit (lo, hi) pair: WGSL has no 64-bit integers.
fn gpuia_ix_mul_wide(a: u32, b: u32) -> vec2<u32> {
  let a0 = a & 0xffffu;
  let a1 = a >> 16u;
  let b0 = b & 0xffffu;
  let b1 = b >> 16u;
  let p00 = a0 * b0;
  let p01 = a0 * b1;
  let p10 = a1 * b0;
  let mid = (p00 >> 16u) + (p01 & 0xffffu) + (p10 & 0xffffu);
  let lo = (p00 & 0xffffu) | (mid << 16u);
  return vec2<u32>(lo, a1 * b1 + (p01 >> 16u) + (p10 >> 16u) + (mid >> 16u));
}
// The args: both streams' draw arguments, the primitive counts, the dispatch arguments.
@compute @workgroup_size(1)
fn gpuia_ix_finish() {
  let n = gpuia_ix.count;
  let kept = n;
  let prims = gpuia_ix_primitives(n);
  gpuia_ix_args.list[0] = prims * 1u;
  gpuia_ix_args.kept[0] = kept;
  gpuia_ix_args.list[1] = gpuia_ix.instance_count;
  gpuia_ix_args.list[2] = 0u;
  gpuia_ix_args.list[3] = gpuia_ix.base_vertex;
  gpuia_ix_args.list[4] = gpuia_ix.first_instance;
  gpuia_ix_args.kept[1] = gpuia_ix.instance_count;
  gpuia_ix_args.kept[2] = 0u;
  gpuia_ix_args.kept[3] = gpuia_ix.base_vertex;
  gpuia_ix_args.kept[4] = gpuia_ix.first_instance;
  gpuia_ix_args.primitives = prims;
  let needed = gpuia_ix_mul_wide(prims, gpuia_ix.instance_count);
  gpuia_ix_args.needed[0] = needed.x;
  gpuia_ix_args.needed[1] = needed.y;
  // Workgroups for every vertex of every primitive: x first, then rows of x.
  let items = gpuia_ix_mul_wide(needed.x, 1u);
  let items_hi = needed.y * 1u + items.y;
  let g = gpuia_ix.items_per_group;
  var groups = 0u;
  if (g != 0u) {
    groups = items.x / g + select(0u, 1u, items.x % g != 0u);
    if (items_hi != 0u) { groups = 0xffffffffu; }  // saturated: the host bounds it
  }
  let x = min(groups, gpuia_ix.max_groups);
  var y = 0u;
  if (x != 0u) { y = min((groups - 1u) / x + 1u, gpuia_ix.max_groups); }
  gpuia_ix_args.dispatch[0] = x;
  gpuia_ix_args.dispatch[1] = y;
  gpuia_ix_args.dispatch[2] = select(0u, 1u, x != 0u);
}
