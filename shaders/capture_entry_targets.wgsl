struct GpuiaCapOut { @builtin(position) pos: vec4<f32>, {{OUT_MEMBERS}} }
struct GpuiaCapTargets { {{TARGET_MEMBERS}} }
@vertex fn gpuia_vs({{PARAMS}}) -> GpuiaCapOut {
{{BODY}}
  return gpuia_out;
}
@fragment fn gpuia_fs(i: GpuiaCapOut) -> GpuiaCapTargets {
  var t: GpuiaCapTargets;
  {{COPIES}}
  return t;
}
