"""What a device can do, as gpuia's decisions read it: :class:`Caps`, and the probes that find
out what wgpu's limits do not say.

Guaranteed: every limit and feature gpuia relies on is read from wgpu (an adapter's or a
device's ``limits`` and ``features``), never assumed; the vertex formats are those this wgpu
build really maps, less those its native library aborts on (:func:`supported_vertex_formats`).
The probes (:func:`renderable_formats`, :func:`copies_depth`, :func:`device_alive`) try the
thing itself on a wgpu device with 1x1 objects, take whatever wgpu raises as "no", and destroy
what they made. Refused: nothing; a probe never raises, and a limit wgpu does not report is a
KeyError of :meth:`Caps.from_wgpu`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .lifetime import import_wgpu
from .targets import TARGET_FORMATS, texture_usage

__all__ = ["Caps", "FEATURES", "supported_vertex_formats", "renderable_formats", "copies_depth",
           "device_alive"]

_LIMIT_KEYS = ("max-vertex-buffers", "max-vertex-attributes", "max-vertex-buffer-array-stride",
               "max-storage-buffers-per-shader-stage", "max-storage-buffer-binding-size",
               "max-buffer-size", "max-uniform-buffer-binding-size",
               "min-uniform-buffer-offset-alignment", "min-storage-buffer-offset-alignment",
               "max-compute-workgroups-per-dimension", "max-inter-stage-shader-variables",
               "max-bind-groups", "max-color-attachments", "max-color-attachment-bytes-per-sample",
               "max-texture-dimension-2d", "max-uniform-buffers-per-shader-stage")
FEATURES = ("vertex-writable-storage", "indirect-first-instance", "pipeline-statistics-query",
            "float32-filterable")
"""The optional WebGPU features gpuia uses where the adapter has them: a Device asks for them,
and :class:`Caps` says which it got."""


@dataclass(frozen=True)
class Caps:
    """The limits and features of a device that gpuia's decisions depend on: every planner
    and check reads them from here, never assumes them. A frozen value. A
    :class:`~gpuia.gpu.Device`'s caps are read from its wgpu device and also probe what the
    limits do not say (``target_formats``, ``depth_copies``); an adapter listing's
    (:func:`~gpuia.gpu.list_adapters`) are read from the adapter and probe nothing.

    Arguments:
        max_vertex_buffers, max_vertex_attributes (int): WebGPU's limits of those names
            (hyphenated in WebGPU: ``max-vertex-buffers``, ...), as every limit below.
        max_vertex_buffer_array_stride (int): the largest native vertex buffer stride.
        max_storage_buffers_per_shader_stage (int): storage buffers one stage binds.
        max_storage_buffer_binding_size, max_buffer_size (int): bytes of one storage
            binding, of one buffer.
        max_uniform_buffer_binding_size (int): bytes of one uniform binding.
        min_uniform_buffer_offset_alignment (int): alignment of a uniform binding's offset.
        min_storage_buffer_offset_alignment (int): alignment of a storage binding's offset.
        max_compute_workgroups_per_dimension (int): workgroups of one dispatch, per dimension.
        max_inter_stage_shader_variables (int): vertex-to-pixel shader variables.
        max_bind_groups (int): bind groups of one pipeline layout.
        max_color_attachments (int): color targets of one render pass.
        max_color_attachment_bytes_per_sample (int): bytes of one sample over all of them.
        max_texture_dimension_2d (int): the largest 2-D texture side.
        max_uniform_buffers_per_shader_stage (int): uniform buffers one stage binds: gpuia's
            own blocks and the root constant buffers the shaders read together.
        vertex_writable_storage (bool): the ``vertex-writable-storage`` feature (a capture's
            ``storage`` route).
        indirect_first_instance (bool): the ``indirect-first-instance`` feature (an indirect
            draw's first instance other than 0).
        pipeline_statistics_query (bool): wgpu's native ``pipeline-statistics-query`` feature
            (the GPU's own vertex shader and clipper counts beside the raster check:
            :mod:`gpuia.harness.statistics_check`). Default False.
        float32_filterable (bool): the ``float32-filterable`` feature (an R32_FLOAT or
            R32G32B32A32_FLOAT texture a vertex shader samples, docs/resources.md).
        vertex_formats (frozenset): WebGPU vertex formats this wgpu build can use
            (:func:`supported_vertex_formats`).
        quirks (tuple): the :class:`~gpuia.gpu.quirks.Quirk` rows of the adapter.
        target_formats (frozenset | None): WebGPU formats of
            :data:`~gpuia.gpu.targets.TARGET_FORMATS` the device renders into; None where
            not probed.
        depth_copies (bool | None): whether the device copies a depth texture to a buffer;
            None where not probed.
    """

    max_vertex_buffers: int
    max_vertex_attributes: int
    max_vertex_buffer_array_stride: int
    max_storage_buffers_per_shader_stage: int
    max_storage_buffer_binding_size: int
    max_buffer_size: int
    max_uniform_buffer_binding_size: int
    min_uniform_buffer_offset_alignment: int
    min_storage_buffer_offset_alignment: int
    max_compute_workgroups_per_dimension: int
    max_inter_stage_shader_variables: int
    max_bind_groups: int
    max_color_attachments: int
    max_color_attachment_bytes_per_sample: int
    max_texture_dimension_2d: int
    max_uniform_buffers_per_shader_stage: int
    vertex_writable_storage: bool
    indirect_first_instance: bool
    pipeline_statistics_query: bool = False
    float32_filterable: bool = False
    vertex_formats: frozenset = frozenset()
    quirks: tuple = ()  # gpuia.gpu.quirks.Quirk rows that apply to this adapter
    # WebGPU formats of gpuia's target table this device renders into (probed by Device;
    # None: not probed, e.g. adapter listings): OpenGL ES takes fewer than WebGPU's core.
    target_formats: frozenset | None = None
    # Whether a depth texture's depth aspect can be copied to a buffer (probed by Device; wgpu's
    # OpenGL backend lacks the DEPTH_TEXTURE_AND_BUFFER_COPIES downlevel flag).
    depth_copies: bool | None = None

    @classmethod
    def from_wgpu(cls, limits: dict, features: Iterable[str]) -> Caps:
        """The caps of wgpu's ``limits`` and ``features`` (a ``GPUAdapter``'s or a
        ``GPUDevice``'s), with this wgpu build's vertex formats; no quirks, nothing probed.

        Arguments:
            limits (dict): wgpu's limits, keyed by WebGPU's hyphenated names.
            features: wgpu's feature names.

        Returns:
            The :class:`Caps`.

        Raises:
            KeyError: ``limits`` lacks a limit gpuia reads.
        """
        features = set(features)
        kw: dict[str, Any] = {k.replace("-", "_"): int(limits[k]) for k in _LIMIT_KEYS}
        kw.update({f.replace("-", "_"): f in features for f in FEATURES})
        return cls(**kw, vertex_formats=supported_vertex_formats())

    def as_dict(self) -> dict:
        """The caps as JSON-ready values (what ``gpuia adapters --json`` prints as
        ``limits``): every field by name, ``vertex_formats`` and ``target_formats`` as sorted
        lists, ``quirks`` as their reasons; ``target_formats`` and ``depth_copies`` left out
        where not probed.

        Returns:
            A new dict.
        """
        d = dict(self.__dict__)
        d["vertex_formats"] = sorted(self.vertex_formats)
        for probed in ("target_formats", "depth_copies"):  # what only a Device knows
            if d[probed] is None:
                del d[probed]
        if self.target_formats is not None:
            d["target_formats"] = sorted(self.target_formats)
        d["quirks"] = [q.reason for q in self.quirks]
        return d


# Vertex formats that wgpu-native versions accept in their enum but abort the process on (a Rust
# panic, not an error): "invalid vertex format for vertex attribute: 41" for unorm8x4-bgra in
# wgpu-native 29.0.1.1 (bundled with wgpu-py 0.32). Keyed by the lib's major version; formats
# listed here take the pulling path. tests/gpu/test_gpu_formats.py checks the abort still happens,
# so a fixed release shows up as a failing test rather than a silent slowdown.
_ABORTING_VERTEX_FORMATS = {29: frozenset({"unorm8x4-bgra"})}


def supported_vertex_formats() -> frozenset:
    """WebGPU vertex formats this wgpu-py and wgpu-native can really use. The enum is not
    trusted: wgpu-py 0.32 lists ``unorm10-10-10-2`` but has no mapping for it (KeyError when a
    pipeline is created), so the binding's mapping table decides, and formats the native library
    is known to abort on are removed."""
    wgpu = import_wgpu()
    names = set(wgpu.VertexFormat)
    try:
        from wgpu.backends.wgpu_native import version_info
        from wgpu.backends.wgpu_native._mappings import enummap
    except ImportError:  # pragma: no cover - another wgpu-py layout: trust the enum
        return frozenset(names)
    names -= _ABORTING_VERTEX_FORMATS.get(version_info[0], frozenset())
    return frozenset(n for n in names if f"VertexFormat.{n}" in enummap)


def device_alive(device) -> bool:
    """Whether the wgpu ``device`` still works: a 4-byte write and read-back (whatever a lost
    device raises is a no)."""
    try:
        usage = import_wgpu().BufferUsage
        buf = device.create_buffer_with_data(data=b"gpia", usage=usage.COPY_SRC | usage.COPY_DST)
    except Exception:  # noqa: BLE001 - whatever a lost device raises, it does not work
        return False
    try:
        return bytes(device.queue.read_buffer(buf)) == b"gpia"
    except Exception:  # noqa: BLE001 - likewise
        return False
    finally:
        try:
            buf.destroy()
        except Exception:  # noqa: BLE001 - a lost device: nothing left to free
            pass


def renderable_formats(device) -> frozenset:
    """The formats of gpuia's target table that ``device`` creates render targets of, found by
    creating a 1x1 one of each (wgpu's downlevel OpenGL refuses some, e.g. rgba32float, with a
    validation error, never an abort)."""
    out = set()
    for f in TARGET_FORMATS.values():
        try:
            device.create_texture(size=(1, 1, 1), format=f.webgpu,
                                  usage=texture_usage(f)).destroy()
        except Exception:  # noqa: BLE001 - a refused format, whatever wgpu raises for it
            continue
        out.add(f.webgpu)
    return frozenset(out)


def copies_depth(device) -> bool:
    """Whether ``device`` copies a depth32float texture's depth aspect to a buffer (a 1x1
    copy, encoded and submitted; a missing downlevel flag is a validation error at finish)."""
    usage = import_wgpu().TextureUsage
    made = []
    try:
        made.append(device.create_texture(size=(1, 1, 1), format="depth32float",
                                          usage=usage.RENDER_ATTACHMENT | usage.COPY_SRC))
        made.append(device.create_buffer(size=256, usage=import_wgpu().BufferUsage.COPY_DST))
        enc = device.create_command_encoder()
        enc.copy_texture_to_buffer({"texture": made[0], "aspect": "depth-only"},
                                   {"buffer": made[1], "offset": 0, "bytes_per_row": 256,
                                    "rows_per_image": 1}, (1, 1, 1))
        device.queue.submit([enc.finish()])
        return True
    except Exception:  # noqa: BLE001 - a refused copy, whatever wgpu raises for it
        return False
    finally:
        for obj in made:
            try:
                obj.destroy()
            except Exception:  # noqa: BLE001 - a lost device: nothing left to free
                pass
