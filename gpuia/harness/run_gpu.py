"""Run a case on a GPU and read back what the vertex shader received, per invocation.

The GPU records one entry per (draw, instance, fetched vertex): what the Input Assembler
delivered is a function of those three, whatever the topology, cut or vertex reuse. The host then
lists the invocations in D3D's IA order (from the draw's own index stream, which it also knows)
and fills each from the GPU's record of its (draw, instance, fetch index). A record the GPU never
wrote, or a vertex index the GPU shaded that D3D would not fetch, is reported, never papered over.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..d3d.ia_desc import IndexBufferView, VertexBufferView
from ..d3d.so_desc import StreamOutputBufferView
from ..errors import UnsupportedError
from ..gpu.buffers import Buffer
from ..gpu.context import Capture, Context, PipelineState
from ..gpu.device import Device
from ..gpu.gs.capture import GSCaptured
from ..gpu.vertex.plan import Plan
from ..reference.ia import ElementData, IAResult
from ..reference.stream_output import SOResult
from ..util.parallel import for_row_chunks
from ..wgsl.blocks import CAPTURE_RECORD
from ..wgsl.program import record_words
from .case import MAX_CONSTANT_BUFFER_BYTES, Case
from .case_textures import bind_gpu
from .case_uavs import read_contents, uav_label
from .reference_run import reference_ia

__all__ = ["GPUResult", "run_case_gpu", "run_case_so_gpu", "run_case_gs_gpu", "upload_case",
           "case_pipeline_state", "bind_constant_buffers", "record_capture", "assemble_capture",
           "plans_path"]


@dataclass
class GPUResult:
    """A GPU run of a case: the IA result filled from the GPU, the per-draw plans, and the
    problems the capture itself saw. :func:`run_case_gpu` makes it.

    Arguments:
        ia (IAResult): the invocations in D3D's IA order. ``draw``, ``vertex``,
            ``fetch_index``, the primitives and ``IAPrimitives`` are the reference's (WebGPU
            has no IA statistics query, rules 4.10); ``vertex_id``, ``instance``, every input
            and ``IAVertices`` come from the GPU's records.
        path (str): the paths the draws took (``native``, ``pulling``), sorted and joined by
            ``/``.
        plans (list): the :class:`~gpuia.gpu.vertex.plan.Plan` of each draw, in order.
        missing (numpy.ndarray): bool per invocation: the GPU wrote no record for it (its
            inputs and SV_VertexID then read 0 and its instance is the reference's, so rows
            stay readable).
        unexpected (int): vertex shader invocations at vertex indices D3D would not fetch.
        unexpected_max_vertex_index (int): the largest such vertex index.
        adapter (dict): the device's ``info`` (name, backend, type, summary).
        so (SOResult): the Stream Output read back from the GPU, for cases with Stream Output
            when :func:`gpuia.harness.run.run_case` ran it; else None (the default).
        geometry (GSCaptured): the geometry shader stage's work read back from the GPU, for
            cases with a geometry shader when :func:`gpuia.harness.run.run_case` ran it
            (:func:`run_case_gs_gpu`); else None (the default).
        outputs: the vertex shader's outputs read back per invocation
            (:class:`gpuia.harness.run_outputs.GPUOutputs`), for cases with a shader of their
            own when :func:`gpuia.harness.run.run_case` read them; else None (the default).
        uavs (dict): ``u1``, ``u1 space2`` -> the UAV's whole buffer read back after the run's
            draws (``gpuia.harness.case_uavs``), each run starting from the case's bytes;
            empty for a case without UAVs.
    """

    ia: IAResult
    path: str
    plans: list[Plan]
    missing: np.ndarray  # bool per invocation: the GPU wrote no record for it
    unexpected: int  # vertex shader invocations at vertex indices D3D would not fetch
    unexpected_max_vertex_index: int
    adapter: dict[str, Any]
    so: SOResult | None = None  # read back from the GPU, for cases with Stream Output
    geometry: GSCaptured | None = None  # the GS stage's work read back, for GS cases
    outputs: Any = None  # a GPUOutputs (gpuia.harness.run_outputs, which imports this module)
    uavs: dict[str, bytes] = field(default_factory=dict)  # "u1" -> its buffer after the draws


def upload_case(case: Case, device: Device,
                ) -> tuple[dict[int, VertexBufferView | None], IndexBufferView | None]:
    """GPU buffers for a case's vertex and index data, and views over them: one buffer per
    distinct data object (slots that share the case's bytes share the buffer), with the
    ``vertex_buffer`` or ``index_buffer`` bind flag, and views with the case's strides, offsets
    and sizes.

    Arguments:
        case (Case): the parsed case.
        device (Device): the device to create the buffers on.

    Returns:
        ``(views, index_view)``: slot -> :class:`~gpuia.d3d.ia_desc.VertexBufferView` over a GPU
        buffer, or None for an unbound slot; and the index buffer view over a GPU buffer, or
        the case's own view when it has no data (None or the NULL view).

    Raises:
        UnsupportedError: a buffer larger than the adapter allows.
        GpuOutOfMemoryError: the adapter could not allocate a buffer.
        DeviceLostError: the device was lost.
    """
    views: dict[int, VertexBufferView | None] = {}
    cache: dict[int, Buffer] = {}
    for slot, v in case.vertex_buffers.items():
        if v is None or v.buffer is None:
            views[slot] = None
            continue
        key = id(v.buffer)
        if key not in cache:
            cache[key] = device.create_buffer(v.buffer, bind=("vertex_buffer",),
                                              label=f"{case.name} slot {slot}")
        views[slot] = VertexBufferView(cache[key], v.stride_in_bytes, v.offset, v.size_in_bytes)
    ib = case.index_buffer
    if ib is not None and ib.buffer is not None:
        buf = device.create_buffer(ib.buffer, bind=("index_buffer",), label=f"{case.name} indices")
        ib = IndexBufferView(buf, ib.format, ib.offset, ib.size_in_bytes)
    return views, ib


def case_pipeline_state(case: Case, stream_output: bool = False) -> PipelineState:
    """The pipeline state a case draws with: its layout, vertex shader (WGSL, compiled HLSL or
    the pass-through), strip cut and, with ``stream_output``, its Stream Output declaration.

    Arguments:
        case (Case): the parsed case.
        stream_output (bool): include the case's Stream Output declaration. Default False.

    Returns:
        The :class:`~gpuia.gpu.PipelineState`.

    Raises:
        InvalidDescError: as :class:`~gpuia.gpu.PipelineState` refuses a field (never for a
            case :func:`~gpuia.harness.case.load_case` made).
    """
    # PipelineState takes a compiled HLSL shader too (its field holds the WGSL it draws with)
    return PipelineState(case.layout, case.shader,  # type: ignore[arg-type]
                         case.entry_point, case.strip_cut_value,
                         case.so_desc if stream_output else None,
                         geometry_shader=case.gs if stream_output else None)


def bind_constant_buffers(ctx: Context, case: Case, device: Device) -> dict:
    """Bind the case's root constant buffers: root constant buffer N of the context holds the
    case's ``constant_buffers`` slot N, zero-filled to a full 64 KiB constant buffer (reads
    past the case's bytes see zeros). Other root constant buffers keep their bindings.

    Arguments:
        ctx (Context): the context to bind on.
        case (Case): the parsed case.
        device (Device): the context's device, which creates the buffers.

    Raises:
        UnsupportedError: a buffer larger than the adapter allows.
        GpuOutOfMemoryError: the adapter could not allocate a buffer.
        DeviceLostError: the device was lost.

    Returns:
        {``u1``: the Buffer bound at each UAV of the case}: new buffers of the case's bytes, so
        every run starts from them (``gpuia.harness.case_uavs.read_contents`` reads them).
    """
    for slot, data in case.constant_buffers.items():
        padded = bytes(data) + bytes(MAX_CONSTANT_BUFFER_BYTES - len(data))
        ctx.set_graphics_root_constant_buffer_view(slot, device.create_buffer(
            padded, bind=("constant_buffer",), label=f"{case.name} constant buffer {slot}"))
    # And its shader resource views: each a buffer of the case's bytes, viewed as the case says.
    uavs = {}
    for r in case.shader_resources.values():
        data = r.data + bytes(-len(r.data) % 4) if r.data else bytes(4)
        if r.writable:  # a UAV: gpuia.harness.case_uavs
            uavs[uav_label(r)] = buf = device.create_buffer(
                data, bind=("unordered_access",), label=f"{case.name} UAV {uav_label(r)}")
            ctx.set_graphics_root_unordered_access_view(
                r.register, buf, r.first_element * r.stride, r.num_elements,
                r.stride if r.kind == "structured" else None, r.space, r.format)
            continue
        ctx.set_graphics_root_shader_resource_view(r.register, device.create_buffer(
            data, bind=("shader_resource",),
            label=f"{case.name} shader resource t{r.register} space{r.space}"),
            r.first_element * r.stride, r.num_elements, r.stride if r.kind == "structured"
            else None, r.space, r.format)
    bind_gpu(ctx, device, case)  # its textures and samplers (gpuia.harness.case_textures)
    return uavs


def run_case_gpu(case: Case, device: Device, path: str = "auto", reference: IAResult | None = None,
                 context: Context | None = None, capture_route: str = "auto",
                 timings: dict | None = None, uploaded: tuple | None = None) -> GPUResult:
    """Draw a case on ``device`` through ``path`` with capture on.

    ``reference`` (the CPU result of the same case) supplies the D3D invocation order; it is
    computed when not given. Only IA order, fetch indices and primitives are taken from it:
    every delivered value in the returned result (IDs and inputs) comes from the GPU, and an
    invocation the GPU did not record is reported in ``missing``, never filled in. The context
    gets the case's pipeline state, topology, constant buffers, index buffer and path, and
    every input slot of the layout's profile is set (a slot the case leaves out is unbound,
    whatever the context had). Stream Output is not run here (:func:`run_case_so_gpu`).

    Arguments:
        case (Case): the parsed case.
        device (Device): the device to draw on.
        path (str): ``"auto"`` (the default: the plan picks per draw), ``"native"`` or
            ``"pulling"``.
        reference (IAResult): the case's reference Input Assembler result; None (the default)
            computes it with the default invocation limit.
        context (Context): a context of ``device`` to draw with; None (the default) makes
            one.
        capture_route (str): ``"auto"`` (the default), ``"storage"`` or ``"targets"``
            (``Context.begin_capture``).
        timings (dict): when given, receives seconds per step (upload, plan_and_encode,
            encode_and_gpu, readback, assemble; gpu_and_readback together on the
            render-target route).
        uploaded (tuple): what :func:`upload_case` returned for this case and device, to
            draw from buffers another run already made; None (the default) uploads.

    Returns:
        The :class:`GPUResult`.

    Raises:
        UnsupportedError: the path or capture route cannot do a draw exactly on this adapter
            (with the reason); nothing of that draw is encoded.
        InvalidDescError: an unknown path or capture route, or state or a draw the GPU side
            refuses as D3D would.
        CaseError: ``reference`` is None and the draws may deliver more vertices than
            :data:`~gpuia.harness.case.DEFAULT_MAX_INVOCATIONS`.
        GpuOutOfMemoryError: the adapter ran out of memory.
        DeviceLostError: the device was lost.
    """
    import time

    clock = time.perf_counter
    if reference is None:
        reference = reference_ia(case)
    steps: dict = {}
    ctx, plans, uavs = record_capture(case, device, path, context, capture_route, uploaded,
                                      steps)
    t2 = clock()
    ctx.timings = {} if timings is not None else None
    cap = ctx.end_capture()
    t3 = clock()
    result = assemble_capture(case, reference, cap, plans, plans_path(plans, path), device)
    result.uavs = read_contents(case, uavs)  # after end_capture: the draws are done
    if timings is not None:
        timings.update(steps)
        timings.update(ctx.timings or {"gpu_and_readback": t3 - t2})
        timings["assemble"] = clock() - t3
    return result


def plans_path(plans: list[Plan], path: str) -> str:
    """The paths the draws took, sorted and joined by ``/`` (``path`` when no draw was
    planned): :attr:`GPUResult.path`.

    Arguments:
        plans (list of Plan): each draw's plan.
        path (str): the path asked for.
    """
    return "/".join(sorted({p.path for p in plans})) or path


def record_capture(case: Case, device: Device, path: str = "auto",
                   context: Context | None = None, capture_route: str = "auto",
                   uploaded: tuple | None = None, timings: dict | None = None,
                   ) -> tuple[Context, list[Plan], dict]:
    """The first half of :func:`run_case_gpu`: a context (``context`` or a new one) with the
    case's state, a capture begun on ``capture_route`` and every draw of the case recorded
    for it; the capture is not ended.

    Arguments:
        case (Case): the parsed case.
        device (Device): the device to draw on.
        path (str): as :func:`run_case_gpu`'s.
        context (Context): a context of ``device``; None makes one.
        capture_route (str): as :func:`run_case_gpu`'s.
        uploaded (tuple): as :func:`run_case_gpu`'s.
        timings (dict): when given, receives ``upload`` and ``plan_and_encode`` seconds.

    Returns:
        ``(context, the Plan of each draw, the UAVs' buffers)``.

    Raises:
        UnsupportedError: the path or capture route cannot do a draw exactly on this adapter.
        InvalidDescError: an unknown path or capture route, or state or a draw the GPU side
            refuses as D3D would.
        GpuOutOfMemoryError: the adapter ran out of memory.
        DeviceLostError: the device was lost.
    """
    import time

    clock = time.perf_counter
    t0 = clock()
    ctx = context or Context(device)
    ctx.set_pipeline_state(case_pipeline_state(case))
    ctx.ia_set_primitive_topology(case.topology.topology)
    uavs = bind_constant_buffers(ctx, case, device)
    views, ib = uploaded if uploaded is not None else upload_case(case, device)
    t1 = clock()
    # Every slot is set: a slot the case leaves out is unbound, whatever the context had.
    ctx.ia_set_vertex_buffers(0, [views.get(s) for s in range(case.layout.profile.slot_count)])
    ctx.ia_set_index_buffer(ib)
    ctx.set_path(path)
    ctx.begin_capture(capture_route)
    plans = [ctx.draw(d) for d in case.draws]
    if timings is not None:
        timings.update({"upload": t1 - t0, "plan_and_encode": clock() - t1})
    return ctx, plans, uavs


_CACHE_ROWS = 1 << 15
"""Rows of records gathered and then read again at once: 2 MiB of 16-word records, within a
core's L2 cache."""
# Words of a capture record, from its table (gpuia.wgsl.blocks.CAPTURE_RECORD).
_FLAG, _VERTEX_ID, _INSTANCE_ID, _ELEMENTS = (CAPTURE_RECORD.word(name) for name in (
    "flag", "vertex_id", "instance_id", "elements"))


def _with_rows(place, sel: np.ndarray, lo: int, hi: int) -> None:
    place(lo, hi, sel)


def _in_order(record_index: np.ndarray) -> bool:
    """Whether ``record_index`` is ``0, 1, 2, ...`` (checked in row chunks on the pool)."""
    ok = [True]

    def check(lo: int, hi: int) -> None:
        if not np.array_equal(record_index[lo:hi], np.arange(lo, hi, dtype=record_index.dtype)):
            ok[0] = False

    for_row_chunks(len(record_index), check)
    return ok[0]


def _record_indices(ref: IAResult, cap: Capture) -> np.ndarray:
    """Per row of ``ref``, the index of its record among ``cap``'s: ``capture_base +
    instance * len(keys) + rank of its fetch index`` of its draw."""
    n = len(ref)
    # Record indices fit 32 bits below 2**31 records (every capture a storage binding holds).
    ends = [r.capture_base + r.draw.instance_count * r.keys.shape[0] for r in cap.records]
    record_index = np.zeros(n, dtype=np.int32 if max(ends, default=0) < 2**31 else np.int64)
    one_draw = len(cap.records) == 1
    for d, r in enumerate(cap.records):
        keys = r.keys
        gap_free = bool(keys.size) and int(keys[-1]) - int(keys[0]) == keys.size - 1

        def place(lo: int, hi: int, sel=None, r=r, keys=keys, gap_free=gap_free) -> None:
            rows = slice(lo, hi) if sel is None else sel[lo:hi]
            fetched = ref.fetch_index[rows]
            if gap_free:
                # Distinct sorted keys without a gap (every draw without indices, and index
                # buffers that use every vertex of a range): a key's rank is its distance from
                # the first, no search (clipped as searchsorted places one outside them).
                at = fetched.astype(np.int64)
                at -= int(keys[0])
                np.clip(at, 0, keys.size, out=at)
            else:
                at = np.searchsorted(keys, fetched).astype(np.int64, copy=False)
            instance = ref.instance[rows]
            if instance.size and instance[0] == instance[-1]:  # one instance (rows in IA order)
                at += r.capture_base + int(instance[0]) * keys.shape[0]
            else:
                at += instance.astype(np.int64) * keys.shape[0]
                at += r.capture_base
            record_index[rows] = at

        if one_draw:
            for_row_chunks(n, place)
        else:
            sel = np.flatnonzero(ref.draw == d)
            for_row_chunks(sel.size, functools.partial(_with_rows, place, sel))
    return record_index


def _rows_are_records(ref: IAResult, cap: Capture) -> bool:
    """Whether row ``i``'s record is record ``i`` for every row, known from the rows' ends
    alone: rows of one instance of one draw without indices (not a DrawAuto) whose vertex
    IDs do not wrap, so consecutive vertices (rules 4.8) with consecutive fetch indices and
    consecutive records, the first row's record 0."""
    n = len(ref)
    if not n:
        return False
    d = int(ref.draw[0])
    if d != int(ref.draw[-1]) or not 0 <= d < len(cap.records):
        return False  # rows are in draw order: equal ends, one draw
    r = cap.records[d]
    draw, keys = r.draw, r.keys
    if (r.auto is not None or draw.indexed or not keys.size
            or draw.start_vertex_location + draw.vertex_count_per_instance > 1 << 32
            or int(keys[-1]) - int(keys[0]) != keys.size - 1
            or ref.instance[0] != ref.instance[-1]
            or int(ref.vertex[-1]) - int(ref.vertex[0]) != n - 1):
        return False
    first = (r.capture_base + int(ref.instance[0]) * keys.size
             + int(ref.fetch_index[0]) - int(keys[0]))
    return first == 0


def assemble_capture(case: Case, ref: IAResult, cap: Capture, plans: list[Plan], path: str,
                     device: Device) -> GPUResult:
    """The GPUResult of a capture in ``ref``'s IA order (all rows, or a window's: windowed).

    Arguments:
        case (Case): the case drawn.
        ref (IAResult): the reference rows to order by (the whole draw's or a window's).
        cap: the ended capture (``Context.end_capture``), whole or a range of its records.
        plans (list of Plan): each draw's plan, as :func:`record_capture` returned them.
        path (str): the result's path (:func:`plans_path`).
        device (Device): the device drawn on.

    Raises:
        ValueError: ``cap`` holds no records (a capture ended with ``windows=True`` keeps them
            on the GPU: read a range of them first, as :mod:`gpuia.harness.windowed` does).
    """
    # size: its docstring's arguments; the steps share the capture's arrays, read top to bottom
    if cap.words is None:
        raise ValueError("assemble_capture: the capture holds no records (ended with windows)")
    n = len(ref)
    words = record_words(cap.element_count)
    recs = (cap.words.reshape(-1, words) if cap.words.size >= words
            else np.zeros((0, words), np.uint32))
    last = recs.shape[0] - 1
    # Records already in IA order (one draw without indices, the common capture) are read in
    # place, copied only where a missing one must be zeroed; else gathered into IA order.
    in_place = bool(n) and last >= n - 1 and _rows_are_records(ref, cap)
    record_index = None
    if not in_place:
        record_index = _record_indices(ref, cap)
        in_place = bool(n) and last >= n - 1 and _in_order(record_index)
    got = recs[:n] if in_place else np.empty((n, words), np.uint32)
    missing = np.empty(n, dtype=bool)

    def gather(lo: int, hi: int) -> None:
        # Each cache-sized piece is gathered, then its first header word read while it is
        # still in cache (one pass over the records, not two).
        for a in range(lo, hi, _CACHE_ROWS):
            b = min(hi, a + _CACHE_ROWS)
            if record_index is not None and not in_place:
                # Indices past the last record read the last one; none is negative. "clip"
                # bounds them so, and unlike the default mode does not buffer ``out`` (4x).
                np.take(recs, record_index[a:b], axis=0, out=got[a:b], mode="clip")
            np.not_equal(got[a:b, _FLAG], 1, out=missing[a:b])

    if recs.shape[0]:
        for_row_chunks(n, gather)
    else:
        got[:] = 0
        missing[:] = True
    # SV_VertexID and SV_InstanceID are views of the records' header words (no copy), as the
    # elements' words are.
    instance = got[:, _INSTANCE_ID]
    if missing.any():
        if in_place:  # the capture's own words stay as read back
            got = got.copy()
        got[missing] = 0
        # Where the GPU wrote nothing, report the reference's instance so rows stay readable.
        instance = got[:, _INSTANCE_ID].copy()
        instance[missing] = ref.instance[missing]
    # Each element's words are a view of the records (a strided copy of every column would cost
    # more than the rest of the assembly); the records stay alive with the result.
    inputs = {}
    for e in case.layout.elements:
        base = _ELEMENTS + 4 * e.index
        inputs[e.key] = ElementData(e.format.shader_type, got[:, base:base + 4])
    ia = IAResult(topology=ref.topology, draw=ref.draw, instance=instance,
                  vertex=ref.vertex, vertex_id=got[:, _VERTEX_ID], fetch_index=ref.fetch_index,
                  inputs=inputs, primitives=ref.primitives, adjacency=ref.adjacency,
                  primitive_draw=ref.primitive_draw,
                  # IAVertices: vertices the GPU delivered; IAPrimitives: the reference's
                  # assembly of them (WebGPU has no Input Assembler statistics query).
                  statistics={"IAVertices": int(n - missing.sum()),
                              "IAPrimitives": ref.statistics["IAPrimitives"]})
    return GPUResult(ia, path, plans, missing, cap.unexpected, cap.unexpected_max_vertex_index,
                     dict(device.info))


def run_case_so_gpu(case: Case, device: Device, context: Context | None = None) -> SOResult:
    """Run a case's draws with its Stream Output on the GPU and read the targets back. Each
    target's BufferFilledSize lives in a GPU counter buffer, as in D3D12 (rules 9.6),
    initialized with the case's ``filled_size``; slots without a target are unbound.

    Arguments:
        case (Case): the parsed case; it must have a ``stream_output`` section.
        device (Device): the device to draw on.
        context (Context): a context of ``device`` to draw with; None (the default) makes
            one.

    Returns:
        A :class:`~gpuia.reference.stream_output.SOResult` read back from the GPU: each bound
        target's SizeInBytes bytes and BufferFilledSize, the SO statistics of stream 0 and of
        every stream, and each UAV's buffer after the draws, the run starting from the case's
        bytes (no ``written_per_draw``, no ``shader_words``).

    Raises:
        UnsupportedError: the case has no ``stream_output`` section, or the adapter cannot run
            a draw with Stream Output exactly (with the reason).
        InvalidDescError: state or a draw the GPU side refuses as D3D would.
        GpuOutOfMemoryError: the adapter ran out of memory.
        DeviceLostError: the device was lost.
    """
    if case.so_desc is None:
        raise UnsupportedError("the case has no stream_output section")
    so, _ = _run_stages(case, device, context, False)
    assert so is not None
    return so


def run_case_gs_gpu(case: Case, device: Device, context: Context | None = None,
                    ) -> tuple[SOResult | None, GSCaptured]:
    """Run a case's draws through its geometry shader on the GPU, with its Stream Output when
    it has one, and read back what the stage did (:meth:`gpuia.gpu.Context.begin_gs_capture`).

    Arguments:
        case (Case): the parsed case; it must have a ``geometry_shader``.
        device (Device), context (Context): as :func:`run_case_so_gpu`'s.

    Returns:
        ``(so, captured)``: the Stream Output as :func:`run_case_so_gpu` reads it (None without
        a ``stream_output`` section) and the :class:`~gpuia.gpu.gs.capture.GSCaptured`.

    Raises:
        UnsupportedError: the case has no geometry shader; as :func:`run_case_so_gpu`.
        InvalidDescError, GpuOutOfMemoryError, DeviceLostError: as :func:`run_case_so_gpu`.
    """
    if case.gs is None:
        raise UnsupportedError("the case has no geometry_shader")
    so, captured = _run_stages(case, device, context, True)
    assert captured is not None
    return so, captured


def _run_stages(case: Case, device: Device, context: Context | None, capture_gs: bool,
                ) -> tuple[SOResult | None, GSCaptured | None]:
    """The draws of :func:`run_case_so_gpu` and :func:`run_case_gs_gpu`."""
    ctx = context or Context(device)
    ctx.set_pipeline_state(case_pipeline_state(case, stream_output=True))
    ctx.ia_set_primitive_topology(case.topology.topology)
    uavs = bind_constant_buffers(ctx, case, device)
    views, ib = upload_case(case, device)
    ctx.ia_set_vertex_buffers(0, [views.get(s) for s in range(case.layout.profile.slot_count)])
    ctx.ia_set_index_buffer(ib)
    counters, buffers = _so_targets(ctx, case, device) if case.so_desc is not None else (None, {})
    if capture_gs:
        ctx.begin_gs_capture()
    for d in case.draws:
        ctx.draw(d)
    captured = ctx.end_gs_capture() if capture_gs else None
    if counters is None:
        return None, captured
    stats = ctx.so_statistics()
    streams = [stats, *(ctx.so_statistics(s) for s in range(1, 4))]
    filled = np.frombuffer(counters.read(), np.uint32)
    out = {s: b.read()[: case.so_targets[s].size] for s, b in buffers.items()}
    return SOResult(out, {s: int(filled[s]) for s in buffers}, stats, streams=streams,
                    uavs=read_contents(case, uavs)), captured


def _so_targets(ctx: Context, case: Case, device: Device) -> tuple[Buffer, dict[int, Buffer]]:
    """Bind the case's Stream Output targets; returns (the counter buffer, slot -> buffer)."""
    initial = np.zeros(4, np.uint32)
    for slot, t in case.so_targets.items():
        initial[slot] = t.filled_size
    counters = device.create_buffer(initial, bind=("stream_output",), label="SO counters")
    targets: list[StreamOutputBufferView | None] = []
    buffers: dict[int, Buffer] = {}
    for slot in range(4):
        target = case.so_targets.get(slot)
        if target is None:
            targets.append(None)
            continue
        buffers[slot] = device.create_buffer(target.data if target.size else b"\0\0\0\0",
                                             bind=("stream_output",), label=f"SO slot {slot}")
        targets.append(StreamOutputBufferView(buffers[slot], target.size, 0, counters,
                                              4 * slot))
    while targets and targets[-1] is None:
        targets.pop()
    ctx.so_set_targets(targets)
    return counters, buffers
