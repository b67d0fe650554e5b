"""The texture SRVs and samplers of a Context (docs/resources.md).

gpuia has no descriptor heaps: :meth:`TextureState.set_texture` stands for a texture SRV
(D3D12_TEX1D_SRV, TEX2D_SRV, TEX2D_ARRAY_SRV or TEX3D_SRV of the whole resource:
MostDetailedMip 0, every level) in a descriptor table at the shader's ``register(tN,
spaceS)``, and :meth:`TextureState.set_sampler` for a sampler (D3D12_SAMPLER_DESC, or a root
signature's static sampler) at ``register(sN)``. Guaranteed: at the draw every texture and
sampler the vertex shader reads is bound at its @group(3) binding (``gpuia.d3d.textures``).
Refused when set: a register out of range, no texture of this device
(``gpuia.gpu.textures.create_texture``), a sampler desc gpuia does not sample
(``gpuia.d3d.textures.sampler_desc``); at the draw, naming the register: one the shader reads
that is not set, a texture of another dimension than the shader's (a Texture3D needs a
``texture3d``, a Texture1D a ``texture1d``: an SRV's dimension is its resource's), a sampler
set where the pipeline state's root signature holds a static sampler (D3D12 has no way to
override one: the static sampler is bound itself, :attr:`TextureState.static`), a released
texture, a texture the shader samples whose format WebGPU does not filter on this device
(R32_FLOAT and R32G32B32A32_FLOAT without ``float32-filterable``), a sampler of the other kind
than the shader's (a COMPARISON_ filter exactly for a SamplerComparisonState) and a texture the
shader compares whose format sample_c does not take, or a UNORM one (rules 17.10), a texture
whose format's return type (float, uint, sint) is not the one the shader declares (rules
17.12). A comparison
sampler binds no WebGPU sampler: its state words are its binding.
"""

from __future__ import annotations

import numpy as np

from ...d3d.srv_bindings import SRV_SLOTS
from ...d3d.textures import (
    SAMPLER_SLOTS,
    SAMPLER_STATE_BINDING,
    STATE_ROWS,
    TEXTURE_FORMATS,
    SamplerDesc,
    check_sampler_kind,
    check_view_format,
    check_view_shape,
    sampler_desc,
)
from ...errors import InvalidDescError, UnsupportedError
from ..textures import Texture2D, create_sampler
from .srv_state import check_register

__all__ = ["TextureState"]


class TextureState:
    """Textures by (register, space) and samplers by register."""

    def __init__(self, device):
        self.device = device
        self.textures: dict[tuple[int, int], Texture2D] = {}
        self.samplers: dict[int, tuple[SamplerDesc, object]] = {}
        # the pipeline state's static samplers (register -> desc), set before each draw
        self.static: dict[int, SamplerDesc] = {}
        self._static_samplers: dict[SamplerDesc, object] = {}  # created once per desc

    def set_texture(self, register: int, texture: Texture2D | None, space: int = 0) -> None:
        where = "CreateShaderResourceView"
        check_register(where, "ShaderRegister", register, SRV_SLOTS, "t", space)
        if texture is None:
            self.textures.pop((register, space), None)
            return
        if not isinstance(texture, Texture2D) or texture.device is not self.device:
            raise InvalidDescError(where, "pResource", texture,
                                   "expected a Texture2D of this device (gpuia.gpu.textures."
                                   "create_texture)")
        self.textures[(register, space)] = texture

    def set_sampler(self, register: int, desc: dict | SamplerDesc | None) -> None:
        where = "CreateSampler"
        if type(register) is not int or not 0 <= register < SAMPLER_SLOTS:
            raise InvalidDescError(where, "ShaderRegister", register,
                                   f"expected 0..{SAMPLER_SLOTS - 1} (WebGPU's "
                                   f"maxSamplersPerShaderStage)")
        if desc is None:
            self.samplers.pop(register, None)
            return
        if not isinstance(desc, SamplerDesc):
            desc = sampler_desc(desc, f"{where} s{register}")
        self.samplers[register] = (desc, create_sampler(self.device, desc))

    def entries(self, textures, samplers, stage: str = "vertex shader") -> tuple[tuple, list]:
        """(a key of what is bound, the bind-group entries) of the shader's ``textures`` and
        ``samplers`` (``gpuia.hlsl.textures``) of the ``stage`` named, checked as the module
        docstring says."""
        key: list = []
        entries: list = []
        for t in textures:
            at = f"t{t.register}" + (f", space{t.space}" if t.space else "")
            tex = self.textures.get((t.register, t.space))
            if tex is None:
                raise InvalidDescError("draw", f"texture {at}", None,
                                       f"the {stage} reads {t.name} (register {at}); "
                                       f"set_texture_shader_resource_view was not called")
            if tex.released:
                raise InvalidDescError("draw", f"texture {at}", tex, "was released")
            fmt = TEXTURE_FORMATS[tex.format]
            check_view_format(t, fmt.name, f"draw: texture {at}")  # rules 17.12, 17.10
            if t.sampled and not fmt.filterable and not self.device.caps.float32_filterable:
                raise UnsupportedError(
                    f"draw: texture {at}: {fmt.name}: the {stage} samples {t.name}, "
                    f"and WebGPU filters {fmt.webgpu} only with the float32-filterable "
                    f"feature, which this device lacks (gpuia binds a sampled texture "
                    f"filterable, whatever the sampler; Load reads any format)")
            if tex.dimension != t.dimension:
                raise InvalidDescError("draw", f"texture {at}", tex.dimension,
                                       f"the {stage} reads {t.name} as a {t.hlsl_type}: "
                                       f"bind a {t.dimension} there (a D3D12 SRV's dimension "
                                       f"is its resource's)")
            check_view_shape(t, tex.width, tex.height, tex.array_size, f"draw: texture {at}")
            if t.compared and fmt.compare_bits:
                raise UnsupportedError(
                    f"draw: texture {at}: {fmt.name}: the {stage} samples {t.name} with "
                    f"a comparison sampler, which gpuia's WGSL emulates for float formats "
                    f"only (rules 17.10)")
            key.append(tex)
            entries.append({"binding": t.binding, "resource": tex.cube_view(t.array) if t.cube
                            else tex.array_view if t.array else tex.view})
        # gpuia's sampler state rows (gpuia.d3d.textures.STATE_ROWS): the samplers' state
        # words, border colours and LOD clamps, then the textures' border ranges
        state = np.zeros((STATE_ROWS * SAMPLER_SLOTS, 4), np.uint32)
        for t in textures:
            count, lo, hi = TEXTURE_FORMATS[self.textures[(t.register, t.space)].format
                                            ].border_range
            state[3 * SAMPLER_SLOTS + t.index] = (count, *np.array([lo, hi], np.float32).view(
                np.uint32), 0)
        for s in samplers:
            bound = self._sampler(s.register)
            if bound is None:
                raise InvalidDescError("draw", f"sampler s{s.register}", None,
                                       f"the {stage} samples with {s.name} (register "
                                       f"s{s.register}); set_sampler was not called")
            check_sampler_kind(s, bound[0], f"sampler s{s.register}")
            if not s.comparison:  # a comparison's filter is gpuia's WGSL (no WebGPU sampler)
                key.append(bound[1])
                entries.append({"binding": s.binding, "resource": bound[1]})
            state[s.register] = bound[0].state_words()
            state[SAMPLER_SLOTS + s.register], state[2 * SAMPLER_SLOTS + s.register] = \
                bound[0].border_words()
        if samplers:  # what WebGPU's sampler cannot say (gpuia.hlsl.textures)
            key.append(state.tobytes())
            entries.append(self._state_entry(state.tobytes()))
        return tuple(key), entries

    def _sampler(self, register: int) -> tuple[SamplerDesc, object] | None:
        """(desc, WebGPU sampler) bound at ``register``: the static sampler holding it, else
        the one set_sampler set (None: none)."""
        desc = self.static.get(register)
        if desc is None:
            return self.samplers.get(register)
        if register in self.samplers:
            raise InvalidDescError("draw", f"sampler s{register}", self.samplers[register][0],
                                   f"the pipeline state's root signature holds s{register} in "
                                   f"a static sampler, which D3D12 gives no way to override; "
                                   f"unbind it (set_sampler({register}, None))")
        if desc not in self._static_samplers:
            self._static_samplers[desc] = create_sampler(self.device, desc)
        return desc, self._static_samplers[desc]

    def _state_entry(self, words: bytes) -> dict:
        import wgpu

        buf = self.device.device.create_buffer_with_data(data=words,
                                                         usage=wgpu.BufferUsage.UNIFORM)
        return {"binding": SAMPLER_STATE_BINDING,
                "resource": {"buffer": buf, "offset": 0, "size": len(words)}}
