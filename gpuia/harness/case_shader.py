"""The ``vertex_shader`` section of a case file (``docs/case-format.md``).

:func:`case_vertex_shader` checks the object (exactly one of ``wgsl``, ``hlsl``,
``hlsl_file``, ``dxbc``, ``dxbc_file``, with only the fields that form takes) and compiles an
HLSL shader or a DXBC container (``gpuia.hlsl.dxbc``);
:func:`vertex_shader_reads` names the root constant buffers a shader reads. A malformed object
raises :class:`~gpuia.errors.CaseError`, a shader that does not compile
:class:`~gpuia.errors.InvalidDescError` (with its ``diagnostics``). The HLSL and WGSL modules
load only where a case has a shader.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import CaseError, InvalidDescError, UnsupportedError
from ..util.files import read_text

if TYPE_CHECKING:  # annotations only: the shader modules load where a case uses them
    from ..hlsl import HlslShader

_WGSL_KEYS = {"wgsl", "entry_point"}
_HLSL_KEYS = {"hlsl", "hlsl_file", "entry_point", "defines", "matrix_layout"}
_FORMS = ("wgsl", "hlsl", "hlsl_file", "dxbc", "dxbc_file")


def case_vertex_shader(vs: object, base: Path) -> HlslShader | None:
    """Check a case's ``vertex_shader`` object (docs/case-format.md) and compile it if it is
    HLSL.

    Arguments:
        vs (dict): the object: ``{"wgsl": ...}``, ``{"hlsl": ...}``, ``{"hlsl_file": ...}``
            with their optional fields, or ``{"dxbc": DATA}`` or ``{"dxbc_file": ...}``.
        base (Path): the folder ``hlsl_file``, ``dxbc_file`` and ``#include`` paths are
            relative to.

    Returns:
        The compiled :class:`gpuia.hlsl.HlslShader` (a DXBC container's too, translated), or
        None for a WGSL shader.

    Raises:
        CaseError: the object or one of its fields is malformed (naming the field), or the
            HLSL does not compile.
        InvalidDescError: a DXBC container that cannot be read or translated.
        UnsupportedError: a DXIL container, or no Slang, vkd3d-compiler or spirv-cross.
    """
    if not isinstance(vs, dict):
        raise CaseError("vertex_shader", "expected {\"wgsl\": ...} or {\"hlsl\": ...}")
    if "entry_point" in vs and not isinstance(vs["entry_point"], (str, type(None))):
        raise CaseError("vertex_shader.entry_point", "expected a string")
    forms = [k for k in _FORMS if k in vs]
    if len(forms) != 1:
        raise CaseError("vertex_shader", f"expected exactly one of 'wgsl', 'hlsl', 'hlsl_file', "
                                         f"'dxbc' or 'dxbc_file', got {forms or 'none'}")
    if forms[0] in ("dxbc", "dxbc_file"):
        return _dxbc_shader(vs, forms[0], "vertex_shader", base)
    if forms == ["wgsl"]:
        if not isinstance(vs["wgsl"], str):
            raise CaseError("vertex_shader.wgsl", "expected WGSL source text")
        unknown = set(vs) - _WGSL_KEYS
        if unknown:
            raise CaseError("vertex_shader", f"unknown keys {sorted(unknown)} for a WGSL shader")
        return None
    source = hlsl_source(vs, "vertex_shader", base)
    from ..hlsl import compile_shader

    try:
        return compile_shader(source.text, "vertex", source.entry_point, source.defines,
                              source.matrix_layout, source.file_name, source.include_dirs,
                              source.source_path)
    except InvalidDescError as e:
        raise located(e, "vertex_shader", "vertex shader") from None


def _dxbc_shader(obj: dict, form: str, where: str, base: Path) -> HlslShader:
    """A case's ``{"dxbc": DATA}`` or ``{"dxbc_file": path}`` shader, read and translated."""
    from ..hlsl.dxbc import compile_dxbc
    from .case_data import case_container_bytes

    blob, name = case_container_bytes(obj, where, base)
    try:
        return compile_dxbc(blob, "vertex", name)
    except InvalidDescError as e:  # the case's key, then the front end's or the file's place
        raise located(e, f"{where}.{form}", "") from None
    except UnsupportedError as e:
        raise UnsupportedError(f"{where}.{form}: {e}") from None


@dataclass(frozen=True)
class HlslSource:
    """An HLSL shader object of a case, checked: its text and how to compile it."""

    text: str
    entry_point: str
    defines: dict
    matrix_layout: str
    file_name: str
    include_dirs: tuple[str, ...]
    source_path: str | None


def hlsl_source(obj: dict, where: str, base: Path) -> HlslSource:
    """Check an HLSL shader object of a case (``hlsl`` or ``hlsl_file``, and the optional
    ``entry_point``, ``defines`` and ``matrix_layout``) and read its text.

    Arguments:
        obj (dict): the object, known to hold ``hlsl`` or ``hlsl_file`` but not both.
        where (str): the case's key for it (``vertex_shader``), named in errors.
        base (Path): the folder ``hlsl_file`` and ``#include`` paths are relative to.

    Returns:
        The :class:`HlslSource`.

    Raises:
        CaseError: an unknown key, a malformed field, or a file that cannot be read.
    """
    unknown = set(obj) - _HLSL_KEYS
    if unknown:
        raise CaseError(where, f"unknown keys {sorted(unknown)} for an HLSL shader")
    if "entry_point" in obj and not isinstance(obj["entry_point"], (str, type(None))):
        raise CaseError(f"{where}.entry_point", "expected a string")
    defines = obj.get("defines") or {}
    if not isinstance(defines, dict):
        raise CaseError(f"{where}.defines", "expected an object {\"NAME\": \"VALUE\"}")
    layout = obj.get("matrix_layout") or "column_major"
    include_dirs = (str(base),)  # a case's shaders include from its folder
    if "hlsl_file" in obj:
        name = obj["hlsl_file"]
        if not isinstance(name, str) or not name:
            raise CaseError(f"{where}.hlsl_file", "expected a path (relative to the case)")
        path = base / name
        try:
            text = read_text(path)
        except CaseError as e:  # names the file and why
            raise CaseError(f"{where}.hlsl_file", str(e)) from None
        file_name, source_path = name, str(path.resolve())
    else:
        text, file_name, source_path = obj["hlsl"], f"{where}.hlsl", None
        if not isinstance(text, str):
            raise CaseError(f"{where}.hlsl", "expected HLSL source text")
    return HlslSource(text, obj.get("entry_point") or "main", defines, layout, file_name,
                      include_dirs, source_path)


def located(e: InvalidDescError, where: str, front_end_where: str) -> InvalidDescError:
    """The front end's refusal of a case's shader, located at the case's key ``where``
    (``front_end_where`` is how the front end names the shader); Slang's diagnostics kept."""
    loc = f"{where}: {e.where}" if e.where != front_end_where else where
    err = InvalidDescError(loc, e.field, e.value, e.rule)
    err.diagnostics = getattr(e, "diagnostics", None)
    return err


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



def constant_buffer_entries(vertex_shader: dict, given: Mapping[int, Any] | None = None,
                            base: Path | None = None) -> list[dict]:
    """The ``constant_buffers`` list of a generated case drawn with ``vertex_shader``: one
    entry per root constant buffer it reads, ``given[slot]`` where given (bytes as ``data``, a
    dict of members by name as ``values``, packed when the case is loaded), else zero-filled.

    Raises:
        InvalidDescError: a given slot the shader does not read, or a value that is neither
            bytes nor a dict.
        CaseError, UnsupportedError: as :func:`vertex_shader_reads`.
    """
    from .case_data import encode_data

    reads = vertex_shader_reads(vertex_shader, base)
    given = dict(given or {})
    for slot, value in given.items():
        if slot not in reads:
            raise InvalidDescError("constant_buffers", "slot", slot,
                                   f"the vertex shader reads no constant buffer in register "
                                   f"b{slot} (it reads "
                                   f"{', '.join(f'b{s}' for s in reads) or 'none'})")
        if not isinstance(value, (bytes, bytearray, memoryview, dict)):
            raise InvalidDescError("constant_buffers", f"slot {slot}", type(value).__name__,
                                   "expected the bytes, or a dict of the cbuffer's members by "
                                   "name")
    out = []
    for slot in reads:
        value = given.get(slot, b"")
        out.append({"slot": slot, "values": value} if isinstance(value, dict)
                   else {"slot": slot, "data": encode_data(value)})
    return out
