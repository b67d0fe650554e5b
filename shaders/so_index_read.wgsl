// index read (D3D: outside the index view reads 0, rules 5.6). The position
// must not wrap past 2^32 (p < start_index), and is compared in indices, not
// bytes, so that p * size cannot overflow either.
let p_index = gpuia_so.start_index + j;
var sv_vertex_id = 0u;
if (p_index >= gpuia_so.start_index && p_index < gpuia_so.ib_size / {{INDEX_SIZE}}u) {
  sv_vertex_id = gpuia_load_aux(gpuia_so.ib_base + p_index * {{INDEX_SIZE}}u) & {{MASK}};
}
