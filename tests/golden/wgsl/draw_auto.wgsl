// golden: draw_auto
// DrawAuto's compute step: the vertex count of an SO target's BufferFilledSize as draw-indirect
// arguments
// regenerate: pytest tests/unit/test_wgsl_golden.py --regenerate-golden

// gpuia: DrawAuto's vertex count, computed on the GPU from a Stream Output counter.
// count = (BufferLocation + BufferFilledSize - IA slot 0 offset) / IA slot 0 stride, or 0 when
// that is negative or the stride is 0 (D3D11.3 spec 8.9: draw from the offset to the filled size).
struct GpuiaAuto {
  counter_word: u32,  // word 0
  location: u32,  // word 1
  ia_offset: u32,  // word 2
  stride: u32,  // word 3
}
@group(0) @binding(0) var<storage, read> gpuia_counter: array<u32>;
@group(0) @binding(1) var<storage, read_write> gpuia_args: array<u32>;
@group(0) @binding(2) var<uniform> gpuia_auto: GpuiaAuto;

@compute @workgroup_size(1) fn main() {
  let end = gpuia_auto.location + gpuia_counter[gpuia_auto.counter_word];
  var n = 0u;
  if (gpuia_auto.stride != 0u && end > gpuia_auto.ia_offset) {
    n = (end - gpuia_auto.ia_offset) / gpuia_auto.stride;
  }
  gpuia_args[0] = n;   // vertex count
  gpuia_args[1] = 1u;  // instance count
  gpuia_args[2] = 0u;  // first vertex
  gpuia_args[3] = 0u;  // first instance
}