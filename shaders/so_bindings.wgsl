{{SO_BLOCK}}
// What the main work reads of the prepare step: primitives written, each slot's
// BufferFilledSize before the draw.
struct GpuiaSOBase { written: u32, filled: vec4<u32> }
@group(0) @binding(1) var<uniform> gpuia_so: GpuiaSO;
// the words of GpuiaSOState (below), stored one by one
@group(0) @binding(2) var<storage, read_write> gpuia_so_state: array<u32>;
// [NumPrimitivesWritten lo, hi, PrimitivesStorageNeeded lo, hi]
@group(0) @binding(3) var<storage, read_write> gpuia_so_stats: array<u32>;
@group(0) @binding(4) var<storage, read> gpuia_so_aux: array<u32>;
// The same state as a uniform for the main pass (another dispatch, so another usage
// scope): every invocation reads these words, and uniform reads are broadcast.
{{SO_STATE}}
@group(0) @binding(5) var<uniform> gpuia_so_state_u: GpuiaSOState;
