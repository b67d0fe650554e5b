"""The views of the ``gpuia check`` HTML report: what it shows, as plain dataclasses, without
markup.

Every value carries a state: ``same``, ``diff`` (refused), ``tol`` (accepted within the
tolerance), ``nan`` (NaN payloads differ) or ``missing`` (the GPU delivered nothing);
:func:`make_cell` makes a cell's state the worst of its components'.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

SO_ROW_BYTES = 16
"""Bytes per row of a Stream Output hex dump."""


@dataclass
class Cell:
    """One element (or system value) of one invocation on one side: per component its text,
    its 32-bit pattern in hex and its state: ``same``, ``diff`` (refused), ``tol`` (accepted
    within 1 ULP) or ``nan`` (NaN payloads differ); ``state`` is the worst of them, or
    ``missing`` when the GPU delivered nothing."""

    texts: list[str]
    hexes: list[str]
    states: list[str]
    state: str
    note: str = ""


@dataclass
class InvocationRow:
    index: int
    draw: int
    instance: int
    vertex: int
    state: str  # same, diff, tol
    ids: list[tuple[Cell, Cell]]  # SV_VertexID, SV_InstanceID: (CPU, GPU)
    # per element: (CPU, GPU); the CPU cell is None where the CPU side has no value (VS Out of
    # a shader the CPU reference does not run)
    cells: Sequence[tuple[Cell | None, Cell]]


@dataclass
class HexRow:
    offset: int
    cpu: list[tuple[str, str]] | None  # (two hex digits, "diff", "tol" or "") per byte;
    gpu: list[tuple[str, str]] | None  # None: no such side
    differs: bool
    tolerated: bool = False  # a byte differs within the shader tolerance


@dataclass
class SOSlotView:
    slot: int
    size: int
    stride: int | None  # None: the declaration does not write this slot
    initial_filled: int
    filled_cpu: int | None
    filled_gpu: int | None
    differing_bytes: int
    rows: list[HexRow]
    omitted: int
    tolerated_bytes: int = 0  # bytes of shader float results within the stated tolerance


@dataclass
class ErrorRow:
    element: str
    rule: str
    compared: int
    exact: int
    within_one: int
    beyond_one: int
    max_ulp: int
    max_absolute: float


@dataclass
class RunView:
    label: str
    adapter: str
    path: str
    status: str
    detail: str
    problems: list[str] = field(default_factory=list)
    columns: list[str] = field(default_factory=list)
    rows: list[InvocationRow] = field(default_factory=list)
    total_rows: int = 0
    omitted: int = 0
    stats: list[tuple[str, str, str, bool]] = field(default_factory=list)  # name, cpu, gpu, differs
    errors: list[ErrorRow] = field(default_factory=list)
    so_slots: list[SOSlotView] = field(default_factory=list)
    vs_out: VSOutView | None = None


@dataclass
class VSOutView:
    """The vertex shader's outputs of one Stream Output run (RenderDoc's "VS Out"): per shown
    invocation the CPU and GPU cells of every output (``cpu`` False: the CPU reference has
    none, only GPU cells are shown). A GPU component Stream Output did not write shows ``-``."""

    source: str
    columns: list[str]
    cpu: bool
    rows: list[InvocationRow]
    total_rows: int
    omitted: int


@dataclass
class PrimitivesView:
    """The primitives of a case's draws: the reference's, and per adapter the corners the GPU
    side draws (``same``, ``!= ...`` highlighted, or ``-`` where WebGPU assembles the draw),
    with a note per adapter and draw."""

    header: list[str]
    rows: list[list[tuple[str, str]]]  # (text, state) per cell
    total_rows: int
    notes: list[str]


@dataclass
class ShaderView:
    """The case's own vertex shader: its language, where it is from, its source, its signature
    (direction, semantic, declaration, type, interpolation) and, for HLSL, its constant
    buffers (register, name, D3D size, whether gpuia remaps it, members with D3D offsets)."""

    language: str
    title: str
    source: str
    signature: list[list[str]]
    constant_buffers: list[list[str]] = field(default_factory=list)


@dataclass
class GSStreamView:
    """One stream of a geometry shader's output (:mod:`.gs_out`): its heading, the first rows
    of its table as text and how many rows it has in all."""

    title: str
    header: list[str]
    rows: list[list[str]]
    total_rows: int


@dataclass
class GSOutView:
    """A case's geometry shader output on the CPU reference: where it comes from, the stage's
    statistics and one :class:`GSStreamView` per stream."""

    source: str
    statistics: list[tuple[str, str]]
    streams: list[GSStreamView]


@dataclass
class CaseView:
    name: str
    description: str
    topology: str
    draws: list[str]
    elements: list[list[str]]
    so_declaration: list[list[str]]
    adapters: list[dict]
    runs: list[RunView]
    reference_stats: list[tuple[str, str]]
    shader: ShaderView | None = None
    vs_out_note: str = ""  # where the VS outputs come from, or why the case has none
    primitives: PrimitivesView | None = None
    geometry: GSOutView | None = None  # the geometry shader's output, for a case with one

    def count(self, status: str) -> int:
        return sum(r.status == status for r in self.runs)

    @property
    def verdict(self) -> str:
        if self.count("DIFFERENT"):
            return "DIFFERENT"
        return "OK" if self.count("OK") else "nothing compared"


def hex_strings(bits: np.ndarray) -> list:
    """``0x%08x`` of every pattern, as nested lists in the array's shape."""
    def walk(v):
        return [walk(x) for x in v] if isinstance(v, list) else f"0x{v:08x}"

    return walk(np.asarray(bits, dtype=np.uint32).tolist())


_ORDER = ("same", "nan", "tol", "diff")


def make_cell(texts, hexes, states) -> Cell:
    """A :class:`Cell` whose state is the worst of ``states`` (``same`` for none)."""
    return Cell(texts, hexes, states, max(states, key=_ORDER.index, default="same"))


def missing_cell() -> Cell:
    """The GPU cell of an invocation the GPU did not deliver."""
    return Cell([], [], [], "missing", "(not delivered)")
