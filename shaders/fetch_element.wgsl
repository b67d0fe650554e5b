// element {{ELEMENT}}: {{SEMANTIC}} {{FORMAT}} at offset {{OFFSET}} of slot {{SLOT}}
fn gpuia_fetch_{{ELEMENT}}(vi: u32, ii: u32) -> vec4<u32> {
  let s = gpuia_draw.slots[{{ENTRY}}];
  if (s.bound == 0u) { return vec4<u32>(0u); }
  let rel = s.stride * ({{INDEX}}) + {{OFFSET}}u;
  if (rel > s.size || s.size - rel < {{SIZE}}u) { return {{OUT_OF_BOUNDS}}; }
  let b = s.base + rel;
  {{LOADS}}
  {{DECODE}}
  return {{RESULT}};
}
