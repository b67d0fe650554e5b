@group(0) @binding(2) var<storage, read> gpuia_keys: array<u32>;
