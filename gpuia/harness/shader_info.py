"""What a shader file declares, as one document: ``gpuia shader``'s JSON (docs/case-format.md,
"Command line additions") and its readable text.

A compiled container (DXBC or DXIL, :func:`gpuia.d3d.container.read_container`) gives its rows as
stored. An HLSL file is compiled by gpuia's front end (Slang's reflection, ``gpuia.hlsl``) and
gives what the source fixes: semantic (upper case, as gpuia keys it), system value, component
type, the mask of its components and the stream; ``Register`` and ``ReadWriteMask`` are null,
since they are the D3D compiler's choice (packing, use analysis), not the source's. A vertex or
pixel shader's HLSL also gives the resources its entry uses (register, space, type, size, whether
gpuia binds them: :func:`gpuia.hlsl.frontend.reflect_resources`).
"""

from __future__ import annotations

import re
from pathlib import Path

from ..d3d.container import ShaderContainer, read_container
from ..d3d.container.signatures import SYSTEM_VALUES
from ..d3d.geometry import STREAM_TYPES
from ..errors import InvalidDescError
from ..util.files import read_input
from .table import render_table

__all__ = ["read_shader_container", "describe_file", "describe_container", "describe_hlsl",
           "shader_text", "CONTAINER_SUFFIXES", "HLSL_STAGES", "FORMAT_VERSION"]

FORMAT_VERSION = 1
CONTAINER_SUFFIXES = (".cso", ".dxbc", ".dxil", ".fxo", ".bin")
"""Files read as containers even when they do not start with ``DXBC`` (then refused)."""
HLSL_STAGES = ("vertex", "pixel", "geometry")
_COMPONENTS = {"float": "FLOAT32", "sint": "SINT32", "uint": "UINT32", "bool": "UINT32"}
_SYSTEM_VALUE = {"SV_" + name.replace("_", ""): name for name in SYSTEM_VALUES.values()
                 if name not in ("UNDEFINED", "SHADINGRATE", "CULLPRIMITIVE")}
_SYSTEM_VALUE.update({"SV_CLIPDISTANCE": "CLIP_DISTANCE", "SV_CULLDISTANCE": "CULL_DISTANCE",
                      "SV_SHADINGRATE": "SHADINGRATE", "SV_CULLPRIMITIVE": "CULLPRIMITIVE"})
_PIXEL_OUTPUTS = ("SV_TARGET", "SV_DEPTH", "SV_DEPTHGREATEREQUAL", "SV_DEPTHLESSEQUAL",
                  "SV_COVERAGE")


def describe_container(c: ShaderContainer, file: str) -> dict:
    """The document of a read container."""
    status = "ok" if c.checksum_ok else "unsigned" if not c.signed else "mismatch"
    return {"gpuia_shader": FORMAT_VERSION, "file": file, "container": c.container,
            "stage": c.stage, "shader_model": c.shader_model,
            "input_signature": [p.desc() for p in c.input_signature],
            "output_signature": [p.desc() for p in c.output_signature],
            "patch_constant_signature": [p.desc() for p in c.patch_constant_signature],
            "geometry": None if c.geometry is None else c.geometry.desc(),
            "entry_point": None,
            "checksum": {"status": status, "stored": c.checksum_stored.hex(),
                         "computed": c.checksum_computed.hex()},
            "chunks": [{"fourcc": code, "offset": at, "size": size}
                       for code, at, size in c.chunks]}


def _row(semantic: str, index: int, kind: str, components: int, stream: int = 0) -> dict:
    system = _SYSTEM_VALUE.get(semantic.rstrip("0123456789"), "UNDEFINED") \
        if semantic.startswith("SV_") else "UNDEFINED"
    return {"SemanticName": semantic, "SemanticIndex": index, "Register": None,
            "SystemValueType": system, "ComponentType": _COMPONENTS[kind],
            "Mask": (1 << components) - 1, "ReadWriteMask": None, "Stream": stream,
            "MinPrecision": "DEFAULT"}


def _is_geometry(text: str, entry: str) -> bool:
    """Whether a declaration of ``entry`` carries ``[maxvertexcount(N)]``: the text between the
    end of the statement or block before it and its name holds the attribute."""
    for found in re.finditer(rf"\b{re.escape(entry)}\s*\(", text):
        end = found.start()
        start = max(text.rfind(c, 0, end) for c in ";{}") + 1
        if re.search(r"\[\s*maxvertexcount\b", text[start:end], re.I):
            return True
    return False


def describe_hlsl(path: str, text: str, entry: str, stage: str | None) -> dict:
    """The document of an HLSL entry point (``text``, read from ``path``), compiled for
    ``stage`` (``vertex``, ``pixel``, ``geometry``; None infers it: geometry with
    ``[maxvertexcount]``, else pixel when it writes SV_Target, SV_Depth, SV_DepthGreaterEqual,
    SV_DepthLessEqual or SV_Coverage, else vertex).
    A vertex or pixel shader's signature and resources are Slang's reflection, from one pass
    (``gpuia.hlsl.frontend.reflect_entry_resources``);
    a geometry shader is compiled as gpuia draws it.

    Raises:
        InvalidDescError: Slang refuses the source (its diagnostic), an unknown stage.
        UnsupportedError: Slang's compiler is not installed.
    """
    from ..hlsl import compile_geometry_shader
    from ..hlsl.frontend import reflect_entry_resources, reflect_resources

    src = {"file_name": Path(path).name, "source_path": str(Path(path).resolve())}
    if stage is not None and stage not in HLSL_STAGES:
        raise InvalidDescError("--stage", None, stage, f"expected {', '.join(HLSL_STAGES)}")
    if stage == "geometry" or stage is None and _is_geometry(text, entry):
        gs = compile_geometry_shader(text, entry, **src)
        d = gs.declaration
        inputs = [_row(lf.semantic, lf.index, lf.kind, lf.components) for lf in gs.input_leaves]
        if gs.uses_primitive_id:
            inputs.append(_row("SV_PRIMITIVEID", 0, "uint", 1))
        outputs = [_row(lf.semantic, lf.index, lf.kind, lf.components, s)
                   for s, leaves in enumerate(gs.stream_leaves) for lf in leaves]
        geometry = {"input_primitive": d.input_primitive,
                    "output_topology": [{"stream": s, "topology": STREAM_TYPES[t].strip}
                                        for s, t in enumerate(d.streams)],
                    "max_vertex_count": d.max_vertex_count, "instance_count": d.instance_count}
        doc = _hlsl_doc(path, entry, "geometry", inputs, outputs, geometry)
        doc["resources"] = reflect_resources(text, "geometry", entry, **src)
        return doc
    sig, resources = reflect_entry_resources(text, stage or "vertex", entry, **src)
    if stage is None and any(lf.semantic.rstrip("0123456789") in _PIXEL_OUTPUTS
                             for lf in sig.outputs()):
        stage = "pixel"
        sig, resources = reflect_entry_resources(text, stage, entry, **src)
    inputs = [_row(lf.semantic, lf.index, lf.kind, lf.components) for lf in sig.inputs()]
    outputs = [_row(lf.semantic, lf.index, lf.kind, lf.components) for lf in sig.outputs()]
    doc = _hlsl_doc(path, entry, stage or "vertex", inputs, outputs, None)
    doc["resources"] = resources
    return doc


def _hlsl_doc(path: str, entry: str, stage: str, inputs: list, outputs: list,
              geometry: dict | None) -> dict:
    return {"gpuia_shader": FORMAT_VERSION, "file": path, "container": "HLSL", "stage": stage,
            "shader_model": None, "input_signature": inputs, "output_signature": outputs,
            "patch_constant_signature": [], "geometry": geometry, "entry_point": entry,
            "checksum": None, "chunks": None}


def read_shader_container(path: str | Path, data: bytes | None = None
                          ) -> ShaderContainer | None:
    """The container in a file (its bytes ``data`` where already read) that starts with
    ``DXBC`` or has a suffix of :data:`CONTAINER_SUFFIXES`, or None for any other file (HLSL,
    WGSL text).

    Raises:
        GpuiaError: a file that cannot be read; :class:`~gpuia.errors.ContainerError` for a
            container that cannot be read (naming the chunk and byte offset).
    """
    if data is None:
        data = read_input(str(path))
    if data[:4] == b"DXBC" or Path(path).suffix.lower() in CONTAINER_SUFFIXES:
        return read_container(data)
    return None


def describe_file(path: str, entry: str | None = None, stage: str | None = None) -> dict:
    """The document of a shader file: a container (it starts with ``DXBC``, or its suffix is
    one of :data:`CONTAINER_SUFFIXES`) or HLSL text (entry point ``entry``, default ``main``).

    Raises:
        GpuiaError: a file that cannot be read, a container that cannot be read
            (:class:`~gpuia.errors.ContainerError`), HLSL that does not compile, ``entry`` or
            ``stage`` given for a container.
    """
    data = read_input(path)
    container = read_shader_container(path, data)
    if container is not None:
        for option, value in (("--entry", entry), ("--stage", stage)):
            if value is not None:
                raise InvalidDescError(path, option, value,
                                       "a compiled container holds one entry point of one "
                                       "stage: the option is for HLSL files")
        return _with_root_signature(describe_container(container, path), data, None)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = ""
    if not text.strip() or "\0" in text:
        raise InvalidDescError(path, None, None, "not a shader: neither a DXBC/DXIL container "
                                                 "nor HLSL text (UTF-8)")
    return _with_root_signature(describe_hlsl(path, text, entry or "main", stage), None,
                                (text, entry or "main"))


def _with_root_signature(doc: dict, blob: bytes | None, hlsl: tuple[str, str] | None) -> dict:
    """``doc`` with ``root_signature``: the root signature the container's RTS0 chunk or the
    HLSL entry's [RootSignature] holds (JSON form, docs/case-format.md) and ``verdict``, None
    when D3D12 accepts it, else the refusal (rules 16); None without one."""
    from ..d3d.root_signature import (
        container_root_signature,
        entry_root_signature,
        parse_root_signature,
        validate,
    )

    if blob is not None:
        rs = container_root_signature(blob)
    else:
        assert hlsl is not None
        string = entry_root_signature(hlsl[0], hlsl[1])
        rs = None if string is None else parse_root_signature(string)
    if rs is None:
        doc["root_signature"] = None
        return doc
    try:
        validate(rs)
        verdict = None
    except InvalidDescError as e:
        verdict = str(e)
    doc["root_signature"] = {**rs.as_dict(), "verdict": verdict}
    return doc


_COLUMNS = ("SemanticName", "SemanticIndex", "Register", "SystemValueType", "ComponentType",
            "Mask", "ReadWriteMask", "Stream", "MinPrecision")


def _mask(value) -> str:
    return "-" if value is None else "".join("xyzw"[i] for i in range(4) if value >> i & 1) or "0"


def _cell(column: str, value) -> str:
    if column in ("Mask", "ReadWriteMask"):
        return _mask(value)
    if column == "Register" and value == 0xFFFFFFFF:
        return "N/A"
    return "-" if value is None else str(value)


def shader_text(doc: dict) -> str:
    """``doc`` (from :func:`describe_file`) as readable text: a heading line, the checksum and
    chunks of a container, each signature as a table (masks as component letters), and a
    geometry shader's declarations."""
    model = f", shader model {doc['shader_model']}" if doc["shader_model"] else ""
    entry = f", entry point {doc['entry_point']}" if doc["entry_point"] else ""
    lines = [f"{doc['file']}: {doc['container']} {doc['stage']} shader{model}{entry}"]
    if doc["checksum"] is not None:
        c = doc["checksum"]
        said = {"ok": f"ok ({c['stored']})", "unsigned": "none stored (zeros: unsigned)",
                "mismatch": f"MISMATCH: stored {c['stored']}, computed {c['computed']} "
                            f"(D3D refuses this blob)"}[c["status"]]
        lines.append(f"checksum: {said}")
        lines.append("chunks: " + " ".join(ch["fourcc"] for ch in doc["chunks"]))
    for title, key in (("input signature", "input_signature"),
                       ("output signature", "output_signature"),
                       ("patch-constant signature", "patch_constant_signature")):
        rows = doc[key]
        if not rows and key == "patch_constant_signature":
            continue
        lines += ["", f"{title}:" if rows else f"{title}: none"]
        if rows:
            lines.append(render_table(list(_COLUMNS),
                                      [[_cell(k, r[k]) for k in _COLUMNS] for r in rows]))
    if doc.get("resources"):
        rows = [[r["register"], str(r["space"]), r["name"], r["type"] or "", _cell("", r["size"]),
                 "yes" if r["bound"] else "no (refused)"] for r in doc["resources"]]
        lines += ["", "resources:", render_table(
            ["Register", "Space", "Name", "Type", "Size", "Bound by gpuia"], rows)]
    rs = doc.get("root_signature")
    if rs:
        lines += ["", f"root signature: version {rs['version']}, {len(rs['parameters'])} "
                      f"parameters, {len(rs['static_samplers'])} static samplers, flags "
                      f"{' | '.join(rs['flags']) or 'none'}: "
                      f"{rs['verdict'] or 'valid (rules 16)'}"]
    g = doc["geometry"]
    if g is not None:
        streams = ", ".join(f"stream {t['stream']} {t['topology']}" for t in g["output_topology"])
        lines += ["", f"geometry: input {g['input_primitive']}, max vertex count "
                      f"{_cell('', g['max_vertex_count'])}, instances "
                      f"{_cell('', g['instance_count'])}, {streams}"]
    return "\n".join(lines)
