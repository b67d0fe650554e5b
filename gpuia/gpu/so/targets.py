"""Stream Output's bound targets: D3D12_STREAM_OUTPUT_BUFFER_VIEWs checked and resolved to what
the shaders address, and the BufferFilledSize counters behind them.

:func:`checked_views` refuses a whole SOSetTargets call (InvalidDescError) before anything
changes: more than 4 views, fewer offsets than views, a view that is no StreamOutputBufferView,
a buffer that is no gpuia Buffer of this device or lacks the stream_output bind flag, a
BufferLocation or counter location that is no multiple of 4 inside its buffer, an offset that
is neither a 32-bit byte offset (a multiple of 4) nor -1 (append).

:class:`SOCounters` then binds what was checked: a view with its own counter buffer (D3D12)
counts there; one without gets gpuia's own counter for its buffer (D3D11 style), made on the
buffer's first binding and starting at 0 (rules 9.5), kept for the buffer's later bindings. It
remembers the last view of every buffer, bound now or not, for DrawAuto.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...d3d.so_desc import StreamOutputBufferView
from ...errors import InvalidDescError
from ..buffers import checked_buffer
from ..cache import remember
from ..device import Buffer

__all__ = ["SOTargetBinding", "CheckedView", "BoundTargets", "checked_views", "SOCounters"]

_U32 = 0xFFFFFFFF


@dataclass(eq=False)
class SOTargetBinding:
    """One bound SO target, resolved to what the shaders address."""

    view: StreamOutputBufferView
    buffer: Buffer
    counter: object  # wgpu buffer holding the counter
    counter_offset: int


@dataclass(eq=False)
class CheckedView:
    """One view of an SOSetTargets call that passed :func:`checked_views`: its ``slot``,
    ``view`` and data ``buffer``; ``counter`` and ``counter_offset``, the application's counter
    wgpu buffer and byte offset (None and 0: gpuia's own, made when bound); ``offset``, the
    call's offset for it (None: none given)."""

    slot: int
    view: StreamOutputBufferView
    buffer: Buffer
    counter: object
    counter_offset: int
    offset: int | None


@dataclass(eq=False)
class BoundTargets:
    """What :meth:`SOCounters.bind` made of the checked views: ``targets``, slot ->
    :class:`SOTargetBinding`; ``writes``, the (counter wgpu buffer, byte offset, value) writes
    to submit; ``known``, (counter wgpu buffer, value or None) for what the host now knows of
    each counter (None: nothing, the application's own)."""

    targets: dict[int, SOTargetBinding]
    writes: list[tuple]
    known: list[tuple]


def _check_view(device, slot: int, v) -> CheckedView:
    """One view's checks (module docstring), its offset left to the caller."""
    where = f"SOSetTargets slot {slot}"
    if not isinstance(v, StreamOutputBufferView):
        raise InvalidDescError(where, "view", v, "expected a StreamOutputBufferView")
    buf = checked_buffer(v.buffer, device, where)
    if "stream_output" not in buf.bind:
        raise InvalidDescError(where, "buffer", buf, "was not created with the "
                               "stream_output bind flag (D3D10_BIND_STREAM_OUTPUT)")
    if v.offset % 4:
        raise InvalidDescError(where, "BufferLocation", v.offset,
                               "must be a multiple of 4 (SO writes 32-bit words)")
    counter, coff = None, 0  # None: gpuia's own counter for this buffer, made when bound
    if v.filled_size_buffer is not None:
        cbuf = checked_buffer(v.filled_size_buffer, device, where, "BufferFilledSizeLocation")
        if v.filled_size_offset % 4 or v.filled_size_offset + 4 > cbuf.size:
            raise InvalidDescError(where, "BufferFilledSizeLocation", v.filled_size_offset,
                                   f"must be a multiple of 4 inside the "
                                   f"{cbuf.size}-byte buffer")
        counter, coff = cbuf.wgpu, v.filled_size_offset
    return CheckedView(slot, v, buf, counter, coff, None)


def checked_views(device, views: list, offsets) -> list[CheckedView]:
    """The bound (not None) views of an SOSetTargets call on ``device`` (a gpuia Device),
    checked (module docstring), with their offsets from ``offsets`` (None: none given); raises
    InvalidDescError for the first refused one."""
    if len(views) > 4:
        raise InvalidDescError("SOSetTargets", "NumViews", len(views), "at most 4 targets")
    if offsets is not None and len(offsets) < len(views):
        raise InvalidDescError("SOSetTargets", "pOffsets", offsets,
                               f"needs one offset per view ({len(views)})")
    checked = []
    for slot, v in enumerate(views):
        if v is None:
            continue
        c = _check_view(device, slot, v)
        off = None if offsets is None else offsets[slot]
        if off is not None and off != -1 and off != _U32:
            if type(off) is not int or off < 0 or off % 4 or off > _U32:
                raise InvalidDescError(f"SOSetTargets slot {slot}", "pOffsets", off,
                                       "a byte offset (multiple of 4, a 32-bit counter: "
                                       "rules 9.6) or -1 to append")
        c.offset = off
        checked.append(c)
    return checked


class SOCounters:
    """gpuia's own BufferFilledSize counters, one per buffer bound without a counter buffer,
    and the last SO view of every buffer (module docstring), on the wgpu device
    ``wgpu_device``. Both tables hold their buffers, so a freed buffer's id is never mistaken
    for a new one's."""

    def __init__(self, wgpu_device):
        self._device = wgpu_device
        self._own: dict[int, tuple] = {}  # id(Buffer) -> (Buffer, counter buffer, offset)
        self._last_view: dict[int, tuple] = {}  # id(Buffer) -> (Buffer, counter, offset, loc.)

    def count(self) -> int:
        """BufferFilledSize counters gpuia made for targets given without one."""
        return len(self._own)

    def is_own(self, counter) -> bool:
        """Whether the counter wgpu buffer is one gpuia made (never the application's)."""
        return any(k[1] is counter for k in self._own.values())

    def last_view(self, buf: Buffer):
        """(counter wgpu buffer, counter byte offset, BufferLocation) of the last SO target view
        over ``buf``, bound now or not, or None if it never was a target."""
        known = self._last_view.get(id(buf))
        if known is None or known[0] is not buf:
            return None
        return known[1], known[2], known[3]

    def bind(self, checked: list[CheckedView]) -> BoundTargets:
        """Bind views that passed :func:`checked_views`: each gets its counter (gpuia's own made
        here where the buffer has none yet) and becomes its buffer's last view; each buffer's
        host copy is dropped (the GPU writes it: index planning, DrawAuto and the reference
        must not read stale bytes). Nothing is written to the GPU: the writes are returned."""
        out = BoundTargets({}, [], [])
        for c in checked:
            buf, counter, coff, off = c.buffer, c.counter, c.counter_offset, c.offset
            own = counter is None
            given = off if off is not None and off != -1 and off != _U32 else None  # not append
            value = given
            if own:
                known = self._own.get(id(buf))
                if known is None or known[0] is not buf:
                    made = self._device.create_buffer(size=16,
                                                      usage="STORAGE|COPY_DST|COPY_SRC")
                    known = (buf, made, 0)
                    remember(self._own, id(buf), known)
                    out.writes.append((made, 0, 0))  # new buffers start at 0 (rules 9.5)
                    value = 0 if given is None else given
                counter, coff = known[1], known[2]
            if given is not None:
                out.writes.append((counter, coff, given))
            buf.host = None
            out.targets[c.slot] = SOTargetBinding(c.view, buf, counter, coff)
            # None keeps what the host knew of its own counter; the application's counter
            # buffer may be written by anything.
            if not own or value is not None:
                out.known.append((counter, value if own else None))
            # DrawAuto reads the filled size of the buffer's last SO view, after unbinding too.
            remember(self._last_view, id(buf), (buf, counter, coff, c.view.offset))
        return out
