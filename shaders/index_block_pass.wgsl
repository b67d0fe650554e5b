@compute @workgroup_size({{WORKGROUP}})
fn {{NAME}}(@builtin(workgroup_id) wid: vec3<u32>,
           @builtin(num_workgroups) nwg: vec3<u32>,
           @builtin(local_invocation_index) lid: u32) {
  let block = gpuia_ix_group(wid, nwg);
  if (block >= gpuia_ix.level_length[{{LEVEL}} + 1u]) { return; }
  let first = block * {{BLOCK}}u + lid * {{ITEMS}}u;
  {{ITEM_SCAN}}
  {{BODY}}
}
