// gpuia raster probe: each vertex placed by the key of its (SV_VertexID, SV_InstanceID), each
// fragment appended as a record of its pixel, facing and flat key.
{{RASTER_PARAMS}}
{{RASTER_RECORD}}
@group(0) @binding(0) var<uniform> params: GpuiaRasterParams;
@group(0) @binding(1) var<storage, read_write> records: array<GpuiaRasterRecord>;
@group(0) @binding(2) var<storage, read_write> counter: array<atomic<u32>, 4>;

fn lowbias32(v: u32) -> u32 {
  var x = v;
  x ^= x >> 16u; x *= 0x7feb352du; x ^= x >> 15u; x *= 0x846ca68bu; x ^= x >> 16u;
  return x;
}

struct Varyings { @builtin(position) pos: vec4<f32>, @location(0) @interpolate(flat) key: u32 }

@vertex fn vs(@builtin(vertex_index) vi: u32, @builtin(instance_index) ii: u32) -> Varyings {
  // D3D's SV_VertexID and SV_InstanceID, as gpuia's vertex stage computes them.
  let key = lowbias32((vi - params.sub_vertex) ^ lowbias32((ii - params.sub_instance) ^ {{SALT}}u));
  let x = lowbias32(key ^ 0x9E3779B9u) % {{SPAN}}u;
  let y = lowbias32(key ^ 0x85EBCA6Bu) % {{SPAN}}u;
  var o: Varyings;
  o.pos = vec4<f32>(f32(x) / {{HALF}}f - 1.0, 1.0 - f32(y) / {{HALF}}f, 0.5, 1.0);
  o.key = key;
  return o;
}

@fragment fn fs(v: Varyings, @builtin(front_facing) front: bool) -> @location(0) vec4<f32> {
  let n = atomicAdd(&counter[0], 1u);
  if (n < params.capacity) {
    let pixel = u32(v.pos.y) * {{SIZE}}u + u32(v.pos.x);
    records[n].pixel = pixel | select(0u, 0x80000000u, front);
    records[n].key = v.key;
  }
  return vec4<f32>(1.0);
}
