  // The record's place in the bound window of records (capture_base is the draw's first
  // record minus the window's, wrapping: a record before the window lands past its end).
  let rec = gpuia_draw.capture_base + sv_instance_id * gpuia_draw.key_count + rank;
  if (!found) {
    atomicAdd(&gpuia_errors[{{UNEXPECTED}}], 1u);
    atomicMax(&gpuia_errors[{{MAX_VERTEX_INDEX}}], vi);
  } else if (rec < arrayLength(&gpuia_capture)) {
    gpuia_capture[rec].flag = 1u;
    gpuia_capture[rec].vertex_id = sv_vertex_id;
    gpuia_capture[rec].instance_id = sv_instance_id;
    {{ELEMENT_STORES}}
  }
