@fragment fn gpuia_ps() {}
