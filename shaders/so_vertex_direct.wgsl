var sv_instance_id = 0u;
var p = prim;
if (gpuia_so.instance_count != 1u) {
  sv_instance_id = prim / gpuia_so.prims_per_instance;
  p = prim % gpuia_so.prims_per_instance;
}
let j = {{STEP}}u * p + {{PICK}};
{{VERTEX_ID}}
