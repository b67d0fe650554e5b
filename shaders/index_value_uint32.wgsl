// The value D3D delivers at position j of one instance (rules 4.2, 5.5, 5.6).
fn gpuia_ix_value(j: u32) -> u32 {
  let p = gpuia_ix.start + j;
  // Past the view's SizeInBytes reads 0 (5.6); p < start: the position wrapped past
  // 2^32, also past the view. Compared in indices, so p * size cannot overflow.
  if (p < gpuia_ix.start || p >= gpuia_ix.held) { return 0u; }
  let a = gpuia_ix.ib_base + p * 4u;  // byte address in the bound window
  let s = (a & 3u) * 8u;
  let lo = gpuia_ix_words[a >> 2u];
  if (s == 0u) { return lo; }
  // Not word-aligned: the next word holds the rest (a shift by 32 is not defined).
  return (lo >> s) | (gpuia_ix_words[(a >> 2u) + 1u] << (32u - s));
}
