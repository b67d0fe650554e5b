// golden: pixel_null
// the fragment stage of a pipeline state with render targets and no pixel shader: it writes
// nothing
// regenerate: pytest tests/unit/test_wgsl_golden.py --regenerate-golden

@fragment fn gpuia_ps() {}
