"""The index pass on the GPU: D3D's index sequencing, strip cuts and primitive order, computed
where the indices live.

:func:`encode_index_pass` records, into a caller's command encoder, the compute program of
:mod:`gpuia.wgsl.index_pass` over one draw's index buffer and returns the GPU buffers it fills
(:class:`IndexPass`): the **list** stream (the complete primitives of every cut-free run in
D3D's vertex order, for the matching list topology or for Stream Output), the **kept** stream
(the delivered values, cuts removed, for a capture's point list) and the **args** buffer
(drawIndexedIndirect arguments of both streams, primitives per instance, their 64-bit total,
dispatchWorkgroupsIndirect arguments). Nothing is read back: counts that depend on index values
exist only on the GPU, and what the host knows are upper bounds (``max_*``), which size the
buffers and bound any dispatch the caller sizes itself.

Guaranteed, for the draw's indices as they are on the GPU when the encoder's commands run
(rules sections 4, 5, 9 and the topology table): values read past the view's SizeInBytes
are 0 (5.6), a NULL view reads 0 everywhere (5.5), a non-indexed draw delivers ``0 .. count-1``
(4.5); strip cuts apply only to strip topologies of indexed draws, compared as the PSO's
literal (5.2, 5.3), each restarting the topology (5.4); incomplete primitives are dropped (4.9),
adjacency vertices dropped and strips expanded in D3D's order (9.2, 9.3). The streams are those
of one instance (every instance restarts the topology and repeats them, 4.9); the args carry the
draw's InstanceCount and StartInstanceLocation. A draw that delivers nothing (a count is 0)
writes zero counts.

Refused before anything reaches wgpu: arguments of the wrong type, a cut value that is no
D3D12_INDEX_BUFFER_STRIP_CUT_VALUE (:class:`InvalidDescError`); an index view over anything but
a live gpuia Buffer of this device (:class:`InvalidDescError`: host bytes must be uploaded
first); a nonzero StartInstanceLocation on a device without ``indirect-first-instance``, streams
or scratch larger than ``max-storage-buffer-binding-size`` or ``max-buffer-size``, an index
window over the binding limit, more workgroups than two dimensions of
``max-compute-workgroups-per-dimension`` hold (:class:`UnsupportedError`).

Pipelines are built once per (device, program) and kept in a bounded cache that lives on the
wgpu device (:func:`gpuia.gpu.cache.remember`), so they go with it.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ...d3d.desc import StripCutValue
from ...d3d.draws import DrawIndexedInstanced, DrawInstanced, delivers_nothing
from ...d3d.ia_desc import IndexBufferView
from ...d3d.topology import TopologyInfo
from ...errors import InvalidDescError, UnsupportedError
from ...wgsl.blocks import INDEX_PARAMS
from ...wgsl.index_pass import (
    ARGS_DISPATCH,
    ARGS_KEPT,
    ARGS_LIST,
    ARGS_NEEDED,
    ARGS_PRIMITIVES,
    ARGS_WORDS,
    MAX_LEVELS,
    PARAMS_WORDS,
    WORKGROUP,
    IndexPassSpec,
    IndexSource,
    IndexStreams,
    index_pass_program,
    scan_levels,
)
from ..buffers import checked_buffer
from ..cache import remember
from ..lifetime import wgpu_call

if TYPE_CHECKING:  # imported where a device exists
    import wgpu

__all__ = ["IndexPass", "encode_index_pass", "index_pass_spec", "index_window", "IndexStreams",
           "ARGS_LIST", "ARGS_KEPT", "ARGS_PRIMITIVES", "ARGS_NEEDED", "ARGS_DISPATCH",
           "ARGS_WORDS"]

_U32 = 0xFFFFFFFF
# Words of a GpuiaIndexParams record, from its table.
(_COUNT, _START, _IB_BASE, _HELD, _INSTANCE_COUNT, _BASE_VERTEX, _FIRST_INSTANCE,
 _ITEMS_PER_GROUP, _MAX_GROUPS, _LEVEL, _SCAN, _LEVEL_OFFSET, _LEVEL_LENGTH) = (
    INDEX_PARAMS.word(name) for name in (
        "count", "start", "ib_base", "held", "instance_count", "base_vertex", "first_instance",
        "items_per_group", "max_groups", "level", "scan", "level_offset", "level_length"))
_SOURCES = {s.size: s for s in IndexSource if s.size}  # index bytes -> how the program reads it
_PIPELINE_LIMIT = 64  # programs per device (one per topology, source, cut, rotation, streams)


@dataclass(frozen=True, eq=False)
class IndexPass:
    """The buffers one encoded index pass fills (wgpu buffers, valid once the encoder's
    commands have run).

    ``list``: uint32 list stream (usage STORAGE, INDEX, COPY_SRC), None unless asked for; bind
    it with ``set_index_buffer(list, "uint32")`` and draw ``draw_indexed_indirect(args,
    ARGS_LIST)`` with the topology's ``webgpu_list``. ``kept``: uint32 delivered values (same
    usage), None unless asked for; ``draw_indexed_indirect(args, ARGS_KEPT)`` as a point list.
    ``args``: :data:`ARGS_WORDS` u32 words (usage STORAGE, INDIRECT, COPY_SRC), laid out as
    :mod:`gpuia.wgsl.index_pass` documents (``ARGS_*``). ``max_primitives``, ``max_list``,
    ``max_kept``: what the streams hold at most (the cut-free counts), known on the host.
    ``keepalive``: every wgpu object the recorded commands use; hold it until they are
    submitted."""

    spec: IndexPassSpec
    list: wgpu.GPUBuffer | None
    kept: wgpu.GPUBuffer | None
    args: wgpu.GPUBuffer
    max_primitives: int
    max_list: int
    max_kept: int
    keepalive: tuple


class _DeviceState:
    """What the index pass keeps per wgpu device: its bind group and pipeline layouts, stand-in
    buffers for bindings a program does not use, its shader modules and pipelines."""

    def __init__(self, device):
        self.group_layout = device.create_bind_group_layout(entries=[
            {"binding": 0, "visibility": "COMPUTE",
             "buffer": {"type": "uniform", "has_dynamic_offset": True,
                        "min_binding_size": 4 * PARAMS_WORDS}},
            {"binding": 1, "visibility": "COMPUTE",
             "buffer": {"type": "read-only-storage"}},
            *[{"binding": b, "visibility": "COMPUTE",
               "buffer": {"type": "storage"}} for b in range(2, 7)]])
        self.layout = device.create_pipeline_layout(bind_group_layouts=[self.group_layout])
        # One stand-in per binding: a buffer bound read-only and read-write in one dispatch
        # would be a usage conflict.
        self.dummies = [device.create_buffer(size=16, usage="STORAGE") for _ in range(6)]
        self.programs: dict = {}
        self.lock = threading.Lock()

    def pipelines(self, device, spec: IndexPassSpec, entries: tuple[str, ...]) -> dict:
        with self.lock:
            known = self.programs.get(spec)
        if known is not None and all(e in known[1] for e in entries):
            return known[1]
        module = known[0] if known is not None else wgpu_call(
            lambda: device.create_shader_module(code=index_pass_program(spec),
                                                label="gpuia index pass"),
            "building the index pass")
        made = dict(known[1]) if known is not None else {}
        for e in entries:
            if e not in made:
                made[e] = wgpu_call(lambda e=e: device.create_compute_pipeline(
                    layout=self.layout, compute={"module": module, "entry_point": e}),
                    "building the index pass")
        with self.lock:
            remember(self.programs, spec, (module, made), _PIPELINE_LIMIT)
        return made


_STATES_LOCK = threading.Lock()
_STATE_ATTRIBUTE = "_gpuia_index_pass"


def _state(device) -> _DeviceState:
    """The index pass's state of a wgpu device, kept on the device itself: its objects refer to
    the device, so a table keyed by devices would keep every device alive."""
    with _STATES_LOCK:
        state = getattr(device, _STATE_ATTRIBUTE, None)
        if state is None:
            state = wgpu_call(lambda: _DeviceState(device), "preparing the index pass")
            setattr(device, _STATE_ATTRIBUTE, state)
        return state


def index_window(view: IndexBufferView, start: int, count: int, caps) -> tuple[int, int, int, int]:
    """(window offset, window size, ``ib_base``, ``held``) of the storage binding that holds
    every index byte a draw of ``count`` indices from ``start`` reads through ``view``: the
    whole buffer when it fits one binding, else a window from the first read byte rounded down
    to ``min-storage-buffer-offset-alignment`` to the last rounded up to 4. ``ib_base`` is the
    view's index 0 relative to the window (32-bit wrapping), ``held`` the indices the view
    holds (0 when the draw reads none inside it: every value is then 0 anyway, rules 5.6).
    Raises :class:`UnsupportedError` when that window exceeds the binding limit."""
    size = view.index_size
    assert view.size_in_bytes is not None  # resolved: the view has a buffer
    held = view.size_in_bytes // size
    total = view.buffer.wgpu.size
    limit = caps.max_storage_buffer_binding_size
    if total <= limit:
        return 0, total, view.offset, held
    first, last = min(start, held), min(start + count, held)
    if last <= first:  # no read inside the view: bind a little, read nothing
        return 0, 16, 0, 0
    align = max(4, caps.min_storage_buffer_offset_alignment)
    lo = view.offset + first * size
    hi = view.offset + last * size
    offset = lo // align * align
    end = min(total, (hi + 3) // 4 * 4)
    if end - offset > limit:
        raise UnsupportedError(f"the draw reads {hi - lo} bytes of indices, more than one storage "
                               f"binding of max-storage-buffer-binding-size {limit} holds")
    return offset, end - offset, (view.offset - offset) & _U32, held


def _split(groups: int, caps, what: str) -> tuple[int, int]:
    """(x, y) workgroups covering ``groups`` in order (x first, rows of x)."""
    limit = caps.max_compute_workgroups_per_dimension
    x = min(groups, limit)
    y = (groups + x - 1) // x if x else 0
    if y > limit:
        raise UnsupportedError(f"{what} needs {groups} workgroups, more than "
                               f"{limit}x{limit} in one dispatch")
    return x, y


def _check_size(what: str, nbytes: int, caps) -> int:
    limit = min(caps.max_storage_buffer_binding_size, caps.max_buffer_size)
    if nbytes > limit:
        raise UnsupportedError(f"the index pass's {what} needs {nbytes} bytes, more than one "
                               f"storage binding holds ({limit})")
    return max(16, (nbytes + 15) // 16 * 16)


def _source(draw, view: IndexBufferView | None) -> IndexSource:
    if not draw.indexed:
        return IndexSource.SEQUENTIAL
    if view is None or view.buffer is None:
        return IndexSource.NULL
    return _SOURCES[view.index_size]


def _check_buffer(view: IndexBufferView, device) -> None:
    """The view's buffer is one the pass can bind: a live gpuia Buffer of ``device``."""
    buf = checked_buffer(view.buffer, device, "index pass", "index_buffer",
                         same_wgpu_device=True)
    if buf.released:
        raise InvalidDescError("index pass", "index_buffer", buf,
                               "this Buffer was released; create a new one")


def index_pass_spec(draw, topology: TopologyInfo, *, index_buffer: IndexBufferView | None = None,
                    strip_cut_value=StripCutValue.DISABLED, rotate: bool = False,
                    streams: IndexStreams = IndexStreams.LIST | IndexStreams.KEPT
                    ) -> IndexPassSpec:
    """The :class:`~gpuia.wgsl.index_pass.IndexPassSpec` :func:`encode_index_pass` runs for
    these arguments (the same meaning; no device needed): where the values come from, and the
    cut literal only for a strip of an indexed draw (rules 5.2). Its ``cuts`` says whether any
    value of the draw can cut. Refused with :class:`InvalidDescError`: arguments of the wrong
    type, a cut value that is no D3D12_INDEX_BUFFER_STRIP_CUT_VALUE."""
    if not isinstance(draw, (DrawInstanced, DrawIndexedInstanced)):
        raise InvalidDescError("index pass", "draw", draw,
                               "expected a DrawInstanced or DrawIndexedInstanced")
    if index_buffer is not None and not isinstance(index_buffer, IndexBufferView):
        raise InvalidDescError("index pass", "index_buffer", index_buffer,
                               "expected an IndexBufferView or None")
    if not isinstance(topology, TopologyInfo):
        raise InvalidDescError("index pass", "topology", topology, "expected a TopologyInfo row")
    try:
        cut = StripCutValue.of(strip_cut_value)
    except ValueError as e:
        raise InvalidDescError("index pass", "IBStripCutValue", strip_cut_value, str(e)) from None
    literal = cut.index if (topology.strip and draw.indexed) else None
    return IndexPassSpec(topology, _source(draw, index_buffer), literal, rotate, streams)


def encode_index_pass(device, encoder, draw, topology: TopologyInfo, *,
                      index_buffer: IndexBufferView | None = None,
                      strip_cut_value=StripCutValue.DISABLED, rotate: bool = False,
                      streams: IndexStreams = IndexStreams.LIST | IndexStreams.KEPT,
                      items_per_group: int = 0, base_vertex: int | None = None) -> IndexPass:
    """Encode the index pass of ``draw`` into ``encoder`` (a wgpu command encoder with no pass
    open) and return its :class:`IndexPass`.

    Arguments:
        device (Device): the gpuia device (its ``device`` and ``caps`` are used).
        encoder: the ``wgpu.GPUCommandEncoder`` that receives one compute pass.
        draw (DrawInstanced | DrawIndexedInstanced): the draw; a non-indexed draw delivers
            positions (its list stream is the host-free form of a non-indexed adjacency draw).
        topology (TopologyInfo): the draw's topology row.
        index_buffer (IndexBufferView): the bound view (None: the NULL view); ignored for a
            non-indexed draw.
        strip_cut_value: the PSO's IBStripCutValue (applies to strips only).
        rotate (bool): each list primitive's vertices rotated left by one.
        streams (IndexStreams): which streams to write (the args always are).
        items_per_group (int): for the dispatch args, items a consumer workgroup handles (0:
            they are written as zeros).
        base_vertex (int): the baseVertex of both draw args, a signed 32-bit value (default:
            BaseVertexLocation; StartVertexLocation for a non-indexed draw, as its bits). An
            adapter that cannot take a large first vertex draws from a smaller one and adds
            the rest in its vertex stage.

    Returns:
        IndexPass
    """
    spec = index_pass_spec(draw, topology, index_buffer=index_buffer,
                           strip_cut_value=strip_cut_value, rotate=rotate, streams=streams)
    _check_arguments(device, draw, spec, index_buffer, items_per_group, base_vertex)
    caps = device.caps
    n = 0 if delivers_nothing(draw) else draw.count
    size = _Sizes.of(n, topology, spec, caps)
    dev = device.device
    state = _state(dev)
    if spec.source.size:
        assert index_buffer is not None  # checked: the values come from the index buffer
        w_off, w_size, ib_base, held = index_window(index_buffer, draw.start_index_location, n,
                                                    caps)
        words = (index_buffer.buffer.wgpu, w_off, w_size)
    else:
        ib_base, held = 0, 0
        words = (state.dummies[0], 0, 16)
    first_vertex = (base_vertex if base_vertex is not None
                    else draw.base_vertex_location if draw.indexed else draw.start_vertex_location)
    params, at = _params(draw, n, size.levels, (ib_base, held, first_vertex, items_per_group),
                         caps)
    steps = _steps(n, spec, size, at)
    pipelines = state.pipelines(dev, spec, tuple(dict.fromkeys(s[0] for s in steps)))
    group, buffers = _bind(dev, state, spec, size, params, words)
    cp = encoder.begin_compute_pass()
    for entry, offset, (x, y) in steps:
        cp.set_pipeline(pipelines[entry])
        cp.set_bind_group(0, group, [offset])
        cp.dispatch_workgroups(x, y, 1)
    cp.end()
    out_list, out_kept, args = buffers[2], buffers[3], buffers[4]
    keep = (buffers[5], group, args, out_list, out_kept, buffers[0], buffers[1], words[0],
            tuple(pipelines.values()))
    return IndexPass(spec, out_list, out_kept, args, size.max_primitives, size.max_list, n, keep)


def _check_arguments(device, draw, spec: IndexPassSpec, index_buffer, items_per_group,
                     base_vertex) -> None:
    """encode_index_pass's refusals beyond :func:`index_pass_spec`'s, in its order."""
    if spec.source.size:  # the values come from the index buffer: one is bound
        assert index_buffer is not None
        _check_buffer(index_buffer, device)
    if type(items_per_group) is not int or not 0 <= items_per_group <= _U32:
        raise InvalidDescError("index pass", "items_per_group", items_per_group,
                               "a non-negative 32-bit count")
    if base_vertex is not None and (type(base_vertex) is not int
                                    or not -(1 << 31) <= base_vertex < 1 << 31):
        raise InvalidDescError("index pass", "base_vertex", base_vertex,
                               "a signed 32-bit value (drawIndexedIndirect's baseVertex)")
    if draw.start_instance_location and not device.caps.indirect_first_instance:
        raise UnsupportedError(f"StartInstanceLocation {draw.start_instance_location} in indirect "
                               f"draw arguments needs the adapter's indirect-first-instance "
                               f"feature")


@dataclass(frozen=True)
class _Sizes:
    """What one pass of ``n`` indices needs: its streams' bounds and buffer sizes (0: not
    written), the scan's levels and the workgroups of its element and block steps."""

    streams: IndexStreams
    cuts: bool
    max_primitives: int
    max_list: int
    list_bytes: int
    kept_bytes: int
    codes_bytes: int
    totals_bytes: int
    levels: list
    elements: tuple[int, int]
    blocks: list

    @classmethod
    def of(cls, n: int, topology: TopologyInfo, spec: IndexPassSpec, caps) -> _Sizes:
        streams = spec.streams
        max_primitives = topology.primitive_count(n)
        max_list = max_primitives * topology.vertices
        list_bytes = (_check_size("list stream", 4 * max_list, caps)
                      if IndexStreams.LIST in streams else 0)
        kept_bytes = (_check_size("kept stream", 4 * n, caps)
                      if IndexStreams.KEPT in streams else 0)
        levels = scan_levels(n) if spec.cuts else [n]
        codes_bytes = _check_size("per-index codes", 4 * n, caps) if spec.cuts else 0
        totals_bytes = _check_size("scan totals", 8 * sum(levels[1:]), caps) if spec.cuts else 0
        if len(levels) > MAX_LEVELS:  # pragma: no cover - 2**32 positions need MAX_LEVELS
            raise UnsupportedError(f"{n} indices need {len(levels)} scan levels")
        elements = _split((n + WORKGROUP - 1) // WORKGROUP, caps, f"{n} indices")
        blocks = [_split(x, caps, f"{n} indices") for x in levels[1:]]
        return cls(streams, spec.cuts, max_primitives, max_list, list_bytes, kept_bytes,
                   codes_bytes, totals_bytes, levels, elements, blocks)


def _params(draw, n: int, levels: list, words: tuple, caps) -> tuple[np.ndarray, dict]:
    """(the parameter records, record -> byte offset): one record for level 0 (every element
    pass and the finish), one per middle level, and one top record per scan. ``words``:
    (index base in the window, indices held, the draws' base vertex, items per group)."""
    ib_base, held, base_vertex, items_per_group = words
    top = len(levels) - 1
    offsets = [0] * MAX_LEVELS
    for i in range(2, len(levels)):
        offsets[i] = offsets[i - 1] + levels[i - 1]
    lengths = (levels + [0] * MAX_LEVELS)[:MAX_LEVELS]
    records = [(0, 0)] + [(i, 0) for i in range(1, top)] + [(top, 0), (top, 1)]
    align = max(caps.min_uniform_buffer_offset_alignment, 4)
    stride = (4 * PARAMS_WORDS + align - 1) // align * align
    params = np.zeros((len(records), stride // 4), np.uint32)
    params[:, _COUNT] = n
    params[:, _START] = draw.start_index_location if draw.indexed else 0
    params[:, _IB_BASE] = ib_base
    params[:, _HELD] = held
    params[:, _INSTANCE_COUNT] = draw.instance_count if n else 0
    params[:, _BASE_VERTEX] = base_vertex & _U32
    params[:, _FIRST_INSTANCE] = draw.start_instance_location
    params[:, _ITEMS_PER_GROUP] = items_per_group
    params[:, _MAX_GROUPS] = caps.max_compute_workgroups_per_dimension
    params[:, _LEVEL_OFFSET:_LEVEL_OFFSET + MAX_LEVELS] = offsets
    params[:, _LEVEL_LENGTH:_LEVEL_LENGTH + MAX_LEVELS] = lengths
    for r, (level, scan) in enumerate(records):
        params[r, _LEVEL] = level
        params[r, _SCAN] = scan
    return params, {rec: r * stride for r, rec in enumerate(records)}


def _steps(n: int, spec: IndexPassSpec, size: _Sizes, at: dict) -> list:
    """The dispatches, in order: (entry point, parameter record byte offset, (x, y))."""
    top = len(size.levels) - 1
    blocks = size.blocks
    steps = []
    if n and not spec.cuts:
        steps.append(("gpuia_ix_closed", at[(0, 0)], size.elements))
    elif n:
        for scan, name in ((0, "cuts"), (1, "prims")):
            steps.append((f"gpuia_ix_{name}_reduce", at[(0, 0)], blocks[0]))
            steps += [("gpuia_ix_up", at[(i, 0)], blocks[i]) for i in range(1, top)]
            steps.append(("gpuia_ix_top", at[(top, scan)], (1, 1)))
            steps += [("gpuia_ix_down", at[(i, 0)], blocks[i]) for i in range(top - 1, 0, -1)]
            if scan == 0 or IndexStreams.LIST in size.streams:
                steps.append((f"gpuia_ix_{name}_final", at[(0, 0)], blocks[0]))
    steps.append(("gpuia_ix_finish", at[(0, 0)], (1, 1)))
    return steps


def _bind(dev, state: _DeviceState, spec: IndexPassSpec, size: _Sizes, params: np.ndarray,
          words: tuple) -> tuple:
    """(bind group, (codes, totals, list, kept, args, uniform buffers)): the pass's buffers
    made (None where a stream or the scan is not needed; a dummy is bound there)."""
    stream_usage = "STORAGE|INDEX|COPY_SRC"

    def make(nbytes, use):
        return wgpu_call(lambda: dev.create_buffer(size=nbytes, usage=use),
                         "allocating the index pass's buffers")

    streams = size.streams
    out_list = make(size.list_bytes, stream_usage) if IndexStreams.LIST in streams else None
    out_kept = make(size.kept_bytes, stream_usage) if IndexStreams.KEPT in streams else None
    args = make(4 * ARGS_WORDS, "STORAGE|INDIRECT|COPY_SRC")
    codes = make(size.codes_bytes, "STORAGE") if spec.cuts else None
    totals = make(size.totals_bytes, "STORAGE") if spec.cuts else None
    uniform = wgpu_call(lambda: dev.create_buffer_with_data(data=params, usage="UNIFORM"),
                        "allocating the index pass's buffers")
    bound = [words, *[(b if b is not None else state.dummies[k + 1], 0, None)
                      for k, b in enumerate((codes, totals, out_list, out_kept))],
             (args, 0, None)]
    entries = [{"binding": 0, "resource": {"buffer": uniform, "offset": 0,
                                            "size": 4 * PARAMS_WORDS}}]
    for b, (buf, off, span) in enumerate(bound, start=1):
        entries.append({"binding": b, "resource": {"buffer": buf, "offset": off,
                                                    "size": buf.size if span is None else span}})
    group = wgpu_call(lambda: dev.create_bind_group(layout=state.group_layout, entries=entries),
                      "binding the index pass")
    return group, (codes, totals, out_list, out_kept, args, uniform)
