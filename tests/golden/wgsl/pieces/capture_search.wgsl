  var rank = 0u;
  var found = false;
  if (gpuia_draw.key_contiguous != 0u) {
    rank = vi - gpuia_draw.key_first;
    found = rank < gpuia_draw.key_count;
  } else {
    // binary search of vi among the draw's sorted fetch indices
    var lo = 0u;
    var hi = gpuia_draw.key_count;
    loop {
      if (lo >= hi) { break; }
      let mid = lo + (hi - lo) / 2u;
      let k = gpuia_keys[gpuia_draw.key_offset + mid];
      if (k < vi) { lo = mid + 1u; } else { hi = mid; }
    }
    rank = lo;
    found = lo < gpuia_draw.key_count && gpuia_keys[gpuia_draw.key_offset + lo] == vi;
  }
