"""The Input Assembler's bindings of a context: vertex buffer views per slot, the index buffer
view and the primitive topology, stored as D3D's IA calls store them (no validation against the
pipeline state until a draw; see :mod:`gpuia.gpu.context.resolve`).

Two binding forms are accepted, as in the seeds of the API:

.. code-block:: py

    ctx.ia_set_vertex_buffers(0, [vb0, vb1], [12, 4], [0, 0])           # D3D10/11
    ctx.ia_set_vertex_buffers(0, [VertexBufferView(vb0, 12), None])     # D3D12 views; None unbinds

A buffer must carry the ``vertex_buffer`` bind flag to be bound as a vertex buffer (the
``index_buffer`` flag for an index buffer).

Vertex buffer views are cached by (buffer, stride, offset): rebinding a known combination in
the D3D10/11 form finds its view with one dictionary look-up, which makes the per-draw rebind of
an engine cheap. A buffer bound as a Stream Output target is bound as NULL, with a warning
(IASetVertexBuffers remark)."""

from __future__ import annotations

import warnings

from ...d3d.ia_desc import IndexBufferView, VertexBufferView
from ...d3d.topology import TopologyInfo, topology_info
from ...errors import InvalidDescError
from ..buffers import checked_buffer
from ..cache import remember

__all__ = ["IAState", "as_list"]

VIEW_CACHE_SIZE = 4096  # views remembered per context (each holds its buffer alive)


def as_list(value, field: str, where: str = "IASetVertexBuffers") -> list:
    """``value`` as a list; InvalidDescError naming ``where`` and ``field`` if it is no
    sequence."""
    try:
        return list(value)
    except TypeError:
        raise InvalidDescError(where, field, value, "expected a sequence") from None


class IAState:
    """IA bindings. ``invalidate`` is the draw-state cache's: a binding that changes calls it
    (the cache makes its IAState, :class:`~gpuia.gpu.context.resolve.StateCache`).

    Attributes (read by the draw-state cache and the Stream Output engine):
        views (dict): input slot -> VertexBufferView, or None for a NULL binding.
        index (IndexBufferView | None): the bound index buffer view.
        topology (TopologyInfo | None): the primitive topology.
        so_bound (set): ids of buffers bound as Stream Output targets (bound as NULL here).
        slot_count (int): input slots of the pipeline state's profile.
        view_cache (dict): (id(buffer), stride, offset) -> view, for cheap rebinds.
    """

    def __init__(self, device, invalidate):
        self.device = device
        self.invalidate = invalidate
        self.views: dict[int, VertexBufferView | None] = {}
        self.view_cache: dict = {}
        self.index: IndexBufferView | None = None
        self.topology: TopologyInfo | None = None
        self.so_bound: set[int] = set()
        self.slot_count = 32

    def set_primitive_topology(self, topology) -> None:
        try:
            self.topology = topology_info(topology)
        except ValueError as e:
            raise InvalidDescError("IASetPrimitiveTopology", "PrimitiveTopology", topology,
                                   str(e)) from None
        self.invalidate()

    def set_vertex_buffers(self, start_slot: int, buffers, strides=None, offsets=None) -> None:
        """IASetVertexBuffers (see :meth:`gpuia.gpu.Context.ia_set_vertex_buffers`, which first
        tries the rebind of views already in :attr:`view_cache` itself). A call that fails
        changes nothing."""
        if buffers is None:
            return
        invalidate = self.invalidate
        if type(buffers) is not list and type(buffers) is not tuple:
            buffers = as_list(buffers, "ppVertexBuffers")
        if strides is not None and type(strides) is not list and type(strides) is not tuple:
            strides = as_list(strides, "pStrides")
        if offsets is not None and type(offsets) is not list and type(offsets) is not tuple:
            offsets = as_list(offsets, "pOffsets")
        n = len(buffers)
        limit = self.slot_count
        if type(start_slot) is not int:
            raise InvalidDescError("IASetVertexBuffers", "StartSlot", start_slot,
                                   "must be an integer")
        if start_slot < 0 or start_slot + n > limit:
            raise InvalidDescError("IASetVertexBuffers", "StartSlot", start_slot,
                                   f"slots {start_slot}..{start_slot + n - 1} exceed the "
                                   f"{limit} input slots")
        if strides is not None or offsets is not None:
            if strides is None or len(strides) < n:
                raise InvalidDescError("IASetVertexBuffers", "pStrides", strides,
                                       f"needs one stride per buffer ({n})")
            if offsets is not None and len(offsets) < n:
                raise InvalidDescError("IASetVertexBuffers", "pOffsets", offsets,
                                       f"needs one offset per buffer ({n})")
        new: dict[int, VertexBufferView | None] = {}
        cache = self.view_cache
        for i in range(n):
            b = buffers[i]
            slot = start_slot + i
            if b is None:
                new[slot] = None
                continue
            if strides is not None:
                off = 0 if offsets is None else offsets[i]
                # Keyed by the buffer's id; a hit must hold that very buffer. Only plain ints
                # take the cache (8.0 == 8 must not slip past validation).
                key = (id(b), strides[i], off)
                hit = (cache.get(key) if type(key[1]) is int and type(off) is int
                       else None)
                if hit is not None and hit.buffer is b and not b.released:
                    view = hit
                else:
                    if isinstance(b, VertexBufferView):
                        raise InvalidDescError("IASetVertexBuffers", f"ppVertexBuffers[{i}]", b,
                                               "views carry their own stride and offset; pass "
                                               "buffers with pStrides/pOffsets, or views alone")
                    self.check_vertex_buffer(slot, b)
                    try:
                        view = VertexBufferView(b, strides[i], off)
                    except InvalidDescError as e:
                        raise InvalidDescError(f"IASetVertexBuffers slot {slot}", e.field,
                                               e.value, e.rule) from None
                    remember(cache, key, view, VIEW_CACHE_SIZE)
            else:
                view = b
                if not isinstance(view, VertexBufferView):
                    raise InvalidDescError("IASetVertexBuffers", f"pViews[{i}]", view,
                                           "expected a VertexBufferView (or give pStrides to "
                                           "bind buffers)")
                if view.buffer is None:
                    new[slot] = None
                    continue
                self.check_vertex_buffer(slot, view.buffer)
            if id(view.buffer) in self.so_bound:
                warnings.warn(f"IASetVertexBuffers: slot {slot}'s buffer is bound as a Stream "
                              f"Output target; the IA binds NULL instead", stacklevel=4)
                view = None
            new[slot] = view
        views = self.views
        for slot, view in new.items():
            if views.get(slot) is not view:
                views[slot] = view
                invalidate()

    def check_vertex_buffer(self, slot: int, buf) -> None:
        """``buf`` may be bound at IA slot ``slot``: a live gpuia Buffer of this device with the
        vertex_buffer (or stream_output) bind flag."""
        checked_buffer(buf, self.device, f"IASetVertexBuffers slot {slot}")
        buf.check_live(f"IASetVertexBuffers slot {slot}")
        if "vertex_buffer" not in buf.bind and "stream_output" not in buf.bind:
            raise InvalidDescError(f"IASetVertexBuffers slot {slot}", "buffer", buf,
                                   "was not created with the vertex_buffer bind flag "
                                   "(D3D10_BIND_VERTEX_BUFFER)")

    def set_index_buffer(self, view: IndexBufferView | None) -> None:
        if view is not None:
            if not isinstance(view, IndexBufferView):
                raise InvalidDescError("IASetIndexBuffer", "pView", view,
                                       "expected an IndexBufferView")
            buf = view.buffer
            if buf is not None:
                checked_buffer(buf, self.device, "IASetIndexBuffer")
                if "index_buffer" not in buf.bind:
                    raise InvalidDescError("IASetIndexBuffer", "buffer", buf,
                                           "was not created with the index_buffer bind flag")
                buf.check_live("IASetIndexBuffer")
        self.index = view

    def set_so_targets(self, buffer_ids: set) -> None:
        """The buffers now bound as Stream Output targets: IA slots holding one become NULL,
        with a warning, as the D3D runtime does."""
        self.so_bound = buffer_ids
        for slot, v in list(self.views.items()):
            if v is not None and id(v.buffer) in buffer_ids:
                warnings.warn(f"SOSetTargets: the buffer at IA slot {slot} is now a Stream "
                              f"Output target; the IA slot is set to NULL", stacklevel=4)
                self.views[slot] = None
                self.invalidate()
