"""Lint input layouts and Stream Output declarations: what D3D would reject, and what a reviewer
would want to know before the layout reaches a GPU through WebGPU.

Errors are D3D's own rejections, exactly as gpuia validates them: :class:`gpuia.InputLayout`
(CreateInputLayout) and :func:`gpuia.d3d.so_declaration.resolve_stream_output`
(CreateGraphicsPipelineState). Warnings are legal D3D that deserves a look. Every finding has a
stable code from :data:`LINT_CODES`, so users can filter them.

A layout alone says nothing about strides: where the source states none, a slot is planned with its
tightest stride (the elements' extent rounded up to 4 bytes, as a C struct of those members would
be, and as ``gpuia layout --check`` binds it). The path and its reasons come from
:func:`gpuia.gpu.vertex.plan.static_plan` and :func:`~gpuia.gpu.vertex.plan.choose_path` with the
adapter's :class:`~gpuia.gpu.caps.Caps`, or with WebGPU's default limits
(:func:`webgpu_default_caps`).

A Stream Output declaration is validated against a derived vertex shader signature: each
declared (name, index) is an output of four float components, except ``SV_VertexID`` and
``SV_InstanceID`` (one uint component). Without strides from the source, each slot's stride is
its declared size. With a geometry shader's streams, each entry is resolved against its own
stream's record instead (rules 8.3, 8.9, 13.7), and :func:`geometry_findings` links the
geometry shader with the vertex shader (rules 13.2, 13.9).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..d3d.ia_desc import VertexBufferView
from ..d3d.layout import InputLayout, parse_semantic
from ..d3d.so_desc import SODeclarationEntry, StreamOutputDesc
from ..errors import InvalidDescError, UnsupportedError

__all__ = ["LINT_CODES", "Finding", "LayoutLint", "SOLint", "lint_layout", "lint_so",
           "link_findings", "geometry_findings", "stage_findings", "compiled_geometry_findings",
           "webgpu_default_caps", "WEBGPU_DEFAULT_LIMITS"]

LINT_CODES = {
    "E001": ("invalid-layout", "CreateInputLayout would return E_INVALIDARG"),
    "E002": ("invalid-so", "CreateGraphicsPipelineState would reject the SO declaration"),
    "W001": ("overlap", "two elements of one slot share bytes (legal, rules 3.3)"),
    "W002": ("padding", "bytes of a slot's vertex that no element reads"),
    "W003": ("pulling", "the layout takes gpuia's vertex-pulling path on this adapter"),
    "W004": ("slot-count", "a slot number or a slot count past the adapter's vertex buffers"),
    "W005": ("stride-alignment", "a stride that is not a multiple of 4 (WebGPU needs 4)"),
    "W006": ("no-webgpu-format", "a format with no usable WebGPU vertex format"),
    "W007": ("step-rate", "per-instance data at step rate 0 or above 1 (WebGPU steps by 1)"),
    "W008": ("duplicate-semantic", "a SemanticName ending in digits, which HLSL reads as the "
                                   "index: it can never match a shader input, and it can name "
                                   "the same semantic as another element"),
    "W009": ("stride-short", "a stated stride shorter than the slot's elements (vertices "
                             "overlap)"),
    "W010": ("so-stream", "SO entries on streams 1-3: only a geometry shader writes them"),
    "E003": ("missing-input", "the vertex shader reads a semantic no element provides "
                              "(CreateGraphicsPipelineState: E_INVALIDARG, rules 3.8)"),
    "W011": ("input-type", "an element's format class differs from the shader input's type "
                           "(float fed by UINT/SINT or the reverse): the shader sees the raw "
                           "bits; D3D12's debug layer warns"),
    "E004": ("gs-link", "the geometry shader reads an input the vertex shader does not output, "
                        "or its input primitive does not take the draw topology's class "
                        "(CreateGraphicsPipelineState: E_INVALIDARG, rules 13.2, 13.9)"),
    "E005": ("ps-link", "a compiled pixel shader's input is no output of the stage before in "
                        "its register, with its system value, component type and components "
                        "(CreateGraphicsPipelineState: E_INVALIDARG, rules 14.1)"),
    "W012": ("never-written", "a compiled shader's input always reads a component the stage "
                              "before never writes: undefined (D3D12's debug layer reports it, "
                              "rules 14.3)"),
    "W013": ("min-precision", "a compiled shader's input and the output it links with differ "
                              "in minimum precision (D3D12's debug layer reports it, rules "
                              "14.3)"),
}
"""code -> (name, what it means). Codes are stable; new checks get new codes."""

WEBGPU_DEFAULT_LIMITS = {
    "max-vertex-buffers": 8, "max-vertex-attributes": 16, "max-vertex-buffer-array-stride": 2048,
    "max-storage-buffers-per-shader-stage": 8, "max-storage-buffer-binding-size": 134217728,
    "max-buffer-size": 268435456, "max-uniform-buffer-binding-size": 65536,
    "min-uniform-buffer-offset-alignment": 256, "min-storage-buffer-offset-alignment": 256,
    "max-compute-workgroups-per-dimension": 65535, "max-inter-stage-shader-variables": 16,
    "max-bind-groups": 4, "max-color-attachments": 8, "max-color-attachment-bytes-per-sample": 32,
    "max-texture-dimension-2d": 8192, "max-uniform-buffers-per-shader-stage": 12,
}
"""The WebGPU specification's default limits (what every adapter guarantees)."""

PLAN_ROWS = 64
"""Vertices per slot in the views a layout is planned with (the static plan reads strides and
offsets, not sizes, so any count does)."""


@dataclass(frozen=True)
class Finding:
    """One lint result: ``code`` from :data:`LINT_CODES`, ``where`` (element, slot or
    adapter) and the ``message``."""

    code: str
    where: str
    message: str

    @property
    def name(self) -> str:
        return LINT_CODES[self.code][0]

    @property
    def severity(self) -> str:
        return "error" if self.code.startswith("E") else "warning"

    def text(self) -> str:
        return f"{self.code} {self.name}: {self.where}: {self.message}"

    def as_dict(self) -> dict:
        return {"code": self.code, "name": self.name, "severity": self.severity,
                "where": self.where, "message": self.message}


class _Findings:
    """``errors`` and ``warnings`` of a lint result's ``findings``."""

    findings: list[Finding]  # each subclass's own field

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "error"]

    @property
    def warnings(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "warning"]


@dataclass
class LayoutLint(_Findings):
    """The lint of one input layout. ``layout`` is None when D3D rejects it. ``strides`` maps
    each used slot to (stride, where it came from: ``source`` or ``tightest``). ``plans`` holds
    (adapter label, path, reasons) per adapter; path ``none`` when no gpuia path can run it."""

    layout: InputLayout | None
    findings: list[Finding] = field(default_factory=list)
    strides: dict[int, tuple[int, str]] = field(default_factory=dict)
    plans: list[tuple[str, str, list[str]]] = field(default_factory=list)


@dataclass
class SOLint(_Findings):
    """The lint of one SO declaration: the validated ``desc`` (strides filled in; without a
    geometry shader's streams, entries of streams 1-3 moved to stream 0) and its resolution, both
    None when rejected; ``strides_from`` says where strides came from."""

    desc: StreamOutputDesc | None
    resolved: object | None
    findings: list[Finding] = field(default_factory=list)
    strides_from: str = "source"


def webgpu_default_caps():
    """:class:`~gpuia.gpu.caps.Caps` with WebGPU's default limits, no optional feature, and the
    vertex formats this wgpu build can use (read from the installed wgpu; no adapter needed)."""
    from ..gpu.caps import Caps

    return Caps.from_wgpu(WEBGPU_DEFAULT_LIMITS, ())


def _dedupe(findings):
    seen, out = set(), []
    for f in findings:
        key = (f.code, f.where, f.message)
        if key not in seen:
            seen.add(key)
            out.append(f)
    return out


def _digit_names(elements) -> list[Finding]:
    """W008 on the raw descs (before validation, which may refuse the ambiguity outright)."""
    out = []
    keys: dict[str, int] = {}
    for i, e in enumerate(elements):
        name = e.get("SemanticName") if isinstance(e, dict) else None
        if not isinstance(name, str) or not name:
            continue
        index = e.get("SemanticIndex", 0)
        label = f"element {i} ({name}{index})"
        if name[-1].isdigit():
            base, digits = parse_semantic(name)
            out.append(Finding("W008", label, f"SemanticName {name!r} ends in digits: an HLSL "
                                              f"input {name} is name {base} index {digits}, so "
                                              f"this element matches no shader input "
                                              f"(rules 3.7)"))
        key = f"{name.upper()}{index}"
        if key in keys:
            first = elements[keys[key]]
            if (first.get("SemanticName", "").upper(), first.get("SemanticIndex", 0)) != \
                    (name.upper(), index):
                out.append(Finding("W008", label, f"reads as semantic {key}, as element "
                                                  f"{keys[key]} does"))
        keys.setdefault(key, i)
    return out


def lint_layout(elements, adapters, *, profile: str = "d3d12",
                strides: dict[int, int] | None = None, signature=None) -> LayoutLint:
    """Lint one layout. ``elements``: D3D12_INPUT_ELEMENT_DESC values (case-file dicts);
    ``profile``: the feature level it is checked at, or its API profile (anything
    :func:`gpuia.d3d.feature_level.feature_level` takes: ``"10_0"``, ``"d3d10"``; a name it
    does not take is an E001 finding);
    ``adapters``: (label, :class:`~gpuia.gpu.caps.Caps`) pairs to plan for; ``strides``: the
    strides the source states, by slot; ``signature``: the vertex shader's
    :class:`~gpuia.wgsl.signature.ShaderSignature` (WGSL or HLSL) to link the layout with, as
    CreateGraphicsPipelineState does (E003, W011). Nothing here touches a GPU."""
    findings = _digit_names(elements)
    try:
        layout = InputLayout(elements, feature_level=profile)
    except InvalidDescError as e:
        findings.append(Finding("E001", e.where, f"{e.field}={e.value!r}: {e.rule}"
                                if e.field else e.rule))
        return LayoutLint(None, findings)
    stated = strides or {}
    slot_strides = {s: (stated[s], "source") if s in stated else ((info.extent + 3) // 4 * 4,
                                                                 "tightest")
                    for s, info in layout.slots.items()}
    report = LayoutLint(layout, findings, slot_strides)
    for s, info in layout.slots.items():
        stride, origin = slot_strides[s]
        _slot_bytes(report, s, info, stride if origin == "source" else None)
        if stride % 4:
            report.findings.append(Finding("W005", f"slot {s}", f"stride {stride} is not a "
                                           f"multiple of 4: WebGPU's vertex fetch cannot read it "
                                           f"(gpuia pulls the slot)"))
        if info.per_instance and info.step_rate != 1:
            report.findings.append(Finding(
                "W007", f"slot {s}",
                "step rate 0: every instance reads the element at StartInstanceLocation"
                if info.step_rate == 0 else
                f"step rate {info.step_rate}: {info.step_rate} instances share one element"))
    for el in layout.elements:
        if el.format.webgpu is None:
            report.findings.append(Finding("W006", el.label(), f"{el.format.name} has no WebGPU "
                                                               f"vertex format"))
    if signature is not None:
        report.findings += link_findings(layout, signature)
    for label, caps in adapters:
        _plan(report, layout, label, caps, len(adapters) > 1)
    report.findings = _dedupe(report.findings)
    return report


_KIND_WORDS = {"float": "float", "uint": "UINT", "sint": "SINT"}


def link_findings(layout: InputLayout, signature) -> list[Finding]:
    """The layout linked with a vertex shader's input signature (rules 3.7-3.9): E003 for
    every input no element provides (system-generated SV_VertexID / SV_InstanceID aside; an
    SV_Position input is an ordinary one), W011 for every input whose type class differs from
    its element's format (raw bits reach the shader, rules 2.12). Elements the shader does
    not read are allowed and not reported."""
    from ..d3d.signature import SYSTEM_INPUTS

    out = []
    by_key = {e.key: e for e in layout.elements}
    for m in signature.inputs:
        if m.semantic in SYSTEM_INPUTS:
            continue
        e = by_key.get(m.key)
        if e is None:
            out.append(Finding("E003", f"shader input {m.where}",
                               f"the vertex shader reads {m.key} ({m.wgsl_type}) and no element "
                               f"of the layout provides it (CreateGraphicsPipelineState would "
                               f"return E_INVALIDARG, rules 3.8)"))
            continue
        kind = e.format.shader_type
        if kind != m.type:
            out.append(Finding("W011", e.label(),
                               f"{e.format.name} delivers {_KIND_WORDS[kind]} values to the "
                               f"shader's {m.type} input {m.where} ({m.wgsl_type}): it sees their "
                               f"raw bits (rules 2.12; D3D12's debug layer warns)"))
    return out


def _slot_bytes(report, slot, info, stride) -> None:
    """W001 overlaps, W002 holes (and the tail up to a stated stride), W009 short strides."""
    elems = sorted(info.elements, key=lambda e: (e.offset, e.index))
    covered = 0
    previous = None
    for i, a in enumerate(elems):
        for b in elems[i + 1:]:
            if b.offset < a.end:
                report.findings.append(Finding(
                    "W001", f"slot {slot}", f"{a.label()} bytes {a.offset}..{a.end - 1} and "
                                            f"{b.label()} bytes {b.offset}..{b.end - 1} overlap"))
        if a.offset > covered:
            after = f"after {previous.label()}" if previous else "at the start of the vertex"
            report.findings.append(Finding(
                "W002", f"slot {slot}", f"bytes {covered}..{a.offset - 1} {after} are read by "
                                        f"no element (before {a.label()})"))
        if covered < a.end:
            covered, previous = a.end, a
    if stride is not None and stride > covered:
        report.findings.append(Finding("W002", f"slot {slot}",
                                       f"bytes {covered}..{stride - 1} at the end of the "
                                       f"{stride}-byte stride are read by no element"))
    if stride is not None and 0 < stride < info.extent:
        report.findings.append(Finding("W009", f"slot {slot}",
                                       f"stride {stride} is shorter than the {info.extent} bytes "
                                       f"the slot's elements span: consecutive vertices share "
                                       f"bytes"))


def _plan(report, layout, label, caps, several: bool) -> None:
    from ..gpu.vertex.plan import SizedBuffer, choose_path, static_plan

    prefix = f"{label}: " if several else ""
    views = {}
    for s, (stride, _) in report.strides.items():
        size = max(stride, layout.slots[s].extent) * PLAN_ROWS
        views[s] = VertexBufferView(SizedBuffer(size), stride, 0, size)
    static = static_plan(layout, views, caps, capture=False)
    path: str
    try:
        path, reasons = choose_path(static, [], "auto")
    except UnsupportedError as e:
        path, reasons = "none", [str(e)]
    report.plans.append((label, path, list(reasons)))
    for r in reasons:
        report.findings.append(Finding("W003", label,
                                       f"pulled: {r}" if path == "pulling" else r))
    for s in layout.slots:
        if s >= caps.max_vertex_buffers:
            report.findings.append(Finding(
                "W004", f"{prefix}slot {s}",
                f"past the adapter's {caps.max_vertex_buffers} vertex buffers "
                f"(gpuia maps the used slots onto WebGPU slots 0..n-1; a direct port would not)"))
    if len(layout.slots) > caps.max_vertex_buffers:
        report.findings.append(Finding(
            "W004", f"{prefix}input layout", f"{len(layout.slots)} slots, the adapter has "
                                             f"{caps.max_vertex_buffers} vertex buffers"))
    for el in layout.elements:
        if el.format.webgpu is not None and caps.vertex_formats and \
                el.format.webgpu not in caps.vertex_formats:
            report.findings.append(Finding(
                "W006", f"{prefix}{el.label()}", f"this wgpu build cannot use vertex format "
                                                 f"{el.format.webgpu} ({el.format.name})"))


def derived_signature(entries):
    """The vertex shader signature an SO declaration is linted against (module docstring)."""
    from ..d3d.signature import SYSTEM_OUTPUTS, Member, ShaderSignature

    members: list[Member] = []
    seen: set[tuple[str, int]] = set()
    for e in entries:
        if e.is_gap:
            continue
        assert e.semantic_name is not None  # not a gap
        key = (e.semantic_name.upper(), e.semantic_index)
        if key in seen:
            continue
        seen.add(key)
        system = SYSTEM_OUTPUTS.get(key[0])
        members.append(Member(f"o{len(members)}", key[0], key[1],
                              "uint" if system else "float", system or 4,
                              "u32" if system else "vec4<f32>"))
    return ShaderSignature("main", None, "VSOut", (), tuple(members), "")


def lint_so(entries, *, buffer_strides=None, rasterized_stream=None,
            signature=None, feature_level=None, streams=None) -> SOLint:
    """Lint one SO declaration (case-file dicts, header field names). Without ``streams``,
    entries on streams 1-3 are reported (W010) and validated as stream 0, since gpuia's Stream
    Output is then a vertex shader's, where the feature level has those streams (at 10_0 and
    10_1, which have one, they are errors); everything else is
    :func:`gpuia.d3d.so_declaration.resolve_stream_output`, against the vertex shader's real
    output ``signature`` when given (a :class:`~gpuia.wgsl.signature.ShaderSignature`), else a
    derived one, at ``feature_level`` (a level or API profile name; None: D3D12's). With
    ``streams`` (a geometry shader's record of each stream, as
    :func:`gpuia.harness.case_geometry.stream_records` gives them), every entry keeps its
    stream and names an output of that stream's record, each stream checked on its own (rules
    8.3, 8.9, 13.7): no W010."""
    from ..d3d.feature_level import feature_level as level_of
    from ..d3d.so_declaration import declared_sizes, resolve_stream_output

    findings: list[Finding] = []
    try:
        level_streams = level_of(feature_level).so_streams
    except InvalidDescError as err:
        findings.append(Finding("E002", err.where, f"{err.field}={err.value!r}: {err.rule}"))
        return SOLint(None, None, findings)
    parsed = []
    for i, raw in enumerate(entries):
        try:
            e = SODeclarationEntry.of(raw)
        except InvalidDescError as err:
            findings.append(Finding("E002", f"SO entry {i}", f"{err.field}={err.value!r}: "
                                                             f"{err.rule}"))
            return SOLint(None, None, findings)
        # past the level's streams, resolve_stream_output names the level's rule
        if streams is None and 0 < e.stream < level_streams:
            findings.append(Finding(
                "W010", f"SO entry {i} ({e.semantic_name or 'gap'})",
                f"Stream {e.stream}: only a geometry shader writes streams 1-3; gpuia streams "
                f"out a vertex shader, so this entry is checked as stream 0"))
            e = SODeclarationEntry(0, e.semantic_name, e.semantic_index, e.start_component,
                                   e.component_count, e.output_slot)
        parsed.append(e)
    strides_from = "source"
    strides = tuple(buffer_strides) if buffer_strides else ()
    if not strides:
        sizes = declared_sizes(parsed)
        if len(sizes) > 1:
            strides = tuple(sizes.get(s, 0) for s in range(max(sizes) + 1))
            strides_from = "declared sizes (no strides in the source)"
        else:
            strides_from = "declared size (no strides in the source)"
    rs = 0 if rasterized_stream is None else rasterized_stream
    try:
        desc = StreamOutputDesc(tuple(parsed), strides, rs)
        resolved = resolve_stream_output(desc, signature if signature is not None
                                         else derived_signature(parsed), feature_level,
                                         streams=streams)
    except InvalidDescError as err:
        findings.append(Finding("E002", err.where, f"{err.field}={err.value!r}: {err.rule}"
                                if err.field else err.rule))
        return SOLint(None, None, findings, strides_from)
    return SOLint(desc, resolved, findings, strides_from)


def geometry_findings(gs, vs_outputs, topology=None, level=None) -> list[Finding]:
    """A geometry shader linked into the pipeline, as CreateGraphicsPipelineState links it:
    :func:`gpuia.harness.case_geometry.check_geometry`'s refusal, if any, as an E004 finding.

    Arguments:
        gs (HlslGeometryShader): the compiled geometry shader.
        vs_outputs (tuple): the vertex shader's outputs
            (:class:`~gpuia.d3d.signature.Member`), whose semantics the shader's inputs must
            be, with at least their components (rules 13.9); None: no vertex shader known, the
            linkage not checked.
        topology (TopologyInfo): the draw's topology, whose class the input primitive must
            take (rules 13.2); None: not checked.
        level: the feature level (anything :func:`gpuia.d3d.feature_level.feature_level`
            takes), whose streams the shader's may not outnumber (rules 13.7, 11.1); None:
            D3D12's four.
    """
    from ..d3d.feature_level import feature_level
    from ..d3d.geometry import check_feature_level, check_topology
    from .case_geometry import check_geometry

    try:
        if level is not None:
            check_feature_level(gs.declaration, feature_level(level))
        if vs_outputs is not None:
            check_geometry(gs, topology, vs_outputs)
        elif topology is not None:
            check_topology(gs.declaration, topology)
    except InvalidDescError as err:
        return [Finding("E004", err.where, f"{err.field}={err.value!r}: {err.rule}"
                        if err.field else err.rule)]
    return []


_LINK_WARNINGS = {"never_written": "W012", "min_precision": "W013"}


def stage_findings(outputs, inputs, stage: str, upstream: str, code: str,
                   stream: int = 0) -> list[Finding]:
    """Compiled signature rows linked register by register
    (:func:`gpuia.d3d.linkage.link_stages`, rules 14.1-14.3): each refusal as a ``code``
    finding (E004 for a geometry shader, E005 for a pixel shader), the debug layer's reports as
    W012 and W013."""
    from ..d3d.linkage import link_stages

    return [Finding(code if f.severity == "error" else _LINK_WARNINGS[f.rule], f.where,
                    f"{f.field}={f.value!r}: {f.text}")
            for f in link_stages(outputs, inputs, stage, upstream, stream)]


def compiled_geometry_findings(container, vs_signature, vs_container, topology=None,
                               level=None) -> list[Finding]:
    """A compiled geometry shader linked into the pipeline (the counterpart of
    :func:`geometry_findings`): its declarations against ``topology`` (rules 13.2) and
    ``level`` (rules 13.7, 11.1); its inputs against a compiled vertex shader's output rows
    (``vs_container``, register by register, rules 14.1) or an HLSL or WGSL one's outputs
    (``vs_signature``, by semantic, rules 13.9); neither when both are None. Refusals are
    E004 findings."""
    from ..d3d.feature_level import feature_level
    from ..d3d.geometry import check_feature_level, check_linkage, check_topology
    from ..d3d.linkage import container_declaration, semantic_inputs

    try:
        declaration = container_declaration(container)
        if declaration is not None and level is not None:
            check_feature_level(declaration, feature_level(level))
        if declaration is not None and topology is not None:
            check_topology(declaration, topology)
        if vs_container is not None:
            return stage_findings(vs_container.output_signature, container.input_signature,
                                  "geometry", "vertex shader", "E004")
        if vs_signature is not None:
            check_linkage(semantic_inputs(container.input_signature, "geometry",
                                          "geometry shader"), vs_signature.outputs,
                          "geometry shader")
    except InvalidDescError as err:
        return [Finding("E004", err.where, f"{err.field}={err.value!r}: {err.rule}"
                        if err.field else err.rule)]
    return []
