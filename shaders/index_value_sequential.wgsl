// The value D3D delivers at position j of one instance (rules 4.2, 5.5, 5.6).
fn gpuia_ix_value(j: u32) -> u32 {
  return j;  // non-indexed: SV_VertexID is the position (4.5)
}
