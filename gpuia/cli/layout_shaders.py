"""The shaders of ``gpuia layout``: ``--shader`` (a vertex shader, HLSL, WGSL or a compiled
DXBC/DXIL container) and ``--gs`` (an HLSL geometry shader), each with its signature, the case
form ``--check`` draws it with, and how the report describes it.

A compiled container's signature comes from its rows (:mod:`gpuia.d3d.linkage`): the layout
links with its inputs by semantic, each named with its register, and Stream Output declarations
resolve against its outputs. gpuia links such a shader; it does not draw it here (``--check``
and ``--save-case`` skip its arrays, saying why).
"""

from __future__ import annotations

import os
from pathlib import Path

from ..d3d.geometry import GeometryDeclaration
from ..errors import CaseError, UnsupportedError
from ..harness.case import case_vertex_shader
from ..harness.shader_info import read_shader_container
from ..util.files import read_text

__all__ = ["LayoutShader", "LayoutGeometry", "LayoutPixel", "file_entry", "define_map",
           "members_text", "members_json"]


def file_entry(spec: str) -> tuple[str, str]:
    """``FILE[:ENTRY]`` as (file, entry or "")."""
    if not Path(spec).is_file() and ":" in spec:  # FILE:ENTRY
        path, entry = spec.rsplit(":", 1)
        return path, entry
    return spec, ""


def define_map(defines: list[str]) -> dict[str, str]:
    """``NAME[=VALUE]`` options as a case file's ``defines`` (a bare NAME is 1)."""
    defs: dict[str, str] = {}
    for d in defines:
        name, _, value = d.partition("=")
        defs[name] = value or "1"
    return defs


def members_text(ms) -> str:
    """``POSITION0 (vec3<f32>)``, with ``, register 0`` for a compiled shader's member."""
    return ", ".join(f"{m.key} ({m.wgsl_type}" + (
        ")" if m.register is None else f", register {m.register})") for m in ms) or "none"


def members_json(ms) -> list[dict]:
    """Each member's semantic and type, and its ``register`` where a compiled shader gives
    one."""
    return [{"semantic": m.key, "type": m.wgsl_type,
             **({} if m.register is None else {"register": m.register})} for m in ms]


class LayoutShader:
    """The ``--shader`` of a run: its case-format object, signature and a description."""

    def __init__(self, spec: str, defines: list[str], matrix_layout: str):
        from ..wgsl.signature import parse_vertex_shader

        path, entry = file_entry(spec)
        self.path = Path(path)
        if not self.path.is_file():
            raise UnsupportedError(f"--shader {spec}: no such file")
        self.container = read_shader_container(self.path)
        if self.container is not None:
            self._compiled(spec, entry)
        elif self.path.suffix.lower() == ".wgsl":
            try:
                text = read_text(self.path)
            except CaseError as e:
                raise UnsupportedError(f"--shader {spec}: {e.rule}") from None
            self.doc: dict[str, object] = {"wgsl": text,
                                           **({"entry_point": entry} if entry else {})}
            self.signature = parse_vertex_shader(text, entry or None)
            self.language = "WGSL"
            self.hlsl = None
        else:
            self.doc = {"hlsl_file": str(self.path.resolve()), "entry_point": entry or "main",
                        "defines": define_map(defines), "matrix_layout": matrix_layout}
            try:
                shader = case_vertex_shader(self.doc, Path.cwd())
            except CaseError as e:
                raise UnsupportedError(f"--shader {spec}: {e.rule}") from None
            # an hlsl_file object compiles to a shader, and compile_shader reads its signature
            assert shader is not None and shader.signature is not None
            self.signature = shader.signature
            self.language = "HLSL"
            self.hlsl = shader
        self.entry: str | None = None if self.container is not None else entry or (
            "main" if self.language == "HLSL" else self.signature.entry_point)

    def _compiled(self, spec: str, entry: str) -> None:
        """A compiled vertex shader: its signature from the container's rows."""
        from ..d3d.linkage import vertex_signature

        assert self.container is not None
        if entry:
            raise UnsupportedError(f"--shader {spec}: a compiled container holds one entry "
                                   f"point; :ENTRY is for HLSL and WGSL files")
        self.signature = vertex_signature(self.container, f"--shader {self.path}")
        self.language = f"{self.container.container}, shader model {self.container.shader_model}"
        self.doc = {"dxbc_file": str(self.path.resolve())}
        self.hlsl = None

    @property
    def not_drawn(self) -> str | None:
        """Why ``--check`` and ``--save-case`` make no case with this shader, or None."""
        views: list[tuple[str, int, int]] = [] if self.hlsl is None else [
            ("u" if r.writable else "t", r.register, r.space)
            for r in self.hlsl.shader_resources] + [
            ("t", t.register, t.space) for t in self.hlsl.textures]
        if views or (self.hlsl is not None and self.hlsl.samplers):
            assert self.hlsl is not None
            regs = ", ".join([f"{c}{reg}" + (f" space{space}" if space else "")
                              for c, reg, space in views] +
                             [f"s{s.register}" for s in self.hlsl.samplers])
            return (f"the shader reads shader resource views or samplers ({regs}), whose bytes "
                    f"gpuia layout does not generate (write a case with shader_resources and "
                    f"samplers: docs/case-format.md)")
        if self.container is None:
            return None
        return "gpuia layout links a compiled vertex shader's signature; it does not draw it"

    def describe(self) -> list[str]:
        entry = "" if self.entry is None else f", entry {self.entry}"
        return [f"shader: {self.path} ({self.language}{entry})",
                f"  inputs: {members_text(self.signature.inputs)}",
                f"  outputs: {members_text(self.signature.outputs)}"]

    def case_doc(self, save_dir: Path | None) -> dict:
        """The case-format object, its file relative to ``save_dir`` when a case is saved."""
        if "hlsl_file" in self.doc and save_dir is not None:
            return dict(self.doc, hlsl_file=os.path.relpath(str(self.doc["hlsl_file"]),
                                                            save_dir.resolve()))
        return self.doc


class LayoutGeometry:
    """The ``--gs`` of a run: the shader (HLSL, compiled by gpuia, or a compiled container), its
    input record and each stream's output record, the draw topology it is linked with, and its
    linkage findings (E004; W012, W013 for a compiled one)."""

    def __init__(self, args, shader: LayoutShader | None):
        from ..d3d.topology import topology_info

        spec = args.gs
        path, entry = file_entry(spec)
        self.path = Path(path)
        if not self.path.is_file():
            raise UnsupportedError(f"--gs {spec}: no such file")
        self.topology = None
        if args.gs_topology is not None:
            try:
                self.topology = topology_info(args.gs_topology)
            except ValueError as e:
                raise UnsupportedError(f"--gs-topology {args.gs_topology}: {e}") from None
        self.linked_with = None if shader is None else shader.path
        self.container = read_shader_container(self.path)
        if self.container is not None:
            if entry or args.gs_define:
                raise UnsupportedError(f"--gs {spec}: a compiled container holds one entry "
                                       f"point; :ENTRY and --gs-define are for HLSL files")
            self._compiled(args, shader)
        else:
            self._hlsl(args, shader, entry)

    def _hlsl(self, args, shader: LayoutShader | None, entry: str) -> None:
        from ..harness.case_geometry import case_geometry_shader, record_members, stream_records
        from ..harness.lint import geometry_findings

        self.entry: str | None = entry or "main"
        self.language = "HLSL"
        doc = {"hlsl_file": str(self.path.resolve()), "entry_point": self.entry,
               "defines": define_map(args.gs_define), "matrix_layout": args.matrix_layout}
        try:
            gs = case_geometry_shader(doc, Path.cwd())
        except CaseError as e:
            raise UnsupportedError(f"--gs {args.gs}: {e.rule}") from None
        self.declaration: GeometryDeclaration | None = gs.declaration
        self.inputs = record_members(gs.input_record)
        self.streams = stream_records(gs)
        self.findings = geometry_findings(gs, None if shader is None else shader.signature.outputs,
                                          self.topology, args.feature_level)

    def _compiled(self, args, shader: LayoutShader | None) -> None:
        from ..d3d.linkage import container_declaration, signature_members, stream_members
        from ..harness.lint import compiled_geometry_findings

        c = self.container
        assert c is not None
        where = f"--gs {self.path}"
        self.entry = None
        self.language = f"{c.container}, shader model {c.shader_model}"
        self.streams = stream_members(c, where)
        self.inputs = signature_members(c.input_signature, where)
        self.declaration = container_declaration(c, where)
        self.findings = compiled_geometry_findings(
            c, None if shader is None else shader.signature,
            None if shader is None else shader.container, self.topology, args.feature_level)

    def stream_type(self, stream: int) -> str:
        return "?" if self.declaration is None else self.declaration.streams[stream]

    def describe(self) -> list[str]:
        d = self.declaration
        entry = "" if self.entry is None else f", entry {self.entry}"
        said = "declarations not in the container" if d is None else (
            f"{d.input_primitive} input, maxvertexcount {d.max_vertex_count}")
        lines = [f"geometry shader: {self.path} ({self.language}{entry}): {said}, "
                 f"{len(self.streams)} stream{'s' if len(self.streams) > 1 else ''}",
                 f"  inputs: {members_text(self.inputs)}"]
        lines += [f"  stream {s} ({self.stream_type(s)}): {members_text(record)}"
                  for s, record in enumerate(self.streams)]
        lines.append(f"  linkage: inputs checked against the outputs of {self.linked_with}"
                     if self.linked_with is not None else
                     "  linkage: not checked (no --shader)")
        lines.append(f"  topology: {self.topology.name}" if self.topology is not None else
                     "  topology: not checked (no --gs-topology)")
        return lines

    def as_json(self) -> dict:
        d = self.declaration
        return {"file": str(self.path), "language": self.language, "entry_point": self.entry,
                "input_primitive": None if d is None else d.input_primitive,
                "max_vertex_count": None if d is None else d.max_vertex_count,
                "topology": None if self.topology is None else self.topology.name,
                "linked_with": None if self.linked_with is None else str(self.linked_with),
                "inputs": members_json(self.inputs),
                "streams": [{"stream": s, "type": None if d is None else d.streams[s],
                             "outputs": members_json(record)}
                            for s, record in enumerate(self.streams)]}


class LayoutPixel:
    """The ``--ps`` of a run: a compiled pixel shader whose inputs link register by register
    with the outputs of the stage before it (a compiled ``--gs``'s stream 0, else a compiled
    ``--shader``; rules 14.1), as findings E005, W012 and W013."""

    def __init__(self, spec: str, shader: LayoutShader | None, gs: LayoutGeometry | None):
        from ..d3d.linkage import signature_members
        from ..harness.lint import stage_findings

        self.path = Path(spec)
        if not self.path.is_file():
            raise UnsupportedError(f"--ps {spec}: no such file")
        container = read_shader_container(self.path)
        if container is None or container.stage != "pixel":
            raise UnsupportedError(f"--ps {spec}: expected a compiled pixel shader (a DXBC or "
                                   f"DXIL container): linkage is register by register, and "
                                   f"HLSL leaves the registers to the compiler")
        upstream = gs if gs is not None else shader
        if upstream is None or upstream.container is None:
            raise UnsupportedError(f"--ps {spec}: the stage before the pixel shader (--gs, "
                                   f"else --shader) must be a compiled container too")
        self.language = f"{container.container}, shader model {container.shader_model}"
        self.inputs = signature_members(container.input_signature, f"--ps {spec}")
        self.linked_with = upstream.path
        self.stream_note = " (stream 0)" if gs is not None else ""
        name = "geometry shader" if gs is not None else "vertex shader"
        self.findings = stage_findings(upstream.container.output_signature,
                                       container.input_signature, "pixel", name, "E005")

    def describe(self) -> list[str]:
        return [f"pixel shader: {self.path} ({self.language})",
                f"  inputs: {members_text(self.inputs)}",
                f"  linkage: inputs checked against the outputs of {self.linked_with}"
                f"{self.stream_note}"]

    def as_json(self) -> dict:
        return {"file": str(self.path), "language": self.language,
                "linked_with": str(self.linked_with), "inputs": members_json(self.inputs)}
