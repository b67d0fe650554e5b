"""What the source readers return: a :class:`SourceFile` per file read, with one
:class:`SourceArray` per D3D array found and the compiler's :class:`Diagnostic` lines, and the
:class:`SourceError` raised for anything that cannot be resolved."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import CaseError

__all__ = ["SourceArray", "SourceError", "SourceFile", "SourcePipeline", "Diagnostic",
           "INPUT_FIELDS", "SO_FIELDS",
           "SO10_FIELDS", "StructKind", "STRUCTS", "source_file_doc", "source_file_from_doc"]

INPUT_FIELDS = ("SemanticName", "SemanticIndex", "Format", "InputSlot", "AlignedByteOffset",
                "InputSlotClass", "InstanceDataStepRate")
"""D3D12/D3D11/D3D10_INPUT_ELEMENT_DESC, in header order (d3d12.h, d3d11.h, d3d10.h)."""

SO_FIELDS = ("Stream", "SemanticName", "SemanticIndex", "StartComponent", "ComponentCount",
             "OutputSlot")
"""D3D12/D3D11_SO_DECLARATION_ENTRY, in header order: checked in microsoft/DirectX-Headers
include/directx/d3d12.h (and d3d12.idl) and in d3d11.h, both six fields, Stream first."""

SO10_FIELDS = SO_FIELDS[1:]
"""D3D10_SO_DECLARATION_ENTRY (d3d10.h) has no Stream: five fields, SemanticName first."""


@dataclass(frozen=True)
class StructKind:
    """A D3D struct whose arrays are extracted: what it describes, the API profile its limits
    come from, and its fields in C order (positional initializers follow it)."""

    kind: str  # "input_layout" or "so_declaration"
    profile: str  # gpuia.d3d.layout.PROFILES key
    fields: tuple[str, ...]


STRUCTS = {
    "D3D12_INPUT_ELEMENT_DESC": StructKind("input_layout", "d3d12", INPUT_FIELDS),
    "D3D11_INPUT_ELEMENT_DESC": StructKind("input_layout", "d3d11", INPUT_FIELDS),
    "D3D10_INPUT_ELEMENT_DESC": StructKind("input_layout", "d3d10", INPUT_FIELDS),
    "D3D12_SO_DECLARATION_ENTRY": StructKind("so_declaration", "d3d12", SO_FIELDS),
    "D3D11_SO_DECLARATION_ENTRY": StructKind("so_declaration", "d3d11", SO_FIELDS),
    "D3D10_SO_DECLARATION_ENTRY": StructKind("so_declaration", "d3d10", SO10_FIELDS),
}


class SourceError(CaseError):
    """Something in a source file that gpuia cannot resolve. ``where`` names the place
    (``file:line:column: array NAME: element 2: AlignedByteOffset``); ``rule`` says why."""


@dataclass
class SourceArray:
    """One D3D input-element array or stream-output declaration found in a file.

    ``elements`` are dicts with the D3D field names (the case-file form), every field present:
    input elements with ``AlignedByteOffset`` ``"APPEND_ALIGNED_ELEMENT"`` or an integer and
    ``InputSlotClass`` a classification name; SO entries with ``SemanticName`` None for a gap.
    A value the C code gives that D3D would reject is kept as given, for the validation to
    name. ``strides`` maps input slots to strides the source states (input layouts), or is
    ``buffer_strides`` (SO: one per output slot). ``error`` is set, and ``elements`` empty, when
    the array could not be resolved."""

    kind: str
    name: str
    file: str
    struct: str
    profile: str = "d3d12"
    line: int | None = None
    column: int | None = None
    elements: list[dict] = field(default_factory=list)
    strides: dict[int, int] = field(default_factory=dict)
    buffer_strides: tuple[int, ...] | None = None
    rasterized_stream: int | None = None
    notes: list[str] = field(default_factory=list)
    error: SourceError | None = None

    @property
    def location(self) -> str:
        """``file:line:column`` (1-based), or the file alone for entries of JSON files."""
        if self.line is None:
            return self.file
        return f"{self.file}:{self.line}:{self.column}"


@dataclass(frozen=True)
class SourcePipeline:
    """One pipeline state desc of a C/C++ file that sets an input layout and a Stream Output
    declaration found in the file (:mod:`gpuia.source.pso`): they go into one pipeline.

    Arguments:
        name (str): the desc's expression as written (``psoDesc``, ``stream``).
        file (str): the file.
        line, column (int): where its first member assignment is, 1-based.
        input_layout (str): the :attr:`SourceArray.name` of its input-element array.
        stream_output (str): the :attr:`SourceArray.name` of its SO declaration.
    """

    name: str
    file: str
    line: int
    column: int
    input_layout: str
    stream_output: str

    @property
    def location(self) -> str:
        """``file:line:column``."""
        return f"{self.file}:{self.line}:{self.column}"


@dataclass(frozen=True)
class Diagnostic:
    """One compiler diagnostic of a C/C++ file: where it is and what the compiler said.

    Arguments:
        file (str): the file it is in (a header's path for a diagnostic in a header).
        line, column (int): its position, 1-based.
        severity (str): ``"warning"``, ``"error"`` or ``"fatal"``.
        message (str): the compiler's text.
    """

    file: str
    line: int
    column: int
    severity: str
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}: {self.severity}: {self.message}"


@dataclass
class SourceFile:
    """What one file yielded: its arrays, and for C/C++ the compiler's diagnostics and the D3D
    header the compiler read.

    Arguments:
        file (str): the path as given.
        language (str): ``"C"``, ``"C++"`` or ``"JSON"``.
        arrays (list[SourceArray]): every array found, in source order.
        diagnostics (list[Diagnostic]): the compiler's warnings and errors (C/C++; arrays
            that do not depend on what they are about are still read).
        d3d_header (str | None): the real D3D12 header the compiler read (a path found
            through the include path), or None when it read gpuia's generated stub (or for
            JSON).
        pipelines (list[SourcePipeline]): the pipeline state descs that pair an input layout
            with a Stream Output declaration (C/C++), in source order.
    """

    file: str
    language: str
    arrays: list[SourceArray] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    d3d_header: str | None = None
    pipelines: list[SourcePipeline] = field(default_factory=list)

    @property
    def header_text(self) -> str:
        """Which D3D header was read, in words (C/C++ files)."""
        if self.d3d_header is not None:
            return self.d3d_header
        return "gpuia's generated stub (no d3d12.h on the include path)"


def source_file_doc(source: SourceFile) -> dict:
    """A :class:`SourceFile` as JSON-able data (what the C/C++ worker process sends back).

    Arguments:
        source: the file's result.

    Returns:
        The document :func:`source_file_from_doc` reads back to an equal SourceFile.
    """
    def array(a: SourceArray) -> dict:
        return {"kind": a.kind, "name": a.name, "file": a.file, "struct": a.struct,
                "profile": a.profile, "line": a.line, "column": a.column,
                "elements": a.elements, "strides": [[s, v] for s, v in a.strides.items()],
                "buffer_strides": None if a.buffer_strides is None else list(a.buffer_strides),
                "rasterized_stream": a.rasterized_stream, "notes": a.notes,
                "error": None if a.error is None else [a.error.where, a.error.rule]}

    return {"file": source.file, "language": source.language,
            "arrays": [array(a) for a in source.arrays],
            "diagnostics": [[d.file, d.line, d.column, d.severity, d.message]
                            for d in source.diagnostics],
            "d3d_header": source.d3d_header,
            "pipelines": [[p.name, p.file, p.line, p.column, p.input_layout, p.stream_output]
                          for p in source.pipelines]}


def source_file_from_doc(doc: dict) -> SourceFile:
    """The :class:`SourceFile` of a :func:`source_file_doc` document.

    Arguments:
        doc: the document.

    Returns:
        The SourceFile.
    """
    arrays = []
    for a in doc["arrays"]:
        error = a["error"]
        arrays.append(SourceArray(
            a["kind"], a["name"], a["file"], a["struct"], a["profile"], a["line"], a["column"],
            a["elements"], dict(a["strides"]),
            None if a["buffer_strides"] is None else tuple(a["buffer_strides"]),
            a["rasterized_stream"], a["notes"],
            None if error is None else SourceError(error[0], error[1])))
    return SourceFile(doc["file"], doc["language"], arrays,
                      [Diagnostic(*d) for d in doc["diagnostics"]], doc["d3d_header"],
                      [SourcePipeline(*p) for p in doc.get("pipelines", [])])
