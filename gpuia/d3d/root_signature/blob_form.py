"""A serialized root signature: the ``RTS0`` chunk's bytes, alone or in a DXBC container (what
D3D12SerializeRootSignature / D3D12SerializeVersionedRootSignature return, and what FXC and DXC
put in a shader compiled with a ``[RootSignature]``).

The layout (little-endian u32 words; every offset from the chunk's start; the public
statement is DirectXShaderCompiler's ``DxilRootSignature.h``, its ``DxilContainer*`` structs):

* header, 6 words: Version (1: 1.0, 2: 1.1), NumParameters, RootParametersOffset,
  NumStaticSamplers, StaticSamplersOffset, Flags;
* per root parameter, 3 words: ParameterType, ShaderVisibility, PayloadOffset; the payload:
  a table's NumDescriptorRanges and DescriptorRangesOffset; root constants' ShaderRegister,
  RegisterSpace, Num32BitValues; a root descriptor's ShaderRegister, RegisterSpace and, in 1.1,
  Flags;
* per range: RangeType, NumDescriptors, BaseShaderRegister, RegisterSpace, then in 1.1 Flags,
  then OffsetInDescriptorsFromTableStart (5 words in 1.0, 6 in 1.1);
* per static sampler, 13 words: D3D12_STATIC_SAMPLER_DESC (Filter, AddressU, AddressV,
  AddressW, MipLODBias as f32, MaxAnisotropy, ComparisonFunc, BorderColor, MinLOD and MaxLOD as
  f32, ShaderRegister, RegisterSpace, ShaderVisibility).

Guaranteed: :func:`read_root_signature_blob` returns the :class:`~.model.RootSignature` the bytes
hold, numbers kept as stored (flags 0 stays 0). Refused, with a
:class:`~gpuia.errors.ContainerError` naming the byte offset: a version other than 1 or 2, a
parameter type it cannot place, and any offset or count that reaches past the chunk's end.
"""

from __future__ import annotations

import struct

from ...errors import ContainerError
from ..container.chunks import MAGIC, read_chunks
from .model import (
    PARAMETER_TYPES,
    DescriptorRange,
    RootParameter,
    RootSignature,
    StaticSampler,
)

__all__ = ["read_root_signature_blob", "read_rts0", "container_root_signature"]

_VERSIONS = {1: "1.0", 2: "1.1"}
_SAMPLER = struct.Struct("<4If3I2f3I")  # D3D12_STATIC_SAMPLER_DESC, 52 bytes


class _Reader:
    def __init__(self, data: bytes, base: int, label: str):
        self.data, self.base, self.label = data, base, label

    def words(self, at: int, count: int, what: str) -> tuple[int, ...]:
        if at < 0 or at + 4 * count > len(self.data):
            raise ContainerError(self.label, self.base + at,
                                 f"{what} ({count} words) runs past the chunk's end "
                                 f"({len(self.data)} bytes)")
        return struct.unpack_from(f"<{count}I", self.data, at)

    def fail(self, at: int, rule: str) -> ContainerError:
        return ContainerError(self.label, self.base + at, rule)


def read_rts0(data: bytes, base: int = 0, label: str = "RTS0",
              origin: str = "RTS0") -> RootSignature:
    """The root signature an ``RTS0`` chunk's data holds (``base``: where the data starts in
    its file, for messages)."""
    r = _Reader(data, base, label)
    version, n_params, params_at, n_samplers, samplers_at, flags = r.words(0, 6, "the header")
    if version not in _VERSIONS:
        raise r.fail(0, f"version {version}: gpuia reads root signature versions 1 (1.0) and "
                        f"2 (1.1)")
    v11 = version == 2
    if n_params > len(data) // 12 or n_samplers > len(data) // _SAMPLER.size:
        raise r.fail(4, f"{n_params} parameters and {n_samplers} static samplers cannot fit "
                        f"the chunk's {len(data)} bytes")
    params = []
    for i in range(n_params):
        at = params_at + 12 * i
        kind, visibility, payload = r.words(at, 3, f"root parameter {i}")
        if kind == PARAMETER_TYPES["descriptor_table"]:
            count, ranges_at = r.words(payload, 2, f"root parameter {i}'s table")
            size = 24 if v11 else 20
            if count > len(data) // size:
                raise r.fail(payload, f"root parameter {i}: {count} ranges cannot fit the "
                                      f"chunk's {len(data)} bytes")
            ranges = []
            for k in range(count):
                w = r.words(ranges_at + size * k, size // 4, f"root parameter {i} range {k}")
                flags_k, offset = (w[4], w[5]) if v11 else (0, w[4])
                ranges.append(DescriptorRange(w[0], w[1], w[2], w[3], offset, flags_k))
            params.append(RootParameter(kind, visibility, tuple(ranges)))
        elif kind == PARAMETER_TYPES["32bit_constants"]:
            reg, space, values = r.words(payload, 3, f"root parameter {i}'s constants")
            params.append(RootParameter(kind, visibility, (), reg, space, values))
        elif kind in (PARAMETER_TYPES["cbv"], PARAMETER_TYPES["srv"], PARAMETER_TYPES["uav"]):
            w = r.words(payload, 3 if v11 else 2, f"root parameter {i}'s descriptor")
            params.append(RootParameter(kind, visibility, (), w[0], w[1], 0,
                                        w[2] if v11 else 0))
        else:
            raise r.fail(at, f"root parameter {i}: ParameterType {kind} is no "
                             f"D3D12_ROOT_PARAMETER_TYPE (rules 16.1)")
    samplers = []
    for i in range(n_samplers):
        at = samplers_at + _SAMPLER.size * i
        r.words(at, _SAMPLER.size // 4, f"static sampler {i}")
        (filt, u, v, w, bias, aniso, func, border, min_lod, max_lod, reg, space,
         visibility) = _SAMPLER.unpack_from(data, at)
        samplers.append(StaticSampler(reg, space, visibility, filt, u, v, w, bias, aniso, func,
                                      border, min_lod, max_lod))
    return RootSignature(_VERSIONS[version], tuple(params), tuple(samplers), flags,
                         origin=origin)


def container_root_signature(blob: bytes, origin: str = "RTS0") -> RootSignature | None:
    """The root signature in a DXBC container's ``RTS0`` chunk; None without one."""
    for chunk in read_chunks(blob):
        if chunk.fourcc == "RTS0":
            return read_rts0(chunk.data, chunk.offset, chunk.label, origin)
    return None


def read_root_signature_blob(blob: bytes, origin: str = "root signature blob"
                             ) -> RootSignature:
    """The root signature of a serialized blob: a DXBC container with an ``RTS0`` chunk (what
    D3D12SerializeRootSignature returns), or the chunk's data alone."""
    if blob[:4] == MAGIC:
        rs = container_root_signature(blob, origin)
        if rs is None:
            found = ", ".join(c.fourcc for c in read_chunks(blob))
            raise ContainerError("header", 0, f"the container has no RTS0 chunk (chunks: "
                                              f"{found or 'none'})")
        return rs
    return read_rts0(blob, 0, "RTS0", origin)
