"""D3D input layouts and Stream Output declarations taken from source code.

:func:`read_source` reads one file: C or C++ (``D3D12/D3D11/D3D10_INPUT_ELEMENT_DESC`` and
``..._SO_DECLARATION_ENTRY`` arrays, parsed by libclang as the application's build would: the
``source`` extra, in a worker process with time and memory limits:
:mod:`gpuia.source.isolated`) or JSON (case files, collections of transcribed layouts, element
lists). It
returns a :class:`SourceFile` with one :class:`SourceArray` per array, its elements in the
case-file form, ready for :class:`gpuia.InputLayout` / :class:`gpuia.StreamOutputDesc`, and for
C/C++ the compiler's diagnostics and the D3D header it read. :func:`extract` returns the arrays
alone. Arrays that cannot be resolved carry their :class:`SourceError`; a file that cannot be
read raises it.
"""

from __future__ import annotations

from pathlib import Path

from .clang_parse import DEFAULT_TARGET
from .model import STRUCTS, Diagnostic, SourceArray, SourceError, SourceFile

__all__ = ["read_source", "extract", "SourceArray", "SourceError", "SourceFile", "Diagnostic",
           "STRUCTS", "JSON_SUFFIXES", "DEFAULT_TARGET"]

JSON_SUFFIXES = (".json",)
"""Files read as JSON; every other file is read as C/C++."""


def read_source(path: str | Path, *, assume_false=(), defines=(), include_dirs=(),
                target: str = DEFAULT_TARGET) -> SourceFile:
    """Every D3D input-element array and SO declaration in ``path``, in source order, with
    what the compiler said about the file.

    Arguments:
        path: a C/C++ source or header, or a JSON file (:data:`JSON_SUFFIXES`).
        assume_false: texts of ``if`` conditions to take as false where a vector is filled
            conditionally (C/C++ only; see :mod:`gpuia.source.cpp`).
        defines: ``NAME`` or ``NAME=VALUE`` preprocessor definitions, as ``-D`` gives them.
        include_dirs: folders searched for ``#include``, as ``-I`` gives them, in order.
        target: the target triple whose type sizes and struct layout apply.

    Returns:
        The :class:`SourceFile`.

    Raises:
        SourceError: the file cannot be read, JSON of no known shape, a malformed
            definition, include folder or target, or a C/C++ file that passed a limit of
            :mod:`gpuia.source.isolated` (the reason is said).
        UnsupportedError: a C/C++ file without libclang (the ``source`` extra).
    """
    path = Path(path)
    if path.suffix.lower() in JSON_SUFFIXES:
        from .jsonforms import extract_json

        return SourceFile(str(path), "JSON", extract_json(path))
    from .clang_parse import ParseOptions
    from .isolated import read_cpp

    options = ParseOptions(tuple(defines), tuple(str(d) for d in include_dirs), target)
    return read_cpp(path, assume_false, options)


def extract(path: str | Path, *, assume_false=(), defines=(), include_dirs=(),
            target: str = DEFAULT_TARGET) -> list[SourceArray]:
    """The arrays of :func:`read_source` alone.

    Arguments:
        path: a C/C++ source or header, or a JSON file.
        assume_false: texts of ``if`` conditions to take as false (C/C++).
        defines: ``-D`` definitions (C/C++).
        include_dirs: ``-I`` folders (C/C++).
        target: the target triple (C/C++).

    Returns:
        Every array found, in source order.

    Raises:
        SourceError: as :func:`read_source`.
        UnsupportedError: as :func:`read_source`.
    """
    return read_source(path, assume_false=assume_false, defines=defines,
                       include_dirs=include_dirs, target=target).arrays
