"""DXBC vertex shaders (FXC's blobs in tests/data/shaders/blobs) as cases, with the values they
must produce derived in numpy from their HLSL sources' arithmetic (tests/data/shaders/*.hlsl),
never from gpuia: the DXBC chain (vkd3d-compiler, SPIRV-Cross, gpuia's front end) is checked
against the source FXC compiled.

Constant buffers are packed at the offsets FXC's own reflection reports for them
(``cbuffers.main.vs_5_0.json``), written out below.
"""

from __future__ import annotations

import base64
from pathlib import Path

import numpy as np

from hlsl_vertex_cases import N, Packer, VSCase, el, f32, h

SHADERS = Path(__file__).parent / "data" / "shaders"
BLOBS = SHADERS / "blobs"
RNG = np.random.default_rng(20261205)
START_VERTEX = 2  # fetched from vertex START_VERTEX + i; SV_VertexID is i (rules 4.5)


def blob(name: str) -> bytes:
    return (BLOBS / f"{name}.cso").read_bytes()


def with_dxbc(case: VSCase, name: str, inline: bool = False) -> dict:
    """The case document with the blob ``name`` as its vertex shader, as ``dxbc_file`` (an
    absolute path) or inline as ``dxbc`` (base64)."""
    doc = case.doc()
    doc["vertex_shader"] = ({"dxbc": {"base64": base64.b64encode(blob(name)).decode()}}
                            if inline else {"dxbc_file": str(BLOBS / f"{name}.cso")})
    return doc


def with_hlsl(case: VSCase, source: str) -> dict:
    """The same case with the HLSL source FXC compiled, through gpuia's HLSL path."""
    doc = case.doc()
    doc["vertex_shader"] = {"hlsl_file": str(SHADERS / source)}
    return doc


def vertex_case() -> VSCase:
    """vertex.hlsl: position = float4(p, 1) + vertex_id, uv, bone = bones.x + bones.w, normal
    = p.zyx: every output exact in float32 (one rounding, the same everywhere). The draw
    starts at vertex START_VERTEX, whose SV_VertexID is 0 (D3D excludes StartVertexLocation:
    rules 4.5)."""
    total = N + START_VERTEX
    rows = np.zeros(total, [("p", "<f4", 3), ("uv", "<f4", 2), ("b", "u1", 4)])
    rows["p"] = f32(RNG.uniform(-4, 4, (total, 3)))
    rows["uv"] = f32(RNG.uniform(0, 1, (total, 2)))
    rows["b"] = RNG.integers(0, 256, (total, 4), dtype=np.uint8)
    p, uv, bones = (rows[k][START_VERTEX:] for k in ("p", "uv", "b"))
    vid = np.arange(N, dtype=np.float32)[:, None]
    position = np.c_[p, np.ones(N, np.float32)] + vid  # float32 + float32: D3D's one rounding
    case = VSCase("dxbc_vertex", "", [el("POSITION", "R32G32B32_FLOAT"),
                                      el("TEXCOORD", "R32G32_FLOAT"),
                                      el("BLENDINDICES", "R8G8B8A8_UINT")],
                  {0: (24, rows)},
                  {"SV_Position": position.astype(np.float64), "TEXCOORD0": h(uv),
                   "TEXCOORD1": (bones[:, 0].astype(np.uint32) + bones[:, 3])[:, None],
                   "NORMAL0": h(p[:, ::-1])},
                  draw={"DrawInstanced": {"VertexCountPerInstance": N, "InstanceCount": 1,
                                          "StartVertexLocation": START_VERTEX,
                                          "StartInstanceLocation": 0}},
                  covers="vertex.hlsl: SV_VertexID, an R8G8B8A8_UINT input, integer output")
    case.expected_exact = True
    return case


def cbuffers_case() -> VSCase:
    """cbuffers.hlsl with both cbuffers (Frame in b0, Placed in b2) packed at FXC's offsets."""
    v = {k: f32(RNG.uniform(0.5, 2.0, n)) for k, n in [
        ("eye", 3), ("jitter", 2), ("sun", 3), ("weights", 3), ("dir", 3), ("cone", 2),
        ("tint", 4)]}
    time, intensity, after, bias = 1.25, 0.75, 0.5, 0.125
    view, normal = f32(RNG.uniform(-1, 1, (4, 4))), f32(RNG.uniform(-1, 1, (3, 3)))
    tiles = (3, 5)
    frame = Packer(256).f(0, *v["eye"]).f(12, time).f(16, *v["jitter"]).f(32, *v["sun"])
    for k in range(3):  # float weights[3] at 48: each element starts a register
        frame.f(48 + 16 * k, v["weights"][k])
    frame.column_major(96, view)  # float4x4 view at 96, column_major: column c in c6 + c
    for r in range(3):  # row_major float3x3 normal_matrix at 160: row r in c10 + r
        frame.f(160 + 16 * r, *normal[r])
    frame.f(208, *v["dir"]).f(220, intensity).f(224, *v["cone"])  # Light light at 208
    frame.f(232, after).u(236, 1).u(240, *tiles)  # after_struct, bool enabled, uint2 tiles
    placed = Packer(32).f(8, bias).f(16, *v["tint"])  # bias : packoffset(c0.z), tint : c1
    p = f32(RNG.uniform(-2, 2, (N, 4)))
    hp = h(p)
    q = hp @ h(view).T + np.r_[h(v["eye"]) * time, h(v["weights"]).sum()] \
        + np.r_[h(v["jitter"]), h(v["sun"])[0], after] \
        + np.r_[h(v["dir"]) * intensity, h(v["cone"]).sum()]
    q[:, :3] += hp[:, :3] @ h(normal).T
    q += np.r_[tiles, 0, 0]  # enabled
    return VSCase("dxbc_cbuffers", "", [el("POSITION", "R32G32B32A32_FLOAT")], {0: (16, p)},
                  {"SV_Position": q * h(v["tint"]) + bias},
                  {0: frame.bytes(), 2: placed.bytes()},
                  covers="cbuffers.hlsl: two cbuffers in b0 and b2, FXC's packing")


def check_close(got: dict, case: VSCase, who: str) -> None:
    """``got`` against ``case.expected``: integers exactly; floats exactly where the case says
    its arithmetic rounds once (``expected_exact``), else to 1e-5 relative and 1e-5 absolute
    (a dozen float32 operations on values below 20, against float64)."""
    exact = getattr(case, "expected_exact", False)
    for key, want in case.expected.items():
        have = got[key]
        assert have.shape == want.shape, f"{who} {key}: {have.shape} != {want.shape}"
        if want.dtype.kind != "f" or exact:
            np.testing.assert_array_equal(have.astype(want.dtype), want, err_msg=f"{who} {key}")
        else:
            np.testing.assert_allclose(have.astype(np.float64), want, rtol=1e-5, atol=1e-5,
                                       err_msg=f"{who} {key}")


def unread_case() -> VSCase:
    """unread.hlsl: SV_Position = POSITION, TEXCOORD0 never read but in the signature, so the
    layout provides it (rules 3.8)."""
    rows = np.zeros(N, [("p", "<f4", 4), ("uv", "<f4", 2)])
    rows["p"] = f32(RNG.uniform(-3, 3, (N, 4)))
    rows["uv"] = f32(RNG.uniform(0, 1, (N, 2)))
    case = VSCase("dxbc_unread", "", [el("POSITION", "R32G32B32A32_FLOAT"),
                                      el("TEXCOORD", "R32G32_FLOAT")], {0: (24, rows)},
                  {"SV_Position": h(rows["p"])}, covers="unread.hlsl: an unread input")
    case.expected_exact = True
    return case
