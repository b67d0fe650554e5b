"""``gpuia translate``'s output used as a port would use it: the printed JSON handed to wgpu-py
unchanged, with a vertex shader written here, drawn, and every input checked.

Each draw renders one point per (vertex, instance) into an rgba32uint target, at pixel
(vertex index, instance index), carrying the bits of one input; a point rasterizes the one pixel
whose center it hits. Expected values are derived by hand from docs/rules.md: float32 bits as
written; UNORM c / (2^n - 1) (rules 2.2: 51/255 = 0.2 and 204/255 = 0.8, correctly rounded to
float32; on the native path a UNORM component may be 1 ULP off, the allowance docs/gpu.md
states for fixed-function fetch); SINT sign-extended (rules 2.4); R10G10B10A2_UINT's fields
from bit 0 up (rules 2.7); the components a format lacks read (0, 0, 0, 1), 1 as 1.0 for a
float class and 1 for an integer one (rules 2.11); per-instance data at step rate r reads element
``StartInstanceLocation + floor(k / r)`` for instance k (rules 4.3).
"""

from __future__ import annotations

import json
import struct

import numpy as np
import pytest

from gpuia.cli import main

PER_INSTANCE = "PER_INSTANCE_DATA"
ONE = 0x3F800000  # 1.0f


def f32(x: float) -> int:
    return struct.unpack("<I", struct.pack("<f", x))[0]


def _translation(tmp_path, capsys, elements, *argv):
    """The one translation ``gpuia translate`` prints for ``elements``, parsed from stdout."""
    path = tmp_path / "layout.json"
    path.write_text(json.dumps(elements))
    assert main(["translate", str(path), *argv]) == 0
    (layout,) = json.loads(capsys.readouterr().out)["layouts"]
    (translation,) = layout["translations"]
    return translation


def _point_shader(head: str, params: str, value: str, vertices: int, instances: int) -> str:
    """WGSL drawing vertex (vi, ii) at pixel (vi, ii) of a vertices x instances target with
    ``value`` (a vec4<u32> expression) as its flat output; ``head`` comes first."""
    return f"""{head}
struct TestOut {{
  @builtin(position) position: vec4<f32>,
  @location(0) @interpolate(flat) bits: vec4<u32>,
}}
@vertex fn test_vs(@builtin(vertex_index) vi: u32, @builtin(instance_index) ii: u32{params})
    -> TestOut {{
  var o: TestOut;
  let x = (2.0 * f32(vi) + 1.0) / {float(vertices)} - 1.0;
  let y = 1.0 - (2.0 * f32(ii) + 1.0) / {float(instances)};
  o.position = vec4<f32>(x, y, 0.5, 1.0);
  o.bits = {value};
  return o;
}}
@fragment fn test_fs(@location(0) @interpolate(flat) bits: vec4<u32>) -> @location(0) vec4<u32> {{
  return bits;
}}
"""


def _draw(device, code: str, vertex: dict, layout, groups, vertex_buffers, vertices: int,
          instances: int) -> np.ndarray:
    """Draw ``vertices`` x ``instances`` points with the pipeline ``code`` and ``vertex`` (the
    printed ``vertex`` dict, spread unchanged) make; the target's texels as (instances,
    vertices, 4) uint32."""
    import wgpu

    module = device.create_shader_module(code=code)
    pipeline = device.create_render_pipeline(
        layout=layout, vertex={"module": module, "entry_point": "test_vs", **vertex},
        primitive={"topology": "point-list"},
        fragment={"module": module, "entry_point": "test_fs",
                  "targets": [{"format": "rgba32uint"}]})
    target = device.create_texture(size=(vertices, instances, 1), format="rgba32uint",
                                   usage=wgpu.TextureUsage.RENDER_ATTACHMENT
                                   | wgpu.TextureUsage.COPY_SRC)
    encoder = device.create_command_encoder()
    rp = encoder.begin_render_pass(color_attachments=[{
        "view": target.create_view(), "load_op": "clear", "store_op": "store",
        "clear_value": (7777, 7777, 7777, 7777)}])
    rp.set_pipeline(pipeline)
    for index, group, offsets in groups:
        rp.set_bind_group(index, group, offsets)
    for slot, buffer in enumerate(vertex_buffers):
        rp.set_vertex_buffer(slot, buffer)
    rp.draw(vertices, instances, 0, 0)
    rp.end()
    device.queue.submit([encoder.finish()])
    data = device.queue.read_texture({"texture": target}, {"bytes_per_row": 16 * vertices},
                                     (vertices, instances, 1))
    return np.frombuffer(bytes(data), np.uint32).reshape(instances, vertices, 4)


def test_native_json_builds_the_pipeline_and_delivers_the_inputs(gpu_device, tmp_path, capsys):
    import wgpu

    device = gpu_device.device
    elements = [
        {"SemanticName": "POSITION", "Format": "R32G32B32_FLOAT"},
        {"SemanticName": "COLOR", "Format": "R8G8B8A8_UNORM"},  # appended at offset 12
        {"SemanticName": "ID", "Format": "R32_UINT", "InputSlot": 1, "InputSlotClass": PER_INSTANCE,
         "InstanceDataStepRate": 1},
    ]
    t = _translation(tmp_path, capsys, elements, "--strides", "0=16,1=4")
    assert t["path"] == "native"
    vertices, instances = 3, 2
    positions = [(1.5, -2.0, 0.25), (0.0, 3.0, -1.0), (8.0, 0.5, 2.0)]
    colors = [(0, 255, 51, 204), (255, 0, 204, 51), (51, 51, 0, 255)]
    slot0 = b"".join(struct.pack("<3f4B", *p, *c) for p, c in zip(positions, colors, strict=True))
    slot1 = struct.pack("<2I", 7, 9)
    usage = wgpu.BufferUsage.VERTEX
    buffers = [device.create_buffer_with_data(data=slot0, usage=usage),
               device.create_buffer_with_data(data=slot1, usage=usage)]
    unorm = {0: 0, 255: ONE, 51: f32(0.2), 204: f32(0.8)}
    expected = {
        0: [[f32(x), f32(y), f32(z), ONE] for x, y, z in positions],
        1: [[unorm[c] for c in color] for color in colors],
        2: None,  # per instance: (7, 0, 0, 1) for instance 0, (9, 0, 0, 1) for instance 1
    }
    params = ", " + ", ".join(f"@location({i['shader_location']}) a{i['element']}: "
                              f"{i['wgsl_type']}" for i in t["inputs"])
    for i in t["inputs"]:
        k = i["element"]
        got = _draw(device, _point_shader("", params, f"bitcast<vec4<u32>>(a{k})", vertices,
                                          instances),
                    t["wgpu_py"]["vertex"], "auto", [], buffers, vertices, instances)
        for ii in range(instances):
            want = expected[k] if k != 2 else [[(7, 9)[ii], 0, 0, 1]] * vertices
            if i["format"] == "R8G8B8A8_UNORM":  # non-negative floats: bits are ULP apart
                off = np.abs(got[ii].astype(np.int64) - np.array(want, np.int64))
                assert off.max() <= 1, (i["semantic"], ii, got[ii].tolist(), want)
            else:
                assert got[ii].tolist() == want, (i["semantic"], ii)


def test_pulled_wgsl_and_bind_groups_fetch_the_inputs(gpu_device, tmp_path, capsys):
    import wgpu

    device = gpu_device.device
    elements = [
        {"SemanticName": "TEXCOORD", "Format": "R8G8_UNORM"},
        {"SemanticName": "BONE", "Format": "R16_SINT"},  # appended at offset 2
        {"SemanticName": "PACKED", "Format": "R10G10B10A2_UINT", "InputSlot": 1,
         "InputSlotClass": PER_INSTANCE, "InstanceDataStepRate": 2},
    ]
    # Stride 5 is no multiple of 4, R10G10B10A2_UINT has no WebGPU format, step rate 2 none.
    t = _translation(tmp_path, capsys, elements, "--strides", "0=5,1=4")
    assert t["path"] == "pulling"
    p = t["pulling"]
    vertices, instances = 3, 3
    # Slot 0's view starts at byte 3 of its buffer (any BufferLocation): three 5-byte vertices.
    texcoords = [(0, 255), (255, 51), (204, 0)]
    bones = [-2, -1, 300]
    view0 = b"".join(struct.pack("<2Bhx", *tc, b) for tc, b in zip(texcoords, bones, strict=True))
    packed = [(1, 2, 3, 0), (1023, 0, 512, 3)]
    view1 = b"".join(struct.pack("<I", x | y << 10 | z << 20 | w << 30) for x, y, z, w in packed)
    views = {0: (3, b"\xee" * 3 + view0), 1: (0, view1)}

    def storage(data: bytes):
        data += b"\0" * (-len(data) % 16)  # array<vec4<u32>>: whole 16-byte rows
        return device.create_buffer_with_data(data=data, usage=wgpu.BufferUsage.STORAGE)

    fields = {f["name"]: f["offset"] for f in p["draw_block"]["fields"]}
    block = bytearray(p["draw_block"]["size"])
    struct.pack_into("<I", block, fields["first_instance"], 0)  # StartInstanceLocation 0
    bound = {}
    for j, b in enumerate(p["storage_buffers"]):
        offset, data = views[b["slot"]]
        for name, value in (("base", offset), ("stride", (5, 4)[b["slot"]]),
                            ("size", len(data) - offset), ("bound", 1)):
            struct.pack_into("<I", block, fields[f"slots[{j}].{name}"], value)
        bound[b["binding"]] = storage(data)
    uniform = device.create_buffer_with_data(data=bytes(block),
                                             usage=wgpu.BufferUsage.UNIFORM)
    layouts = [device.create_bind_group_layout(**g) for g in t["wgpu_py"]["bind_group_layouts"]]
    group0 = device.create_bind_group(layout=layouts[0], entries=[
        {"binding": 0, "resource": {"buffer": uniform, "offset": 0, "size": len(block)}}])
    group1 = device.create_bind_group(layout=layouts[1], entries=[
        {"binding": b, "resource": {"buffer": buf, "offset": 0, "size": buf.size}}
        for b, buf in bound.items()])
    pipeline_layout = device.create_pipeline_layout(bind_group_layouts=layouts)
    expected = {
        0: [[unorm, unorm2, 0, ONE] for unorm, unorm2 in
            [(0, ONE), (ONE, f32(0.2)), (f32(0.8), 0)]],
        1: [[b & 0xFFFFFFFF, 0, 0, 1] for b in bones],
    }
    for i in t["inputs"]:
        k = i["element"]
        got = _draw(device, _point_shader(p["wgsl"], "", f"{i['fetch']}(vi, ii)", vertices,
                                          instances),
                    t["wgpu_py"]["vertex"], pipeline_layout,
                    [(0, group0, [0]), (1, group1, [])], [], vertices, instances)
        for ii in range(instances):
            # Rate 2, start 0: instances 0 and 1 read element 0, instance 2 element 1.
            want = expected[k] if k != 2 else [list(packed[ii // 2])] * vertices
            assert got[ii].tolist() == want, (i["semantic"], ii)


@pytest.mark.parametrize("stride", [8, 6])
def test_the_same_layout_on_either_path_delivers_the_same_bits(gpu_device, tmp_path, capsys,
                                                              stride):
    """R16G16_FLOAT at stride 8 is native, at stride 6 pulled: the printed translation of each
    delivers half floats converted exactly (1.5 and -0.25 are exact in both widths)."""
    import wgpu

    device = gpu_device.device
    t = _translation(tmp_path, capsys, [{"SemanticName": "UV", "Format": "R16G16_FLOAT"}],
                     "--strides", f"0={stride}")
    assert t["path"] == ("native" if stride == 8 else "pulling")
    halves = [(0x3E00, 0xB400), (0x0000, 0x3C00)]  # (1.5, -0.25), (0.0, 1.0)
    data = b"".join(struct.pack("<2H", *h) + b"\0" * (stride - 4) for h in halves)
    want = [[f32(1.5), f32(-0.25), 0, ONE], [0, ONE, 0, ONE]]
    if t["pulling"] is None:
        buf = device.create_buffer_with_data(data=data, usage=wgpu.BufferUsage.VERTEX)
        code = _point_shader("", ", @location(0) a0: vec4<f32>", "bitcast<vec4<u32>>(a0)", 2, 1)
        got = _draw(device, code, t["wgpu_py"]["vertex"], "auto", [], [buf], 2, 1)
    else:
        p = t["pulling"]
        fields = {f["name"]: f["offset"] for f in p["draw_block"]["fields"]}
        block = bytearray(p["draw_block"]["size"])
        for name, value in (("stride", stride), ("size", len(data)), ("bound", 1)):
            struct.pack_into("<I", block, fields[f"slots[0].{name}"], value)
        layouts = [device.create_bind_group_layout(**g)
                   for g in t["wgpu_py"]["bind_group_layouts"]]
        uniform = device.create_buffer_with_data(data=bytes(block),
                                                 usage=wgpu.BufferUsage.UNIFORM)
        vb = device.create_buffer_with_data(data=data + b"\0" * (-len(data) % 16),
                                            usage=wgpu.BufferUsage.STORAGE)
        groups = [
            (0, device.create_bind_group(layout=layouts[0], entries=[
                {"binding": 0, "resource": {"buffer": uniform, "offset": 0,
                                            "size": len(block)}}]), [0]),
            (1, device.create_bind_group(layout=layouts[1], entries=[
                {"binding": 0, "resource": {"buffer": vb, "offset": 0, "size": vb.size}}]), []),
        ]
        code = _point_shader(p["wgsl"], "", "gpuia_fetch_0(vi, ii)", 2, 1)
        got = _draw(device, code, t["wgpu_py"]["vertex"],
                    device.create_pipeline_layout(bind_group_layouts=layouts), groups, [], 2, 1)
    assert got[0].tolist() == want
