"""The raster cross-check (docs/raster-check.md): what the GPU rasterizes against the reference's
primitives, on every adapter wgpu lists; the list streams gpuia draws what WebGPU cannot
assemble with; the adapter quirks that need them, measured.

Expected values are hand-derived: pixel counts and list streams are checked by hand, with no
adapter, in tests/unit/test_raster.py; here the GPU's pixels are checked against them.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from draw_cases import indexed, layout_case, plain
from gpuia.d3d.topology import topology_info
from gpuia.gpu.ia.host_lists import list_stream
from gpuia.gpu.ia.plan import Assembly
from gpuia.gpu.quirks import (
    FETCH,
    LAST_PROVOKING_VERTEX,
    NO_PRIMITIVE_RESTART,
    SIGNED_FIRST_VERTEX,
    quirks_for,
)
from gpuia.harness.case import load_case
from gpuia.harness.reference_run import reference_ia
from helpers import every_adapter_device

ROOT = Path(__file__).resolve().parents[2]
CASES = ROOT / "examples" / "cases"
M = 0xFFFFFFFF


# -- the check on every adapter ----------------------------------------------------------------

def test_an_adapter_without_a_device_says_why(devices):
    """Adapters left out of the checks above are refused with wgpu's message and a reason,
    never silently (the H200's OpenGL adapter: no compute shaders in its GL context)."""
    for summary, why in every_adapter_device()[1].items():
        assert why.startswith(f"cannot create a device on {summary}: "), why
        if "via OpenGL" in summary and "Parent device is lost" in why:
            assert "has no compute shaders" in why, why


def _u16(values):
    return {"dtype": "uint16", "values": values}


def _u32(values):
    return {"dtype": "uint32", "values": values}


RASTER_CASES = [
    layout_case("strip-cuts-16", "TRIANGLESTRIP", [indexed(11, 2, base=3)],
                 {"format": "R16_UINT", "data": _u16([0, 1, 2, 3, 0xFFFF, 4, 5, 6, 7, 8, 9])},
                 cut="0xFFFF"),
    layout_case("strip-cuts-32", "TRIANGLESTRIP", [indexed(9, start_instance=5)],
                 {"format": "R32_UINT", "data": _u32([0, 1, 2, M, 3, 4, 5, 6, 7])},
                 cut="0xFFFFFFFF"),
    # A cut value WebGPU does not restart at: 0xFFFF in 32-bit indices cuts in D3D12.
    layout_case("cut-0xFFFF-in-R32", "TRIANGLESTRIP", [indexed(8)],
                 {"format": "R32_UINT", "data": _u32([0, 1, 2, 0xFFFF, 3, 4, 5, M])},
                 cut="0xFFFF"),
    layout_case("line-strip-cuts", "LINESTRIP", [indexed(8, 2)],
                 {"format": "R16_UINT", "data": _u16([5, 6, 7, 0xFFFF, 1, 2, 3, 4])},
                 cut="0xFFFF"),
    layout_case("strip-no-cut", "TRIANGLESTRIP", [plain(9, 2, start=4, start_instance=1)]),
    layout_case("line-strip", "LINESTRIP", [plain(7, start=2)]),
    layout_case("triangle-list", "TRIANGLELIST", [plain(9, 3)]),
    layout_case("indexed-list", "TRIANGLELIST", [indexed(9, base=-2)],
                 {"format": "R16_UINT", "data": _u16([2, 3, 4, 5, 6, 7, 8, 9, 10])}),
    layout_case("null-index-view", "TRIANGLELIST", [indexed(6)], {"format": "R16_UINT",
                                                                     "data": None}),
    layout_case("adjacency-non-indexed", "TRIANGLELIST_ADJ", [plain(12, 2)]),
    layout_case("strip-adjacency-non-indexed", "TRIANGLESTRIP_ADJ", [plain(10)]),
    layout_case("line-strip-adjacency", "LINESTRIP_ADJ", [indexed(7)],
                 {"format": "R16_UINT", "data": _u16([0, 1, 2, 3, 0xFFFF, 4, 5])},
                 cut="0xFFFF"),
    layout_case("points", "POINTLIST", [plain(20)]),
]


def _example_cases():
    return [load_case(p) for p in sorted(CASES.glob("*.json"))]


@pytest.mark.parametrize("doc", RASTER_CASES, ids=[d["name"] for d in RASTER_CASES])
def test_every_adapter_rasterizes_d3ds_primitives(devices, doc):
    from gpuia.harness.raster_check import raster_check

    case = load_case(doc)
    ref = reference_ia(case)
    assert ref.primitives.shape[0] > 0
    for dev in devices:
        for r in raster_check(case, dev, ref):
            assert r.status == "OK", (dev.info["summary"], r.detail, r.problems)
            # Every index of a NULL view reads 0: its triangles have no area.
            assert (r.fragments > 0) == (doc["name"] != "null-index-view"), r.detail


@pytest.mark.parametrize("draw, index_buffer", [
    (indexed(0), {"format": "R16_UINT", "data": {"hex": ""}}),
    (indexed(3, instances=0), {"format": "R16_UINT", "data": _u16([0, 1, 2])}),
    (indexed(0), {"format": "R16_UINT", "data": None}),
    (plain(0), None),
    (plain(3, instances=0), None),
], ids=["indexed-empty-buffer", "indexed-no-instances", "indexed-null-view", "plain-empty",
        "plain-no-instances"])
def test_draws_that_deliver_nothing_rasterize_nothing(devices, draw, index_buffer):
    # A found case: an indexed draw of 0 indices from an empty index buffer once raised
    # AttributeError in the raster check (no stream to upload).
    from gpuia.harness.raster_check import raster_check

    case = load_case(layout_case("nothing", "TRIANGLESTRIP", [draw], index_buffer,
                                  cut="0xFFFF" if index_buffer else "DISABLED"))
    ref = reference_ia(case)
    for dev in devices:
        [r] = raster_check(case, dev, ref)
        assert (r.status, r.primitives, r.fragments) == ("OK", 0, 0), r.detail


def test_every_adapter_rasterizes_the_example_cases(devices):
    """Every example case's primitives as D3D draws them; a case with a geometry shader, whose
    rasterized stream is the shader's (tests/gpu/test_gpu_geometry_raster.py), is refused by
    this check with that reason."""
    from gpuia.errors import UnsupportedError
    from gpuia.harness.raster_check import raster_check

    for case in _example_cases():
        ref = reference_ia(case)
        if case.gs is not None:
            with pytest.raises(UnsupportedError, match="the case has a geometry shader"):
                raster_check(case, devices[0], ref)
            continue
        for dev in devices:
            for r in raster_check(case, dev, ref):
                assert r.status == "OK", (case.name, dev.info["summary"], r.detail, r.problems)


def _strip_case():
    return load_case(RASTER_CASES[0])


def test_check_finds_a_strip_drawn_without_its_cuts(devices, monkeypatch):
    """A plan that binds the indices without D3D's cuts (WebGPU restarts at 0xFFFF here, so
    the cut value 0xFFFFFFFF is made to look like it) bridges the cut: the check says so."""
    import gpuia.harness.raster_check as raster

    case = load_case(dict(RASTER_CASES[0], strip_cut_value="DISABLED"))
    wrong = raster.plan_indices
    monkeypatch.setattr(raster, "plan_indices", lambda d, ib, t, c, cap, a: wrong(
        d, ib, t, case.strip_cut_value, cap, a))
    ref = reference_ia(_strip_case())  # D3D cuts at 0xFFFF
    for dev in devices:
        r = raster.raster_check(case, dev, ref)[0]
        assert r.status == "DIFFERENT", (dev.info["summary"], r.detail)
        assert any("D3D does not draw" in p or "outside it" in p for p in r.problems), r.problems


def test_check_finds_a_wrong_provoking_vertex(devices, monkeypatch):
    """Odd strip triangles in OpenGL's order (t+1, t, t+2) keep the winding but lead with
    another vertex: every odd triangle is reported."""
    import gpuia.gpu.ia.plan as plan

    def gl_order(values, cuts, topo, rotate=False):
        out = list_stream(values, cuts, topo, rotate).reshape(-1, 3).copy()
        odd = np.arange(out.shape[0]) % 2 == 1
        out[odd] = out[odd][:, [2, 0, 1]]  # (t, t+2, t+1) -> (t+1, t, t+2)
        return out.reshape(-1)

    monkeypatch.setattr(plan, "list_stream", gl_order)
    import gpuia.harness.raster_check as raster

    case = load_case(RASTER_CASES[1])
    ref = reference_ia(case)
    for dev in devices:
        monkeypatch.setattr(raster.Assembly, "of",
                            classmethod(lambda cls, q, flat_inputs: Assembly(True, False)))
        r = raster.raster_check(case, dev, ref)[0]
        assert r.status == "DIFFERENT", r.detail
        assert sum("missing" in p for p in r.problems) >= 2, r.problems


# -- the quirk table, measured -----------------------------------------------------------------

def _adapters_with(effect):
    return [d for d in every_adapter_device()[0] if any(q.effect == effect for q in d.caps.quirks)]


@pytest.mark.parametrize("effect", [NO_PRIMITIVE_RESTART, LAST_PROVOKING_VERTEX])
def test_quirk_rows_are_measured(devices, monkeypatch, effect):
    """With no workaround at all, an adapter with the quirk draws unlike D3D (the row is still
    needed) and one without it like D3D (the table is complete for the adapters here). A strip
    with cuts shows the ignored restart as more fragments than D3D's primitives can have; a
    strip without cuts shows the provoking vertex as the right pixels under the wrong names."""
    import gpuia.harness.raster_check as raster

    monkeypatch.setattr(raster.Assembly, "of", classmethod(lambda cls, q, flat_inputs: Assembly()))
    doc = RASTER_CASES[0] if effect == NO_PRIMITIVE_RESTART else RASTER_CASES[4]
    case = load_case(doc)
    ref = reference_ia(case)
    for dev in devices:
        has = any(q.effect == effect for q in dev.caps.quirks)
        r = raster.raster_check(case, dev, ref)[0]
        assert (r.status == "DIFFERENT") == has, (dev.info["summary"], effect, r.detail)
        if has:
            too_many = r.problems[0].endswith("any conforming rasterizer writes for D3D's "
                                              "primitives")
            assert too_many == (effect == NO_PRIMITIVE_RESTART), r.problems


def test_fetch_quirk_is_measured(devices, monkeypatch):
    """llvmpipe's per-instance SNORM fetch, forced native with the quirk table emptied: the
    most negative code reads -128/127, not D3D's -1.0 (rules 2.3)."""
    import dataclasses

    from gpuia.harness.compare import compare
    from gpuia.harness.run_gpu import run_case_gpu

    doc = {"gpuia_case": 1, "name": "snorm-per-instance",
           "input_layout": [{"SemanticName": "POSITION", "Format": "R32_FLOAT"},
                            {"SemanticName": "TEXCOORD", "Format": "R8G8B8A8_SNORM",
                             "InputSlot": 1, "InputSlotClass": "PER_INSTANCE_DATA",
                             "InstanceDataStepRate": 1}],
           "vertex_buffers": [{"slot": 0, "stride": 4, "data": {"dtype": "float32",
                                                               "values": [0.0]}},
                              {"slot": 1, "stride": 4, "data": {"hex": "80 81 7f 00"}}],
           "primitive_topology": "POINTLIST",
           "draw": {"DrawInstanced": {"VertexCountPerInstance": 1}}}
    case = load_case(doc)
    ref = reference_ia(case)
    for dev in devices:
        has = any(q.effect == FETCH for q in dev.caps.quirks)
        monkeypatch.setattr(dev, "caps", dataclasses.replace(dev.caps, quirks=()))
        res = run_case_gpu(case, dev, "native", ref)
        assert compare(ref, res, case.layout).ok != has, dev.info["summary"]


def _start_vertex_case(start, stride=4, topology="TRIANGLESTRIP"):
    # Slot 0 holds 3 vertices: with stride 4 every fetch past them reads D3D's zeros; with
    # stride 0 every vertex reads element 0 (in bounds: the native path applies).
    doc = layout_case("start-vertex", topology, [plain(5, 2, start=start, start_instance=1)],
                       vertices=3)
    doc["vertex_buffers"][0]["stride"] = stride
    doc["vertex_buffers"][0]["data"]["values"] = [1.5, 2.5, 3.5]
    return doc


@pytest.mark.parametrize("start", [(1 << 31) - 2, 1 << 31, 3_000_000_000, M - 1])
def test_start_vertex_past_2_31_draws_d3ds_vertices_on_every_adapter(devices, start):
    """StartVertexLocation up to 2**32 - 1, vertex ids wrapping past it (rules 4.8): the
    pulled values, system values and rasterized primitives are D3D's everywhere; the native
    path, where its fetches are in bounds (stride 0), too, except where the adapter's first
    vertex is signed: refused there with the reason."""
    from gpuia.errors import UnsupportedError
    from gpuia.harness.compare import compare
    from gpuia.harness.raster_check import raster_check
    from gpuia.harness.run_gpu import run_case_gpu

    for stride, topology in ((4, "TRIANGLESTRIP"), (0, "TRIANGLESTRIP"), (4, "POINTLIST")):
        case = load_case(_start_vertex_case(start, stride, topology))
        ref = reference_ia(case)
        for dev in devices:
            res = run_case_gpu(case, dev, "pulling", ref)
            assert compare(ref, res, case.layout).ok, (dev.info["summary"], start, stride)
            [r] = raster_check(case, dev, ref)
            assert (r.status, r.primitives) == ("OK", 6 if topology != "POINTLIST" else 10), \
                (dev.info["summary"], r.detail)
            if stride:
                continue
            signed = any(q.effect == SIGNED_FIRST_VERTEX for q in dev.caps.quirks)
            if signed and start >= 1 << 31:
                with pytest.raises(UnsupportedError, match="signed first vertex"):
                    run_case_gpu(case, dev, "native", ref)
            else:
                res = run_case_gpu(case, dev, "native", ref)
                assert compare(ref, res, case.layout).ok, (dev.info["summary"], start)


def test_signed_first_vertex_quirk_is_measured(devices, monkeypatch):
    """With the shift turned off, an adapter with the quirk delivers nothing for a point list
    from StartVertexLocation 2**31 (the row is needed) and one without it D3D's vertices.
    (llvmpipe's OpenGL still drew triangle strips from there: points show it.)"""
    import gpuia.gpu.vertex.plan as plan
    import gpuia.harness.raster_check as raster
    from gpuia.harness.compare import compare
    from gpuia.harness.run_gpu import run_case_gpu

    for module in (plan, raster):
        monkeypatch.setattr(module, "shift_first_vertex", lambda index, draw, quirks: index)
    case = load_case(_start_vertex_case(1 << 31, topology="POINTLIST"))
    ref = reference_ia(case)
    for dev in devices:
        has = any(q.effect == SIGNED_FIRST_VERTEX for q in dev.caps.quirks)
        res = run_case_gpu(case, dev, "pulling", ref)
        assert compare(ref, res, case.layout).ok != has, dev.info["summary"]
        [r] = raster.raster_check(case, dev, ref)
        assert (r.fragments == 0) == has, (dev.info["summary"], r.detail)


# -- the command line --------------------------------------------------------------------------

def _check(args, tmp_path):
    return subprocess.run([sys.executable, "-m", "gpuia", "check", *args], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)


def test_check_runs_the_raster_check_for_indexed_and_strip_draws(gpu_device, tmp_path):
    proc = _check([str(CASES / "indexed_strip_cut.json")], tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    raster = [ln for ln in proc.stdout.splitlines() if ": raster: " in ln]
    assert len(raster) == 1 and ": raster: OK: draw 0: 4 primitive(s)" in raster[0], proc.stdout
    proc = _check([str(CASES / "indexed_strip_cut.json"), "--no-raster"], tmp_path)
    assert ": raster: " not in proc.stdout
    proc = _check([str(CASES / "triangle_two_slots.json")], tmp_path)
    assert ": raster: " not in proc.stdout  # a non-indexed list: nothing to assemble wrong
    proc = _check([str(CASES / "triangle_two_slots.json"), "--raster"], tmp_path)
    assert ": raster: OK: draw 0: 1 primitive(s)" in proc.stdout, proc.stdout


def test_check_exits_1_when_the_raster_check_differs(gpu_device, tmp_path, monkeypatch):
    """Run in this process with the cuts dropped from the plan: one DIFFERENT line, exit 1."""
    import gpuia.harness.raster_check as raster
    from gpuia.cli import main

    wrong = raster.plan_indices
    monkeypatch.setattr(raster, "plan_indices", lambda d, ib, t, c, cap, a: wrong(
        d, ib, t, type(c).DISABLED, cap, a))
    path = tmp_path / "c.json"
    path.write_text(json.dumps(RASTER_CASES[0]))
    assert main(["check", str(path), "--path", "pulling"]) == 1


def test_a_host_list_draw_past_2_31_is_shifted_not_given_a_negative_base_vertex(devices):
    """A non-indexed draw gpuia draws from a host index list (adjacency here) with
    StartVertexLocation >= 2**31: on an adapter with a signed first vertex it is drawn with
    base vertex 0 and the shift in the vertex stage (OpenGL leaves a negative base vertex plus
    index undefined); everywhere its vertices and primitives are D3D's."""
    from gpuia.d3d.desc import StripCutValue
    from gpuia.d3d.draws import DrawInstanced
    from gpuia.gpu.ia.plan import plan_indices, shift_first_vertex
    from gpuia.harness.compare import compare
    from gpuia.harness.raster_check import raster_check
    from gpuia.harness.run_gpu import run_case_gpu

    start = 3_000_000_000
    draw = DrawInstanced(12, 2, start, 1)
    adj = topology_info("TRIANGLELIST_ADJ")
    plan = plan_indices(draw, None, adj, StripCutValue.DISABLED, False)
    assert plan.mode == "host"
    assert shift_first_vertex(plan, draw, quirks_for("x via OpenGL")).vertex_shift == start
    assert shift_first_vertex(plan, draw, quirks_for("x via Vulkan")).vertex_shift == 0
    case = load_case(layout_case("adjacency-past-2-31", "TRIANGLELIST_ADJ",
                                  [plain(12, 2, start=start, start_instance=1)], vertices=3))
    ref = reference_ia(case)
    for dev in devices:
        res = run_case_gpu(case, dev, "pulling", ref)
        assert compare(ref, res, case.layout).ok, dev.info["summary"]
        [r] = raster_check(case, dev, ref)
        assert (r.status, r.primitives) == ("OK", 4), (dev.info["summary"], r.detail)

