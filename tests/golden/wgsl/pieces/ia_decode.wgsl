// gpuia: exact decoding of vertex channels, shared by every vertex-pulling shader.
//
// Every function returns the 32-bit pattern the Direct3D shader sees for one channel, computed
// with integer operations only, so the result is the same on every GPU and equals the numpy
// reference bit for bit (gpuia/reference/decode.py):
//   gpuia_unorm  c / (2^n - 1), correctly rounded to float32
//   gpuia_snorm  max(c / (2^(n-1) - 1), -1), correctly rounded
//   gpuia_sext   sign extension of an n-bit integer
//   gpuia_half   IEEE half -> float32 (denormals normalized, Inf kept, NaN payload shifted)
//   gpuia_ufloat unsigned 11/10-bit float (5-bit exponent, bias 15) -> float32
//
// Why integers: WGSL only promises 2.5 ULP for f32 division, and unpack2x16float may flush
// denormals; D3D requires exact conversions (D3D11.3 spec 3.2.2, 3.2.3).

// c / (2^n - 1) for 0 <= c < 2^n, 1 <= n <= 16. In binary the quotient is 0.ccc... with the n bits
// of c repeating forever, so its first 64 bits are known without dividing: build them, take 24
// bits from the leading one, round to nearest. No tie can occur: the repeating tail is never
// exactly half an ulp (it is nonzero and never terminates unless c is 0 or 2^n - 1).
fn gpuia_unorm(c: u32, n: u32) -> u32 {
  let mask = (1u << n) - 1u;
  if (c == 0u) { return 0u; }
  if (c == mask) { return 0x3f800000u; }
  let t = c << (32u - n);
  var hi = 0u;
  for (var s = 0u; s < 32u; s += n) { hi |= t >> s; }
  // Bits 32..63 repeat bits g..g+31 with g = 32 mod n (< 16), all of which hi holds or repeats.
  let g = 32u % n;
  var lo = hi;
  if (g != 0u) { lo = (hi << g) | ((hi >> (32u - 2u * g)) & ((1u << g) - 1u)); }
  let lz = countLeadingZeros(hi);  // < n, since the first n bits are c != 0
  var top = hi;
  if (lz != 0u) { top = (hi << lz) | (lo >> (32u - lz)); }
  let mant = (top >> 8u) & 0x7fffffu;
  let round_bit = (top >> 7u) & 1u;
  return ((126u - lz) << 23u) + mant + round_bit;
}

fn gpuia_sext(c: u32, n: u32) -> u32 {
  return bitcast<u32>(bitcast<i32>(c << (32u - n)) >> (32u - n));
}

fn gpuia_snorm(c: u32, n: u32) -> u32 {
  let v = bitcast<i32>(gpuia_sext(c, n));
  let mag = u32(abs(max(v, -(1 << (n - 1u)) + 1)));  // the most negative code clamps to -1
  let bits = gpuia_unorm(mag, n - 1u);
  if (v < 0) { return bits | 0x80000000u; }
  return bits;
}

// An unsigned float with a 5-bit exponent (bias 15) and an m-bit mantissa, plus sign bit s_bit
// (0 for none): float16 is (m=10, signed), R11G11B10's channels (m=6 and m=5, unsigned).
fn gpuia_small_float(sign: u32, e: u32, mant: u32, m: u32) -> u32 {
  if (e == 31u) {
    if (mant == 0u) { return sign | 0x7f800000u; }
    return sign | 0x7f800000u | (mant << (23u - m));
  }
  if (e != 0u) { return sign | ((e + 112u) << 23u) | (mant << (23u - m)); }
  if (mant == 0u) { return sign; }
  let p = firstLeadingBit(mant);  // the denormal's leading one; normalize it away
  let shift = m - p;
  return sign | ((113u - shift) << 23u) | (((mant << shift) & ((1u << m) - 1u)) << (23u - m));
}

fn gpuia_half(c: u32) -> u32 {
  return gpuia_small_float((c & 0x8000u) << 16u, (c >> 10u) & 31u, c & 0x3ffu, 10u);
}

fn gpuia_ufloat(c: u32, n: u32) -> u32 {
  let m = n - 5u;
  let bits = gpuia_small_float(0u, (c >> m) & 31u, c & ((1u << m) - 1u), m);
  // The reference keeps NaN quiet (sets the top mantissa bit) for these formats.
  if (((c >> m) & 31u) == 31u && (c & ((1u << m) - 1u)) != 0u) { return bits | 0x00400000u; }
  return bits;
}
