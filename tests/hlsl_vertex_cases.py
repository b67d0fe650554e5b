"""Engine-style HLSL vertex shaders with the values they must produce, derived in numpy.

Each :class:`VSCase` is a case document (an HLSL vertex shader, its input layout and data, the
D3D-packed constant buffers, a point-list draw whose Stream Output records every vertex's
outputs) and ``expected``: the outputs computed in numpy (float64) straight from the shader's
math and the data written here, never from gpuia's reference. Constant buffers are packed by
hand from D3D's rules (offsets written out in the comments), so a packing or remap mistake in
gpuia shows as a wrong number.

Used by tests/unit/test_hlsl_vertex.py (the CPU reference against ``expected``) and
tests/gpu/test_hlsl_vertex_gpu.py (GPU Stream Output and draws).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

import numpy as np

RNG = np.random.default_rng(20261201)


@dataclass
class VSCase:
    name: str
    hlsl: str
    elements: list
    buffers: dict  # slot -> (stride, numpy array of the bytes' values)
    expected: dict  # output key -> (n, c) array (float64, uint32 or int32)
    cbuffers: dict = field(default_factory=dict)  # slot -> bytes
    draw: dict | None = None
    index: tuple | None = None  # (format, numpy indices)
    matrix_layout: str | None = None
    defines: dict | None = None
    instances: int = 1
    covers: str = ""  # what the case is there for

    def doc(self) -> dict:
        n = next(iter(self.expected.values())).shape[0]
        vs = {"hlsl": self.hlsl}
        if self.matrix_layout:
            vs["matrix_layout"] = self.matrix_layout
        if self.defines:
            vs["defines"] = self.defines
        decl, stride = [], 0
        for key, value in self.expected.items():
            sem, idx = _split(key)
            comps = value.shape[1]
            decl.append({"Stream": 0, "SemanticName": sem, "SemanticIndex": idx,
                         "StartComponent": 0, "ComponentCount": comps, "OutputSlot": 0})
            stride += 4 * comps
        doc = {
            "gpuia_case": 1, "name": self.name, "input_layout": self.elements,
            "vertex_buffers": [{"slot": s, "stride": st, "data": {"hex": data.tobytes().hex()}}
                               for s, (st, data) in sorted(self.buffers.items())],
            "primitive_topology": "POINTLIST",
            "draw": self.draw or {"DrawInstanced": {
                "VertexCountPerInstance": n // self.instances, "InstanceCount": self.instances,
                "StartVertexLocation": 0, "StartInstanceLocation": 0}},
            "vertex_shader": vs,
            "constant_buffers": [{"slot": s, "data": {"hex": bytes(b).hex()}}
                                 for s, b in sorted(self.cbuffers.items())],
            "stream_output": {"declaration": decl, "buffer_strides": [stride],
                              "targets": [{"slot": 0, "size": stride * n}]},
        }
        if self.index is not None:
            fmt, values = self.index
            doc["index_buffer"] = {"format": fmt, "data": {"hex": values.tobytes().hex()}}
        return doc

    def layout_of_outputs(self) -> list[tuple[str, int, str]]:
        return [(k, v.shape[1], "float" if v.dtype.kind == "f" else
                 ("sint" if v.dtype.kind == "i" else "uint")) for k, v in self.expected.items()]


def _split(key: str) -> tuple[str, int]:
    i = len(key)
    while i and key[i - 1].isdigit():
        i -= 1
    return key[:i], int(key[i:] or 0)


def el(name, fmt, slot=0, index=0, offset="APPEND_ALIGNED_ELEMENT", per_instance=False, rate=0):
    return {"SemanticName": name, "SemanticIndex": index, "Format": fmt, "InputSlot": slot,
            "AlignedByteOffset": offset,
            "InputSlotClass": "PER_INSTANCE_DATA" if per_instance else "PER_VERTEX_DATA",
            "InstanceDataStepRate": rate}


class Packer:
    """D3D cbuffer bytes written at explicit offsets (the offsets are the test's claim)."""

    def __init__(self, size: int):
        self.data = bytearray(size)

    def f(self, off: int, *v):
        struct.pack_into(f"<{len(v)}f", self.data, off, *v)
        return self

    def i(self, off: int, *v):
        struct.pack_into(f"<{len(v)}i", self.data, off, *v)
        return self

    def u(self, off: int, *v):
        struct.pack_into(f"<{len(v)}I", self.data, off, *v)
        return self

    def column_major(self, off: int, m: np.ndarray):
        """Register c holds column c (rows in x, y, z, w)."""
        for c in range(m.shape[1]):
            self.f(off + 16 * c, *m[:, c])
        return self

    def row_major(self, off: int, m: np.ndarray):
        """Register r holds row r."""
        for r in range(m.shape[0]):
            self.f(off + 16 * r, *m[r, :])
        return self

    def bytes(self) -> bytes:
        return bytes(self.data)


def f32(a) -> np.ndarray:
    return np.asarray(a, np.float32)


def h(a) -> np.ndarray:
    """float64 of float32 values (what the shader computes with, widened for the expectation)."""
    return np.asarray(a, np.float32).astype(np.float64)


def _mat(rows, cols, scale=1.0):
    return f32(RNG.uniform(-scale, scale, (rows, cols)))


def _positions(n, scale=2.0):
    return f32(RNG.uniform(-scale, scale, (n, 3)))


N = 24


def case_cb_column_major() -> VSCase:
    m = _mat(4, 4)
    p = _positions(N)
    cb = Packer(64).column_major(0, m).bytes()  # float4x4 ViewProj at 0, one column per register
    pos4 = np.c_[h(p), np.ones(N)]
    return VSCase("cb_column_major", """
cbuffer PerView : register(b0) { float4x4 ViewProj; };
float4 main(float3 pos : POSITION) : SV_Position { return mul(ViewProj, float4(pos, 1)); }
""", [el("POSITION", "R32G32B32_FLOAT")], {0: (12, p)}, {"SV_POSITION0": pos4 @ h(m).T},
        {0: cb}, covers="cbuffer float4x4, default column_major, mul(M, v)")


def case_cb_row_major_modifier() -> VSCase:
    m, p = _mat(4, 4), _positions(N)
    cb = Packer(64).row_major(0, m).bytes()  # row_major float4x4 World: one row per register
    pos4 = np.c_[h(p), np.ones(N)]
    return VSCase("cb_row_major_modifier", """
cbuffer PerObject : register(b0) { row_major float4x4 World; };
struct VSOut { float4 pos : SV_Position; float4 world : TEXCOORD0; };
VSOut main(float3 pos : POSITION) {
    VSOut o; o.world = mul(float4(pos, 1), World); o.pos = o.world.wzyx; return o;
}
""", [el("POSITION", "R32G32B32_FLOAT")], {0: (12, p)},
        {"TEXCOORD0": pos4 @ h(m), "SV_POSITION0": (pos4 @ h(m))[:, ::-1]}, {0: cb},
        covers="row_major modifier, mul(v, M)")


def case_cb_zpr() -> VSCase:
    a, b, p = _mat(4, 4), _mat(3, 3), _positions(N)
    # /Zpr: default row-major; an explicit column_major member keeps its packing.
    pk = Packer(112).row_major(0, a)  # float4x4 A at 0 (row-major: 4 registers)
    pk.column_major(64, b)  # column_major float3x3 B at 64: 3 registers, last one unpadded (44 B)
    pk.f(108, 2.5)  # float Scale packs into B's last register: 64 + 44 = 108
    pos4 = np.c_[h(p), np.ones(N)]
    return VSCase("cb_zpr_row_major_default", """
cbuffer K : register(b0) { float4x4 A; column_major float3x3 B; float Scale; };
struct VSOut { float4 pos : SV_Position; float3 n : NORMAL; };
VSOut main(float3 pos : POSITION) {
    VSOut o; o.pos = mul(A, float4(pos, 1)); o.n = mul(B, pos) * Scale; return o;
}
""", [el("POSITION", "R32G32B32_FLOAT")], {0: (12, p)},
        {"SV_POSITION0": pos4 @ h(a).T, "NORMAL0": (h(p) @ h(b).T) * 2.5}, {0: pk.bytes()},
        matrix_layout="row_major", covers="matrix_layout row_major (/Zpr), column_major member, "
                                          "float3x3 and a scalar packed into its last register")


def case_cb_pragma() -> VSCase:
    m, p = _mat(4, 4), _positions(N)
    cb = Packer(64).row_major(0, m).bytes()
    pos4 = np.c_[h(p), np.ones(N)]
    return VSCase("cb_pragma_pack_matrix", """
#pragma pack_matrix(row_major)
cbuffer PerView : register(b0) { float4x4 ViewProj; };
float4 main(float3 pos : POSITION) : SV_Position { return mul(ViewProj, float4(pos, 1)); }
#pragma pack_matrix(column_major)
""", [el("POSITION", "R32G32B32_FLOAT")], {0: (12, p)}, {"SV_POSITION0": pos4 @ h(m).T},
        {0: cb}, covers="#pragma pack_matrix(row_major) before the cbuffer, restored after")


def case_skinning() -> VSCase:
    bones = [_mat(3, 4) for _ in range(3)]  # row_major float3x4 Bones[3]: 3 registers each
    cols = [_mat(4, 3) for _ in range(2)]  # float4x3 Extra[2] (column-major: 3 registers each)
    pk = Packer(48 * 3 + 48 * 2)
    for k, b in enumerate(bones):
        pk.row_major(48 * k, b)  # stride 48 (3 rows)
    for k, c in enumerate(cols):
        pk.column_major(144 + 48 * k, c)  # 3 columns of float4: stride 48
    p = _positions(N)
    idx = np.stack([RNG.integers(0, 3, N), RNG.integers(0, 3, N), RNG.integers(0, 2, N),
                    np.zeros(N, int)], 1).astype(np.uint8)
    w = f32(RNG.uniform(0, 1, (N, 2)))
    pos4 = np.c_[h(p), np.ones(N)]
    skinned = np.zeros((N, 3))
    extra = np.zeros((N, 4))
    for i in range(N):
        skinned[i] = (h(bones[idx[i, 0]]) @ pos4[i]) * h(w[i, 0]) + \
            (h(bones[idx[i, 1]]) @ pos4[i]) * h(w[i, 1])
        extra[i] = h(cols[idx[i, 2]]) @ h(p[i])
    vb = np.zeros(N, [("p", "<f4", 3), ("i", "u1", 4), ("w", "<f4", 2)])
    vb["p"], vb["i"], vb["w"] = p, idx, w
    return VSCase("skinning_matrix_arrays", """
cbuffer Skeleton : register(b0) {
    row_major float3x4 Bones[3];
    float4x3 Extra[2];
};
struct VSIn { float3 pos : POSITION; uint4 bi : BLENDINDICES; float2 bw : BLENDWEIGHT; };
struct VSOut { float4 pos : SV_Position; float3 skinned : TEXCOORD0; float4 extra : TEXCOORD1; };
VSOut main(VSIn v) {
    VSOut o;
    float4 p = float4(v.pos, 1);
    o.skinned = mul(Bones[v.bi.x], p) * v.bw.x + mul(Bones[v.bi.y], p) * v.bw.y;
    o.extra = mul(Extra[v.bi.z], v.pos);
    o.pos = float4(o.skinned, 1);
    return o;
}
""", [el("POSITION", "R32G32B32_FLOAT"), el("BLENDINDICES", "R8G8B8A8_UINT"),
      el("BLENDWEIGHT", "R32G32_FLOAT")], {0: (24, vb)},
        {"TEXCOORD0": skinned, "TEXCOORD1": extra}, {0: pk.bytes()},
        covers="row_major matrix array (Slang ignores the modifier: gpuia's typedef), "
               "column-major float4x3 array, dynamic indexing by BLENDINDICES")


def case_cb_packing() -> VSCase:
    """Members WGSL lays out unlike D3D: gpuia remaps the buffer."""
    pk = Packer(256)
    # float Scale @0; float2 Offset @4 (packs into register 0: 4 + 8 <= 16; WGSL: 8)
    pk.f(0, 1.5).f(4, 7.0, 8.0)
    # float Weights[3] @16, stride 16, last unpadded: size 36 -> next @52
    pk.f(16, 0.25).f(32, 0.5).f(48, 0.75)
    # float Bias @52 (packs into Weights' last register; WGSL: 64)
    pk.f(52, -3.0)
    # float3x3 Rot @64 (column-major, 3 registers, size 44 -> next @108)
    rot = _mat(3, 3)
    pk.column_major(64, rot)
    # uint Flags @108; struct Light { float3 Dir; float Intensity; } Light @112 (starts a
    # register); float2 Tail @128
    pk.u(108, 5).f(112, 0.0, 0.6, 0.8).f(124, 2.0).f(128, 9.0, 10.0)
    # int Count @136; bool Enabled @140
    pk.i(136, -4).u(140, 1)
    p = _positions(N)
    hp = h(p)
    s = hp * 1.5 + np.array([7.0, 8.0, 0.0]) + (0.25 + 0.5 + 0.75) - 3.0
    r = hp @ h(rot).T
    light = (hp @ np.array([0.0, 0.6, 0.8])) * 2.0
    return VSCase("cb_packing_remap", """
struct Light { float3 Dir; float Intensity; };
cbuffer Params : register(b2) {
    float Scale;
    float2 Offset;
    float Weights[3];
    float Bias;
    float3x3 Rot;
    uint Flags;
    Light Sun;
    float2 Tail;
    int Count;
    bool Enabled;
};
struct VSOut { float4 pos : SV_Position; float3 a : TEXCOORD0; float3 b : TEXCOORD1;
               float4 c : TEXCOORD2; int2 d : TEXCOORD3; };
VSOut main(float3 pos : POSITION) {
    VSOut o;
    o.a = pos * Scale + float3(Offset, 0) + (Weights[0] + Weights[1] + Weights[2]) + Bias;
    o.b = mul(Rot, pos);
    o.c = float4(dot(pos, Sun.Dir) * Sun.Intensity, Tail, Flags);
    o.d = int2(Count, Enabled ? 11 : 22);
    o.pos = float4(o.a, 1);
    return o;
}
""", [el("POSITION", "R32G32B32_FLOAT")], {0: (12, p)},
        {"TEXCOORD0": s, "TEXCOORD1": r,
         "TEXCOORD2": np.c_[light, np.full(N, 9.0), np.full(N, 10.0), np.full(N, 5.0)],
         "TEXCOORD3": np.tile(np.array([-4, 11], np.int32), (N, 1))},
        {2: pk.bytes()}, covers="D3D packing WGSL does not share (float2 after float, scalar "
                                "after an array and after a float3x3, bool, struct): remapped")


def case_texcoords() -> VSCase:
    uv = [f32(RNG.uniform(-1, 1, (N, 2))) for _ in range(8)]
    vb = np.zeros(N, [("p", "<f4", 3)] + [(f"t{k}", "<f4", 2) for k in range(8)])
    vb["p"] = _positions(N)
    for k in range(8):
        vb[f"t{k}"] = uv[k]
    fields = "\n".join(f"    float2 uv{k} : TEXCOORD{k};" for k in range(8))
    weights = [1.0, -2.0, 0.5, 3.0, -1.5, 0.25, 2.0, -0.75]
    body = " + ".join(f"v.uv{k} * {weights[k]}" for k in range(8))
    expect = sum(h(uv[k]) * weights[k] for k in range(8))
    return VSCase("struct_texcoord0_7", f"""
struct VSIn {{
    float3 pos : POSITION;
{fields}
}};
struct VSOut {{ float4 pos : SV_Position; float2 mix : TEXCOORD0; float4 first : TEXCOORD1; }};
VSOut main(VSIn v) {{
    VSOut o;
    o.pos = float4(v.pos, 1);
    o.mix = {body};
    o.first = float4(v.uv0, v.uv7);
    return o;
}}
""", [el("POSITION", "R32G32B32_FLOAT")] + [el("TEXCOORD", "R32G32_FLOAT", index=k)
                                          for k in range(8)],
        {0: (12 + 64, vb)}, {"TEXCOORD0": expect, "TEXCOORD1": np.c_[h(uv[0]), h(uv[7])]},
        covers="struct input with TEXCOORD0..7")


def case_integers() -> VSCase:
    vb = np.zeros(N, [("c", "u1", 4), ("s", "<i2", 2), ("u", "<u4")])
    vb["c"] = RNG.integers(0, 256, (N, 4))
    vb["s"] = RNG.integers(-32768, 32768, (N, 2))
    vb["u"] = RNG.integers(0, 2 ** 32, N, dtype=np.uint64)
    c = vb["c"].astype(np.int64)
    s = vb["s"].astype(np.int64)
    u = vb["u"].astype(np.int64)
    a = np.stack([c[:, 0] * 3 + c[:, 1], c[:, 2] ^ c[:, 3], (u >> 7) & 0xFFFFFFFF,
                  (u * 5) & 0xFFFFFFFF], 1).astype(np.uint32)
    b = np.stack([s[:, 0] - s[:, 1], s[:, 0] * 2], 1).astype(np.int32)
    return VSCase("integer_inputs", """
struct VSIn { uint4 c : COLOR; int2 s : TEXCOORD0; uint u : TEXCOORD1; };
struct VSOut { uint4 a : TEXCOORD0; int2 b : TEXCOORD1; };
VSOut main(VSIn v) {
    VSOut o;
    o.a = uint4(v.c.x * 3 + v.c.y, v.c.z ^ v.c.w, v.u >> 7, v.u * 5);
    o.b = int2(v.s.x - v.s.y, v.s.x * 2);
    return o;
}
""", [el("COLOR", "R8G8B8A8_UINT"), el("TEXCOORD", "R16G16_SINT"),
      el("TEXCOORD", "R32_UINT", index=1)], {0: (12, vb)}, {"TEXCOORD0": a, "TEXCOORD1": b},
        covers="uint4/int2/uint inputs from UINT/SINT formats, integer outputs (SO-only VS)")


def case_min16() -> VSCase:
    vb = np.zeros(N, [("a", "<f2", 4), ("b", "<i2", 2), ("c", "<u2", 2), ("d", "<f4", 2)])
    vb["a"] = RNG.uniform(-4, 4, (N, 4))
    vb["b"] = RNG.integers(-1000, 1000, (N, 2))
    vb["c"] = RNG.integers(0, 60000, (N, 2))
    vb["d"] = RNG.uniform(-1, 1, (N, 2))
    a = vb["a"].astype(np.float64)
    return VSCase("min16_and_half", """
struct VSIn { min16float4 a : TEXCOORD0; min16int2 b : TEXCOORD1; min16uint c : TEXCOORD2;
              half2 d : TEXCOORD3; };
struct VSOut { float4 a : TEXCOORD0; int2 b : TEXCOORD1; uint c : TEXCOORD2; float2 d : TEXCOORD3; };
VSOut main(VSIn v) {
    VSOut o;
    min16float4 t = v.a * (min16float)0.5;
    o.a = t; o.b = v.b + int2(1, -1); o.c = v.c * 2; o.d = v.d * (half)3.0;
    return o;
}
""", [el("TEXCOORD", "R16G16B16A16_FLOAT"), el("TEXCOORD", "R16G16_SINT", index=1),  # noqa: E501
      el("TEXCOORD", "R16_UINT", index=2), el("TEXCOORD", "R32G32_FLOAT", index=3, offset=16)],
        {0: (24, vb)},
        {"TEXCOORD0": a * 0.5, "TEXCOORD1": (vb["b"].astype(np.int32) + [1, -1]).astype(np.int32),
         "TEXCOORD2": (vb["c"][:, :1].astype(np.uint32) * 2),
         "TEXCOORD3": h(vb["d"]) * 3.0},
        covers="min16float4, min16int2, min16uint and half2 inputs (32-bit, as fxc without "
               "16-bit types)")


def case_sv_ids() -> VSCase:
    instances, per = 3, 5
    inst = f32(RNG.uniform(-1, 1, (4 + instances, 4)))  # per-instance rows from StartInstance 2
    p = _positions(40)
    indices = np.array([9, 3, 1, 4, 0], np.uint16)
    base_vertex, start_instance = 5, 2
    rows = []
    for i in range(instances):
        for k in indices:
            vid = int(k)  # SV_VertexID excludes BaseVertexLocation (rules 4.5)
            pos = h(p[k + base_vertex])
            rows.append((vid, i, pos, h(inst[start_instance + i])))
    vids = np.array([[r[0], r[1]] for r in rows], np.uint32)
    mixed = np.array([np.r_[r[2], 0.0] + r[3] for r in rows])
    return VSCase("sv_vertexid_instanceid", """
struct VSIn { float3 pos : POSITION; float4 inst : TEXCOORD4; uint vid : SV_VertexID;
              uint iid : SV_InstanceID; };
struct VSOut { float4 pos : SV_Position; uint2 ids : TEXCOORD0; float4 mixed : TEXCOORD1; };
VSOut main(VSIn v) {
    VSOut o; o.pos = float4(v.pos, 1); o.ids = uint2(v.vid, v.iid);
    o.mixed = float4(v.pos, 0) + v.inst;
    return o;
}
""", [el("POSITION", "R32G32B32_FLOAT"),
      el("TEXCOORD", "R32G32B32A32_FLOAT", slot=1, index=4, per_instance=True, rate=1)],
        {0: (12, p), 1: (16, inst)}, {"TEXCOORD0": vids, "TEXCOORD1": mixed},
        draw={"DrawIndexedInstanced": {"IndexCountPerInstance": per, "InstanceCount": instances,
                                       "StartIndexLocation": 0, "BaseVertexLocation": base_vertex,
                                       "StartInstanceLocation": start_instance}},
        index=("R16_UINT", indices), instances=instances,
        covers="SV_VertexID without BaseVertexLocation, SV_InstanceID without "
               "StartInstanceLocation, per-instance element (rules 4.3, 4.5, 4.6)")


def case_out_params() -> VSCase:
    p = _positions(N)
    fog = f32(RNG.uniform(0, 1, N))
    vb = np.zeros(N, [("p", "<f4", 3), ("f", "<f4")])
    vb["p"], vb["f"] = p, fog
    return VSCase("out_and_inout_parameters", """
void main(float3 pos : POSITION, inout float fog : FOG,
          out float4 oPos : SV_Position, out float3 oColor : COLOR0) {
    oPos = float4(pos * 0.5, 1);
    oColor = saturate(pos * 0.25 + 0.5);
    fog = fog * fog;
}
""", [el("POSITION", "R32G32B32_FLOAT"), el("FOG", "R32_FLOAT")], {0: (16, vb)},
        {"SV_POSITION0": np.c_[h(p) * 0.5, np.ones(N)],
         "COLOR0": np.clip(h(p) * 0.25 + 0.5, 0, 1), "FOG0": (h(fog) ** 2)[:, None]},
        covers="void entry with out and inout parameters")


def case_matrix_input() -> VSCase:
    instances, per = 4, 6
    worlds = [_mat(4, 4) for _ in range(instances)]
    # column_major float4x4 World : WORLD: semantic index c is column c.
    inst = np.zeros(instances, [("c", "<f4", (4, 4))])
    for i, m in enumerate(worlds):
        inst["c"][i] = m.T  # row k of the buffer row = WORLDk = column k of the matrix
    p = _positions(per)
    out = []
    for i in range(instances):
        out += [h(worlds[i]) @ np.r_[h(p[k]), 1.0] for k in range(per)]
    return VSCase("matrix_input_world0_3", """
struct VSIn { float3 pos : POSITION; float4x4 world : WORLD; };
float4 main(VSIn v) : SV_Position { return mul(v.world, float4(v.pos, 1)); }
""", [el("POSITION", "R32G32B32_FLOAT")] + [
        el("WORLD", "R32G32B32A32_FLOAT", slot=1, index=k, per_instance=True, rate=1)
        for k in range(4)], {0: (12, p), 1: (64, inst)}, {"SV_POSITION0": np.array(out)},
        instances=instances, covers="float4x4 instance matrix input WORLD0..3 (one column each)")


def case_matrix_input_row_major() -> VSCase:
    m = _mat(4, 3)  # row_major float4x3 : WORLD -> 4 rows of float3, WORLD0..3
    vb = np.zeros(N, [("p", "<f4", 4), ("rows", "<f4", (4, 3))])
    vb["p"] = f32(RNG.uniform(-1, 1, (N, 4)))
    vb["rows"] = m
    return VSCase("matrix_input_row_major", """
struct VSIn { float4 pos : POSITION; row_major float4x3 m : WORLD; };
struct VSOut { float3 r : TEXCOORD0; };
VSOut main(VSIn v) { VSOut o; o.r = mul(v.pos, v.m); return o; }
""", [el("POSITION", "R32G32B32A32_FLOAT")] + [el("WORLD", "R32G32B32_FLOAT", index=k)
                                             for k in range(4)],
        {0: (64, vb)}, {"TEXCOORD0": h(vb["p"]) @ h(m)},
        covers="row_major float4x3 input (one row per semantic index), SO-only")


def case_sv_position_input() -> VSCase:
    p = f32(RNG.uniform(-1, 1, (N, 4)))
    return VSCase("sv_position_input", """
struct VSIn { float4 pos : SV_Position; };
struct VSOut { float4 pos : SV_Position; float4 copy : TEXCOORD0; };
VSOut main(VSIn v) { VSOut o; o.pos = v.pos * 2; o.copy = v.pos.wzyx; return o; }
""", [el("SV_Position", "R32G32B32A32_FLOAT")], {0: (16, p)},
        {"SV_POSITION0": h(p) * 2, "TEXCOORD0": h(p)[:, ::-1]},
        covers="SV_Position as a vertex shader input, an ordinary element (rules 3.8)")


def case_unused_inputs() -> VSCase:
    vb = np.zeros(N, [("p", "<f4", 3), ("n", "<f4", 3), ("t", "<f4", 2), ("c", "u1", 4)])
    vb["p"], vb["n"] = _positions(N), f32(RNG.uniform(-1, 1, (N, 3)))
    vb["t"], vb["c"] = f32(RNG.uniform(0, 1, (N, 2))), RNG.integers(0, 256, (N, 4))
    return VSCase("unused_inputs", """
struct VSIn { float3 pos : POSITION; float3 normal : NORMAL; float2 uv : TEXCOORD0; };
struct VSOut { float4 pos : SV_Position; float2 uv : TEXCOORD0; };
VSOut main(VSIn v) { VSOut o; o.pos = float4(v.pos, 1); o.uv = v.uv * 4; return o; }
""", [el("POSITION", "R32G32B32_FLOAT"), el("NORMAL", "R32G32B32_FLOAT"),
      el("TEXCOORD", "R32G32_FLOAT"), el("COLOR", "R8G8B8A8_UNORM")], {0: (36, vb)},
        {"TEXCOORD0": h(vb["t"]) * 4},
        covers="a declared input the shader never reads, a layout element it does not declare")


def case_so_only() -> VSCase:
    p = _positions(N)
    vel = f32(RNG.uniform(-1, 1, (N, 3)))
    vb = np.zeros(N, [("p", "<f4", 3), ("v", "<f4", 3)])
    vb["p"], vb["v"] = p, vel
    cb = Packer(16).f(0, 0.016, 9.81).bytes()  # float Dt @0, float Gravity @4
    hv = h(vel) - np.array([0, 0.016 * 9.81, 0])
    return VSCase("stream_out_only_particles", """
cbuffer Sim : register(b0) { float Dt; float Gravity; };
struct Particle { float3 pos : POSITION; float3 vel : VELOCITY; };
Particle main(Particle p) {
    Particle o;
    o.vel = p.vel - float3(0, Dt * Gravity, 0);
    o.pos = p.pos + o.vel * Dt;
    return o;
}
""", [el("POSITION", "R32G32B32_FLOAT"), el("VELOCITY", "R32G32B32_FLOAT")], {0: (24, vb)},
        {"POSITION0": h(p) + hv * 0.016, "VELOCITY0": hv}, {0: cb},
        covers="a Stream Output only shader (no SV_Position), the same struct in and out")


def case_bool_defines() -> VSCase:
    flags = RNG.integers(0, 3, N).astype(np.uint32)
    p = _positions(N)
    vb = np.zeros(N, [("p", "<f4", 3), ("f", "<u4")])
    vb["p"], vb["f"] = p, flags
    scale = 3.0
    sel = np.where(flags != 0, h(p)[:, 0] * scale, -h(p)[:, 1])
    return VSCase("bool_input_and_defines", """
#ifndef SCALE
#error SCALE must be defined
#endif
struct VSIn { float3 pos : POSITION; bool lit : FLAG; };
struct VSOut { float sel : TEXCOORD0; uint lit : TEXCOORD1; };
VSOut main(VSIn v) {
    VSOut o;
    o.sel = v.lit ? v.pos.x * SCALE : -v.pos.y;
#if USE_TWICE
    o.lit = v.lit ? 2 : 0;
#else
    o.lit = v.lit ? 1 : 0;
#endif
    return o;
}
""", [el("POSITION", "R32G32B32_FLOAT"), el("FLAG", "R32_UINT")], {0: (16, vb)},
        {"TEXCOORD0": sel[:, None], "TEXCOORD1": ((flags != 0) * 2).astype(np.uint32)[:, None]},
        defines={"SCALE": "3.0", "USE_TWICE": "1"},
        covers="bool input (non-zero is true), defines and #if")


def case_arrays_nested() -> VSCase:
    vb = np.zeros(N, [("a", "<f4", 2), ("b", "<f4", 2), ("c", "<f4")])
    vb["a"] = f32(RNG.uniform(-1, 1, (N, 2)))
    vb["b"] = f32(RNG.uniform(-1, 1, (N, 2)))
    vb["c"] = f32(RNG.uniform(-1, 1, N))
    return VSCase("array_input_nested_struct", """
struct Inner { float w : TEXCOORD5; };
struct VSIn { float2 t[2] : TEXCOORD3; Inner inner; };
struct Pair { float2 sum : TEXCOORD0; float2 diff : TEXCOORD1; };
struct VSOut { Pair pair; float w : TEXCOORD2; };
VSOut main(VSIn v) {
    VSOut o; o.pair.sum = v.t[0] + v.t[1]; o.pair.diff = v.t[0] - v.t[1];
    o.w = v.inner.w * 10; return o;
}
""", [el("TEXCOORD", "R32G32_FLOAT", index=3), el("TEXCOORD", "R32G32_FLOAT", index=4),
      el("TEXCOORD", "R32_FLOAT", index=5)], {0: (20, vb)},
        {"TEXCOORD0": h(vb["a"]) + h(vb["b"]), "TEXCOORD1": h(vb["a"]) - h(vb["b"]),
         "TEXCOORD2": h(vb["c"])[:, None] * 10},
        covers="an array input (TEXCOORD3 and 4), nested input and output structs")


def case_raw_bits() -> VSCase:
    bits = RNG.integers(0, 2 ** 32, (N, 2), dtype=np.uint64).astype(np.uint32)
    bits[:, 0] &= 0x3FFFFFFF  # finite floats, so float arithmetic on them stays defined
    return VSCase("float_fed_by_uint_format", """
struct VSIn { float2 v : TEXCOORD0; };
struct VSOut { uint2 bits : TEXCOORD0; };
VSOut main(VSIn i) { VSOut o; o.bits = asuint(i.v); return o; }
""", [el("TEXCOORD", "R32G32_UINT")], {0: (8, bits)}, {"TEXCOORD0": bits},
        covers="a float input fed by a UINT format receives the raw bits (rules 2.12)")


def case_packoffset() -> VSCase:
    p = _positions(N)
    pk = Packer(48)
    pk.f(32, 1.0, 2.0, 3.0, 4.0)   # float4 A : packoffset(c2)      -> bytes 32..47
    pk.f(4, 5.5)                   # float B : packoffset(c0.y)     -> byte 4
    pk.f(24, 6.5, 7.5)             # float2 C : packoffset(c1.z)    -> bytes 24..31
    pk.f(0, -1.0)                  # float D : packoffset(c0)       -> byte 0
    return VSCase("cb_packoffset", """
cbuffer Placed : register(b0) {
    float4 A : packoffset(c2);
    float  B : packoffset(c0.y);
    float2 C : packoffset(c1.z);
    float  D : packoffset(c0);
};
float4 main(float3 p : POSITION, out float4 o1 : TEXCOORD1) : TEXCOORD0 {
    o1 = float4(C, B, D);
    return A + float4(p, 0);
}
""", [el("POSITION", "R32G32B32_FLOAT")], {0: (12, p)},
        {"TEXCOORD0": np.c_[h(p), np.zeros(N)] + [1, 2, 3, 4],
         "TEXCOORD1": np.tile([6.5, 7.5, 5.5, -1.0], (N, 1))},
        {0: pk.bytes()}, covers="packoffset places members out of declaration order")


ALL = [case_packoffset, case_cb_column_major, case_cb_row_major_modifier, case_cb_zpr,
       case_cb_pragma, case_skinning, case_cb_packing, case_texcoords, case_integers, case_min16,
       case_sv_ids, case_out_params, case_matrix_input, case_matrix_input_row_major,
       case_sv_position_input, case_unused_inputs, case_so_only, case_bool_defines,
       case_arrays_nested, case_raw_bits]

BY_NAME = {f.__name__.removeprefix("case_"): f for f in ALL}


def decode_outputs(so_bytes: bytes, case: VSCase) -> dict:
    """The Stream Output records of ``case`` (every output, in declaration order) by output key,
    as float32, int32 or uint32 arrays."""
    layout = case.layout_of_outputs()
    stride = sum(c for _, c, _ in layout)
    words = np.frombuffer(so_bytes, "<u4").reshape(-1, stride)
    out, col = {}, 0
    for key, comps, kind in layout:
        part = words[:, col:col + comps]
        out[key] = {"float": part.view(np.float32), "sint": part.view(np.int32),
                    "uint": part}[kind]
        col += comps
    return out


def check_outputs(got: dict, case: VSCase, who: str) -> None:
    """Assert ``got`` (decoded outputs) equals ``case.expected``: floats to a relative 1e-5 and
    an absolute 2e-6 (float32 shader arithmetic against numpy's float64), integers exactly."""
    for key, want in case.expected.items():
        have = got[key]
        assert have.shape == want.shape, f"{who} {key}: shape {have.shape} != {want.shape}"
        if want.dtype.kind == "f":
            np.testing.assert_allclose(have.astype(np.float64), want, rtol=1e-5, atol=2e-6,
                                       err_msg=f"{who} {key} ({case.covers})")
        else:
            np.testing.assert_array_equal(have, want, err_msg=f"{who} {key} ({case.covers})")
