"""CPU reference against GPU: per invocation, per element, per component.

The comparison is bit-exact: every component's 32-bit pattern must be equal, with two
allowances, both reported separately so they stay visible:

* a float component that is NaN on both sides matches whatever its payload (rules 2.5: NaN
  stays NaN; payloads are not specified);
* on the **native** path only, a UNORM or SNORM component may differ from the exact quotient by
  one unit in the last place. The reference divides exactly (rules 2.2, 2.3), but Direct3D's
  own conversion rules state SNORM as ``c * (1.0f / (2^(n-1) - 1))`` (a reciprocal multiply, up to
  1 ULP from the quotient; Microsoft "Data type conversion"), and fixed-function vertex fetch
  does the same for UNORM on real adapters (lavapipe, measured). The pulling path decodes with
  integer arithmetic and must be exact.

SV_VertexID and SV_InstanceID must be equal, and every invocation the reference delivers must
have been captured on the GPU.

:func:`comparison_table` prints the view RenderDoc's mesh viewer gives (one row per invocation,
one column per element), with the CPU value and, where they differ, the GPU value beside it.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from ..util.parallel import row_chunks, run_tasks
from .table import format_value, render_table
from .word_checks import contiguous_rows, unmark_nan_pairs, within_one_ulp

if TYPE_CHECKING:  # the types of the two sides compared (the GPU run loads the GPU side)
    from ..d3d.layout import InputLayout
    from ..reference.ia import IAResult
    from ..reference.stream_output import SOResult
    from .run_gpu import GPUResult

__all__ = ["Comparison", "compare", "comparison_table", "summary_text", "compare_so",
           "component_errors", "ShaderTolerance", "SHADER_TOLERANCE", "shader_word_check",
           "tolerated_bytes", "so_byte_differences", "compare_geometry", "GS_STATISTICS"]


@dataclass
class Comparison:
    """The outcome of comparing a reference result with a GPU result of the same case:
    :func:`compare` makes it.

    Arguments:
        invocations (int): the invocations the reference delivers.
        bad_rows (numpy.ndarray): bool per invocation: a component, an ID or the record
            itself differs (tolerated components do not count).
        element_mismatches (dict): element key -> bool ``(n, 4)``: the components that differ
            beyond the allowances.
        id_mismatch (numpy.ndarray): bool per invocation: SV_VertexID or SV_InstanceID
            differs.
        missing (numpy.ndarray): bool per invocation: the GPU delivered no record of it.
        unexpected (int): GPU invocations at vertex indices D3D does not fetch.
        tolerated (int): components accepted by the 1-ULP normalized-format tolerance.
        tolerated_mask (dict): element key -> bool ``(n, 4)``: the components the tolerance
            accepted (differing, yet not a mismatch); only elements it applies to have one.
        tolerance_rows (dict): element key -> bool per invocation: the rows where the
            tolerance applies to that element (UNORM/SNORM elements of draws that took the
            native path).
    """

    invocations: int
    bad_rows: np.ndarray  # bool per invocation
    element_mismatches: dict[str, np.ndarray] = field(default_factory=dict)  # key -> bool (n, 4)
    id_mismatch: np.ndarray | None = None
    missing: np.ndarray | None = None
    unexpected: int = 0
    tolerated: int = 0  # components accepted by the 1-ULP normalized-format tolerance
    # key -> bool (n, 4): the components the 1-ULP tolerance accepted (differing, yet not a
    # mismatch); only elements the tolerance applies to have an entry.
    tolerated_mask: dict[str, np.ndarray] = field(default_factory=dict)
    # key -> bool per invocation: the rows where the 1-ULP tolerance applies to that element
    # (UNORM/SNORM elements of draws that took the native path).
    tolerance_rows: dict[str, np.ndarray] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """Whether the runs agree: no bad row and no unexpected invocation (tolerated
        components are counted in :attr:`tolerated`, not as differences)."""
        return not self.bad_rows.any() and self.unexpected == 0

    def summary(self) -> str:
        """One line: ``M/N invocations match``, then per differing element how many rows
        differ, differing system values, invocations the GPU did not deliver, unexpected
        invocations and tolerated components, each only when there are some."""
        def count(mask: np.ndarray | None) -> int:
            return 0 if mask is None else int(mask.sum())

        return summary_text(self.invocations, count(self.bad_rows),
                            {key: int(m.any(axis=1).sum())
                             for key, m in self.element_mismatches.items()},
                            count(self.id_mismatch), count(self.missing), self.unexpected,
                            self.tolerated)


def summary_text(invocations: int, bad: int, element_rows: dict[str, int], id_rows: int,
                 missing: int, unexpected: int, tolerated: int) -> str:
    """:meth:`Comparison.summary`'s line from its counts: the invocations, the bad rows, per
    element key the rows where it differs, the rows whose system values differ, those not
    delivered, the unexpected invocations and the tolerated components (a part only where its
    count is not 0). Windowed comparisons (:mod:`gpuia.harness.windowed`) write the same line
    from counts summed over their windows.

    Arguments:
        invocations (int): the invocations compared.
        bad (int): the rows where anything differs.
        element_rows (dict): element key -> rows where it differs.
        id_rows (int): rows whose system values differ.
        missing (int): invocations the GPU did not deliver.
        unexpected (int): invocations the GPU delivered that D3D does not make.
        tolerated (int): components within the tolerance.
    """
    parts = [f"{invocations - bad}/{invocations} invocations match"]
    parts += [f"{key}: {rows} differ" for key, rows in element_rows.items() if rows]
    if id_rows:
        parts.append(f"system values: {id_rows} differ")
    if missing:
        parts.append(f"{missing} not delivered by the GPU")
    if unexpected:
        parts.append(f"{unexpected} GPU invocations at vertex indices D3D does not fetch")
    if tolerated:
        parts.append(f"{tolerated} normalized components within 1 ULP (native fetch "
                     f"tolerance)")
    return ", ".join(parts)


def _ulp_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Distance in float32 units in the last place (on the ordered integer line)."""
    def ordered(x):
        x = x.astype(np.int64)
        return np.where(x & 0x80000000, 0x80000000 - x, x)

    return np.abs(ordered(a) - ordered(b))


PART_ROWS = 1 << 15
"""Rows :func:`compare` checks at once within a chunk of the pool: the words of an element of
that many rows and the checks' temporaries fit a core's cache."""


def compare(ref: IAResult, gpu: GPUResult, layout: InputLayout | None = None) -> Comparison:
    """Compare an :class:`~gpuia.reference.IAResult` with a
    :class:`~gpuia.harness.run_gpu.GPUResult` of the same case by the module docstring's
    rules: every component's bits, SV_VertexID and SV_InstanceID, and that every invocation
    was delivered. The inputs are not modified.

    Arguments:
        ref (IAResult): the reference result.
        gpu (GPUResult): the GPU result of the same case (the same invocations and element
            keys; nothing checks that it is).
        layout (InputLayout): the case's layout. It enables the 1-ULP tolerance for
            UNORM/SNORM elements of draws whose plan took the native path; None (the
            default) compares exactly everywhere (NaN by class).

    Returns:
        The :class:`Comparison`.
    """
    g = gpu.ia
    n = len(ref)
    native_rows = None
    if layout is not None and getattr(gpu, "plans", None):
        paths = np.array([p.path == "native" for p in gpu.plans] + [False])
        native_rows = paths[np.minimum(ref.draw.astype(np.int64), len(gpu.plans))]
    normalized = {e.key for e in layout.elements if e.format.is_normalized} if layout else set()
    # The 1-ULP tolerance applies to normalized elements where some draw took the native path.
    tolerant = ({k for k in ref.inputs if k in normalized}
                if native_rows is not None and native_rows.any() else set())
    # Every mask starts as zeros and a chunk writes its part only where something differs:
    # pages never written stay unmapped, so a run that agrees costs no memory for its masks.
    mism = {key: np.zeros((n, 4), dtype=bool) for key in ref.inputs}
    tolerated_mask = {key: np.zeros((n, 4), dtype=bool) for key in tolerant}
    ids = np.zeros(n, dtype=bool)
    bad = np.zeros(n, dtype=bool)
    missing = np.asarray(gpu.missing, dtype=bool)
    chunks = row_chunks(n)
    tolerated = [0] * len(chunks)

    def rows(i: int, lo: int, hi: int) -> None:
        # A chunk of rows on the pool (the comparison is memory-bound and one core does not
        # saturate a GPU host's memory), checked a cache-sized part at a time: every check of
        # a part reads the words its previous check left in cache.
        for a in range(lo, hi, PART_ROWS):
            part(i, a, min(hi, a + PART_ROWS))

    def part(i: int, lo: int, hi: int) -> None:
        id_rows = ref.vertex_id[lo:hi] != g.vertex_id[lo:hi]
        id_rows |= ref.instance[lo:hi] != g.instance[lo:hi]
        if id_rows.any():
            ids[lo:hi] = id_rows
        bad_rows = id_rows | missing[lo:hi]
        for key, data in ref.inputs.items():
            a, b = contiguous_rows(data.bits[lo:hi]), contiguous_rows(g.inputs[key].bits[lo:hi])
            m = a != b
            if not m.any():  # most runs differ nowhere: a bulk word comparison is all
                continue
            if data.type == "float":
                unmark_nan_pairs(a, b, m)
            if key in tolerant:
                assert native_rows is not None
                near = m & native_rows[lo:hi, None]
                if near.any():
                    near &= within_one_ulp(a, b)
                    tolerated_mask[key][lo:hi] = near
                    tolerated[i] += int(np.count_nonzero(near))
                    m ^= near  # near is within m: clears the tolerated components
            if m.any():
                mism[key][lo:hi] = m
                bad_rows |= m.any(axis=1)
        if bad_rows.any():
            bad[lo:hi] = bad_rows

    run_tasks([functools.partial(rows, i, lo, hi) for i, (lo, hi) in enumerate(chunks)], n)
    tolerance_rows = {key: native_rows for key in tolerant if native_rows is not None}
    return Comparison(n, bad, mism, ids, missing, int(gpu.unexpected), sum(tolerated),
                      tolerated_mask, tolerance_rows)


def component_errors(cpu_bits: np.ndarray, gpu_bits: np.ndarray,
                     shader_type: str) -> tuple[np.ndarray, np.ndarray]:
    """Per-component error between two arrays of 32-bit patterns of one shader type, as
    ``(ulp, absolute)`` arrays of the input's shape (for reports and plots; :func:`compare`
    judges).

    Arguments:
        cpu_bits: the reference's 32-bit patterns (anything ``numpy.asarray`` makes uint32).
        gpu_bits: the GPU's, of the same shape.
        shader_type (str): ``"float"``, ``"sint"``, or anything else for unsigned.

    Returns:
        ``(ulp, absolute)``, an int64 and a float64 array.

        ``ulp``: for floats, the distance in float32 units in the last place on the ordered
        integer line (+0 and -0 are both 0 there, so 0 apart though their patterns differ); 0
        where both are NaN (the comparison classes NaNs, rules 2.5). For integers, the
        difference of the integer values.

        ``absolute``: ``|gpu - cpu|`` of the values as float64; NaN where either float is NaN
        or infinite (no finite distance exists), so callers drop those from magnitudes.
    """
    a = np.asarray(cpu_bits, dtype=np.uint32)
    b = np.asarray(gpu_bits, dtype=np.uint32)
    if shader_type == "float":
        ulp = _ulp_distance(a, b)
        fa = a.view(np.float32).astype(np.float64)
        fb = b.view(np.float32).astype(np.float64)
        ulp = np.where(np.isnan(fa) & np.isnan(fb), 0, ulp)
        with np.errstate(invalid="ignore"):
            absolute = np.abs(fb - fa)
        absolute[~(np.isfinite(fa) & np.isfinite(fb))] = np.nan
        return ulp, absolute
    view = np.int32 if shader_type == "sint" else np.uint32
    ulp = np.abs(b.view(view).astype(np.int64) - a.view(view).astype(np.int64))
    return ulp, ulp.astype(np.float64)


def comparison_table(ref: IAResult, gpu: GPUResult, cmp: Comparison, max_rows: int | None = 32,
                     only_differences: bool = False) -> str:
    """The RenderDoc-style table of a comparison: one row per invocation (draw, instance,
    vertex, SV_VertexID), one column per element with the CPU values, and ``!= GPU values``
    where a component differs (``!= (not delivered)`` for a missing record); differing rows
    are flagged ``!``.

    Arguments:
        ref (IAResult): the reference result.
        gpu (GPUResult): the GPU result.
        cmp (Comparison): their comparison (:func:`compare`).
        max_rows (int): the most rows shown, then a ``... N more`` line; None shows all.
            Default 32.
        only_differences (bool): show only the differing rows. Default False.

    Returns:
        The table as text.
    """
    g = gpu.ia
    rows_idx = np.flatnonzero(cmp.bad_rows) if only_differences else np.arange(cmp.invocations)
    shown = rows_idx if max_rows is None else rows_idx[:max_rows]
    header = ["", "draw", "inst", "vtx", "SV_VertexID"] + list(ref.inputs)
    rows = []
    # compare() sets both for every comparison it makes.
    assert cmp.id_mismatch is not None and cmp.missing is not None
    for r in shown:
        flag = "!" if cmp.bad_rows[r] else ""
        vid = str(int(ref.vertex_id[r]))
        if cmp.id_mismatch[r]:
            vid += f" != {int(g.vertex_id[r])} (inst {int(g.instance[r])})"
        row = [flag, str(int(ref.draw[r])), str(int(ref.instance[r])), str(int(ref.vertex[r])), vid]
        for key, data in ref.inputs.items():
            cpu = " ".join(format_value(int(b), data.type) for b in data.bits[r])
            if cmp.missing[r]:
                cpu += " != (not delivered)"
            elif cmp.element_mismatches[key][r].any():
                gpu_vals = " ".join(format_value(int(b), data.type) for b in g.inputs[key].bits[r])
                cpu += f" != {gpu_vals}"
            row.append(cpu)
        rows.append(row)
    text = render_table(header, rows, right={1, 2, 3})
    if len(shown) < len(rows_idx):
        what = "differing " if only_differences else ""
        text += f"\n... {len(rows_idx) - len(shown)} more {what}invocations"
    return text


def so_byte_differences(cpu: bytes, gpu: bytes) -> np.ndarray:
    """Byte offsets where two SO buffers differ; bytes present on one side only count as
    differing.

    Arguments:
        cpu (bytes): one buffer (the reference's).
        gpu (bytes): the other.

    Returns:
        The offsets in ascending order, an int64 array (empty when the buffers are equal).
    """
    a = np.frombuffer(cpu, np.uint8)
    b = np.frombuffer(gpu, np.uint8)
    common = min(a.shape[0], b.shape[0])
    diff = np.flatnonzero(a[:common] != b[:common])
    return np.concatenate([diff, np.arange(common, max(a.shape[0], b.shape[0]))])


@dataclass(frozen=True)
class ShaderTolerance:
    """How far a GPU's float result of a real shader may lie from the CPU reference's: within
    ``ulps`` units in the last place, or within ``absolute`` (results near zero come from
    cancellation, where ULPs mean nothing). NaN matches NaN; an infinity only matches within
    ``ulps``. Applies only to words the reference marks as computed by a shader
    (``SOResult.shader_words``); everything else, the IA's values included, stays exact. A
    frozen value.

    Arguments:
        ulps (int): the largest distance in float32 units in the last place. Default 64.
        absolute (float): the largest absolute difference of finite values. Default 2**-16.
    """

    ulps: int = 64
    absolute: float = 2.0 ** -16

    def text(self) -> str:
        """The tolerance as reports write it: ``64 ULP or 1.52588e-05 absolute``."""
        return f"{self.ulps} ULP or {self.absolute:g} absolute"


SHADER_TOLERANCE = ShaderTolerance()
"""The default :class:`ShaderTolerance` (64 ULP or 2**-16 absolute) of :func:`compare_so` and
``gpuia check``."""


def _within(a: np.ndarray, b: np.ndarray, tol: ShaderTolerance) -> tuple[np.ndarray, np.ndarray]:
    """(within tolerance, ULP distance) of float32 bit patterns."""
    fa, fb = a.view(np.float32), b.view(np.float32)
    ulps = _ulp_distance(a, b)
    with np.errstate(invalid="ignore", over="ignore"):
        close = np.abs(fa.astype(np.float64) - fb.astype(np.float64)) <= tol.absolute
    ok = (np.isnan(fa) & np.isnan(fb)) | (ulps <= tol.ulps) | (close & np.isfinite(fa)
                                                                & np.isfinite(fb))
    return ok, ulps


def shader_word_check(ref: SOResult, slot: int, a: bytes, b: bytes, tolerance: ShaderTolerance,
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The differing words of an SO buffer that the reference marks as a shader's float
    results, and whether each lies within the tolerance.

    Arguments:
        ref (SOResult): the reference result (its ``shader_words``).
        slot (int): the output slot.
        a (bytes): the slot's reference buffer.
        b (bytes): the slot's GPU buffer.
        tolerance (ShaderTolerance): the tolerance.

    Returns:
        ``(words, ok, ulps)``: the word indices (int64), within tolerance (bool) and the ULP
        distances, one per such word; all empty when the reference marks no word of the slot,
        the buffers are equal or their sizes differ.
    """
    shader = getattr(ref, "shader_words", {}).get(slot)
    empty = np.zeros(0, np.int64)
    if shader is None or len(a) != len(b) or a == b:
        return empty, np.zeros(0, bool), empty
    words = np.unique(so_byte_differences(a, b) // 4)
    tolerant = words[(words < shader.shape[0]) & shader[np.minimum(words, shader.shape[0] - 1)]]
    aw = np.frombuffer(a, "<u4", len(a) // 4)
    bw = np.frombuffer(b, "<u4", len(b) // 4)
    ok, ulps = _within(aw[tolerant], bw[tolerant], tolerance)
    return tolerant, ok, ulps


def tolerated_bytes(ref: SOResult, slot: int, a: bytes, b: bytes,
                    tolerance: ShaderTolerance = SHADER_TOLERANCE) -> np.ndarray:
    """Mask of the bytes of an SO buffer that differ only within the shader tolerance (for
    reports that show such bytes apart from real differences).

    Arguments:
        ref (SOResult): the reference result (its ``shader_words``).
        slot (int): the output slot.
        a (bytes): the slot's reference buffer.
        b (bytes): the slot's GPU buffer.
        tolerance (ShaderTolerance): the tolerance. Default :data:`SHADER_TOLERANCE`.

    Returns:
        A bool array of ``max(len(a), len(b))`` entries, true for the four bytes of each word
        :func:`shader_word_check` finds within the tolerance.
    """
    mask = np.zeros(max(len(a), len(b)), bool)
    tolerant, ok, _ = shader_word_check(ref, slot, a, b, tolerance)
    for k in range(4):
        mask[4 * tolerant[ok] + k] = True
    return mask


def compare_so(ref: SOResult, gpu: SOResult, tolerance: ShaderTolerance = SHADER_TOLERANCE,
               notes: list | None = None) -> list[str]:
    """Differences between two Stream Output results (CPU reference and GPU): every buffer byte
    (written and untouched alike), every BufferFilledSize and the reference's statistics must
    be equal (per stream too, where both sides give each stream's), and both
    sides must have the same slots, except words the reference marks as a
    real shader's float results, which must be within ``tolerance``.

    Arguments:
        ref (SOResult): the reference result.
        gpu (SOResult): the GPU result.
        tolerance (ShaderTolerance): the tolerance of shader float words. Default
            :data:`SHADER_TOLERANCE`.
        notes (list): when given, receives one line per slot where the tolerance accepted
            words: how many, and the largest ULP distance.

    Returns:
        Human-readable lines (``SO slot 0: 12 bytes differ, first at byte 48 (CPU word ...,
        GPU ...)``), empty when the results match.
    """
    out = []
    for slot in sorted(set(ref.buffers) | set(gpu.buffers)):
        a, b = ref.buffers.get(slot), gpu.buffers.get(slot)
        if a is None or b is None:
            out.append(f"SO slot {slot}: buffer only on the {'GPU' if a is None else 'CPU'} side")
            continue
        if a != b:
            diff = so_byte_differences(a, b)
            tolerant, ok, ulps = shader_word_check(ref, slot, a, b, tolerance)
            if tolerant.size:
                aw = np.frombuffer(a, "<u4", len(a) // 4)
                bw = np.frombuffer(b, "<u4", len(b) // 4)
                if ok.any() and notes is not None:
                    notes.append(f"SO slot {slot}: {int(ok.sum())} shader float components "
                                 f"within tolerance ({tolerance.text()}; largest "
                                 f"{int(ulps[ok].max())} ULP)")
                beyond = tolerant[~ok]
                if beyond.size:
                    w = int(beyond[0])
                    cpu, gpu_value = (float(x[w:w + 1].view(np.float32)[0]) for x in (aw, bw))
                    out.append(f"SO slot {slot}: {beyond.size} shader float components beyond "
                               f"the tolerance ({tolerance.text()}), first at byte {4 * w} "
                               f"(CPU {cpu!r}, GPU {gpu_value!r}, {int(ulps[~ok][0])} ULP)")
                tolerated = np.zeros(len(a) // 4 + 1, bool)
                tolerated[tolerant] = True
                diff = diff[~tolerated[diff // 4]]  # the rest must be exact
            if diff.size:
                first = int(diff[0])
                word = first // 4 * 4
                out.append(f"SO slot {slot}: {diff.shape[0]} bytes differ, first at byte {first} "
                           f"(CPU word {a[word:word + 4].hex()}, GPU {b[word:word + 4].hex()})")
        if ref.filled_size.get(slot) != gpu.filled_size.get(slot):
            out.append(f"SO slot {slot}: BufferFilledSize CPU {ref.filled_size.get(slot)} "
                       f"GPU {gpu.filled_size.get(slot)}")
    for key, value in ref.statistics.items():
        if gpu.statistics.get(key) != value:
            out.append(f"SO statistics: {key} CPU {value} GPU {gpu.statistics.get(key)}")
    for stream, stats in enumerate(ref.streams if gpu.streams else ()):
        got = gpu.streams[stream] if stream < len(gpu.streams) else {}
        for key, value in stats.items():
            if got.get(key) != value:
                out.append(f"SO statistics of stream {stream}: {key} CPU {value} GPU "
                           f"{got.get(key)}")
    return out


GS_STATISTICS = ("GSInvocations", "GSPrimitives")
"""The pipeline statistics of the geometry shader stage :func:`compare_geometry` compares."""


def compare_geometry(ref: tuple[dict, list], gpu: tuple[dict, list],
                     tolerance: ShaderTolerance = SHADER_TOLERANCE,
                     computed_inputs: bool = False) -> list[str]:
    """Differences between two geometry shader stages' result parts (CPU reference and GPU),
    each ``(statistics, geometry_invocations)`` as a result document holds them
    (docs/case-format.md, "Result additions"): ``GSInvocations`` and ``GSPrimitives`` must be
    equal, and so must the invocations, one by one: draw, instance, SV_PrimitiveID,
    SV_GSInstanceID, the inputs and the emits (each RestartStrip, each Append's stream and
    outputs). An emitted float component is the geometry shader's result: it must lie within
    ``tolerance`` (as a shader's float words in :func:`compare_so`); an input's float
    component too where ``computed_inputs`` (a real vertex shader computed it), else it is
    exact as everything else is.

    Arguments:
        ref, gpu (tuple): ``(statistics, geometry_invocations)`` of each side.
        tolerance (ShaderTolerance): the tolerance of shader float results. Default
            :data:`SHADER_TOLERANCE`.
        computed_inputs (bool): the inputs' floats were computed by a vertex shader. Default
            False (the pass-through shader: the Input Assembler's exact values).

    Returns:
        Human-readable lines (``GS statistics: GSPrimitives CPU 6 GPU 4``,
        ``geometry_invocations: 2 of 3 invocations differ, first invocation 1 (draw 0,
        primitive 1, GS instance 0): emit 2: ...``), empty when the stages match.
    """
    out = [f"GS statistics: {k} CPU {ref[0].get(k)} GPU {gpu[0].get(k)}"
           for k in GS_STATISTICS if ref[0].get(k) != gpu[0].get(k)]
    a, b = ref[1], gpu[1]
    if len(a) != len(b):
        out.append(f"geometry_invocations: CPU {len(a)} invocations, GPU {len(b)}")
    differ = [(i, d) for i, (x, y) in enumerate(zip(a, b, strict=False))
              if (d := _invocation_difference(x, y, tolerance, computed_inputs))]
    if differ:
        i, what = differ[0]
        inv = a[i]
        out.append(f"geometry_invocations: {len(differ)} of {min(len(a), len(b))} invocations "
                   f"differ, first invocation {i} (draw {inv.get('draw')}, primitive "
                   f"{inv.get('primitive')}, GS instance {inv.get('gs_instance')}): {what}")
    return out


def _invocation_difference(a: dict, b: dict, tol: ShaderTolerance, computed_inputs: bool) -> str:
    """What first differs between two ``geometry_invocations`` entries ('' when nothing)."""
    for key in ("draw", "instance", "primitive", "gs_instance"):
        if a.get(key) != b.get(key):
            return f"{key} CPU {a.get(key)} GPU {b.get(key)}"
    ia, ib = a.get("inputs", []), b.get("inputs", [])
    if len(ia) != len(ib):
        return f"CPU {len(ia)} input vertices, GPU {len(ib)}"
    for v, (x, y) in enumerate(zip(ia, ib, strict=True)):
        if d := _components_difference(x, y, tol if computed_inputs else None):
            return f"input vertex {v}: {d}"
    ea, eb = a.get("emits", []), b.get("emits", [])
    for e, (x, y) in enumerate(zip(ea, eb, strict=False)):
        if x.get("stream") != y.get("stream") or bool(x.get("cut")) != bool(y.get("cut")):
            return f"emit {e}: CPU {_emit_text(x)}, GPU {_emit_text(y)}"
        if not x.get("cut") and (d := _components_difference(x.get("outputs", {}),
                                                             y.get("outputs", {}), tol)):
            return f"emit {e} (stream {x.get('stream')}): {d}"
    if len(ea) != len(eb):
        return f"CPU {len(ea)} emits, GPU {len(eb)}"
    return ""


def _emit_text(e: dict) -> str:
    return f"RestartStrip of stream {e.get('stream')}" if e.get("cut") else \
        f"Append to stream {e.get('stream')}"


def _components_difference(a: dict, b: dict, tol: ShaderTolerance | None) -> str:
    """What first differs between two ``{KEY: {"type", "bits", "value"}}`` ('' when nothing):
    bits exactly, a float's within ``tol`` where one is given."""
    if set(a) != set(b):
        return f"members CPU {sorted(a)} GPU {sorted(b)}"
    for key in a:
        x, y = a[key], b[key]
        if x.get("type") != y.get("type") or len(x["bits"]) != len(y["bits"]):
            return f"{key}: type CPU {x.get('type')} GPU {y.get('type')}"
        bx, by = (np.asarray(v["bits"], np.uint32) for v in (x, y))
        same = bx == by
        if tol is not None and x.get("type") == "float":
            same |= _within(bx, by, tol)[0]
        if not same.all():
            return f"{key}: CPU {x['value']} GPU {y['value']}"
    return ""
