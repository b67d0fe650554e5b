"""The geometry shader's output expanded into Stream Output on the GPU, stream by stream.

:class:`GSStreamOutput` belongs to one device (a Context's SO engine holds one) and keeps the
GS streams' Stream Output state on the GPU: per stream the overflow flag and the 64-bit
NumPrimitivesWritten and PrimitivesStorageNeeded, per slot BufferFilledSize before the last
chunk (:data:`gpuia.wgsl.blocks.GS_SO_STATE`). Its API:

* ``GSStreamOutput(device, cache=None, chunk=CHUNK)``: ``device`` a gpuia Device; ``cache`` a
  PipelineCache whose ``stats`` count the modules and pipelines built (optional); ``chunk`` the
  invocations one round of passes covers (the count and scan buffers hold one chunk).
* :meth:`~GSStreamOutput.encode` ``(encoder, regions, invocations, plan, so, targets)``: record
  into a wgpu command encoder the passes over ``invocations`` regions of the GS program's
  output buffer ``regions`` (one region per invocation in D3D's order, laid out as
  :mod:`gpuia.wgsl.gs_expansion` says), with the streams of ``plan``
  (:class:`~gpuia.gpu.gs.plan.GSStreamPlan`), the declaration ``so`` resolved for the GS's
  streams and ``targets``, slot -> :class:`~gpuia.gpu.gs.plan.GSTarget` or None. Returns what
  must be kept alive until the encoder's commands are submitted.
* :meth:`~GSStreamOutput.statistics` and :meth:`~GSStreamOutput.overflowed`: the state read back
  (after the work was submitted); :meth:`~GSStreamOutput.clear_overflow`: what SOSetTargets does
  to the flags (rules 9.7), after the work encoded so far was submitted.

Per chunk of invocations, in one compute pass: count each invocation's complete primitives per
stream (rules 13.4, 13.5), scan them over the chunk (multi-level, any number of invocations),
fit each stream in one invocation (rules 9.7, 9.8, 10.1, 10.2, 13.8: the largest prefix of whole
primitives that fits in every slot of the stream, nothing once it overflowed, a declared slot
without a target full; a stream writing no slot counts nothing), then write each invocation's
primitives below the stream's written count in D3D's strip order (9.3), each slot's entries at
``location + filled + (primitive * v + k) * stride + offset``, gaps untouched. The fit carries
the state across chunks and draws on the GPU, so chunks and draws append as one draw would.

Refused before anything is recorded: a ``regions`` buffer smaller than ``invocations`` regions,
a target whose BufferLocation or counter offset is no multiple of 4 or that reaches past its
buffer (:class:`~gpuia.errors.InvalidDescError`); a buffer larger than one storage
binding (a target buffer is accepted when the caller gives the filled sizes: it is then bound as
the window the invocations can write, which must fit one binding), more workgroups than one
dispatch holds (:class:`~gpuia.errors.UnsupportedError`).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ...d3d.so_declaration import ResolvedStreamOutput
from ...errors import InvalidDescError, UnsupportedError
from ...wgsl.blocks import GS_SO_STATE
from ...wgsl.gs_expansion import (
    COUNT,
    FIT,
    PARAMS_WORDS,
    PROGRAMS,
    REDUCE,
    SCAN_LEVEL,
    STATE_WORDS,
    WORKGROUP,
    WRITE,
    gs_program,
    scan_levels,
)
from ..lifetime import wgpu_call
from .plan import (
    STREAMS,
    GSStreamPlan,
    GSTarget,
    TargetBindings,
    check_binding,
    entry_table,
    params_records,
    storage_binding_limit,
    target_bindings,
)

__all__ = ["GSStreamOutput", "CHUNK"]

CHUNK = 1 << 20
"""Invocations per chunk by default: 16 MiB of counts and scan."""

_WRITTEN, _OVERFLOWED, _STATS = (GS_SO_STATE.word(n) for n in ("written", "overflowed", "stats"))
# The bindings of each program after the parameter block: (binding, type).
_BINDINGS = {
    "count": ((1, "storage"), (2, "read-only-storage")),
    "scan": ((1, "storage"),),
    "fit": ((1, "read-only-storage"), (3, "storage"), *((b, "storage") for b in range(4, 8))),
    "write": ((1, "read-only-storage"), (2, "read-only-storage"), (3, "read-only-storage"),
              *((b, "storage") for b in range(4, 8)), (8, "read-only-storage")),
}


def _split(groups: int, caps) -> tuple[int, int]:
    """(x, y) workgroups covering ``groups`` (x first, rows of x)."""
    limit = caps.max_compute_workgroups_per_dimension
    x = max(1, min(groups, limit))
    y = (groups + x - 1) // x
    if y > limit:
        raise UnsupportedError(f"the GS expansion needs {groups} workgroups, more than "
                               f"{limit}x{limit} in one dispatch")
    return x, y


class GSStreamOutput:
    """The GS streams' Stream Output on one device (see the module docstring)."""

    def __init__(self, device, cache=None, chunk: int = CHUNK):
        if type(chunk) is not int or chunk < 1:
            raise InvalidDescError("GSStreamOutput", "chunk", chunk, "a positive invocation count")
        self.device = device
        self.cache = cache
        self.chunk = chunk
        dev = device.device
        self.state = wgpu_call(lambda: dev.create_buffer(
            size=4 * STATE_WORDS, usage="STORAGE|COPY_DST|COPY_SRC"),
            "allocating the GS expansion's state")
        # One stand-in per binding a draw leaves empty: distinct, so no two alias.
        self._dummies = [dev.create_buffer(size=16, usage="STORAGE") for _ in range(8)]
        self._layouts: dict[str, object] = {}
        self._pipelines: dict[str, object] = {}

    # -- the state ----------------------------------------------------------------------------
    def _words(self) -> np.ndarray:
        return np.frombuffer(self.device.device.queue.read_buffer(self.state), np.uint32)

    def statistics(self) -> list[dict[str, int]]:
        """Per stream 0-3, ``NumPrimitivesWritten`` and ``PrimitivesStorageNeeded`` (rules
        10.1, 13.8) after the submitted work, as :attr:`gpuia.reference.SOResult.streams`
        holds them."""
        w = self._words()
        out = []
        for s in range(STREAMS):
            lo = _STATS + 4 * s
            out.append({"NumPrimitivesWritten": int(w[lo]) | int(w[lo + 1]) << 32,
                        "PrimitivesStorageNeeded": int(w[lo + 2]) | int(w[lo + 3]) << 32})
        return out

    def overflowed(self) -> tuple[bool, ...]:
        """Per stream 0-3, whether it overflowed since the flags were last cleared."""
        w = self._words()
        return tuple(bool(w[_OVERFLOWED + s]) for s in range(STREAMS))

    def written(self) -> tuple[int, ...]:
        """Per stream 0-3, the primitives the last chunk wrote."""
        w = self._words()
        return tuple(int(w[_WRITTEN + s]) for s in range(STREAMS))

    def clear_overflow(self) -> None:
        """Clear every stream's overflow flag, as SOSetTargets does (rules 9.7): it applies to
        the work submitted after this call, so submit what was encoded before first."""
        self.device.device.queue.write_buffer(self.state, 4 * _OVERFLOWED,
                                              np.zeros(STREAMS, np.uint32))

    # -- pipelines ----------------------------------------------------------------------------
    def _layout(self, name: str):
        layout = self._layouts.get(name)
        if layout is None:
            cs = "COMPUTE"
            entries = [{"binding": 0, "visibility": cs, "buffer": {
                "type": "uniform", "has_dynamic_offset": True,
                "min_binding_size": 4 * PARAMS_WORDS}}]
            entries += [{"binding": b, "visibility": cs, "buffer": {"type": kind}}
                        for b, kind in _BINDINGS[name]]
            layout = self.device.device.create_bind_group_layout(entries=entries)
            self._layouts[name] = layout
        return layout

    def _pipeline(self, name: str, entry: str):
        pipe = self._pipelines.get(entry)
        if pipe is None:
            dev = self.device.device
            module = wgpu_call(lambda: dev.create_shader_module(
                code=gs_program(name), label=f"gpuia GS {name}"), "building the GS expansion")
            layout = dev.create_pipeline_layout(bind_group_layouts=[self._layout(name)])
            for e in PROGRAMS[name]:
                self._pipelines[e] = wgpu_call(lambda e=e: dev.create_compute_pipeline(
                    layout=layout, compute={"module": module, "entry_point": e}),
                    "building the GS expansion")
            if self.cache is not None:
                self.cache.stats.shader_modules += 1
                self.cache.stats.pipelines += len(PROGRAMS[name])
            pipe = self._pipelines[entry]
        return pipe

    # -- encoding -----------------------------------------------------------------------------
    def encode(self, encoder, regions, invocations: int, plan: GSStreamPlan,
               so: ResolvedStreamOutput, targets: Mapping[int, GSTarget | None],
               filled: Mapping[int, int] | None = None, rotate: bool = False) -> tuple:
        """Record the expansion of ``invocations`` regions (module docstring) into
        ``encoder`` (a wgpu command encoder with no pass open); returns the wgpu objects to
        keep until its commands are submitted. Nothing is recorded for no invocation or a
        declaration of no slot. ``filled``: each bound slot's BufferFilledSize when this work
        runs, where the caller knows them (read back); with them a target buffer larger than
        one storage binding is bound as the window these invocations can write (at most
        ``maxvertexcount`` vertices each per stream), without them it is refused. ``rotate``:
        each primitive's vertices are stored rotated left by one, D3D's first vertex last (for
        drawing them on an adapter whose provoking vertex is the last); never for Stream
        Output, whose order is D3D's."""
        if type(invocations) is not int or invocations < 0:
            raise InvalidDescError("GS expansion", "invocations", invocations,
                                   "a non-negative count")
        self._check(regions, invocations, plan, targets, filled is not None)
        if not invocations or not so.slots:
            return ()
        bindings = target_bindings(so, targets)
        windows = self._windows(so, targets, bindings, plan, invocations, filled)
        where, entries = entry_table(plan, so)
        caps = self.device.caps
        align = max(4, caps.min_uniform_buffer_offset_alignment)
        stride = (4 * PARAMS_WORDS + align - 1) // align * align
        chunks = [(f, min(self.chunk, invocations - f))
                  for f in range(0, invocations, self.chunk)]
        base = [w[0] // 4 for w in windows] + [0] * (STREAMS - len(windows))
        records = [params_records(plan, so, targets, bindings, where, c, stride // 4, base,
                                  rotate) for c in chunks]
        groups, buffers = self._groups(regions, chunks[0][1], np.concatenate(records),
                                       entries, bindings, windows)
        cp = encoder.begin_compute_pass()
        at = 0
        for (_, count), rec in zip(chunks, records, strict=True):
            self._chunk(cp, groups, count, [at + r * stride for r in range(len(rec))])
            at += len(rec) * stride
        cp.end()
        return (*groups.values(), *buffers, regions, *bindings.data, *bindings.counters)

    def _chunk(self, cp, groups: dict, count: int, offsets: list[int]) -> None:
        """The dispatches of one chunk of ``count`` invocations; ``offsets``: its parameter
        records' byte offsets, one per scan level."""
        caps = self.device.caps
        levels = scan_levels(count)
        top = len(levels) - 1
        per_invocation = _split((count + WORKGROUP - 1) // WORKGROUP, caps)
        steps = [("count", COUNT, 0, per_invocation)]
        steps += [("scan", REDUCE, lv, _split(levels[lv + 1], caps)) for lv in range(top)]
        steps.append(("scan", SCAN_LEVEL, top, (1, 1)))
        steps += [("scan", SCAN_LEVEL, lv, _split(levels[lv + 1], caps))
                  for lv in range(top - 1, -1, -1)]
        steps += [("fit", FIT, 0, (1, 1)), ("write", WRITE, 0, per_invocation)]
        for name, entry, level, (x, y) in steps:
            cp.set_pipeline(self._pipeline(name, entry))
            cp.set_bind_group(0, groups[name], [offsets[level]])
            cp.dispatch_workgroups(x, y, 1)

    def _windows(self, so, targets, bindings: TargetBindings, plan: GSStreamPlan,
                 invocations: int, filled) -> list[tuple[int, int]]:
        """Per data binding, (byte offset, bytes) of the window bound: the whole buffer when
        it fits one storage binding, else from the lowest byte its slots can write now
        (BufferLocation + BufferFilledSize, aligned down) to the highest."""
        caps = self.device.caps
        limit = storage_binding_limit(caps)
        align = caps.min_storage_buffer_offset_alignment
        out = []
        for d, buf in enumerate(bindings.data):
            if buf.size <= limit:
                out.append((0, buf.size // 4 * 4))
                continue
            lo, hi = buf.size, 0
            for s in so.slots:
                t = targets.get(s.slot)
                if t is None or bindings.slots[s.slot][0] != d:
                    continue
                start = t.location + min(filled[s.slot], t.size)
                most = invocations * plan.max_vertex_count * plan.vertices[s.stream] * s.stride
                lo = min(lo, start)
                hi = max(hi, t.location + min(t.size, filled[s.slot] + most))
            lo = lo // align * align
            hi = max(hi, lo + 4)
            if hi - lo > limit:
                raise UnsupportedError(f"the GS expansion writes {hi - lo} bytes of one target "
                                       f"buffer in one chunk, more than one storage binding "
                                       f"holds ({limit}): draw fewer primitives at once")
            out.append((lo, (hi - lo + 3) // 4 * 4))
        return out

    def _groups(self, regions, largest: int, params: np.ndarray, entries: np.ndarray,
                bindings: TargetBindings, windows: list) -> tuple[dict, tuple]:
        """(program name -> its bind group, the buffers made for them): the parameter records,
        the scan buffer sized for the ``largest`` chunk, the entries table; each data buffer
        bound as its window."""
        dev = self.device.device
        scan_bytes = 16 * (sum(scan_levels(largest)) + 1)
        self._check_binding("scan buffer", scan_bytes)

        def made(make):
            return wgpu_call(make, "allocating the GS expansion's buffers")

        uniform = made(lambda: dev.create_buffer_with_data(data=params, usage="UNIFORM"))
        scan = made(lambda: dev.create_buffer(size=scan_bytes, usage="STORAGE"))
        table = made(lambda: dev.create_buffer_with_data(data=entries, usage="STORAGE"))
        data = [(b, w[0], w[1]) for b, w in zip(bindings.data, windows, strict=True)]
        data += [(b, 0, b.size) for b in self._dummies[len(data):4]]
        counters = list(bindings.counters) + self._dummies[4 + len(bindings.counters):8]
        bound = {
            "count": {1: scan, 2: regions},
            "scan": {1: scan},
            "fit": {1: scan, 3: self.state, **{4 + k: b for k, b in enumerate(counters)}},
            "write": {1: scan, 2: regions, 3: self.state,
                      **{4 + k: w for k, w in enumerate(data)}, 8: table},
        }
        groups = {}
        for name, buffers in bound.items():
            entries_ = [{"binding": 0, "resource": {"buffer": uniform, "offset": 0,
                                                     "size": 4 * PARAMS_WORDS}}]
            entries_ += [{"binding": b, "resource": {"buffer": w[0], "offset": w[1],
                                                      "size": w[2]} if isinstance(w, tuple)
                          else {"buffer": w, "offset": 0, "size": w.size // 4 * 4}}
                         for b, w in buffers.items()]
            groups[name] = wgpu_call(lambda name=name, e=entries_: dev.create_bind_group(
                layout=self._layout(name), entries=e), "binding the GS expansion")
        return groups, (uniform, scan, table)

    def _check_binding(self, what: str, nbytes: int) -> None:
        check_binding(self.device.caps, f"expansion's {what}", nbytes)

    def _check(self, regions, invocations: int, plan: GSStreamPlan,
               targets: Mapping[int, GSTarget | None], windowed: bool) -> None:
        """The refusals of :meth:`encode` (module docstring)."""
        need = 4 * invocations * plan.region_words
        if regions.size < need:
            raise InvalidDescError("GS expansion", "regions", regions.size,
                                   f"{invocations} regions of {plan.region_words} words need "
                                   f"{need} bytes")
        self._check_binding("regions buffer", regions.size)
        for slot, t in targets.items():
            if t is None:
                continue
            where = f"GS expansion slot {slot}"
            # SizeInBytes may be any count (D3D12's views take one): a vertex fits when all
            # its bytes do, and every stride is a multiple of 4 (rules 8.8).
            if t.location % 4 or t.location + t.size > t.buffer.size:
                raise InvalidDescError(where, "target", (t.location, t.size),
                                       f"BufferLocation must be a multiple of 4, the target "
                                       f"inside the {t.buffer.size}-byte buffer")
            if t.counter_offset % 4 or t.counter_offset + 4 > t.counter.size:
                raise InvalidDescError(where, "BufferFilledSizeLocation", t.counter_offset,
                                       f"must be a multiple of 4 inside the "
                                       f"{t.counter.size}-byte buffer")
            if not windowed:  # else bound as the window the chunk writes (_windows)
                self._check_binding(f"target of slot {slot}", t.buffer.size)
