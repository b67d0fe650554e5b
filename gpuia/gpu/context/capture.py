"""Capture: what the GPU's vertex shaders received, per draw, read back for comparison with the
CPU reference.

Between :meth:`CaptureSession.begin` and :meth:`CaptureSession.end` the context records its
draws instead of encoding them (:class:`CaptureRecord`): the record buffer can be sized only once
every draw is known. At the end each draw is encoded as a point list over its distinct fetch
indices (keys), every vertex shader invocation writing one record: to a storage buffer (route
``storage``, needs vertex-writable storage) or as one point per record into rgba32uint color
targets, a group of record columns per pass (route ``targets``, any adapter)."""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass, field

import numpy as np

from ...d3d.draws import DrawIndexedInstanced, DrawInstanced
from ...d3d.ia_desc import IndexBufferView
from ...errors import InvalidDescError, UnsupportedError
from ...util.parallel import for_row_chunks, row_chunks, run_tasks
from ...wgsl.blocks import CAPTURE_ERRORS, CAPTURE_RECORD
from ...wgsl.capture import CAPTURE_TARGET_WIDTH, record_words
from ..ia.plan import HOST_INDEX_LIMIT
from ..readback import read_ranges
from ..vertex.plan import Plan
from .capture_spans import PositionBounds
from .resolve import DrawState

_U32 = 0xFFFFFFFF
_READ_STAGING = 1 << 26
"""Bytes of records one map reads (64 MiB): a window of records is read in such batches, so
that its staging memory (host memory on a CPU adapter) stays small beside the block being read
into, while the windowed check's other block is in use."""
_FLAG, _ELEMENTS = CAPTURE_RECORD.word("flag"), CAPTURE_RECORD.word("elements")
_UNEXPECTED, _MAX_VERTEX_INDEX = (CAPTURE_ERRORS.word(n)
                                  for n in ("unexpected", "max_vertex_index"))

__all__ = ["Capture", "CaptureRecord", "CaptureSession", "CaptureWindows", "keys_contiguous",
           "sorted_unique"]


def sorted_unique(values: np.ndarray) -> np.ndarray:
    """Sorted distinct uint32 values, of the millions of fetch indices a capture can have:
    uint32 values already strictly increasing (a draw without indices) are returned as they
    are (a read-only view, no copy); where they are dense (their range at most 4 times their
    count, as a mesh's indices are) a presence mask over the range, in linear time; else a
    radix sort (numpy's hash-based unique is far slower on either).

    Arguments:
        values (numpy.ndarray): integers in 0 .. 2**32 - 1, any shape.

    Returns:
        numpy.ndarray: the distinct values, ascending, uint32.
    """
    v = np.asarray(values).reshape(-1)
    if v.shape[0] < 2:
        return v.astype(np.uint32)
    if v.dtype == np.uint32 and _increasing(v):  # a draw without indices: already the keys
        keys = v.view()
        keys.flags.writeable = False  # one array with the draw's fetch indices
        return keys
    # The bounds and the presence mask in row chunks on the pool (the mask's writes are all
    # True, so chunks may set the same entry).
    chunks = row_chunks(v.shape[0])
    bounds = [(0, 0)] * len(chunks)

    def bound(i: int, a: int, b: int) -> None:
        bounds[i] = (int(v[a:b].min()), int(v[a:b].max()))

    run_tasks([functools.partial(bound, i, a, b) for i, (a, b) in enumerate(chunks)],
              v.shape[0])
    lo, hi = min(b[0] for b in bounds), max(b[1] for b in bounds)
    if hi - lo + 1 <= 4 * v.shape[0]:
        present = np.zeros(hi - lo + 1, dtype=bool)

        def mark(a: int, b: int) -> None:
            present[v[a:b] - lo] = True

        for_row_chunks(v.shape[0], mark)
        return np.flatnonzero(present).astype(np.uint32) + np.uint32(lo)
    v = v.astype(np.uint32)
    s = np.sort(v, kind="stable")
    keep = np.empty(s.shape[0], dtype=bool)
    keep[0] = True
    np.not_equal(s[1:], s[:-1], out=keep[1:])
    return s[keep]


def keys_contiguous(keys: np.ndarray) -> bool:
    """Whether a draw's sorted distinct fetch indices are one run ``keys[0] ..`` (none at all
    counts as one): the capture shader then ranks a vertex without searching them."""
    return keys.shape[0] == 0 or int(keys[-1]) - int(keys[0]) + 1 == keys.shape[0]


def _increasing(v: np.ndarray) -> bool:
    """Whether ``v`` (at least 2 values) is strictly increasing, checked in row chunks on the
    pool (bounded temporaries), a short prefix first so that most other inputs stop there."""
    head = v[:64]
    if not bool((head[1:] > head[:-1]).all()):
        return False
    ok = [True]

    def check(a: int, b: int) -> None:
        if not bool((v[a + 1:b + 1] > v[a:b]).all()):
            ok[0] = False

    for_row_chunks(v.shape[0] - 1, check)
    return ok[0]


@dataclass(eq=False)
class CaptureRecord:
    """A capture draw waiting for the capture buffer to be sized."""

    state: DrawState  # the DrawState it resolved to
    draw: DrawInstanced | DrawIndexedInstanced
    plan: Plan  # its Plan
    keys: np.ndarray  # sorted distinct fetch indices of one instance
    capture_base: int = 0
    key_offset: int = 0
    auto: tuple | None = None  # DrawAuto: (counter, counter offset, location, IA offset, stride)
    index_view: IndexBufferView | None = None  # the index buffer bound when the draw was recorded
    cbv_group: object = None  # the constant buffers bound when the draw was recorded
    bounds: PositionBounds | None = None  # made at its first run in parts (capture_spans)


@dataclass
class Capture:
    """What the GPU's vertex shaders received during a capture, per recorded draw: what
    :meth:`gpuia.gpu.Context.end_capture` returns, compared with the CPU reference by the
    harness. Made empty by :meth:`~gpuia.gpu.Context.begin_capture` and filled at the end.

    A draw's records start at its :class:`CaptureRecord`'s ``capture_base``: record
    ``capture_base + i * len(keys) + k`` is what instance ``i`` (counted from 0) received for
    the ``k``-th of the draw's distinct fetch indices (``keys``, ascending).

    Arguments:
        records (list): the :class:`CaptureRecord` of each draw, in order.
        words (numpy.ndarray | None): every record's 32-bit words, uint32
            (``gpuia.wgsl.program.record_words`` per record); None when no draw was recorded.
        unexpected (int): vertex shader invocations D3D would not have made; on the
            ``targets`` route 1 when there was any (the count is not kept there).
        unexpected_max_vertex_index (int): the highest vertex index of those invocations.
        element_count (int): the elements of the draws' input layout (the record size
            follows from it).
        windows (CaptureWindows): what ``end_capture(windows=True)`` gives on the storage
            route instead of ``words``: reads any range of the records; None otherwise.
    """

    records: list = field(default_factory=list)
    words: np.ndarray | None = None
    unexpected: int = 0
    unexpected_max_vertex_index: int = 0
    element_count: int = 0
    # Set instead of ``words`` by ``end_capture(windows=True)``: reads ranges of records.
    windows: CaptureWindows | None = None


class CaptureSession:
    """The capture of one context. ``encode(record, capture buffers)`` encodes one recorded
    draw (the context's: it knows DrawAuto's Stream Output counters); ``flush()`` submits."""

    def __init__(self, device, recorder, encode, flush):
        self.device = device
        self.recorder = recorder
        self.encode = encode
        self.flush = flush
        self.current: Capture | None = None
        self.records: list[CaptureRecord] = []
        self.running = False  # end() is running the recorded draws
        self.timings: dict | None = None
        # (first record, count) while a run draws only the parts writing those records
        self.parts: tuple[int, int] | None = None

    @property
    def active(self) -> bool:
        return self.current is not None

    def resolve_route(self, route: str) -> str:
        """``route`` checked (auto, storage or targets) and ``auto`` resolved for this device:
        storage where the vertex stage may write storage, else targets."""
        if route not in ("auto", "storage", "targets"):
            raise InvalidDescError("begin_capture", "route", route,
                                   "must be auto, storage or targets")
        if route == "auto":
            route = "storage" if self.device.caps.vertex_writable_storage else "targets"
        if route == "storage" and not self.device.caps.vertex_writable_storage:
            raise UnsupportedError("the storage capture route needs the adapter feature "
                                   "vertex-writable-storage; use route='targets'")
        return route

    def begin(self, route: str) -> None:
        """Start a capture on ``route`` (any value :meth:`resolve_route` takes)."""
        route = self.resolve_route(route)
        self.current = Capture()
        self.recorder.capture_route = route
        self.records = []

    def record(self, record: CaptureRecord) -> None:
        self.records.append(record)

    def limit(self, elements: int) -> int:
        """Most vertices one capture draw can record (one record per vertex at the least): on
        the storage route as many as the host resolves fetch indices for (windows of records
        take what one binding cannot), on the targets route what one storage binding's worth
        of texels holds."""
        if self.recorder.capture_route == "storage":
            return HOST_INDEX_LIMIT
        return self.device.caps.max_storage_buffer_binding_size // (4 * record_words(elements))

    def end(self, windows: bool = False) -> Capture:
        """Encode and run the recorded draws; returns what they received. With ``windows``
        (storage route only) nothing runs yet: the capture's ``windows`` reads any range of
        its records on demand (:class:`CaptureWindows`)."""
        if self.current is None:
            raise InvalidDescError("end_capture", None, None, "begin_capture was not called")
        cap, records = self.current, self.records
        self.current, self.records = None, []
        if not records:
            return cap
        if windows and self.recorder.capture_route == "storage":
            total, keys = self._layout(records, cap)
            key_buf = self.device.device.create_buffer_with_data(data=keys, usage="STORAGE")
            cap.windows = CaptureWindows(self, records, cap, total, key_buf)
            return cap
        self.running = True  # its draws are encoded and submitted in several parts
        try:
            return self._run(records, cap)
        finally:
            self.running = False
            self.recorder.forget_capture_groups()

    def _run(self, records, cap: Capture) -> Capture:
        total, keys = self._layout(records, cap)
        key_buf = self.device.device.create_buffer_with_data(data=keys, usage="STORAGE")
        if self.recorder.capture_route == "targets":
            self._to_targets(records, cap, total, key_buf)
            return cap
        words = record_words(cap.element_count)
        if total > _U32:
            raise UnsupportedError(f"the capture needs {total} records, more than the 2^32 - 1 "
                                   f"a capture numbers; capture fewer vertices per call")
        window = self.window_records(cap.element_count)
        self.recorder.capture_rows = 0
        spent = [0.0, 0.0]
        out = np.empty(total * words, np.uint32) if total > window else None
        for first in range(0, max(total, 1), window):
            n = min(window, total - first)
            got, errs = self.run_window(records, key_buf, first, n, words, spent, None
                                        if out is None else out[first * words:(first + n) * words],
                                        whole=first == 0)
            if first == 0:  # the first window's run draws every vertex: the counts are its
                cap.unexpected = int(errs[_UNEXPECTED])
                cap.unexpected_max_vertex_index = int(errs[_MAX_VERTEX_INDEX])
        cap.words = got if out is None else out
        if self.timings is not None:
            self.timings.update({"encode_and_gpu": spent[0], "readback": spent[1]})
        return cap

    def run_window(self, records, key_buf, first: int, n: int, words: int, spent: list,
                   into: np.ndarray | None = None,
                   whole: bool = True) -> tuple[np.ndarray, np.ndarray]:
        """Run the recorded draws once, writing records ``first .. first + n - 1`` only (the
        storage route), and read them back: (record words, error words). With ``whole`` every
        draw runs whole (the error words then count every invocation of the capture); else
        each draw only the parts that write the window's records
        (:func:`~gpuia.gpu.context.capture_spans.window_pieces`; the error words count those
        parts' invocations). ``spent`` gets the seconds of encoding and the GPU (``[0]``) and
        of the read (``[1]``) added; ``into``: uint32, exactly the window's words, to read
        into."""
        wgpu_dev = self.device.device
        rec = self.recorder
        clock = time.perf_counter
        # At least one record: the program binds an array of records.
        bufs = (wgpu_dev.create_buffer(size=max(1, n) * words * 4, usage="STORAGE|COPY_SRC"),
                key_buf, wgpu_dev.create_buffer(size=16, usage="STORAGE|COPY_SRC"))
        rec.capture_window = first
        try:
            t0 = clock()
            self.parts = None if whole else (first, n)
            self._encode_all(records, bufs)
            if self.timings is not None:
                wgpu_dev.queue.read_buffer(bufs[2], 0, 4)  # waits for the GPU
            t1 = clock()
            got = self._read(bufs, max(4, n * words * 4),
                             None if into is None else into.view(np.uint8))
        finally:
            rec.capture_window = 0
            self.parts = None
            # Freed now, not when wgpu next cleans up: a large capture reads many windows, and
            # the next one's buffer would otherwise be made while this one is still held.
            bufs[0].destroy()
            bufs[2].destroy()
        spent[0] += t1 - t0
        spent[1] += clock() - t1
        return got

    def window_records(self, elements: int) -> int:
        """Records one storage-route window holds: as many as one storage binding (and one
        buffer) takes. A capture with more runs its draws once per window."""
        caps = self.device.caps
        most = min(caps.max_storage_buffer_binding_size, caps.max_buffer_size)
        return max(1, most // (4 * record_words(elements)))

    def _encode_all(self, records, bufs) -> None:
        """Encode every record and submit: whole, or where :attr:`parts` is (first record,
        count), only the parts of each draw that write those records (the storage route)."""
        rec = self.recorder
        rec.end_pass()
        rec.capture_encoding = True
        try:
            for r in records:
                self.encode(r, bufs, self.parts)
            self.flush()
        finally:
            rec.capture_encoding = False

    def _layout(self, records, cap: Capture):
        """Give each capture draw its first record and first key; returns (total records,
        the keys the GPU searches). The keys of a draw whose keys are one run (every draw
        without indices, a mesh using each vertex of a range) are not uploaded: the capture
        shader takes their rank as ``vi - key_first`` and never reads them."""
        layout = records[0].state.layout
        cap.element_count = len(layout.elements)
        cap.records = records
        total, key_total = 0, 0
        searched = []
        for r in records:
            if r.state.layout != layout:
                raise UnsupportedError("one capture holds draws of one input layout")
            r.capture_base = total
            r.key_offset = key_total
            total += r.keys.shape[0] * r.draw.instance_count
            if not keys_contiguous(r.keys):
                searched.append(r.keys)
                key_total += r.keys.shape[0]
        keys = np.concatenate(searched + [np.zeros(1, np.uint32)])
        return total, keys

    def _to_targets(self, records, cap: Capture, total: int, key_buf) -> None:
        import wgpu

        rec = self.recorder
        caps = self.device.caps
        per_group = max(1, min(8, caps.max_color_attachments,
                               caps.max_color_attachment_bytes_per_sample // 16))
        vec4s = 1 + cap.element_count
        width = CAPTURE_TARGET_WIDTH
        rows = (total + 1 + width - 1) // width  # + 1: the last texel takes unexpected vertices
        if rows > caps.max_texture_dimension_2d:
            raise UnsupportedError(f"the capture needs {rows} texel rows, more than "
                                   f"max-texture-dimension-2d {caps.max_texture_dimension_2d}")
        out = np.zeros((rows * width, 4 * vec4s), dtype=np.uint32)
        rec.capture_rows = rows
        try:
            for group in range((vec4s + per_group - 1) // per_group):
                n = min(per_group, vec4s - group * per_group)
                textures = [self.device.device.create_texture(
                    size=(width, rows, 1), format="rgba32uint",
                    usage=wgpu.TextureUsage.RENDER_ATTACHMENT | wgpu.TextureUsage.COPY_SRC)
                    for _ in range(n)]
                rec.capture_group, rec.capture_targets = group, per_group
                rec.capture_views = [t.create_view() for t in textures]
                self._encode_all(records, (key_buf,))
                for j, tex in enumerate(textures):
                    data = self.device.device.queue.read_texture(
                        {"texture": tex}, {"bytes_per_row": width * 16, "rows_per_image": rows},
                        (width, rows, 1))
                    col = 4 * (group * per_group + j)
                    out[:, col:col + 4] = np.frombuffer(data, np.uint32).reshape(-1, 4)
        finally:
            rec.capture_group, rec.capture_targets, rec.capture_views = -1, 0, None
        last = out[-1]
        if last[_FLAG] == 2:  # vertices D3D would not fetch were shaded (count not kept)
            cap.unexpected, cap.unexpected_max_vertex_index = 1, int(last[3])
        recs = out[:total]
        # The first vec4 is the record's header words and the vertex index: the record is the
        # header, then the elements' vec4s.
        cap.words = np.concatenate([recs[:, :_ELEMENTS], recs[:, 4:]], axis=1).reshape(-1)

    def _read(self, bufs, nbytes: int,
              into: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(record words, error words) of a storage-route capture window, read together: the
        first ``nbytes`` of the record buffer (a window of no records reads one zero word, not
        the stand-in record its buffer holds); the records go into ``into`` (uint8, exactly the
        window's records) when given."""
        cap_buf, _, err_buf = bufs
        records = (cap_buf, 0, nbytes if into is None else into.shape[0])
        words, errs = (a.view(np.uint32) for a in read_ranges(
            self.device.device, [records, (err_buf, 0, err_buf.size)], [into, None],
            _READ_STAGING))
        return words, errs


class CaptureWindows:
    """The records of a capture read a range at a time (``Context.end_capture(windows=True)``,
    storage route): each :meth:`read` runs the recorded draws once more and keeps only the
    records of its range, so host memory holds one range, never all of them. The first read's
    first run draws every draw whole and sets the capture's ``unexpected`` counts from every
    invocation; every other run draws of each draw only the vertices and instances that write
    its records (:func:`~gpuia.gpu.context.capture_spans.window_pieces`), with the draw's own
    SV_VertexID, SV_InstanceID and fetches. The context must draw nothing else until the reads
    are done."""

    def __init__(self, session: CaptureSession, records: list, cap: Capture, total: int,
                 key_buf):
        self.session, self.records, self.capture = session, records, cap
        self.total = total  # records of the whole capture
        self.words = record_words(cap.element_count)  # u32 words per record
        self.key_buf = key_buf
        self.counted = False
        self.spent = [0.0, 0.0]  # seconds: encoding and the GPU, reads

    @property
    def most(self) -> int:
        """Records one run of the draws writes: one storage binding's worth; :meth:`read` of
        more runs them once per such part."""
        return self.session.window_records(self.capture.element_count)

    def read(self, first: int, count: int) -> np.ndarray:
        """Records ``first .. first + count - 1`` (``0 <= first``, ``first + count <= total``),
        uint32 ``(count, words)``: the draws run once per :attr:`most` records of the range.

        Raises:
            InvalidDescError: a range outside the capture's records.
            UnsupportedError: wgpu refused the draws.
        """
        if first < 0 or count < 0 or first + count > self.total:
            raise InvalidDescError("CaptureWindows.read", "range", (first, count),
                                   f"must lie within the capture's {self.total} records")
        s, most = self.session, self.most
        out = np.empty((count, self.words), np.uint32) if count > most else None
        s.recorder.capture_rows = 0
        s.running = True
        try:
            for at in range(first, first + max(count, 1), most):
                n = min(most, first + count - at)
                whole = not self.counted
                got, errs = s.run_window(self.records, self.key_buf, at, n, self.words,
                                         self.spent, None if out is None
                                         else out[at - first:at - first + n].reshape(-1),
                                         whole=whole)
                if whole:  # a run of every invocation: the capture's counts
                    self.capture.unexpected = int(errs[_UNEXPECTED])
                    self.capture.unexpected_max_vertex_index = int(errs[_MAX_VERTEX_INDEX])
                    self.counted = True
        finally:
            s.running = False
            s.recorder.forget_capture_groups()
        return out if out is not None else got[:count * self.words].reshape(count, self.words)
