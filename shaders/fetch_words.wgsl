// element {{ELEMENT}}: {{SEMANTIC}} {{FORMAT}} at offset {{OFFSET}} of slot {{SLOT}}, words through a vertex attribute
fn gpuia_words_{{ELEMENT}}(r: {{WORDS}}) -> vec4<u32> {
  {{LOADS}}
  {{DECODE}}
  return {{RESULT}};
}
