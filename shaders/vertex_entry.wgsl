@vertex fn gpuia_vs({{PARAMS}}) -> {{RESULT}} {
{{BODY}}
}
@fragment fn gpuia_fs() -> @location(0) vec4<f32> { return vec4<f32>(0.0); }
