"""A case's ``root_signature`` (docs/case-format.md) and a vertex shader's own
([RootSignature] attribute, RTS0 chunk): validated when the case loads (rules 16), the shader's
registers checked against it (rules 16.9); a case without one loads as before."""

from __future__ import annotations

import base64
import copy
import json
import shutil
import struct
from pathlib import Path

import pytest

from gpuia.d3d.container import read_container
from gpuia.d3d.container.checksum import dxbc_checksum
from gpuia.errors import CaseError, InvalidDescError
from gpuia.harness.case import load_case
from gpuia.harness.case_root_signature import case_root_signature

pytest.importorskip("gpuia.hlsl.library")

ROOT = Path(__file__).resolve().parents[2]
PALETTE_CASE = json.loads((ROOT / "examples/cases/srv_skinning_palette.json").read_text())
BLOBS = ROOT / "tests/data/shaders/blobs"


def palette(root_signature=None, attribute: str | None = None) -> dict:
    """The skinning palette example (a StructuredBuffer Palette at t0, no cbuffer) with a root
    signature in the case and/or an attribute on its entry."""
    doc = copy.deepcopy(PALETTE_CASE)
    if root_signature is not None:
        doc["root_signature"] = root_signature
    if attribute is not None:
        doc["vertex_shader"]["hlsl"] = doc["vertex_shader"]["hlsl"].replace(
            "VSOut main(", f"[RootSignature({attribute})]\nVSOut main(")
    return doc


def test_without_root_signature_nothing_changes():
    assert load_case(palette()).root_signature is None


@pytest.mark.parametrize("rs", [
    {"parameters": [{"type": "srv", "visibility": "vertex", "shader_register": 0}]},
    {"parameters": [{"type": "descriptor_table", "visibility": "all",
                     "ranges": [{"type": "srv", "num_descriptors": -1,
                                 "base_shader_register": 0}]}]},
    "RootFlags(ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT), SRV(t0)",
    {"hlsl": "DescriptorTable(SRV(t0, numDescriptors=2))", "version": "1.0"},
])
def test_case_root_signature_covers_the_srv(rs):
    crs = load_case(palette(rs)).root_signature
    ((stage, binding, holder),) = crs.covered
    assert (stage, binding.register_class, binding.register, binding.name) == \
        ("vertex", "t", 0, "Palette")
    assert holder.parameter == 0


def test_case_root_signature_missing_the_register():
    with pytest.raises(InvalidDescError, match="rules 16.9") as e:
        load_case(palette({"parameters": [{"type": "srv", "shader_register": 1}]}))
    assert "Palette" in str(e.value) and "t0" in str(e.value)


def test_case_root_signature_invalid():
    with pytest.raises(InvalidDescError, match="rules 16.6"):
        load_case(palette("SRV(t0), SRV(t0, visibility=SHADER_VISIBILITY_VERTEX)"))
    with pytest.raises(CaseError, match="unknown keys"):
        load_case(palette({"params": []}))


def test_the_shaders_own_attribute_is_used_without_the_case_field():
    crs = load_case(palette(attribute='"SRV(t0, visibility=SHADER_VISIBILITY_VERTEX)"')
                    ).root_signature
    assert crs.root_signature.origin == "[RootSignature] of main"
    with pytest.raises(InvalidDescError, match="rules 16.9"):
        load_case(palette(attribute='"SRV(t0, visibility=SHADER_VISIBILITY_PIXEL)"'))


def test_the_case_field_wins_over_the_attribute():
    doc = palette({"parameters": [{"type": "srv", "shader_register": 0}]},
                  attribute='"SRV(t7)"')  # the attribute's alone would not hold t0
    assert load_case(doc).root_signature.root_signature.origin == "root_signature"


def test_blob_file(tmp_path):
    # RTS0 data for version 1.0: one root SRV t0 (ALL): header, 1 parameter, its 2-word payload
    data = struct.pack("<6I", 1, 1, 24, 0, 44, 0) + struct.pack("<3I", 3, 0, 36) + \
        struct.pack("<2I", 0, 0)
    (tmp_path / "rs.bin").write_bytes(data)
    doc = palette({"blob_file": "rs.bin"})
    path = tmp_path / "case.json"
    path.write_text(json.dumps(doc))
    crs = load_case(path).root_signature
    assert crs.root_signature.version == "1.0"
    assert crs.covered[0][2].kind == "root descriptor"


def _with_rts0(container: bytes, rts0: bytes) -> bytes:
    """An FXC container with one more chunk, RTS0, appended (header and table rebuilt)."""
    count = struct.unpack_from("<I", container, 28)[0]
    offsets = struct.unpack_from(f"<{count}I", container, 32)
    body = container[32 + 4 * count:]
    shift = 4  # one more table entry
    new_offsets = [o + shift for o in offsets] + [32 + 4 * (count + 1) + len(body)]
    chunk = b"RTS0" + struct.pack("<I", len(rts0)) + rts0
    total = 32 + 4 * (count + 1) + len(body) + len(chunk)
    return container[:24] + struct.pack("<2I", total, count + 1) + \
        struct.pack(f"<{count + 1}I", *new_offsets) + body + chunk


def test_compiled_shaders_rts0_chunk():
    fxc = (BLOBS / "cbuffers.main.vs_5_0.cso").read_bytes()
    # 1.1: RootFlags(DENY_VERTEX_SHADER_ROOT_ACCESS) and nothing else
    blob = _with_rts0(fxc, struct.pack("<6I", 2, 0, 24, 0, 24, 0x2))
    assert read_container(blob).stage == "vertex"  # still the same shader
    doc = {"vertex_shader": {"dxbc": {"base64": base64.b64encode(blob).decode()}}}
    crs = case_root_signature(doc, None, None, Path.cwd())
    assert crs.root_signature.flags == 0x2
    assert crs.root_signature.origin == "RTS0 of the inline container"
    doc = {"vertex_shader": {"dxbc": {"base64": base64.b64encode(fxc).decode()}}}
    assert case_root_signature(doc, None, None, Path.cwd()) is None


def test_pipeline_state_root_signature():
    # pRootSignature of the pipeline state: the same field, refusals pointed into the section
    doc = palette()
    doc["pipeline_state"] = {"root_signature": "SRV(t0)"}
    assert load_case(doc).root_signature.covered[0][1].name == "Palette"
    doc["pipeline_state"] = {"root_signature": "SRV(t0), DescriptorTable(SRV(t0))"}
    with pytest.raises(InvalidDescError) as e:
        load_case(doc)
    assert e.value.where.startswith("pipeline_state.root_signature: root parameter 1, range 0")
    assert "rules 16.6" in str(e.value)
    doc = palette("SRV(t0)")
    doc["pipeline_state"] = {"root_signature": "SRV(t0)"}
    with pytest.raises(CaseError, match="once"):
        load_case(doc)


def _dxbc_case_with(rts0: bytes) -> dict:
    """The FXC cbuffers case (cbuffers in b0 and b2, tests/dxbc_cases.py) with an RTS0 chunk
    in its container, inline."""
    import dxbc_cases as dc

    doc = dc.with_dxbc(dc.cbuffers_case(), "cbuffers.main.vs_5_0")
    blob = _with_rts0((BLOBS / "cbuffers.main.vs_5_0.cso").read_bytes(), rts0)
    blob = blob[:4] + dxbc_checksum(blob) + blob[20:]  # signed again: vkd3d checks it
    doc["vertex_shader"] = {"dxbc": {"base64": base64.b64encode(blob).decode()}}
    return doc


def _cbvs(*registers: int, flags: int = 0) -> bytes:
    """RTS0 data, version 1.0: one root CBV (space0, ALL) per register."""
    n = len(registers)
    params_at, payload_at = 24, 24 + 12 * n
    out = struct.pack("<6I", 1, n, params_at, 0, payload_at + 8 * n, flags)
    out += b"".join(struct.pack("<3I", 2, 0, payload_at + 8 * k) for k in range(n))
    return out + b"".join(struct.pack("<2I", r, 0) for r in registers)


def test_compiled_shader_registers_against_its_rts0():
    if not (shutil.which("vkd3d-compiler") and shutil.which("spirv-cross")):
        pytest.skip("needs vkd3d-compiler and spirv-cross")
    crs = load_case(_dxbc_case_with(_cbvs(0, 2))).root_signature
    assert [(b.register_class, b.register) for _, b, _ in crs.covered] == [("b", 0), ("b", 2)]
    with pytest.raises(InvalidDescError, match="rules 16.9") as e:  # b2 is not held
        load_case(_dxbc_case_with(_cbvs(0)))
    assert "b2" in str(e.value)
    with pytest.raises(InvalidDescError, match="DENY_VERTEX_SHADER_ROOT_ACCESS"):
        load_case(_dxbc_case_with(_cbvs(0, 2, flags=0x2)))
