  // pad0: the capture texture's height in rows
  let texels = gpuia_draw.pad0 * {{WIDTH}}u;
  var rec = texels - 1u;
  var gpuia_flag = 2u;
  if (found) {
    rec = gpuia_draw.capture_base + sv_instance_id * gpuia_draw.key_count + rank;
    gpuia_flag = 1u;
  }
  var gpuia_out: GpuiaCapOut;
  let px = f32(rec % {{WIDTH}}u) + 0.5;
  let py = f32(rec / {{WIDTH}}u) + 0.5;
  gpuia_out.pos = vec4<f32>(px / {{WIDTH}}.0 * 2.0 - 1.0, 1.0 - py / f32(gpuia_draw.pad0) * 2.0, 0.0, 1.0);
  {{OUTPUTS}}
