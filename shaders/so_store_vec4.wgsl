if ({{ALIGNED}}) {
  gpuia_so_buf_{{DATA}}[(r{{J}} >> 2u) + {{VEC4}}u] = vec4<u32>({{WORDS}});
} else {
  {{SCALARS}}
}
