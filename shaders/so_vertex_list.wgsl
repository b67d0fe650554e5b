// Every instance repeats the list (each restarts the topology, rules 4.9). t is live, so the
// instance has primitives and per is not 0.
let per = gpuia_so.prims_per_instance * {{VERTICES}}u;
let sv_instance_id = t / per;
let sv_vertex_id = gpuia_so_aux[t % per];
