"""Layouts and SO declarations in JSON: gpuia case files, collections of transcribed real-world
layouts, and bare element lists.

Three shapes are read:

- a case file (``"gpuia_case"`` key, ``docs/case-format.md``): its ``input_layout`` (strides
  from its ``vertex_buffers``) and, when present, ``stream_output.declaration`` with its
  ``buffer_strides`` and ``rasterized_stream``;
- a collection with ``"layouts"`` and/or ``"decls"`` lists whose entries have a ``name`` and
  ``elements`` / ``entries`` in snake_case (``semantic``, ``semantic_index``, ``format``,
  ``input_slot``, ``aligned_byte_offset`` (``"APPEND_ALIGNED"`` for
  D3D12_APPEND_ALIGNED_ELEMENT), ``input_slot_class`` (``PER_VERTEX``/``PER_INSTANCE``),
  ``instance_data_step_rate``; ``stream``, ``start_component``, ``component_count``,
  ``output_slot``), optional ``strides_by_slot`` / ``buffer_strides``: the form of the
  project's ``real-layouts.json`` and ``real-so-decls.json``;
- a JSON list of input elements in the case-file form.

Every element comes back with all seven (or six) D3D fields, defaults filled as the case format
defines them. A shape that is none of these raises :class:`SourceError`, and so does a case file
that is not well formed, with the error ``gpuia check`` gives for it.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import CaseError, GpuiaError
from ..util.files import loads_json, read_text
from .model import INPUT_FIELDS, SO_FIELDS, SourceArray, SourceError

__all__ = ["extract_json"]

_SNAKE_INPUT = {"semantic": "SemanticName", "semantic_name": "SemanticName",
                "semantic_index": "SemanticIndex", "format": "Format",
                "input_slot": "InputSlot", "aligned_byte_offset": "AlignedByteOffset",
                "input_slot_class": "InputSlotClass",
                "instance_data_step_rate": "InstanceDataStepRate"}
_SNAKE_SO = {"stream": "Stream", "semantic": "SemanticName", "semantic_name": "SemanticName",
             "semantic_index": "SemanticIndex", "start_component": "StartComponent",
             "component_count": "ComponentCount", "output_slot": "OutputSlot"}
_INPUT_DEFAULTS = {"SemanticIndex": 0, "InputSlot": 0,
                   "AlignedByteOffset": "APPEND_ALIGNED_ELEMENT",
                   "InputSlotClass": "PER_VERTEX_DATA", "InstanceDataStepRate": 0}
_SO_DEFAULTS = {"Stream": 0, "SemanticName": None, "SemanticIndex": 0, "StartComponent": 0,
                "ComponentCount": 4, "OutputSlot": 0}
_CLASS_ALIASES = {"PER_VERTEX": "PER_VERTEX_DATA", "PER_INSTANCE": "PER_INSTANCE_DATA"}


def _fields(raw, where: str, what: str, defaults: dict, snake: dict, fields) -> dict:
    """``raw`` (D3D or snake_case field names) over ``defaults``; unknown fields refused."""
    if not isinstance(raw, dict):
        raise SourceError(where, f"expected an object (a {what})")
    out = dict(defaults)
    for key, value in raw.items():
        name = snake.get(key, key)
        if name not in fields:
            raise SourceError(f"{where}.{key}", f"not a {what} field")
        out[name] = value
    return out


def _input_element(raw, where: str) -> dict:
    out = _fields(raw, where, "D3D12_INPUT_ELEMENT_DESC", _INPUT_DEFAULTS, _SNAKE_INPUT,
                  INPUT_FIELDS)
    if "SemanticName" not in out:
        raise SourceError(where, "missing SemanticName")
    if out["AlignedByteOffset"] == "APPEND_ALIGNED":
        out["AlignedByteOffset"] = "APPEND_ALIGNED_ELEMENT"
    if isinstance(out["InputSlotClass"], str):
        out["InputSlotClass"] = _CLASS_ALIASES.get(out["InputSlotClass"], out["InputSlotClass"])
    return {f: out.get(f) for f in INPUT_FIELDS}


def _so_entry(raw, where: str) -> dict:
    out = _fields(raw, where, "D3D12_SO_DECLARATION_ENTRY", _SO_DEFAULTS, _SNAKE_SO, SO_FIELDS)
    return {f: out[f] for f in SO_FIELDS}


def _strides(raw, where: str) -> dict[int, int]:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise SourceError(where, "expected an object mapping slots to strides")
    try:
        return {int(k): int(v) for k, v in raw.items()}
    except (TypeError, ValueError):
        raise SourceError(where, "slots and strides must be integers") from None


def _list(doc, key, where):
    value = doc.get(key, [])
    if not isinstance(value, list):
        raise SourceError(f"{where}.{key}", "expected a list")
    return value


def _well_formed_case(path: Path, label: str) -> None:
    """Refuse a case file that ``gpuia check`` and ``validate`` refuse as not well formed (a
    misspelt key, a wrong type, bad data: :class:`~gpuia.errors.CaseError`), with their message:
    read here for its layout alone, ``"input_layuot"`` gave an empty layout. What D3D rejects
    (:class:`~gpuia.errors.InvalidDescError`) is left to the lint, which names each rule."""
    from ..harness.case import load_case

    try:
        load_case(path)
    except CaseError as e:
        raise SourceError(label, str(e)) from None
    except GpuiaError:
        pass


def extract_json(path: str | Path) -> list[SourceArray]:
    """The layouts and SO declarations of one JSON file (see the module docstring)."""
    path = Path(path)
    label = str(path)
    try:
        doc = loads_json(read_text(path), label)
    except CaseError as e:
        raise SourceError(label, e.rule) from None
    out: list[SourceArray] = []
    if isinstance(doc, list):
        arr = SourceArray("input_layout", "input_layout", label, "D3D12_INPUT_ELEMENT_DESC")
        arr.elements = [_input_element(e, f"{label}[{i}]") for i, e in enumerate(doc)]
        return [arr]
    if not isinstance(doc, dict):
        raise SourceError(label, "expected a case file, a collection with 'layouts'/'decls', or "
                                 "a list of input elements")
    if "gpuia_case" in doc:
        _well_formed_case(path, label)
        # the case's own feature level (load_case checked it), which --feature-level overrides
        level = doc.get("feature_level") or "d3d12"
        arr = SourceArray("input_layout", "input_layout", label, "D3D12_INPUT_ELEMENT_DESC",
                          level)
        arr.elements = [_input_element(e, f"{label}: input_layout[{i}]")
                        for i, e in enumerate(_list(doc, "input_layout", label))]
        for vb in _list(doc, "vertex_buffers", label):
            if isinstance(vb, dict) and isinstance(vb.get("slot"), int):
                arr.strides[vb["slot"]] = int(vb.get("stride", 0))
        out.append(arr)
        so = doc.get("stream_output")
        if isinstance(so, dict) and so.get("declaration"):
            decl = SourceArray("so_declaration", "stream_output", label,
                               "D3D12_SO_DECLARATION_ENTRY", level)
            decl.elements = [_so_entry(e, f"{label}: stream_output.declaration[{i}]")
                             for i, e in enumerate(_list(so, "declaration", label))]
            if so.get("buffer_strides"):
                decl.buffer_strides = tuple(so["buffer_strides"])
            rs = so.get("rasterized_stream")
            decl.rasterized_stream = rs if isinstance(rs, int) else None if rs is None else \
                0xFFFFFFFF
            out.append(decl)
        return out
    if "layouts" not in doc and "decls" not in doc:
        raise SourceError(label, "expected a case file (gpuia_case), a collection with "
                                 "'layouts'/'decls', or a list of input elements")
    for i, entry in enumerate(_list(doc, "layouts", label)):
        where = f"{label}: layouts[{i}]"
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
            raise SourceError(where, "expected an object with a 'name'")
        arr = SourceArray("input_layout", entry["name"], label, "D3D12_INPUT_ELEMENT_DESC",
                          entry.get("api", "D3D12").lower())
        arr.elements = [_input_element(e, f"{where}.elements[{j}]")
                        for j, e in enumerate(_list(entry, "elements", where))]
        arr.strides = _strides(entry.get("strides_by_slot"), f"{where}.strides_by_slot")
        if entry.get("repo"):
            arr.notes.append(f"transcribed from {entry['repo']} {entry.get('path', '')} "
                             f"({entry.get('symbol', '')})".rstrip())
        out.append(arr)
    for i, entry in enumerate(_list(doc, "decls", label)):
        where = f"{label}: decls[{i}]"
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
            raise SourceError(where, "expected an object with a 'name'")
        arr = SourceArray("so_declaration", entry["name"], label, "D3D12_SO_DECLARATION_ENTRY")
        arr.elements = [_so_entry(e, f"{where}.entries[{j}]")
                        for j, e in enumerate(_list(entry, "entries", where))]
        if entry.get("buffer_strides"):
            arr.buffer_strides = tuple(entry["buffer_strides"])
        if entry.get("shader_stages"):
            arr.notes.append(f"shader stages in the source pipeline: {entry['shader_stages']}")
        out.append(arr)
    return out
