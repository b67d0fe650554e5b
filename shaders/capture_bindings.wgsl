{{GPUIA_RECORD}}
@group(0) @binding(1) var<storage, read_write> gpuia_capture: array<GpuiaRecord>;
@group(0) @binding(2) var<storage, read> gpuia_keys: array<u32>;
@group(0) @binding(3) var<storage, read_write> gpuia_errors: array<atomic<u32>>;
