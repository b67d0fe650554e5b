"""Case files and result files: the fixed JSON contract of ``docs/case-format.md`` (version 1).

:func:`load_case` reads a case (a path, a JSON string or an already parsed dict) into a
:class:`Case` holding gpuia's own descriptor values; every problem raises :class:`CaseError`
(malformed file) or :class:`InvalidDescError` (something D3D12 would reject), with a ``where``
that points into the file (``input_layout[2].Format``). :func:`result_json` turns an
:class:`~gpuia.reference.IAResult` into the result document.

Data blocks (``DATA``) are ``{"hex": ...}``, ``{"base64": ...}`` or
``{"dtype": "<f4", "values": [...]}`` (little-endian, nested lists flattened in C order; for float
dtypes the strings ``"nan"``, ``"inf"``, ``"-inf"`` are accepted as values).

This module reads the document, its name, feature level, input layout, topology and draws, and
is where every name of the format is imported from; each other section has its own module:
DATA blocks (:mod:`.case_data`), the buffers (:mod:`.case_buffers`), the vertex shader
(:mod:`.case_shader`), Stream Output (:mod:`.case_stream_output`), and the result document
(:mod:`.results`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..d3d.desc import StripCutValue
from ..d3d.draws import DrawIndexedInstanced, DrawInstanced, draw_of
from ..d3d.feature_level import FEATURE_LEVELS, FeatureLevel, feature_level
from ..d3d.geometry import check_feature_level
from ..d3d.ia_desc import IndexBufferView, VertexBufferView
from ..d3d.layout import InputLayout
from ..d3d.so_desc import StreamOutputDesc
from ..d3d.topology import TopologyInfo, topology_info
from ..errors import CaseError, InvalidDescError, UnsupportedError
from ..util.files import loads_json, printable, read_text
from .case_buffers import MAX_CONSTANT_BUFFER_BYTES as MAX_CONSTANT_BUFFER_BYTES
from .case_buffers import constant_buffers, index_buffer, vertex_buffers
from .case_compiled import is_compiled, link_compiled
from .case_data import decode_data, encode_data
from .case_geometry import case_geometry_shader, check_geometry, stream_records
from .case_pipeline import check_compiled_pipeline, check_draw, check_pipeline, hoist, relocate
from .case_resources import shader_resources
from .case_root_signature import CaseRootSignature, case_root_signature
from .case_shader import case_vertex_shader, vertex_shader_reads
from .case_stream_output import DEFAULT_MAX_SO_BYTES as DEFAULT_MAX_SO_BYTES
from .case_stream_output import stream_output_section
from .case_textures import case_textures
from .results import ADAPTER_INFO_KEYS as ADAPTER_INFO_KEYS
from .results import ADAPTER_KEYS as ADAPTER_KEYS
from .results import RESULT_VERSION as RESULT_VERSION
from .results import json_value, result_json
from .results import so_result_json as so_result_json

if TYPE_CHECKING:  # annotations only: the shader and SO modules load where a case uses them
    from ..d3d.signature import ShaderSignature
    from ..d3d.so_declaration import ResolvedStreamOutput
    from ..hlsl import HlslGeometryShader, HlslShader
    from ..reference.stream_output import SOTarget

__all__ = ["Case", "load_case", "decode_data", "encode_data", "result_json", "json_value",
           "DEFAULT_MAX_INVOCATIONS", "vertex_shader_reads", "case_vertex_shader"]

CASE_VERSION = 1
DEFAULT_MAX_INVOCATIONS = 1 << 26
"""Cases delivering more vertices than this are refused (exit 2;
:func:`gpuia.harness.reference_run.check_size`) unless the caller raises it: the result lists
every invocation, and a typo in a count must not exhaust memory."""

_TOP_KEYS = {"gpuia_case", "name", "input_layout", "vertex_buffers", "index_buffer",
             "strip_cut_value", "primitive_topology", "draw", "vertex_shader", "stream_output",
             "description", "constant_buffers", "feature_level", "geometry_shader",
             "pipeline_state", "shader_resources", "root_signature", "samplers"}


@dataclass
class Case:
    """A parsed case: D3D12 state plus the draws to run with it.

    :func:`load_case` makes it, and guarantees what it holds: a valid layout, views inside
    their data, at least one draw (an indexed draw only with an ``index_buffer`` key), a vertex
    shader that parses and whose inputs the layout provides (rules 3.8), the constant buffers
    the shader reads, a geometry shader that compiles and agrees with the topology and the
    vertex shader (rules 13.2, 13.9), and a Stream Output declaration validated against the
    outputs of the shader before it (the geometry shader's per stream, rules 13.7).

    Arguments:
        name (str): the case's name, one line of printable text.
        layout (InputLayout): the input layout (``input_layout``).
        vertex_buffers (dict): slot -> :class:`~gpuia.d3d.ia_desc.VertexBufferView` over the
            case's bytes, or None for a slot bound to null data (unbound).
        index_buffer (IndexBufferView): the index buffer view, a view without a buffer for
            null data (the NULL view, rules 5.5), or None without an ``index_buffer`` key.
        strip_cut_value (StripCutValue): the pipeline's IBStripCutValue.
        topology (TopologyInfo): the primitive topology's row.
        draws (list): the :class:`~gpuia.d3d.draws.DrawInstanced` and
            :class:`~gpuia.d3d.draws.DrawIndexedInstanced` values, in order.
        vertex_shader (dict): the ``vertex_shader`` object as written, or None (the
            pass-through shader).
        stream_output (dict): the ``stream_output`` object as written, or None.
        source (dict): the whole case document.
        so (ResolvedStreamOutput): the validated Stream Output declaration, or None.
        so_desc (StreamOutputDesc): the declaration as a descriptor, or None.
        so_targets (dict): output slot -> :class:`~gpuia.reference.stream_output.SOTarget`: each
            target's SizeInBytes bytes (its data, zero-filled) and initial BufferFilledSize.
        hlsl: the compiled HLSL vertex shader (``gpuia.hlsl.HlslShader``), or None.
        constant_buffers (dict): root constant buffer slot (0-13) -> its bytes.
        shader_resources (dict): (register N of tN, space) -> the
            :class:`~gpuia.harness.case_resources.CaseResource` the vertex shader reads there.
        feature_level (FeatureLevel): the feature level the case was validated at (rules
            11.1): the one :func:`load_case` was given, else the case's ``feature_level``,
            else D3D12's.
        geometry_shader (dict): the ``geometry_shader`` object as written, or None.
        gs: the compiled geometry shader (``gpuia.hlsl.HlslGeometryShader``), or None.
        pipeline_state (dict): the ``pipeline_state`` object as written, or None; its fields
            shared with the top level are also in the fields above
            (:mod:`gpuia.harness.case_pipeline`).
        root_signature (CaseRootSignature): the case's root signature (its own or its vertex
            shader's), validated, with the range holding each register the shaders read
            (:mod:`gpuia.harness.case_root_signature`); None: the implied one.
        textures (dict): the ``Texture2D``/``Texture2DArray`` SRVs the vertex shader reads,
            with their texels (:mod:`gpuia.harness.case_textures`).
        samplers (dict): the case's ``samplers`` the vertex shader samples with, as
            D3D12_SAMPLER_DESC (:mod:`gpuia.harness.case_textures`).
    """

    name: str
    layout: InputLayout
    vertex_buffers: dict[int, VertexBufferView | None]
    index_buffer: IndexBufferView | None
    strip_cut_value: StripCutValue
    topology: TopologyInfo
    draws: list[DrawInstanced | DrawIndexedInstanced]
    vertex_shader: dict[str, Any] | None = None
    stream_output: dict[str, Any] | None = None
    source: dict[str, Any] = field(default_factory=dict, repr=False)
    so: ResolvedStreamOutput | None = None  # the validated declaration
    so_desc: StreamOutputDesc | None = None
    so_targets: dict[int, SOTarget] = field(default_factory=dict)  # output slot -> SOTarget
    hlsl: HlslShader | None = None  # the compiled HLSL vertex shader, if any
    constant_buffers: dict[int, bytes] = field(default_factory=dict)  # root CB slot -> bytes
    # register tN -> the buffer SRV the vertex shader reads there (gpuia.harness.case_resources)
    shader_resources: dict = field(default_factory=dict)
    # (register, space) -> CaseTexture, register sN -> SamplerDesc (gpuia.harness.case_textures)
    textures: dict = field(default_factory=dict)
    samplers: dict = field(default_factory=dict)
    feature_level: FeatureLevel = FEATURE_LEVELS["12"]
    geometry_shader: dict[str, Any] | None = None
    gs: HlslGeometryShader | None = None  # the compiled geometry shader, if any
    pipeline_state: dict[str, Any] | None = None
    root_signature: CaseRootSignature | None = None

    def shader_signature(self) -> ShaderSignature:
        """The vertex shader's signature: the case's WGSL or HLSL shader's, or the pass-through
        shader's (every layout element in, every element plus the system values out).

        Returns:
            The :class:`~gpuia.d3d.signature.ShaderSignature`.

        Raises:
            InvalidDescError: the WGSL shader does not parse (never for a case
                :func:`load_case` made, which parsed it).
        """
        from ..wgsl.signature import parse_vertex_shader, pass_through_signature

        if self.vertex_shader is None:
            return pass_through_signature(self.layout)
        if self.hlsl is not None:
            # compile_shader reads the signature of every shader it returns
            assert self.hlsl.signature is not None
            return self.hlsl.signature
        return parse_vertex_shader(self.vertex_shader["wgsl"],
                                   self.vertex_shader.get("entry_point"))

    @property
    def shader(self) -> HlslShader | str | None:
        """What a :class:`~gpuia.gpu.PipelineState` takes as its vertex shader: the compiled
        HLSL shader, the WGSL text, or None (the pass-through shader)."""
        if self.vertex_shader is None:
            return None
        return self.hlsl if self.hlsl is not None else self.vertex_shader["wgsl"]

    @property
    def entry_point(self) -> str | None:
        """The WGSL shader's ``entry_point`` as the case gives it; None for the pass-through
        shader, an HLSL shader (compiled for its entry point already) or a WGSL shader without
        one (its only ``@vertex`` function)."""
        if self.vertex_shader is None or self.hlsl is not None:
            return None
        return self.vertex_shader.get("entry_point")

    @property
    def invocation_count(self) -> int:
        """An upper bound of the vertices the draws deliver (cuts not subtracted)."""
        return sum(d.count * d.instance_count for d in self.draws)


def _require(obj, key, where, kind=None):
    if not isinstance(obj, dict) or key not in obj:
        raise CaseError(where, f"missing required key {key!r}")
    value = obj[key]
    if kind is not None and not isinstance(value, kind):
        raise CaseError(f"{where}.{key}",
                        f"expected {_kind_name(kind)}, got {type(value).__name__}")
    return value


def _kind_name(kind) -> str:
    if isinstance(kind, tuple):
        return " or ".join(_kind_name(k) for k in kind)
    names = {dict: "an object", list: "a list", str: "a string", int: "an integer"}
    return names.get(kind, kind.__name__)


def load_case(source: str | Path | dict, name: str | None = None,
              default_name: str | None = None, *,
              feature_level: FeatureLevel | str | None = None) -> Case:
    """Parse and validate a case against the contract of ``docs/case-format.md``.

    Everything D3D12 would check for the case's layout, views, pipeline state and Stream
    Output declaration is checked here, before anything runs (see :class:`Case` for what a
    returned case guarantees). A shader's relative ``hlsl_file`` and includes are found from
    the case file's folder (the current folder for text and dicts). Errors raised after the
    name is known carry it as their ``case_name`` attribute.

    Arguments:
        source: a :class:`~pathlib.Path`; a ``str`` starting with ``{`` (after white space),
            read as JSON text; any other ``str``, read as a path (``"-"``: standard input) as
            :func:`gpuia.util.files.read_text` reads files (regular files, bounded size); or an
            already parsed dict. :func:`load_case_text` takes text only.
        name (str): overrides the case's ``name`` field.
        default_name (str): the name when neither ``name`` nor the case gives one, for JSON
            text and dicts (a path's default is its file stem, made printable as
            :func:`gpuia.util.files.printable` makes it: a byte of the name that is not UTF-8
            reads ``\\udcff``; without any, ``"case"``).
        feature_level: the feature level to validate at (rules 11.1; anything
            :func:`gpuia.d3d.feature_level.feature_level` takes), over the case's own
            ``feature_level``; None (the default): the case's, else D3D12's.

    Returns:
        The :class:`Case`.

    Raises:
        CaseError: a file that cannot be read, text that is not JSON, or a case that is not
            well formed (a missing or unknown key, a wrong type, bad data, a name that is not
            one printable line, a ``feature_level`` that names no level); ``where`` points
            into the file.
        InvalidDescError: something D3D12 would reject (``where`` such as
            ``input_layout: element 1 (COLOR0)``), or a shader that does not compile (with
            its ``diagnostics``).
        UnsupportedError: an HLSL shader on a machine without Slang's compiler; a compiled
            shader (``dxbc``, ``dxbc_file``), once its linkage is checked
            (:mod:`gpuia.harness.case_compiled`): gpuia does not draw it.
    """
    if isinstance(source, Path) or (isinstance(source, str)
                                    and not source.lstrip().startswith("{")):
        path = Path(source)
        # The stem is the user's file name, not a name they wrote: made printable, not refused.
        return _load_doc(loads_json(read_text(path)), name, printable(path.stem),
                         path.resolve().parent, feature_level)
    if isinstance(source, str):
        return load_case_text(source, name, default_name, feature_level=feature_level)
    return _load_doc(source, name, default_name, Path.cwd(), feature_level)


def load_case_text(text: str, name: str | None = None, default_name: str | None = None, *,
                   feature_level: FeatureLevel | str | None = None) -> Case:
    """:func:`load_case` of JSON text (never taken as a path: what standard input gives).
    Relative shader files are found from the current folder.

    Arguments:
        text (str): the case as JSON text.
        name (str): overrides the case's ``name`` field.
        default_name (str): the name when neither ``name`` nor the case gives one (else
            ``"case"``).
        feature_level: as :func:`load_case` takes it.

    Returns:
        The :class:`Case`.

    Raises:
        CaseError, InvalidDescError, UnsupportedError: as :func:`load_case` raises them.
    """
    return _load_doc(loads_json(text), name, default_name, Path.cwd(), feature_level)


def _load_doc(doc, name: str | None, stem: str | None, base: Path,
              level: FeatureLevel | str | None = None) -> Case:
    if not isinstance(doc, dict):
        raise CaseError("case", "a case is a JSON object")
    version = doc.get("gpuia_case")
    if type(version) is not int or version != CASE_VERSION:
        raise CaseError("gpuia_case", f"expected 1 (case format version), got {version!r}")
    unknown = set(doc) - _TOP_KEYS
    if unknown:
        raise CaseError("case", f"unknown keys {sorted(unknown)}")
    case_name = name or doc.get("name") or stem or "case"
    if not isinstance(case_name, str):
        raise CaseError("name", "expected a string")
    if not case_name.isprintable():
        raise CaseError("name", f"{printable(case_name)!r}: a case name is one line of printable "
                                f"text (no control characters or line separators)")
    pso = None
    try:
        flat, pso = hoist(doc)
        case = _parse(flat, case_name, base, level, pso)
        case.source = doc
        return case
    except (CaseError, InvalidDescError) as e:
        moved = relocate(e, pso)
        moved.case_name = case_name  # type: ignore[attr-defined]
        if moved is e:
            raise
        raise moved from None
    except RecursionError:  # a dict nested thousands of levels deep where a value is expected
        err = CaseError("case", "nested too deeply to be a case")
        err.case_name = case_name
        raise err from None


def _case_level(doc: dict, override: FeatureLevel | str | None) -> FeatureLevel:
    """The level a case is validated at: ``override`` (the caller's), else its own
    ``feature_level`` key, else D3D12's (rules 11.1)."""
    if override is not None:
        return feature_level(override)  # the caller's argument: an InvalidDescError names it
    value = doc.get("feature_level", FEATURE_LEVELS["12"].name)
    if not isinstance(value, str):
        raise CaseError("feature_level", f"expected one of {', '.join(map(repr, FEATURE_LEVELS))} "
                                         f"(a string), got {value!r}")
    try:
        return feature_level(value)
    except InvalidDescError as e:
        raise CaseError("feature_level", f"{printable(value)!r}: {e.rule}") from None


def _parse(doc: dict, case_name: str, base: Path | None = None,
           override: FeatureLevel | str | None = None, pso: dict | None = None) -> Case:
    level = _case_level(doc, override)

    elements = _require(doc, "input_layout", "case", list)
    for i, e in enumerate(elements):
        if not isinstance(e, dict):
            raise CaseError(f"input_layout[{i}]", "expected an object (D3D12_INPUT_ELEMENT_DESC)")
        if "SemanticName" not in e:
            raise CaseError(f"input_layout[{i}]", "missing required key 'SemanticName'")
    try:
        layout = InputLayout(elements, feature_level=level)
    except InvalidDescError as e:
        raise InvalidDescError(f"input_layout: {e.where}", e.field, e.value, e.rule) from None

    views = vertex_buffers(doc.get("vertex_buffers", []), "vertex_buffers", level)
    ib = index_buffer(doc.get("index_buffer"), "index_buffer")
    try:
        cut = StripCutValue.of(doc.get("strip_cut_value", "DISABLED"))
    except ValueError as e:
        raise InvalidDescError("strip_cut_value", None, doc.get("strip_cut_value"),
                               str(e)) from None
    topo_value = _require(doc, "primitive_topology", "case")
    try:
        topo = topology_info(topo_value)
    except ValueError as e:
        raise InvalidDescError("primitive_topology", None, topo_value, str(e)) from None

    draw_doc = _require(doc, "draw", "case", (dict, list))
    draw_list = draw_doc if isinstance(draw_doc, list) else [draw_doc]
    if not draw_list:
        raise CaseError("draw", "expected at least one draw")
    draws = []
    for i, d in enumerate(draw_list):
        w = f"draw[{i}]" if isinstance(draw_doc, list) else "draw"
        try:
            draws.append(draw_of(d))
        except InvalidDescError as e:
            raise InvalidDescError(w, e.field, e.value, e.rule) from None
        if draws[-1].indexed and "index_buffer" not in doc:
            raise CaseError(w, "DrawIndexedInstanced needs an 'index_buffer' (its data may be "
                               "null for a NULL index buffer view)")
    check_draw(pso, topo)

    vs = doc.get("vertex_shader")
    if is_compiled(vs) or is_compiled(doc.get("geometry_shader")):
        # Linkage first, from the containers' own signatures (CreateGraphicsPipelineState's
        # order): a case that does not link is invalid whatever gpuia can draw.
        link_compiled(doc, layout, topo, level, base or Path.cwd())
        check_compiled_pipeline(doc, pso, base or Path.cwd())
    if is_compiled(doc.get("geometry_shader")):
        raise UnsupportedError("geometry_shader: gpuia links a compiled geometry shader's "
                               "signatures but cannot draw one (SPIRV-Cross writes no HLSL "
                               "geometry shaders; docs/compiled-shaders.md)")
    hlsl = case_vertex_shader(vs, base or Path.cwd()) if vs is not None else None
    so = doc.get("stream_output")
    case = Case(case_name, layout, views, ib, cut, topo, draws, vs, so, doc, hlsl=hlsl,
                feature_level=level, pipeline_state=pso)
    if vs is not None:
        case.shader_signature().check_layout(layout)
    gs = doc.get("geometry_shader")
    if gs is not None:
        case.geometry_shader = gs
        case.gs = case_geometry_shader(gs, base or Path.cwd())
        check_geometry(case.gs, topo, case.shader_signature().outputs)
        check_feature_level(case.gs.declaration, case.feature_level)
    case.constant_buffers = constant_buffers(doc.get("constant_buffers", []), case.hlsl,
                                             case.vertex_shader, case.gs)
    case.shader_resources = shader_resources(doc.get("shader_resources"), case.hlsl, case.gs)
    case.root_signature = case_root_signature(doc, case.hlsl, case.gs, base or Path.cwd())
    case.textures, case.samplers = case_textures(
        doc.get("shader_resources"), doc.get("samplers"), case.hlsl,
        None if case.root_signature is None else case.root_signature.static_samplers(
            case.hlsl, case.gs), case.gs)
    if so is not None:
        case.so, case.so_desc, case.so_targets = stream_output_section(
            so, case.shader_signature, case.feature_level,
            None if case.gs is None else stream_records(case.gs))
    check_pipeline(case, pso, base or Path.cwd())
    return case


