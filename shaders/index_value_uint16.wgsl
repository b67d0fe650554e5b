// The value D3D delivers at position j of one instance (rules 4.2, 5.5, 5.6).
fn gpuia_ix_value(j: u32) -> u32 {
  let p = gpuia_ix.start + j;
  // Past the view's SizeInBytes reads 0 (5.6); p < start: the position wrapped past
  // 2^32, also past the view. Compared in indices, so p * size cannot overflow.
  if (p < gpuia_ix.start || p >= gpuia_ix.held) { return 0u; }
  let a = gpuia_ix.ib_base + p * 2u;  // byte address in the bound window
  let s = (a & 3u) * 8u;
  // A 16-bit index at a 2-byte position is the high half of its word; only an odd
  // byte address (never a valid view) straddles into the next word.
  var v = gpuia_ix_words[a >> 2u] >> s;
  if (s == 24u) { v = v | (gpuia_ix_words[(a >> 2u) + 1u] << 8u); }
  return v & 0xffffu;
}
