"""Case files and result files: the fixed JSON contract of ``docs/case-format.md`` (version 1).

:func:`load_case` reads a case (a path, a JSON string or an already parsed dict) into a
:class:`Case` holding gpuia's own descriptor values; every problem raises :class:`CaseError`
(malformed file) or :class:`InvalidDescError` (something D3D12 would reject), with a ``where``
that points into the file (``input_layout[2].Format``). :func:`result_json` turns an
:class:`~gpuia.reference.IAResult` into the result document.

Data blocks (``DATA``) are ``{"hex": ...}``, ``{"base64": ...}`` or
``{"dtype": "<f4", "values": [...]}`` (little-endian, nested lists flattened in C order; for float
dtypes the strings ``"nan"``, ``"inf"``, ``"-inf"`` are accepted as values).
"""

from __future__ import annotations

import base64
import binascii
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..d3d.desc import CONSTANT_BUFFER_SLOTS, StripCutValue
from ..d3d.draws import DrawIndexedInstanced, DrawInstanced, draw_of
from ..d3d.feature_level import FEATURE_LEVELS, FeatureLevel, feature_level
from ..d3d.ia_desc import IndexBufferView, VertexBufferView
from ..d3d.layout import InputLayout
from ..d3d.so_desc import SODeclarationEntry, StreamOutputDesc
from ..d3d.topology import TopologyInfo, topology_info
from ..errors import CaseError, InvalidDescError
from ..util.files import loads_json, printable, read_text

if TYPE_CHECKING:  # annotations only: the shader and SO modules load where a case uses them
    from ..d3d.signature import ShaderSignature
    from ..d3d.so_declaration import ResolvedStreamOutput
    from ..hlsl import HlslShader
    from ..reference import IAResult
    from ..reference.stream_output import SOResult, SOTarget

__all__ = ["Case", "load_case", "decode_data", "encode_data", "result_json", "json_value",
           "DEFAULT_MAX_INVOCATIONS", "vertex_shader_reads", "case_vertex_shader"]

CASE_VERSION = 1
RESULT_VERSION = 1
DEFAULT_MAX_INVOCATIONS = 1 << 26
"""Cases delivering more vertices than this are refused (exit 2;
:func:`gpuia.harness.reference_run.check_size`) unless the caller raises it: the result lists
every invocation, and a typo in a count must not exhaust memory."""
DEFAULT_MAX_SO_BYTES = 1 << 30
"""Largest SO target ``size`` a case file may ask for."""

_TOP_KEYS = {"gpuia_case", "name", "input_layout", "vertex_buffers", "index_buffer",
             "strip_cut_value", "primitive_topology", "draw", "vertex_shader", "stream_output",
             "description", "constant_buffers", "feature_level"}
_WGSL_KEYS = {"wgsl", "entry_point"}
_HLSL_KEYS = {"hlsl", "hlsl_file", "entry_point", "defines", "matrix_layout"}
MAX_CONSTANT_BUFFER_BYTES = 65536
"""A D3D constant buffer holds at most 4096 16-byte registers."""


@dataclass
class Case:
    """A parsed case: D3D12 state plus the draws to run with it.

    :func:`load_case` makes it, and guarantees what it holds: a valid layout, views inside
    their data, at least one draw (an indexed draw only with an ``index_buffer`` key), a vertex
    shader that parses and whose inputs the layout provides (rules 3.8), the constant buffers
    the shader reads, and a Stream Output declaration validated against the shader's outputs.

    Arguments:
        name (str): the case's name, one line of printable text.
        layout (InputLayout): the input layout (``input_layout``).
        vertex_buffers (dict): slot -> :class:`~gpuia.d3d.desc.VertexBufferView` over the
            case's bytes, or None for a slot bound to null data (unbound).
        index_buffer (IndexBufferView): the index buffer view, a view without a buffer for
            null data (the NULL view, rules 5.5), or None without an ``index_buffer`` key.
        strip_cut_value (StripCutValue): the pipeline's IBStripCutValue.
        topology (TopologyInfo): the primitive topology's row.
        draws (list): the :class:`~gpuia.d3d.desc.DrawInstanced` and
            :class:`~gpuia.d3d.desc.DrawIndexedInstanced` values, in order.
        vertex_shader (dict): the ``vertex_shader`` object as written, or None (the
            pass-through shader).
        stream_output (dict): the ``stream_output`` object as written, or None.
        source (dict): the whole case document.
        so (ResolvedStreamOutput): the validated Stream Output declaration, or None.
        so_desc (StreamOutputDesc): the declaration as a descriptor, or None.
        so_targets (dict): output slot -> :class:`~gpuia.reference.so_output.SOTarget`: each
            target's SizeInBytes bytes (its data, zero-filled) and initial BufferFilledSize.
        hlsl: the compiled HLSL vertex shader (``gpuia.hlsl.HlslShader``), or None.
        constant_buffers (dict): root constant buffer slot (0-13) -> its bytes.
        feature_level (FeatureLevel): the feature level the case was validated at (rules
            11.1): the one :func:`load_case` was given, else the case's ``feature_level``,
            else D3D12's.
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
    feature_level: FeatureLevel = FEATURE_LEVELS["12"]

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


def _float_value(v):
    if isinstance(v, str):
        key = v.strip().lower()
        if key in ("nan", "inf", "+inf", "-inf", "infinity", "-infinity"):
            return float(key.replace("infinity", "inf"))
        raise ValueError(f"{v!r} is not a number")
    return v


def decode_data(block: Any, where: str) -> bytes:
    """The bytes of a DATA block (``docs/case-format.md``, "DATA: bytes in a case").

    Arguments:
        block: the parsed JSON value: an object with exactly ``hex`` (whitespace ignored),
            ``base64`` (standard, validated) or ``dtype`` and ``values`` (a numeric numpy scalar
            dtype; values nested lists flattened in C order, stored little-endian; float dtypes
            also take ``"nan"``, ``"inf"``, ``"-inf"``, integer dtypes integer values only).
        where (str): where the block is in the case (``vertex_buffers[0].data``), for errors.

    Returns:
        The bytes.

    Raises:
        CaseError: at ``where`` (or a key under it): not an object, another set of keys, bad
            hex or base64, a dtype that is not a numeric scalar dtype, values that are not
            numbers (ragged lists included), a non-integer value for an integer dtype, or an
            integer out of the dtype's range.
    """
    if not isinstance(block, dict):
        raise CaseError(where, "data must be an object with 'hex', 'base64' or 'dtype'+'values'")
    keys = set(block)
    try:
        if keys == {"hex"}:
            text = block["hex"]
            if not isinstance(text, str):
                raise CaseError(f"{where}.hex", "expected a string of hex digits")
            return bytes.fromhex("".join(text.split()))
        if keys == {"base64"}:
            if not isinstance(block["base64"], str):
                raise CaseError(f"{where}.base64", "expected a base64 string")
            return base64.b64decode(block["base64"], validate=True)
        if keys == {"dtype", "values"}:
            if not isinstance(block["dtype"], str):
                raise CaseError(f"{where}.dtype", f"{block['dtype']!r} is not a numpy dtype string")
            try:
                dtype = np.dtype(block["dtype"])
            except (TypeError, ValueError):
                raise CaseError(f"{where}.dtype",
                                f"{block['dtype']!r} is not a numpy dtype") from None
            if dtype.kind not in "fiub" or dtype.fields is not None or dtype.subdtype is not None:
                raise CaseError(f"{where}.dtype", f"{block['dtype']!r}: use a numeric scalar dtype")
            values = block["values"]
            if not isinstance(values, (list, int, float)):
                raise CaseError(f"{where}.values", "expected a (nested) list of numbers")
            flat = np.asarray(values, dtype=object).reshape(-1).tolist()
            if dtype.kind == "f":
                flat = [_float_value(v) for v in flat]
            elif any(isinstance(v, (str, float)) and not float(v).is_integer() for v in flat
                     if not isinstance(v, bool)):
                raise ValueError("integer dtype needs integer values")
            if any(isinstance(v, (list, dict)) or v is None for v in flat):
                raise ValueError("ragged or non-numeric values")
            with np.errstate(over="ignore"):
                arr = np.array(flat, dtype=dtype)
            return arr.astype(dtype.newbyteorder("<"), copy=False).tobytes()
    except CaseError:
        raise
    except (ValueError, TypeError, OverflowError, binascii.Error) as e:
        raise CaseError(where, f"bad data: {e}") from None
    raise CaseError(where, f"data must have exactly 'hex', 'base64' or 'dtype'+'values', "
                           f"got {sorted(keys)}")


def encode_data(data: bytes) -> dict:
    """A DATA block holding ``data``, which :func:`decode_data` reads back.

    Arguments:
        data: a bytes-like object.

    Returns:
        ``{"hex": ...}``, lower-case hex digits without spaces.
    """
    return {"hex": bytes(data).hex()}


def _uint(obj, key, where, default):
    v = obj.get(key)
    if v is None:  # absent or JSON null: the default
        return default
    if isinstance(v, bool) or not isinstance(v, int):
        raise CaseError(f"{where}.{key}", f"expected an integer, got {v!r}")
    if v < 0:
        raise CaseError(f"{where}.{key}", f"must not be negative, got {v}")
    return v


def _view_args(entry: dict, where: str, data: bytes):
    offset = _uint(entry, "offset", where, 0)
    size = _uint(entry, "size", where, None)
    if offset > len(data):
        raise CaseError(f"{where}.offset", f"{offset} is past the end of the {len(data)}-byte data")
    if size is not None and offset + size > len(data):
        raise CaseError(f"{where}.size", f"offset {offset} + size {size} exceeds the "
                        f"{len(data)}-byte data")
    return offset, size


def _vertex_buffers(value, where: str,
                    level: FeatureLevel) -> dict[int, VertexBufferView | None]:
    if not isinstance(value, list):
        raise CaseError(where, "expected a list of {slot, stride, offset, size, data}")
    views: dict[int, VertexBufferView | None] = {}
    for i, entry in enumerate(value):
        w = f"{where}[{i}]"
        if not isinstance(entry, dict):
            raise CaseError(w, "expected an object")
        unknown = set(entry) - {"slot", "stride", "offset", "size", "data"}
        if unknown:
            raise CaseError(w, f"unknown keys {sorted(unknown)}")
        slot = _uint(entry, "slot", w, None)
        if slot is None:
            raise CaseError(w, "missing required key 'slot'")
        if slot >= level.slot_count:
            raise InvalidDescError(w, "slot", slot, f"input slots are 0..{level.slot_count - 1} "
                                                    f"at {level.label} (rules 3.1)")
        if slot in views:
            raise CaseError(f"{w}.slot", f"slot {slot} is bound twice")
        if "data" not in entry:
            raise CaseError(w, "missing required key 'data' (null unbinds the slot)")
        if entry["data"] is None:
            views[slot] = None
            continue
        data = decode_data(entry["data"], f"{w}.data")
        stride = _uint(entry, "stride", w, 0)
        offset, size = _view_args(entry, w, data)
        try:
            views[slot] = VertexBufferView(data, stride, offset, size)
        except InvalidDescError as e:
            raise InvalidDescError(w, e.field, e.value, e.rule) from None
    return views


def _index_buffer(value, where: str) -> IndexBufferView | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise CaseError(where, "expected an object {format, offset, size, data}")
    unknown = set(value) - {"format", "offset", "size", "data"}
    if unknown:
        raise CaseError(where, f"unknown keys {sorted(unknown)}")
    fmt = value.get("format", "R16_UINT")
    data_block = value.get("data")
    if data_block is None:
        try:
            return IndexBufferView(None, fmt)
        except InvalidDescError as e:
            raise InvalidDescError(where, "format", fmt, e.rule) from None
    data = decode_data(data_block, f"{where}.data")
    offset, size = _view_args(value, where, data)
    try:
        return IndexBufferView(data, fmt, offset, size)
    except InvalidDescError as e:
        raise InvalidDescError(where, e.field, e.value, e.rule) from None


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
        UnsupportedError: an HLSL shader on a machine without Slang's compiler.
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
    try:
        return _parse(doc, case_name, base, level)
    except (CaseError, InvalidDescError) as e:
        e.case_name = case_name
        raise
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
           override: FeatureLevel | str | None = None) -> Case:
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

    views = _vertex_buffers(doc.get("vertex_buffers", []), "vertex_buffers", level)
    ib = _index_buffer(doc.get("index_buffer"), "index_buffer")
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

    vs = doc.get("vertex_shader")
    hlsl = case_vertex_shader(vs, base or Path.cwd()) if vs is not None else None
    so = doc.get("stream_output")
    case = Case(case_name, layout, views, ib, cut, topo, draws, vs, so, doc, hlsl=hlsl,
                feature_level=level)
    if vs is not None:
        case.shader_signature().check_layout(layout)
    case.constant_buffers = _constant_buffers(doc.get("constant_buffers", []), case)
    if so is not None:
        _stream_output(case, so)
    return case


def case_vertex_shader(vs: object, base: Path) -> HlslShader | None:
    """Check a case's ``vertex_shader`` object (docs/case-format.md) and compile it if it is
    HLSL.

    Arguments:
        vs (dict): the object: ``{"wgsl": ...}`` or ``{"hlsl": ...}`` or ``{"hlsl_file": ...}``
            with their optional fields.
        base (Path): the folder ``hlsl_file`` and ``#include`` paths are relative to.

    Returns:
        The compiled :class:`gpuia.hlsl.HlslShader`, or None for a WGSL shader.

    Raises:
        CaseError: the object or one of its fields is malformed (naming the field), or the
            HLSL does not compile.
    """
    if not isinstance(vs, dict):
        raise CaseError("vertex_shader", "expected {\"wgsl\": ...} or {\"hlsl\": ...}")
    if "entry_point" in vs and not isinstance(vs["entry_point"], (str, type(None))):
        raise CaseError("vertex_shader.entry_point", "expected a string")
    forms = [k for k in ("wgsl", "hlsl", "hlsl_file") if k in vs]
    if len(forms) != 1:
        raise CaseError("vertex_shader", f"expected exactly one of 'wgsl', 'hlsl' or "
                                         f"'hlsl_file', got {forms or 'none'}")
    if forms == ["wgsl"]:
        if not isinstance(vs["wgsl"], str):
            raise CaseError("vertex_shader.wgsl", "expected WGSL source text")
        unknown = set(vs) - _WGSL_KEYS
        if unknown:
            raise CaseError("vertex_shader", f"unknown keys {sorted(unknown)} for a WGSL shader")
        return None
    unknown = set(vs) - _HLSL_KEYS
    if unknown:
        raise CaseError("vertex_shader", f"unknown keys {sorted(unknown)} for an HLSL shader")
    defines = vs.get("defines") or {}
    if not isinstance(defines, dict):
        raise CaseError("vertex_shader.defines", "expected an object {\"NAME\": \"VALUE\"}")
    layout = vs.get("matrix_layout") or "column_major"
    include_dirs = (str(base),)  # a case's shaders include from its folder
    if "hlsl_file" in vs:
        name = vs["hlsl_file"]
        if not isinstance(name, str) or not name:
            raise CaseError("vertex_shader.hlsl_file", "expected a path (relative to the case)")
        path = base / name
        try:
            text = read_text(path)
        except CaseError as e:  # names the file and why
            raise CaseError("vertex_shader.hlsl_file", str(e)) from None
        file_name, source_path = name, str(path.resolve())
    else:
        text, file_name, source_path = vs["hlsl"], "vertex_shader.hlsl", None
        if not isinstance(text, str):
            raise CaseError("vertex_shader.hlsl", "expected HLSL source text")
    from ..hlsl import compile_shader

    try:
        return compile_shader(text, "vertex", vs.get("entry_point") or "main", defines, layout,
                              file_name, include_dirs, source_path)
    except InvalidDescError as e:
        where = f"vertex_shader: {e.where}" if e.where != "vertex shader" else "vertex_shader"
        err = InvalidDescError(where, e.field, e.value, e.rule)
        err.diagnostics = getattr(e, "diagnostics", None)
        raise err from None


def vertex_shader_reads(vertex_shader: dict, base: Path | None = None) -> tuple[int, ...]:
    """The root constant buffers a case-format ``vertex_shader`` object reads (its HLSL
    ``register(bN)`` cbuffers, or its WGSL ``@group(3) @binding(N)`` uniforms). An HLSL shader
    is compiled to find them; a WGSL one is only scanned.

    Arguments:
        vertex_shader (dict): the ``vertex_shader`` object (``docs/case-format.md``).
        base: the folder a relative ``hlsl_file`` and includes are found from; None (the
            default) is the current folder.

    Returns:
        The slot numbers, ascending.

    Raises:
        CaseError: the object is not well formed.
        InvalidDescError: the HLSL shader does not compile.
        UnsupportedError: an HLSL shader on a machine without Slang's compiler.
    """
    from ..wgsl.signature import uniform_slots

    hlsl = case_vertex_shader(vertex_shader, base or Path.cwd())
    if hlsl is not None:
        return hlsl.constant_buffer_slots
    return uniform_slots(vertex_shader["wgsl"], 3)


def _constant_buffers(value, case: Case) -> dict[int, bytes]:
    """The ``constant_buffers`` list: D3D-packed bytes per root constant buffer. Every buffer
    the vertex shader reads must be there."""
    from ..wgsl.signature import uniform_slots

    if not isinstance(value, list):
        raise CaseError("constant_buffers", "expected a list of {slot, data}")
    out: dict[int, bytes] = {}
    for i, entry in enumerate(value):
        w = f"constant_buffers[{i}]"
        if not isinstance(entry, dict):
            raise CaseError(w, "expected an object {slot, data}")
        unknown = set(entry) - {"slot", "data"}
        if unknown:
            raise CaseError(w, f"unknown keys {sorted(unknown)}")
        slot = _uint(entry, "slot", w, None)
        if slot is None:
            raise CaseError(w, "missing required key 'slot'")
        if slot >= CONSTANT_BUFFER_SLOTS:
            raise InvalidDescError(w, "slot", slot, f"gpuia binds root constant buffers 0.."
                                                    f"{CONSTANT_BUFFER_SLOTS - 1} (register "
                                                    f"b0..b{CONSTANT_BUFFER_SLOTS - 1}, the "
                                                    f"{CONSTANT_BUFFER_SLOTS} slots of a D3D11 "
                                                    f"stage)")
        if slot in out:
            raise CaseError(f"{w}.slot", f"constant buffer {slot} is given twice")
        if "data" not in entry:
            raise CaseError(w, "missing required key 'data'")
        data = decode_data(entry["data"], f"{w}.data")
        if len(data) > MAX_CONSTANT_BUFFER_BYTES:
            raise InvalidDescError(w, "data", f"{len(data)} bytes",
                                   f"a constant buffer holds at most 4096 registers "
                                   f"({MAX_CONSTANT_BUFFER_BYTES} bytes)")
        out[slot] = data
    if case.hlsl is not None:
        reads = {cb.slot: f"cbuffer {cb.name} (register b{cb.slot})"
                 for cb in case.hlsl.constant_buffers}
    elif case.vertex_shader is not None:
        reads = {s: f"@group(3) @binding({s})" for s in
                 uniform_slots(case.vertex_shader["wgsl"], 3)}
    else:
        reads = {}
    for slot, what in sorted(reads.items()):
        if slot >= CONSTANT_BUFFER_SLOTS:
            raise InvalidDescError("vertex_shader", "constant buffer", slot,
                                   f"{what}: gpuia binds root constant buffers 0.."
                                   f"{CONSTANT_BUFFER_SLOTS - 1} (register "
                                   f"b0..b{CONSTANT_BUFFER_SLOTS - 1}, the "
                                   f"{CONSTANT_BUFFER_SLOTS} slots of a D3D11 stage)")
        if slot not in out:
            raise InvalidDescError("constant_buffers", "slot", slot,
                                   f"the vertex shader reads {what}; the case binds no "
                                   f"constant buffer {slot}")
    return out


_SO_KEYS = {"declaration", "buffer_strides", "rasterized_stream", "targets"}


def _stream_output(case: Case, so) -> None:
    """Parse and validate the ``stream_output`` section (CreateGraphicsPipelineState rules)."""
    from ..d3d.so_declaration import resolve_stream_output
    from ..reference.stream_output import SOTarget

    if not isinstance(so, dict):
        raise CaseError("stream_output", "expected an object")
    unknown = set(so) - _SO_KEYS
    if unknown:
        raise CaseError("stream_output", f"unknown keys {sorted(unknown)}")
    decl = so.get("declaration", [])
    if not isinstance(decl, list):
        raise CaseError("stream_output.declaration", "expected a list of "
                                                     "D3D12_SO_DECLARATION_ENTRY objects")
    entries = []
    for i, e in enumerate(decl):
        if not isinstance(e, dict):
            raise CaseError(f"stream_output.declaration[{i}]", "expected an object")
        try:
            entries.append(SODeclarationEntry.of(e))
        except InvalidDescError as err:
            raise InvalidDescError(f"stream_output.declaration[{i}]", err.field, err.value,
                                   err.rule) from None
    strides = so.get("buffer_strides") or []
    if not isinstance(strides, list):
        raise CaseError("stream_output.buffer_strides", "expected a list of integers")
    try:
        desc = StreamOutputDesc(tuple(entries), tuple(strides),
                                so.get("rasterized_stream", 0))
    except InvalidDescError as err:
        raise InvalidDescError("stream_output", err.field, err.value, err.rule) from None
    try:
        case.so = resolve_stream_output(desc, case.shader_signature(), case.feature_level)
    except InvalidDescError as err:
        raise InvalidDescError(f"stream_output: {err.where}", err.field, err.value,
                               err.rule) from None
    case.so_desc = desc
    targets = so.get("targets", [])
    if not isinstance(targets, list):
        raise CaseError("stream_output.targets",
                        "expected a list of {slot, size, filled_size, data}")
    for i, t in enumerate(targets):
        w = f"stream_output.targets[{i}]"
        if not isinstance(t, dict):
            raise CaseError(w, "expected an object")
        unknown = set(t) - {"slot", "size", "filled_size", "data"}
        if unknown:
            raise CaseError(w, f"unknown keys {sorted(unknown)}")
        slot = _uint(t, "slot", w, None)
        if slot is None:
            raise CaseError(w, "missing required key 'slot'")
        if slot >= 4:
            raise InvalidDescError(w, "slot", slot, "SO output slots are 0-3")
        if slot in case.so_targets:
            raise CaseError(f"{w}.slot", f"slot {slot} has two targets")
        data = decode_data(t["data"], f"{w}.data") if t.get("data") is not None else b""
        size = _uint(t, "size", w, None)
        size = len(data) if size is None else size
        if size > DEFAULT_MAX_SO_BYTES:
            raise CaseError(f"{w}.size", f"{size} bytes exceed gpuia's {DEFAULT_MAX_SO_BYTES}-byte "
                                         f"limit for case SO buffers")
        if len(data) > size:
            raise CaseError(f"{w}.data", f"{len(data)} bytes of data exceed SizeInBytes {size}")
        filled = _uint(t, "filled_size", w, 0)
        if filled > 0xFFFFFFFF:
            raise InvalidDescError(w, "filled_size", filled,
                                   "BufferFilledSize is a 32-bit counter (rules 9.6)")
        if filled % 4:
            raise InvalidDescError(w, "filled_size", filled,
                                   "BufferFilledSize must be a multiple of 4 (SO writes 32-bit "
                                   "components)")
        case.so_targets[slot] = SOTarget(data + bytes(size - len(data)), filled)


# -- results ---------------------------------------------------------------------------------
def json_value(bits: int, shader_type: str) -> float | int | str:
    """One component as the result format writes its ``value``.

    Arguments:
        bits (int): the component's 32-bit pattern.
        shader_type (str): ``"float"``, ``"sint"``, or anything else for unsigned.

    Returns:
        For ``float``, the float32 value as a Python float, or the string ``"nan"``, ``"inf"``
        or ``"-inf"``; for ``sint``, the signed integer; else ``bits`` as an integer.
    """
    if shader_type == "float":
        v = float(np.uint32(bits).view(np.float32))
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return v
    if shader_type == "sint":
        return int(np.uint32(bits).view(np.int32))
    return int(bits)


def _values_list(bits: np.ndarray, shader_type: str) -> list:
    """Vectorized json_value over an (n, 4) array."""
    if shader_type == "uint":
        return bits.tolist()
    if shader_type == "sint":
        return bits.view(np.int32).tolist()
    vals = bits.view(np.float32).astype(np.float64)
    out = vals.tolist()
    bad = ~np.isfinite(vals)
    if bad.any():
        for r, c in zip(*np.nonzero(bad), strict=True):
            v = vals[r, c]
            out[r][c] = "nan" if np.isnan(v) else ("inf" if v > 0 else "-inf")
    return out


ADAPTER_KEYS = ("name", "backend", "type", "summary")
"""The keys of a result's ``adapter`` object (docs/case-format.md, "Result")."""
ADAPTER_INFO_KEYS = ("driver", "vendor", "vendor_id", "device_id", "wgpu_native")
"""The keys of a result's ``adapter_info`` object: what reproduces the run's driver."""


def result_json(case_name: str, ia: IAResult, *, backend: str = "cpu", path: str = "reference",
                adapter: dict | None = None, stream_output: dict | None = None) -> dict:
    """The result document for an :class:`~gpuia.reference.IAResult` (or any object with the
    same fields): version 1 of ``docs/case-format.md``'s "Result", every invocation in IA
    order with its IDs and each input's type, bits and value.

    Arguments:
        case_name (str): the ``case`` field.
        ia: the :class:`~gpuia.reference.IAResult` (on the GPU, ``GPUResult.ia``).
        backend (str): the ``backend`` field, ``"cpu"`` (the default) or ``"gpu"``.
        path (str): the ``path`` field: ``"reference"`` (the default), ``native``,
            ``pulling`` or both joined by ``/``.
        adapter (dict): the GPU's adapter (``Device.info``: ``name``, ``backend``, ``type``,
            ``summary``, and its driver facts ``driver``, ``vendor``, ``vendor_id``,
            ``device_id``, ``wgpu_native``); None (the default) for the CPU backend. The
            first four make the ``adapter`` field, the driver facts the ``adapter_info``
            field (null where ``adapter`` is).
        stream_output (dict): the ``stream_output`` field (:func:`so_result_json`), or None
            (the default) to leave it out.

    Returns:
        The document as a dict of JSON values.
    """
    n = len(ia)
    per_key = {k: (d.type, d.bits.tolist(), _values_list(d.bits, d.type))
               for k, d in ia.inputs.items()}
    draw, inst, vert, vid = (a.tolist() for a in (ia.draw, ia.instance, ia.vertex, ia.vertex_id))
    invocations = []
    for r in range(n):
        invocations.append({
            "draw": draw[r], "instance": inst[r], "vertex": vert[r],
            "SV_VertexID": vid[r], "SV_InstanceID": inst[r],
            "inputs": {k: {"type": t, "bits": b[r], "value": v[r]}
                       for k, (t, b, v) in per_key.items()},
        })
    doc = {
        "gpuia_result": RESULT_VERSION,
        "case": case_name,
        "backend": backend,
        "path": path,
        "adapter": None if adapter is None else {k: adapter.get(k) for k in ADAPTER_KEYS},
        "adapter_info": None if adapter is None else {k: adapter.get(k) for k in
                                                      ADAPTER_INFO_KEYS},
        "invocations": invocations,
        "statistics": dict(ia.statistics),
    }
    if stream_output is not None:
        doc["stream_output"] = stream_output
    return doc


def so_result_json(so: SOResult) -> dict:
    """The ``stream_output`` part of a result from a :class:`~gpuia.reference.SOResult`.

    Arguments:
        so: the :class:`~gpuia.reference.so_output.SOResult` (CPU or GPU).

    Returns:
        ``{"buffers": [{"slot", "hex", "filled_size"}, ...], "statistics": {...}}``, the
        buffers in slot order with their full contents.
    """
    return {
        "buffers": [{"slot": s, "hex": bytes(so.buffers[s]).hex(), "filled_size": so.filled_size[s]}
                    for s in sorted(so.buffers)],
        "statistics": dict(so.statistics),
    }
