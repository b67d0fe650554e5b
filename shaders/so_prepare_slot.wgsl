let cw{{J}} = gpuia_so.slots[{{SLOT}}].counter / 4u;
let filled{{J}} = gpuia_so_buf_{{COUNTER}}[cw{{J}} >> 2u][cw{{J}} & 3u];
var room{{J}} = 0u;
if (filled{{J}} <= gpuia_so.slots[{{SLOT}}].size) { room{{J}} = gpuia_so.slots[{{SLOT}}].size - filled{{J}}; }
written = min(written, room{{J}} / {{PRIMITIVE_BYTES}}u);
gpuia_so_state[{{BASE}}u] = filled{{J}};
