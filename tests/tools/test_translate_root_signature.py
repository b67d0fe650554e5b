"""``gpuia translate`` of a case with a root signature: the desc and the WebGPU binding of each
register the vertex shader reads (docs/resources.md, "Root signatures"), on WebGPU's default
limits. Expected bindings by hand: an SRV tN of space S is @group(3) @binding(16 + 128 S + N),
a cbuffer bN of space 0 @group(3) @binding(N)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from gpuia.cli import main

pytest.importorskip("gpuia.hlsl.library")

ROOT = Path(__file__).resolve().parents[2]
PALETTE_CASE = json.loads((ROOT / "examples/cases/srv_skinning_palette.json").read_text())


def _case(tmp_path, rs, space=0):
    doc = copy.deepcopy(PALETTE_CASE)
    if space:
        doc["vertex_shader"]["hlsl"] = doc["vertex_shader"]["hlsl"].replace(
            "register(t0)", f"register(t0, space{space})")
        doc["shader_resources"][0]["space"] = space
    if rs is not None:
        doc["root_signature"] = rs
    path = tmp_path / "case.json"
    path.write_text(json.dumps(doc))
    return str(path)


def test_json_shows_the_mapping(tmp_path, capsys):
    path = _case(tmp_path, {"parameters": [{"type": "descriptor_table", "visibility": "vertex",
                                            "ranges": [{"type": "srv", "num_descriptors": 4,
                                                        "base_shader_register": 0,
                                                        "register_space": 2}]}]}, space=2)
    assert main(["translate", path]) == 0
    doc = json.loads(capsys.readouterr().out)
    section = doc["root_signature"]
    assert section["desc"]["parameters"][0]["ranges"][0]["register_space"] == 2
    ((mapped,),) = [m["bindings"] for m in section["mapped"]]
    assert (mapped["register"], mapped["space"], mapped["group"], mapped["binding"],
            mapped["buffer"], mapped["root"]) == \
        ("t0", 2, 3, 16 + 128 * 2, "read-only-storage", "root parameter 0, range 0")


def test_text_shows_the_mapping(tmp_path, capsys):
    path = _case(tmp_path, "SRV(t0, visibility=SHADER_VISIBILITY_VERTEX)")
    assert main(["translate", path, "--text"]) == 0
    out = capsys.readouterr().out
    assert "== root signature (root_signature, version 1.1" in out
    assert "t0 space0 (Palette) <- root parameter 0 (root descriptor) -> @group(3) " \
           "@binding(16), read-only-storage buffer" in out


def test_without_root_signature_the_output_is_unchanged(tmp_path, capsys):
    path = _case(tmp_path, None)
    assert main(["translate", path]) == 0
    assert "root_signature" not in json.loads(capsys.readouterr().out)


def test_refusals_exit_2_with_one_line(tmp_path, capsys):
    # rules 16.9: the register is not in the root signature
    path = _case(tmp_path, "SRV(t1)")
    assert main(["translate", path]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    (line,) = err.splitlines()
    assert line.startswith("error: ") and "rules 16.9" in line and "Palette" in line
    # a space gpuia has no binding for (7: past 16 + 7 * 128 bindings of WebGPU's 1000), held
    # by the root signature: still refused, naming the space
    path = _case(tmp_path, "DescriptorTable(SRV(t0, space=7))", space=7)
    assert main(["translate", path]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith("error: ") and "space7" in line


def test_texture_and_static_sampler_rows(capsys):
    # examples/cases/root_signature_heightmap.json: the texture t0 in a table, s0 a static
    # sampler. The shader samples its only texture: binding 944 + 0, filterable "float";
    # sampler sN is binding 928 + N (docs/resources.md)
    path = str(ROOT / "examples/cases/root_signature_heightmap.json")
    assert main(["translate", path]) == 0
    section = json.loads(capsys.readouterr().out)["root_signature"]
    rows = [[(r["register"], r["root"], r["held_by"], r["binding"], r["resource"],
              r[r["resource"]]) for r in m["bindings"]] for m in section["mapped"]]
    assert rows and all(r == [
        ("t0", "root parameter 0, range 0", "table", 944, "texture", "float 2d"),
        ("s0", "static sampler 0", "static sampler", 928, "sampler", "filtering")]
        for r in rows)
    assert main(["translate", path, "--text"]) == 0
    out = capsys.readouterr().out
    assert "static sampler 0: s0 space0, filter min_mag_mip_point, address clamp/clamp/" \
           "clamp, visibility vertex" in out
    assert "t0 space0 (Heightmap) <- root parameter 0, range 0 (table) -> @group(3) " \
           "@binding(944), float 2d texture" in out
    assert "s0 space0 (PointClamp) <- static sampler 0 (static sampler) -> @group(3) " \
           "@binding(928), filtering sampler" in out


def test_uav_rows(tmp_path, capsys):
    # examples/cases/uav_vertex_writes.json's u0 on a root UAV, u1 in a UAV range: the shader's
    # k-th UAV is binding 992 + k, a read-write storage buffer (docs/resources.md)
    doc = json.loads((ROOT / "examples/cases/uav_vertex_writes.json").read_text())
    doc["root_signature"] = "UAV(u0), DescriptorTable(UAV(u1, numDescriptors=3))"
    path = tmp_path / "uav.json"
    path.write_text(json.dumps(doc))
    assert main(["translate", str(path)]) == 0
    section = json.loads(capsys.readouterr().out)["root_signature"]
    rows = [[(r["register"], r["root"], r["held_by"], r["binding"], r["resource"],
              r[r["resource"]]) for r in m["bindings"]] for m in section["mapped"]]
    assert rows and all(r == [
        ("u0", "root parameter 0", "root descriptor", 992, "buffer", "storage"),
        ("u1", "root parameter 1, range 0", "table", 993, "buffer", "storage")] for r in rows)
    assert main(["translate", str(path), "--text"]) == 0
    out = capsys.readouterr().out
    assert "u1 space0 (Raw) <- root parameter 1, range 0 (table) -> @group(3) " \
           "@binding(993), storage buffer" in out
