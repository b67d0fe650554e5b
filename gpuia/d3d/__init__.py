"""The Direct3D 12 model: descriptors, the DXGI format table, input layouts as CreateInputLayout
resolves them, primitive topologies, Stream Output declarations and shader signatures. Values and
validation only: nothing here imports wgpu or writes WGSL, and every other layer builds on it."""
