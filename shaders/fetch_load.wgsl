fn {{NAME}}(b: u32) -> u32 {
  let sh = (b & 3u) * 8u;
  let last = {{LENGTH}} - 1u;
  let w = min(b >> 2u, last);
  let lo = {{WORD_W}};
  if (sh == 0u) { return lo; }
  let w1 = min(w + 1u, last);
  let hi = {{WORD_W1}};
  return (lo >> sh) | (hi << (32u - sh));
}
