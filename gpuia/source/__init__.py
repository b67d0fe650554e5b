"""D3D input layouts and Stream Output declarations taken from source code.

:func:`extract` reads one file: C or C++ (``D3D12/D3D11/D3D10_INPUT_ELEMENT_DESC`` and
``..._SO_DECLARATION_ENTRY`` arrays, parsed with tree-sitter's C++ grammar: the ``source``
extra) or JSON (case files, collections of transcribed layouts, element lists). It returns one
:class:`SourceArray` per array, its elements in the case-file form, ready for
:class:`gpuia.InputLayout` / :class:`gpuia.StreamOutputDesc`. Arrays that cannot be resolved
carry their :class:`SourceError`; a file that cannot be read raises it.
"""

from __future__ import annotations

from pathlib import Path

from .model import STRUCTS, SourceArray, SourceError

__all__ = ["extract", "SourceArray", "SourceError", "STRUCTS", "JSON_SUFFIXES"]

JSON_SUFFIXES = (".json",)
"""Files read as JSON; every other file is read as C/C++."""


def extract(path: str | Path, *, assume_false=()) -> list[SourceArray]:
    """Every D3D input-element array and SO declaration in ``path``, in source order.
    ``assume_false``: texts of ``if`` conditions to take as false when a vector is filled
    conditionally (C/C++ only; see :mod:`gpuia.source.cpp`)."""
    path = Path(path)
    if path.suffix.lower() in JSON_SUFFIXES:
        from .jsonforms import extract_json

        return extract_json(path)
    from .cpp import extract_cpp

    return extract_cpp(path, assume_false)
