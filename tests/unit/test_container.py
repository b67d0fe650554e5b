"""The DXBC / DXIL container reader (gpuia.d3d.container) on the blobs tests/data/shaders/regen.py
made with Microsoft's FXC and DXC. Expected values come from the compilers' own reflection of
each blob (D3DReflect, IDxcUtils::CreateReflection), recorded beside it by the regeneration tool,
and from the HLSL sources the blobs were compiled from, written here by hand; the checksum from
the values FXC stored. Corrupted containers must raise ContainerError naming the chunk and the
byte offset, never anything else."""

from __future__ import annotations

import json
import random
import struct
import time

import pytest

from gpuia.d3d.container import read_container
from gpuia.d3d.container.checksum import dxbc_checksum
from gpuia.errors import ContainerError, InvalidDescError
from helpers import DATA

BLOBS = DATA / "shaders" / "blobs"
NAMES = sorted(p.name[:-4] for p in BLOBS.glob("*.cso"))

# d3dcommon.h's numbers, for the compilers' reflection
D3D_NAME = {0: "UNDEFINED", 1: "POSITION", 6: "VERTEX_ID", 7: "PRIMITIVE_ID",
            13: "FINAL_TRI_EDGE_TESSFACTOR", 14: "FINAL_TRI_INSIDE_TESSFACTOR", 64: "TARGET",
            65: "DEPTH"}
COMPONENT = {1: "UINT32", 2: "SINT32", 3: "FLOAT32"}
PRECISION = {0: "DEFAULT", 1: "FLOAT_16", 4: "SINT_16", 5: "UINT_16"}
STAGE = {0: "pixel", 1: "vertex", 2: "geometry", 3: "hull", 4: "domain"}
PRIMITIVE = {1: "point", 2: "line", 3: "triangle"}
TOPOLOGY = {1: "POINTLIST", 3: "LINESTRIP", 5: "TRIANGLESTRIP"}


def _blob(name: str) -> bytes:
    return (BLOBS / f"{name}.cso").read_bytes()


def _meta(name: str) -> dict:
    return json.loads((BLOBS / f"{name}.json").read_text())


def test_every_blob_is_in_the_manifest_and_has_its_record():
    manifest = json.loads((DATA / "shaders" / "manifest.json").read_text())
    expected = sorted(f"{s['source'][:-5]}.{s['entry']}.{t}" for s in manifest["shaders"]
                      for t in s["targets"])
    assert NAMES == expected
    for name in NAMES:
        meta = _meta(name)
        assert meta["compiler"] == ("dxc" if meta["target"][3] == "6" else "fxc")


def _expected_row(row: dict) -> dict:
    return {"SemanticName": row["SemanticName"], "SemanticIndex": row["SemanticIndex"],
            "Register": row["Register"], "SystemValueType": D3D_NAME[row["SystemValueType"]],
            "ComponentType": COMPONENT[row["ComponentType"]], "Mask": row["Mask"],
            "ReadWriteMask": row["ReadWriteMask"], "Stream": row["Stream"],
            "MinPrecision": PRECISION[row["MinPrecision"]]}


@pytest.mark.parametrize("name", NAMES)
def test_signatures_are_the_compilers_reflection(name):
    meta, c = _meta(name), read_container(_blob(name))
    dxil = meta["compiler"] == "dxc"
    for kind in ("input", "output", "patch_constant"):
        got = [p.desc() for p in getattr(c, f"{kind}_signature")]
        want = [_expected_row(r) for r in meta["reflection"][kind]]
        if dxil:
            # DXC's reflection upper-cases names the container stores as written (SV_Position)
            for g in got:
                g["SemanticName"] = g["SemanticName"].upper()
            if kind == "patch_constant":
                # and lists patch constants in its metadata's order, the container by register
                def order(r):
                    return r["Register"], r["SemanticName"], r["SemanticIndex"]

                got.sort(key=order)
                want.sort(key=order)
            if kind == "patch_constant" and c.stage == "domain":
                # and reports a domain shader's patch-constant reads as if they were outputs;
                # the container's masks are the source's reads, checked by hand below
                for g, w in zip(got, want, strict=True):
                    w["ReadWriteMask"] = g["ReadWriteMask"]
        assert got == want, kind


@pytest.mark.parametrize("name", NAMES)
def test_stage_model_and_geometry_are_the_compilers_reflection(name):
    meta, c = _meta(name), read_container(_blob(name))
    version, gs = meta["reflection"]["version"], meta["reflection"]["gs"]
    assert c.container == ("DXIL" if meta["compiler"] == "dxc" else "DXBC")
    assert c.stage == STAGE[version >> 16]
    assert c.shader_model == f"{version >> 4 & 0xF}_{version & 0xF}" == meta["target"][3:]
    if c.stage != "geometry":
        assert c.geometry is None
        return
    assert c.geometry.input_primitive == PRIMITIVE[gs["InputPrimitive"]]
    assert c.geometry.max_vertex_count == gs["GSMaxOutputVertexCount"]
    assert {t for _, t in c.geometry.output_topology} == {TOPOLOGY[gs["GSOutputTopology"]]}
    # DXIL keeps the instance count in its bitcode only, which the reader does not decode;
    # D3DReflect's 0 is a shader without [instance(n)], which runs once (rules 13.3)
    want_instances = None if c.container == "DXIL" else gs["cGSInstanceCount"] or 1
    assert c.geometry.instance_count == want_instances


def _asm_geometry(text: str) -> tuple:
    """A geometry shader's declarations as FXC's disassembly prints them."""
    stream, topologies, instances = 0, [], 1
    primitive = count = None
    for line in text.splitlines():
        word, *rest = line.split() or [""]
        if word == "dcl_stream":
            stream = int(rest[0][1:])
        elif word == "dcl_outputtopology":
            topologies.append((stream, rest[0].upper()))
        elif word == "dcl_inputprimitive":
            primitive = rest[0]
        elif word == "dcl_maxout":
            count = int(rest[0])
        elif word == "dcl_gsinstances":
            instances = int(rest[0])
    return primitive, tuple(topologies), count, instances


@pytest.mark.parametrize("name", [n for n in NAMES if n.startswith("geometry.")
                                  and _meta(n)["compiler"] == "fxc"])
def test_geometry_declarations_per_stream_are_fxcs_disassembly(name):
    g = read_container(_blob(name)).geometry
    asm = (BLOBS / f"{name}.asm").read_text()
    assert (g.input_primitive, g.output_topology, g.max_vertex_count, g.instance_count) == \
        _asm_geometry(asm)


def test_two_streams_from_the_hlsl_source():
    # geometry.hlsl's streams(): [instance(2)] [maxvertexcount(4)] line input, two PointStreams
    for name in ("geometry.streams.gs_5_0", "geometry.streams.gs_6_1"):
        g = read_container(_blob(name)).geometry
        assert g.output_topology == ((0, "POINTLIST"), (1, "POINTLIST"))
        assert (g.input_primitive, g.max_vertex_count) == ("line", 4)
        outputs = read_container(_blob(name)).output_signature
        assert [(p.semantic_name, p.stream, p.register) for p in outputs] == [
            ("SV_Position", 0, 0), ("TEXCOORD", 0, 1), ("SV_Position", 1, 0), ("MARKER", 1, 1)]
    assert read_container(_blob("geometry.streams.gs_5_0")).geometry.instance_count == 2
    assert read_container(_blob("geometry.triangles.gs_4_0")).geometry == \
        read_container(_blob("geometry.triangles.gs_5_0")).geometry


@pytest.mark.parametrize("name", ["pixel.main.ps_5_0", "pixel.main.ps_6_0"])
def test_pixel_outputs_name_their_system_values(name):
    # pixel.hlsl: float4 SV_Target0, uint2 SV_Target3, float SV_Depth. DXBC stores system
    # value 0 for them; the reader reports D3DReflect's TARGET and DEPTH.
    c = read_container(_blob(name))
    assert [(p.semantic_name, p.semantic_index, p.system_value_type, p.component_type, p.mask)
            for p in c.output_signature] == [
        ("SV_Target", 0, "TARGET", "FLOAT32", 0b1111), ("SV_Target", 3, "TARGET", "UINT32", 0b11),
        ("SV_Depth", 0, "DEPTH", "FLOAT32", 0b1)]
    raw = _blob("pixel.main.ps_5_0")
    osgn = raw.index(b"OSGN")
    assert struct.unpack_from("<I", raw, osgn + 8 + 8 + 8)[0] == 0  # element 0's stored value


@pytest.mark.parametrize("name", ["tessellation.domain.ds_5_0", "tessellation.domain.ds_6_0"])
def test_domain_shader_patch_constant_reads_from_the_hlsl_source(name):
    # tessellation.hlsl's domain(): reads all of c.center (a float3, wherever the compiler put
    # it in its register), none of the tessellation factors
    c = read_container(_blob(name))
    reads = {(p.semantic_name, p.semantic_index): p.read_write_mask
             for p in c.patch_constant_signature}
    center = next(p for p in c.patch_constant_signature if p.semantic_name == "CENTER")
    assert bin(center.mask).count("1") == 3
    assert reads == {("SV_TessFactor", 0): 0, ("SV_TessFactor", 1): 0, ("SV_TessFactor", 2): 0,
                     ("SV_InsideTessFactor", 0): 0, ("CENTER", 0): center.mask}


@pytest.mark.parametrize("name", ["precision.main.vs_5_0", "precision.main.vs_6_2"])
def test_minimum_precision_from_the_hlsl_source(name):
    # precision.hlsl: min16float4 POSITION, min16int2 OFFSET, min16uint ID; min16float2 output
    c = read_container(_blob(name))
    assert [(p.semantic_name, p.component_type, p.min_precision)
            for p in c.input_signature + c.output_signature] == [
        ("POSITION", "FLOAT32", "FLOAT_16"), ("OFFSET", "SINT32", "SINT_16"),
        ("ID", "UINT32", "UINT_16"), ("SV_Position", "FLOAT32", "DEFAULT"),
        ("TEXCOORD", "FLOAT32", "FLOAT_16")]


def test_vertex_signature_from_the_hlsl_source():
    # vertex.hlsl: VSIn float3 POSITION, float2 TEXCOORD0, uint4 BLENDINDICES, uint SV_VertexID
    c = read_container(_blob("vertex.main.vs_5_0"))
    assert [(p.semantic_name, p.semantic_index, p.register, p.component_type, p.mask,
             p.system_value_type) for p in c.input_signature] == [
        ("POSITION", 0, 0, "FLOAT32", 0b111, "UNDEFINED"),
        ("TEXCOORD", 0, 1, "FLOAT32", 0b11, "UNDEFINED"),
        ("BLENDINDICES", 0, 2, "UINT32", 0b1111, "UNDEFINED"),
        ("SV_VertexID", 0, 3, "UINT32", 0b1, "VERTEX_ID")]
    # bones.x and bones.w are read: x and w
    assert c.input_signature[2].read_write_mask == 0b1001


@pytest.mark.parametrize("name", NAMES)
def test_checksum(name):
    c, meta = read_container(_blob(name)), _meta(name)
    if meta["compiler"] == "fxc":  # Microsoft's own checksum, which the reader computes
        assert c.signed and c.checksum_ok
        assert c.checksum_computed == _blob(name)[4:20]
    else:  # DXC without a validator signs nothing
        assert not c.signed and c.checksum_stored == bytes(16)
    changed = bytearray(_blob(name))
    changed[-1] ^= 1
    assert dxbc_checksum(changed) != dxbc_checksum(_blob(name))


def test_both_padding_cases_of_the_checksum_are_fxcs():
    sizes = {(len(_blob(n)) - 20) % 64 for n in NAMES if _meta(n)["compiler"] == "fxc"}
    assert min(sizes) < 56 <= max(sizes)


# -- hostile containers ----------------------------------------------------------------------
def _patched(name: str, at: int, fmt: str, *values) -> bytes:
    raw = bytearray(_blob(name))
    struct.pack_into(fmt, raw, at, *values)
    return bytes(raw)


def _chunk_at(raw: bytes, fourcc: bytes) -> int:
    count = struct.unpack_from("<I", raw, 28)[0]
    for at in struct.unpack_from(f"<{count}I", raw, 32):
        if raw[at:at + 4] == fourcc:
            return at
    raise AssertionError(fourcc)


VS = "vertex.main.vs_5_0"
RAW = _blob(VS)
ISGN = _chunk_at(RAW, b"ISGN")
SHEX = _chunk_at(RAW, b"SHEX")
GS = "geometry.streams.gs_5_0"
GS_SHEX = _chunk_at(_blob(GS), b"SHEX")
# the words of its dcl_inputprimitive and first dcl_stream (geometry.streams.gs_5_0.asm)
GS_INPUT = GS_SHEX + 8 + _blob(GS)[GS_SHEX + 8:].index(struct.pack("<I", 0x0100105D))
GS_STREAM = GS_SHEX + 8 + _blob(GS)[GS_SHEX + 8:].index(struct.pack("<I", 0x0300008F))
HOSTILE = {
    "empty": (b"", "header at byte 0: not a shader container"),
    "too short": (b"DXBC" + bytes(20), "header at byte 0: too short for a container header"),
    "not a container": (b"MZ" + bytes(40), "header at byte 0: not a shader container"),
    "truncated": (RAW[:-1], "header at byte 24: the total size 904 is not the file's size 903"),
    "zero chunks": (_patched(VS, 28, "<I", 0), "header at byte 28: the container has no chunks"),
    "huge chunk count": (_patched(VS, 28, "<I", 0xFFFFFFFF), "header at byte 28: 4294967295 "
                                                             "chunks, more than the 1024"),
    "chunk table past the end": (_patched(VS, 28, "<I", 300), "header at byte 28: the chunk "
                                                              "table of 300 entries runs past"),
    "chunk offset past the end": (_patched(VS, 36, "<I", 5000), "chunk 1 at byte 36: its offset "
                                                                "5000 is outside"),
    "chunk size past the end": (_patched(VS, ISGN + 4, "<I", 1 << 20),
                                f"chunk 1 (ISGN) at byte {ISGN + 4}: its size 1048576 runs past"),
    "huge element count": (_patched(VS, ISGN + 8, "<I", 0x10000000),
                           f"chunk 1 (ISGN) at byte {ISGN + 8}: 268435456 elements of 24 bytes "
                           f"do not fit"),
    "name outside its chunk": (_patched(VS, ISGN + 16, "<I", 4000),
                               f"chunk 1 (ISGN) at byte {ISGN + 8 + 4000}: element 0's semantic "
                               f"name starts outside the chunk"),
    "unknown system value": (_patched(VS, ISGN + 16 + 8, "<I", 99),
                             f"chunk 1 (ISGN) at byte {ISGN + 16}: element 0's system value 99"),
    "program past its chunk": (_patched(VS, SHEX + 12, "<I", 1 << 20),
                               f"chunk 3 (SHEX) at byte {SHEX + 12}: the program's length "
                               f"1048576 words"),
    "instruction of length 0": (_patched(GS, GS_SHEX + 16, "<I", 0x6A),
                                f"chunk 3 (SHEX) at byte {GS_SHEX + 16}: an instruction (opcode "
                                f"106) of 0 words"),
    "instruction past the program": (_patched(GS, GS_SHEX + 16, "<I", 0x7F00006A),
                                     f"chunk 3 (SHEX) at byte {GS_SHEX + 16}: an instruction "
                                     f"(opcode 106) of 127 words"),
    "unknown input primitive": (_patched(GS, GS_INPUT, "<I", 0x100005D | 5 << 11),
                                f"chunk 3 (SHEX) at byte {GS_INPUT}: dcl_inputprimitive's "
                                f"primitive 5 is not one D3D declares"),
    "stream 4": (_patched(GS, GS_STREAM + 8, "<I", 4),
                 f"chunk 3 (SHEX) at byte {GS_STREAM}: dcl_stream m4: streams are 0-3"),
    "no program chunk": (_patched(VS, SHEX, "4s", b"XXXX"), "header at byte 28: no program chunk"),
    "unknown stage": (_patched(VS, SHEX + 8, "<I", 0x00400050),
                      f"chunk 3 (SHEX) at byte {SHEX + 8}: program type 64 is no shader stage"),
}


def test_a_file_over_the_limit_is_refused_before_it_is_read():
    big = RAW[:24] + struct.pack("<I", 16 << 20 | 1) + bytes((16 << 20) - 27)
    start = time.monotonic()
    with pytest.raises(ContainerError, match=r"^header at byte 0: the file has 16777217 bytes, "
                                             r"more than the 16777216"):
        read_container(big)
    assert time.monotonic() - start < 1


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_hostile_containers_are_refused_naming_chunk_and_offset(case):
    blob, says = HOSTILE[case]
    with pytest.raises(ContainerError) as info:
        read_container(blob)
    assert str(info.value).startswith(says), str(info.value)
    assert isinstance(info.value, InvalidDescError)


@pytest.mark.parametrize("name", NAMES)
def test_corrupted_blobs_give_a_result_or_the_clean_error(name):
    rng = random.Random(name)
    raw = _blob(name)
    start, refused = time.monotonic(), 0
    for trial in range(150):
        blob = bytearray(raw)
        for _ in range(rng.randint(1, 4)):
            at = rng.randrange(len(blob))
            blob[at] = rng.choice((0, 0xFF, rng.randrange(256), blob[at] ^ (1 << rng.randrange(8))))
        if trial % 5 == 0:  # truncated, with the header's size made to agree
            blob = blob[:rng.randrange(32, len(blob))]
            struct.pack_into("<I", blob, 24, len(blob))
        try:
            read_container(bytes(blob))
        except ContainerError as e:
            refused += 1
            assert " at byte " in str(e)
    assert refused > 0
    assert time.monotonic() - start < 30
