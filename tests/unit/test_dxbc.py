"""DXBC shaders through vkd3d-compiler and SPIRV-Cross into gpuia's HLSL front end
(gpuia.hlsl.dxbc): the semantics, registers and system values the translation must keep, held to
FXC's own reflection and disassembly of the test blobs and to the HLSL sources FXC compiled; the
refusals (DXIL, missing tools, packed registers, resources, other stages, bad bytes).

The CPU reference's values for DXBC cases are in tests/gpu/test_dxbc_gpu.py, beside the GPU's.
"""

from __future__ import annotations

import json
import os
import shutil

import pytest

import dxbc_cases as dc
from gpuia.d3d.container import SignatureParameter, read_container
from gpuia.d3d.container.declarations import ConstantBufferDeclaration, resource_declarations
from gpuia.errors import CaseError, ContainerError, InvalidDescError, UnsupportedError
from gpuia.harness.case import load_case
from gpuia.hlsl import compile_shader
from gpuia.hlsl.dxbc import compile_dxbc, translated_hlsl
from gpuia.hlsl.dxbc_tools import translate


def _reflection(name: str) -> dict:
    return json.loads((dc.BLOBS / f"{name}.json").read_text())["reflection"]


def _semantics(members) -> list[tuple[str, int]]:
    return [(m.semantic.upper(), m.index) for m in members]


@pytest.mark.parametrize("model", ["4_0", "5_0", "5_1"])
def test_a_vertex_shader_keeps_the_semantics_of_its_source(model):
    """The translated shader's signature is the one gpuia's front end reads from the HLSL FXC
    compiled (vertex.hlsl), member by member with its type and width."""
    shader = compile_dxbc(dc.blob(f"vertex.main.vs_{model}"), "vertex", "v.cso")
    source = compile_shader((dc.SHADERS / "vertex.hlsl").read_text(), "vertex")
    for got, want in [(shader.signature.inputs, source.signature.inputs),
                      (shader.signature.outputs, source.signature.outputs)]:
        assert sorted((m.semantic.upper(), m.index, m.type, m.components) for m in got) == \
            sorted((m.semantic.upper(), m.index, m.type, m.components) for m in want)


def test_constant_buffers_keep_fxc_registers():
    """cbuffers.hlsl binds Frame to b0 and Placed to b2 (FXC's reflection); vkd3d numbers them
    0 and 1, gpuia gives them back their registers."""
    bind_points = sorted(b["BindPoint"] for b in _reflection("cbuffers.main.vs_5_0")["bindings"])
    shader = compile_dxbc(dc.blob("cbuffers.main.vs_5_0"), "vertex", "cb.cso")
    assert bind_points == [0, 2]
    assert list(shader.constant_buffer_slots) == bind_points
    # vkd3d's float4 arrays span the registers the program declares (FXC's disassembly:
    # dcl_constantbuffer CB0[16], CB2[2])
    assert [cb.size for cb in shader.constant_buffers] == [256, 32]


def test_declarations_are_read_as_fxc_disassembled_them():
    got = resource_declarations(dc.blob("cbuffers.main.vs_5_0"))
    assert got.constant_buffers == (ConstantBufferDeclaration(0, 16),
                                    ConstantBufferDeclaration(2, 2))
    assert got.other_resources == ()
    assert resource_declarations(dc.blob("vertex.main.vs_5_1")).constant_buffers == ()
    with pytest.raises(ContainerError, match="no DXBC program chunk"):
        resource_declarations(dc.blob("vertex.main.vs_6_0"))


def test_the_base_vertex_cbuffer_becomes_constants_zero():
    raw = translate(dc.blob("vertex.main.vs_5_0"), "v").hlsl
    assert "cbuffer SPIRV_Cross_VertexInfo" in raw  # what the rewrite must remove
    c = read_container(dc.blob("vertex.main.vs_5_0"))
    text = translated_hlsl(raw, c.input_signature, c.output_signature, (), "v")
    assert "SPIRV_Cross_VertexInfo" not in text
    assert "static const int SPIRV_Cross_BaseVertex = 0;" in text
    assert "static const int SPIRV_Cross_BaseInstance = 0;" in text


def test_pixel_inputs_get_their_semantics_and_interpolation():
    """pixel.hlsl's inputs TEXCOORD0 (float2) and nointerpolation TEXCOORD1 (uint) sit in
    registers 1 and 2 (FXC's reflection), which SPIRV-Cross names TEXCOORD1 and TEXCOORD2."""
    rows = {(p["SemanticName"], p["SemanticIndex"]): p["Register"]
            for p in _reflection("pixel.main.ps_5_0")["input"]}
    assert rows[("TEXCOORD", 0)] == 1 and rows[("TEXCOORD", 1)] == 2
    c = read_container(dc.blob("pixel.main.ps_5_0"))
    text = translated_hlsl(translate(dc.blob("pixel.main.ps_5_0"), "p").hlsl,
                           c.input_signature, c.output_signature, (), "p")
    assert "float2 v1 : TEXCOORD0;" in text
    assert "nointerpolation uint v2 : TEXCOORD1;" in text
    assert "TEXCOORD2" not in text


def test_a_pixel_shader_is_refused_where_its_source_is():
    """pixel.hlsl writes SV_Depth, which gpuia does not draw: the blob is refused for the same
    output as the source."""
    with pytest.raises(InvalidDescError) as source:
        compile_shader((dc.SHADERS / "pixel.hlsl").read_text(), "pixel")
    with pytest.raises(InvalidDescError) as blob:
        compile_dxbc(dc.blob("pixel.main.ps_5_0"), "pixel", "p.cso")
    assert "SV_DEPTH" in str(source.value).upper() and "SV_DEPTH" in str(blob.value).upper()


def test_two_elements_packed_in_one_register_are_refused():
    a = SignatureParameter("TEXCOORD", 0, 1, "UNDEFINED", "FLOAT32", 0x3, 0x3)
    b = SignatureParameter("TEXCOORD", 1, 1, "UNDEFINED", "FLOAT32", 0xC, 0xC)
    with pytest.raises(UnsupportedError, match="packs TEXCOORD0, TEXCOORD1 into register 1"):
        translated_hlsl("", (a, b), (), (), "x.cso")


def test_a_space_or_range_constant_buffer_is_refused():
    spaced = (ConstantBufferDeclaration(0, 4, space=1, upper=0),)
    with pytest.raises(UnsupportedError, match="outside register space 0"):
        translated_hlsl("", (), (), spaced, "x.cso")


def test_dxil_is_refused_with_the_reason_and_its_signatures_still_read():
    data = dc.blob("vertex.main.vs_6_0")
    assert read_container(data).input_signature  # still read
    with pytest.raises(UnsupportedError, match="DXIL code .* vkd3d-compiler 1.2 translates "
                                               "DXBC only"):
        compile_dxbc(data, "vertex", "v6.cso")
    doc = dc.with_dxbc(dc.vertex_case(), "vertex.main.vs_6_0")
    with pytest.raises(UnsupportedError, match="no DXIL translator"):
        load_case(doc)


def test_missing_tools_are_refused_naming_the_packages(tmp_path, monkeypatch):
    """Only vkd3d-compiler on PATH: spirv-cross is named, with both Debian packages."""
    folder = tmp_path / "bin"
    folder.mkdir()
    os.symlink(shutil.which("vkd3d-compiler"), folder / "vkd3d-compiler")
    monkeypatch.setenv("PATH", str(folder))
    with pytest.raises(UnsupportedError) as e:
        load_case(dc.with_dxbc(dc.vertex_case(), "vertex.main.vs_5_0"))
    assert "needs spirv-cross on PATH" in str(e.value)
    assert "vkd3d-compiler and spirv-cross packages" in str(e.value)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(UnsupportedError, match="needs vkd3d-compiler and spirv-cross on PATH"):
        compile_dxbc(dc.blob("cbuffers.main.vs_5_0"), "vertex", "cb.cso")


def test_other_stages_and_bad_bytes_are_refused():
    with pytest.raises(InvalidDescError, match="vertex_shader: stage='pixel': expected a "
                                               "vertex shader's container"):
        load_case(dc.with_dxbc(dc.vertex_case(), "pixel.main.ps_5_0"))
    with pytest.raises(InvalidDescError, match="holds a pixel shader, not a vertex shader"):
        compile_dxbc((dc.BLOBS / "pixel.main.ps_5_0.cso").read_bytes(), "vertex")
    doc = dc.vertex_case().doc()
    doc["vertex_shader"] = {"dxbc": {"hex": "44584243"}}
    with pytest.raises(InvalidDescError, match="vertex_shader: header at byte 0: too "
                                               "short for a container header"):
        load_case(doc)
    doc["vertex_shader"] = {"dxbc_file": str(dc.BLOBS / "vertex.main.vs_5_0.cso"),
                            "entry_point": "main"}
    with pytest.raises(CaseError, match="alone, got the keys \\['dxbc_file', 'entry_point'\\]"):
        load_case(doc)
    doc["vertex_shader"] = {"dxbc_file": str(dc.BLOBS / "absent.cso")}
    with pytest.raises(CaseError, match="vertex_shader.dxbc_file"):
        load_case(doc)


def test_a_dxbc_geometry_shader_is_refused_with_the_reason():
    doc = dc.with_dxbc(dc.vertex_case(), "vertex.main.vs_5_0")
    doc["primitive_topology"] = "TRIANGLELIST"
    doc["geometry_shader"] = {"dxbc_file": str(dc.BLOBS / "geometry.triangles.gs_5_0.cso")}
    del doc["stream_output"]   # it names the vertex shader's outputs: linkage would refuse it
    with pytest.raises(UnsupportedError, match="writes no HLSL geometry shaders"):
        load_case(doc)


def test_an_inline_blob_is_the_same_shader_as_its_file():
    vs = dc.vertex_case()
    a, b = load_case(dc.with_dxbc(vs, "vertex.main.vs_5_0")), \
        load_case(dc.with_dxbc(vs, "vertex.main.vs_5_0", inline=True))
    assert a.hlsl is not None and b.hlsl is not None and a.hlsl.source == b.hlsl.source
    assert _semantics(a.shader_signature().inputs) == _semantics(b.shader_signature().inputs)


def test_the_command_line_refuses_dxil_and_missing_tools_with_one_line(tmp_path):
    """A case next to its blob (``dxbc_file`` relative to the case file): DXIL and a PATH
    without the tools are exit 2 with one ``error:`` line naming the key and the reason."""
    from helpers import assert_one_error_line, gpuia_cli

    for name in ("vertex.main.vs_6_0", "vertex.main.vs_5_0"):
        shutil.copy(dc.BLOBS / f"{name}.cso", tmp_path / f"{name}.cso")
        doc = dc.with_dxbc(dc.vertex_case(), name)
        doc["vertex_shader"] = {"dxbc_file": f"{name}.cso"}
        (tmp_path / f"{name}.json").write_text(json.dumps(doc))
    assert_one_error_line(gpuia_cli("validate", tmp_path / "vertex.main.vs_6_0.json"),
                          "vertex_shader.dxbc_file: vertex.main.vs_6_0.cso: DXIL code")
    env = dict(os.environ, PATH=str(tmp_path), GPUIA_CACHE_DIR="none")
    assert_one_error_line(gpuia_cli("validate", tmp_path / "vertex.main.vs_5_0.json", env=env),
                          "vertex_shader.dxbc_file: ", "vkd3d-compiler and spirv-cross")


def test_integer_constants_kept_as_float_bits_become_integers():
    """DXBC's l(7) written to an integer register is the float 7 * 2**-149 to SPIRV-Cross (a
    denormal); 1.0f's bits are 0x3f800000 and -0.0f's 0x80000000."""
    assert 7 * 2.0 ** -149 == float("9.8090892502737194964661070830294e-45")
    text = translated_hlsl("a = asuint(9.8090892502737194964661070830294e-45f);\n"
                           "b = asint(float2(-0.0f, 1.0f));\nc = asuint(v.x);\n", (), (), (), "x")
    assert text == ("a = uint(7u);\nb = int2(int(2147483648u), int(1065353216u));\n"
                    "c = asuint(v.x);\n")
    c = read_container(dc.blob("target.main.ps_5_0"))
    raw = translate(dc.blob("target.main.ps_5_0"), "t").hlsl
    assert "asuint(9.8090892502737194964661070830294e-45f)" in raw  # mov o1.w, l(7)
    assert "uint(7u)" in translated_hlsl(raw, c.input_signature, c.output_signature, (), "t")


def test_a_register_holding_only_a_system_value_takes_its_semantic():
    """A vertex shader's SV_Position input is an ordinary input (rules 3.8): where vkd3d gives
    its register a location, the member is named by it; a system value beside an ordinary
    element (SV_IsFrontFace packed with TEXCOORD1) leaves the register to the ordinary one."""
    raw = ("struct SPIRV_Cross_Input\n{\n    float4 v0 : TEXCOORD0;\n"
           "    nointerpolation uint v1 : TEXCOORD1;\n};\n")
    inputs = (SignatureParameter("SV_Position", 0, 0, "POSITION", "FLOAT32", 15, 15),
              SignatureParameter("TEXCOORD", 1, 1, "UNDEFINED", "UINT32", 1, 1),
              SignatureParameter("SV_IsFrontFace", 0, 1, "IS_FRONT_FACE", "UINT32", 2, 2))
    assert translated_hlsl(raw, inputs, (), (), "x") == (
        "struct SPIRV_Cross_Input\n{\n    float4 v0 : SV_Position0;\n"
        "    nointerpolation uint v1 : TEXCOORD1;\n};\n")
    with pytest.raises(InvalidDescError, match="register the container's input signature "
                                               "does not name"):
        translated_hlsl(raw.replace("TEXCOORD1;", "TEXCOORD5;"), inputs, (), (), "x")


def test_a_translation_is_cached_on_disk(tmp_path, monkeypatch):
    """The second translation of the same bytes runs no tool (0 s measured); other bytes do."""
    from gpuia.hlsl import dxbc_tools

    monkeypatch.setenv("GPUIA_CACHE_DIR", str(tmp_path))
    data = dc.blob("padding.short.vs_4_0")
    dxbc_tools.forget_in_memory()
    first = translate(data, "p")
    dxbc_tools.forget_in_memory()
    again = translate(data, "p")
    assert first.seconds > 0 and again.seconds == 0.0 and again.hlsl == first.hlsl
    assert list((tmp_path / "dxbc").glob("*.json"))
    dxbc_tools.forget_in_memory()
    assert translate(dc.blob("padding.long.vs_4_0"), "p").seconds > 0


def test_a_binding_the_program_does_not_declare_is_refused():
    raw = "cbuffer cb1_struct : register(b0)\n{\n};\ncbuffer cb2_struct : register(b1)\n{\n};\n"
    one = (ConstantBufferDeclaration(3, 1),)
    with pytest.raises(InvalidDescError, match="binds constant buffers \\[0, 1\\], not the 1"):
        translated_hlsl(raw, (), (), one, "x")
    two = one + (ConstantBufferDeclaration(7, 2),)
    assert "register(b3)" in translated_hlsl(raw, (), (), two, "x")
    assert "register(b7)" in translated_hlsl(raw, (), (), two, "x")


def test_an_unread_input_stays_in_the_signature_the_layout_must_provide():
    """unread.hlsl's TEXCOORD0: in FXC's input signature (ReadWriteMask 0), not in its code;
    the blob, like its source, needs it in the layout (rules 3.8)."""
    rows = {(p["SemanticName"], p["ReadWriteMask"]) for p in _reflection(
        "unread.main.vs_5_0")["input"]}
    assert ("TEXCOORD", 0) in rows
    shader = compile_dxbc(dc.blob("unread.main.vs_5_0"), "vertex", "u.cso")
    source = compile_shader((dc.SHADERS / "unread.hlsl").read_text(), "vertex")
    assert _semantics(shader.signature.inputs) == _semantics(source.signature.inputs) == \
        [("POSITION", 0), ("TEXCOORD", 0)]
    for doc in (dc.with_dxbc(dc.unread_case(), "unread.main.vs_5_0"),
                dc.with_hlsl(dc.unread_case(), "unread.hlsl")):
        doc["input_layout"] = doc["input_layout"][:1]
        with pytest.raises(InvalidDescError, match="TEXCOORD0"):
            load_case(doc)


def test_unread_inputs_of_a_code_that_reads_none_get_an_input_struct():
    raw = ("struct SPIRV_Cross_Output\n{\n    float4 gl_Position : SV_Position;\n};\n\n"
           "SPIRV_Cross_Output main()\n{\n}\n")
    inputs = (SignatureParameter("BLENDINDICES", 2, 0, "UNDEFINED", "UINT32", 3, 0),)
    text = translated_hlsl(raw, inputs, (), (), "x")
    assert text.endswith("struct SPIRV_Cross_Input\n{\n    nointerpolation uint2 unread0 : "
                         "BLENDINDICES2;\n};\n\nSPIRV_Cross_Output main(SPIRV_Cross_Input "
                         "stage_input)\n{\n}\n")
