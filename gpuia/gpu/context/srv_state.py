"""The root shader resource views of a Context: buffer SRVs a vertex shader reads.

With gpuia's implied root signature, root SRV (N, S) is the shader's ``register(tN, spaceS)``
(``gpuia.hlsl.srv``; S 0..6). Guaranteed: a view is the buffer's bytes from ``offset`` on,
``num_elements`` of them (D3D12_BUFFER_SRV.NumElements: elements of the shader's structure stride,
4-byte words for a ``ByteAddressBuffer``; None: as many whole ones as the buffer holds after
``offset``; a typed ``Buffer<T>``'s view has a ``format``, its elements the format's, its
``offset`` any whole element: ``gpuia.hlsl.typed_buffers``); the buffer is bound whole at
``@group(3) @binding(16 + 128 S + N)`` and the view's (first element, count; a typed view's
format value and size) reach the shader through gpuia's uniform array at ``@binding(15)``, so a
read past the view returns 0 as D3D12 defines; the programs of a draw are built for its typed
views' formats (:func:`specialised_signature`: one per set of formats, found again when it
returns). Refused at the draw, naming the register: a view the
shaders read but none is set, an ``offset`` that is no multiple of the element's stride, a
``structure_byte_stride`` other than the shader's, a view reaching past the buffer, a released
buffer, a typed buffer's view without a format or with one whose values are not the shader's
kind, a format on another view; refused when set: no buffer of this device, no
``shader_resource`` bind flag, a register past t127 or a space past 6, an offset that is not a
multiple of 4 (of the format's size for a typed view), a format D3D12 refuses for a buffer
view. A typed UAV (``RWBuffer<T>``) takes a format of T's components in 32-bit channels of T's
kind (``gpuia.d3d.uav_formats``), checked at the draw.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ...d3d.buffer_views import view_format
from ...d3d.signature import ShaderSignature
from ...d3d.srv_bindings import SRV_SLOTS, SRV_SPACES, VIEWS_BINDING
from ...d3d.uav_bindings import UAV_SLOTS
from ...d3d.uav_formats import typed_uav_format
from ...errors import InvalidDescError, UnsupportedError
from ...wgsl.storage_types import element_type, shader_type_of
from ...wgsl.typed_reads import specialise
from ..buffers import Buffer, checked_buffer
from ..cache import build_once
from ..lifetime import released_error

__all__ = ["SrvState", "check_resource_limits", "check_uav_support", "check_register",
           "specialised_signature"]

_WHERE = "SetGraphicsRootShaderResourceView"
_UAV_WHERE = "SetGraphicsRootUnorderedAccessView"


def check_register(where: str, field: str, register, slots: int, letter: str, space) -> None:
    """Refuse (InvalidDescError, naming ``where`` and the field) a register outside
    0..``slots``-1 of the shader's class ``letter`` or a space outside the bound spaces."""
    if type(register) is not int or not 0 <= register < slots:
        raise InvalidDescError(where, field, register,
                               f"expected 0..{slots - 1} (the shader's register {letter}N)")
    if type(space) is not int or not 0 <= space < SRV_SPACES:
        raise InvalidDescError(where, "RegisterSpace", space,
                               f"expected 0..{SRV_SPACES - 1} (the shader's spaceS)")


class SrvState:
    """Root SRVs by (register, space) and root UAVs by (register, space, "u") (a
    ``RWStructuredBuffer`` or ``RWByteAddressBuffer``, ``gpuia.hlsl.uavs``): (Buffer, offset,
    num_elements or None, stride or None, format or None)."""

    def __init__(self, device):
        self.device = device
        self.views: dict[tuple, tuple] = {}

    def set(self, register: int, buffer: Buffer | None, offset: int, num_elements,
            structure_byte_stride, space: int = 0, format=None, writable: bool = False) -> None:
        where, slots, letter, flag = ((_UAV_WHERE, UAV_SLOTS, "u", "unordered_access")
                                      if writable else
                                      (_WHERE, SRV_SLOTS, "t", "shader_resource"))
        check_register(where, "RootParameterIndex", register, slots, letter, space)
        key = (register, space, "u") if writable else (register, space)
        if buffer is None:
            self.views.pop(key, None)
            return
        checked_buffer(buffer, self.device, where, "BufferLocation")
        if flag not in buffer.bind:
            raise InvalidDescError(where, "BufferLocation", buffer,
                                   f"was not created with the {flag} bind flag")
        buffer.check_live(where)
        # A typed view is a descriptor (its FirstElement any element of its format); a root SRV's
        # address is a multiple of 4.
        step = 4 if format is None else view_format(format, None, where).size
        if type(offset) is not int or offset < 0 or offset % step or offset > buffer.size:
            raise InvalidDescError(where, "offset", offset,
                                   f"a multiple of {step} inside the buffer's {buffer.size} "
                                   f"bytes")
        for name, value in (("NumElements", num_elements),
                            ("StructureByteStride", structure_byte_stride)):
            if value is not None and (type(value) is not int or value < 0):
                raise InvalidDescError(where, name, value, "expected a count >= 0 or None")
        self.views[key] = (buffer, offset, num_elements, structure_byte_stride, format)

    def window(self, r, stage: str = "vertex shader") -> tuple[Buffer, int, int]:
        """(buffer, first element, element count) of the view of resource ``r`` (a
        :class:`gpuia.hlsl.srv.ShaderResource` of the ``stage`` named), checked against the
        buffer."""
        space = f", space{r.space}" if r.space else ""
        view = "unordered access" if r.writable else "shader resource"
        where = f"root {view} view {r.register}{space}"
        if _key(r) not in self.views:
            call = f"{r.register}, ..., register_space={r.space}" if r.space else \
                f"{r.register}, ..."
            raise InvalidDescError("draw", where, None,
                                   f"the {stage} reads {r.name} (register "
                                   f"{r.register_name}); set_graphics_root_"
                                   f"{view.replace(' ', '_')}_view({call}) was not called")
        buffer, offset, count, stride, fmt = self.views[_key(r)]
        if buffer.released:
            raise released_error("draw", where, buffer)
        size = self._element_size(r, fmt, where)
        if stride is not None and r.kind == "structured" and stride != r.stride:
            raise InvalidDescError("draw", where, stride,
                                   f"StructureByteStride differs from the {r.stride} bytes of "
                                   f"{r.name}'s element")
        if offset % size:
            raise InvalidDescError("draw", where, offset,
                                   f"the view's offset is no multiple of {r.name}'s "
                                   f"{size}-byte element (FirstElement is in elements)")
        first = offset // size
        fits = (buffer.size - offset) // size
        count = fits if count is None else count
        if count > fits:
            raise InvalidDescError("draw", where, count,
                                   f"NumElements reaches past the buffer: {fits} elements of "
                                   f"{size} bytes fit after offset {offset}")
        return buffer, first, count

    def _element_size(self, r, fmt, where: str) -> int:
        """The bytes of one element of the view: the format's for a typed buffer (checked
        against what the shader reads, gpuia.hlsl.typed_buffers), else the shader's stride."""
        if r.kind != "typed":
            if fmt is not None:
                raise InvalidDescError("draw", where, fmt,
                                       f"{r.name} is a {r.kind} buffer: its view has no format "
                                       f"(format=None)")
            return r.stride
        if fmt is None:
            call = "unordered_access" if r.writable else "shader_resource"
            raise InvalidDescError("draw", where, None,
                                   f"{r.name} is a typed buffer: its view needs a format "
                                   f"(set_graphics_root_{call}_view(..., format=...))")
        kind, components = shader_type_of(element_type(r.type))
        if r.writable:  # a typed UAV stores T's bits (gpuia.d3d.uav_formats)
            return typed_uav_format(fmt, kind, components, f"draw: {where}").size
        return view_format(fmt, kind, f"draw: {where}").size

    def typed_words(self, r) -> tuple[int, int]:
        """(the DXGI value, the byte size) of a typed view's format; (0, 0) for another view."""
        fmt = self.views[_key(r)][4]
        if r.kind != "typed" or fmt is None:
            return 0, 0
        info = view_format(fmt, None, _WHERE)
        return info.dxgi_value, info.size

    def typed_formats(self, resources) -> tuple[tuple[int, int], ...]:
        """(index, DXGI value) of the bound view of each typed SRV of ``resources`` (a typed
        UAV stores T's bits: none): the formats the shader's programs are built for
        (:func:`specialised_signature`); call after :meth:`window` checked the views."""
        return tuple((r.index, self.typed_words(r)[0]) for r in resources
                     if r.kind == "typed" and not r.writable)

    def entries(self, resources) -> tuple[tuple, list]:
        """(a key of what is bound, the bind-group entries of ``resources`` less the views
        uniform) for @group(3); the uniform's words are the key's last item."""
        words = np.zeros((max(1, len(resources)), 4), np.uint32)
        bound, entries = [], []
        for r in resources:
            buffer, first, count = self.window(r)
            words[r.index] = (first, count, *self.typed_words(r))
            bound.append((r.binding, buffer))
            entries.append({"binding": r.binding, "resource": {
                "buffer": buffer.wgpu, "offset": 0, "size": buffer.wgpu.size}})
        return (tuple(bound), words.tobytes()), entries

    def views_entry(self, words: bytes) -> dict:
        """The bind-group entry of gpuia's views uniform holding ``words``."""
        import wgpu

        buf = self.device.device.create_buffer_with_data(
            data=words, usage=wgpu.BufferUsage.UNIFORM)
        return {"binding": VIEWS_BINDING, "resource": {"buffer": buf, "offset": 0,
                                                       "size": len(words)}}


_SPECIALISED: dict = {}  # (signature, formats) -> the signature of those formats' programs


def specialised_signature(signature: ShaderSignature, formats: tuple) -> ShaderSignature:
    """``signature`` with its module text specialised to the typed views' ``formats``
    (:meth:`SrvState.typed_formats`: each typed read decodes its bound format alone,
    :func:`gpuia.wgsl.typed_reads.specialise`), so every program built from a draw state's
    signature is keyed by them; ``signature`` itself when the shader reads no typed view.
    Equal arguments give the same object while it is cached."""
    if not formats:
        return signature
    return build_once(_SPECIALISED, (signature, formats), lambda: dataclasses.replace(
        signature, source=specialise(signature.source, formats)), 64)


def _key(r) -> tuple:
    """Where the view of shader resource ``r`` is kept: a UAV's registers are not an SRV's."""
    return (r.register, r.space, "u") if r.writable else (r.register, r.space)


def check_uav_support(resources, caps, adapter: str) -> None:
    """Refuse UAVs of the vertex shader on an adapter without wgpu's
    ``vertex-writable-storage`` feature: WebGPU lets a vertex shader write no storage buffer
    without it (docs/rules.md 18)."""
    written = [r for r in resources if r.writable]
    if written and not caps.vertex_writable_storage:
        raise UnsupportedError(
            f"SetPipelineState: the vertex shader writes "
            f"{', '.join(f'{r.name} ({r.register_name})' for r in written)}, a UAV; WebGPU "
            f"lets a vertex shader write a storage buffer only with the "
            f"vertex-writable-storage feature, which {adapter} lacks")


def check_resource_limits(resources, uniforms: int, caps, adapter: str,
                          stage: str = "vertex shader", storage: int = 0) -> None:
    """Refuse SRVs and UAVs the adapter cannot bind: together with the ``storage`` buffers the
    pass binds itself more than its ``max-storage-buffers-per-shader-stage``, or a views
    uniform beyond the ``uniforms`` uniform buffers the busiest pass binds already (root CBVs
    and gpuia's own) past ``max-uniform-buffers-per-shader-stage``; ``stage`` names the shader
    (a geometry shader's program is a compute pass of 3 storage buffers of gpuia's). (A vertex
    pass that pulls vertices or streams output counts its own storage buffers with the SRVs,
    and refuses or falls back when they exceed it: ``gpuia.gpu.vertex.plan``,
    ``gpuia.gpu.so.plan``.)"""
    if not resources:
        return
    if uniforms + 1 > caps.max_uniform_buffers_per_shader_stage:
        raise UnsupportedError(
            f"SetPipelineState: the {stage}'s shader resource views need one uniform "
            f"buffer of gpuia's (their views) beside the {uniforms} the pass binds: more than "
            f"{adapter} takes (max-uniform-buffers-per-shader-stage "
            f"{caps.max_uniform_buffers_per_shader_stage})")
    if len(resources) + storage > caps.max_storage_buffers_per_shader_stage:
        regs = ", ".join(r.register_name for r in resources)
        own = f" beside the {storage} of gpuia's the pass binds" if storage else ""
        raise UnsupportedError(
            f"SetPipelineState: the {stage} binds {len(resources)} shader resource and "
            f"unordered access views ({regs}), each a storage buffer of its stage{own}: "
            f"more than {adapter} takes "
            f"(max-storage-buffers-per-shader-stage "
            f"{caps.max_storage_buffers_per_shader_stage})")

