"""Capture: what the vertex stage records of every vertex D3D would fetch, by one of two routes.

A capture record is, per (draw, instance, fetched vertex): a flag, SV_VertexID, SV_InstanceID
(:data:`CAPTURE_HEADER_WORDS`), then each input element's four 32-bit words as the shader
received them (:func:`record_words`). Its place is ``capture_base + SV_InstanceID * key_count +
rank``, where ``rank`` is the vertex's position among the draw's sorted fetch indices (a
contiguous run, or a binary search over ``gpuia_keys``): a vertex D3D would not fetch has no
place. The routes (:class:`CaptureRoute`):

* **storage**: the entry point writes the record to ``gpuia_capture`` (flag 1) and counts a
  vertex without a place in ``gpuia_errors`` (how many, the largest index); its position is
  outside every clip volume, so nothing is rasterized. Needs writable storage in the vertex
  stage. ``gpuia_capture`` may hold a window of the records (a capture larger than one storage
  binding runs its draws once per window): ``capture_base`` is then the draw's first record
  minus the window's first, in wrapping u32 arithmetic, and a record outside the window is not
  written.
* **targets**: for adapters without it. The record is split into groups of ``per_group`` vec4
  values (the header ``(flag, SV_VertexID, SV_InstanceID, vi)``, then one per element), one
  pipeline per group; each vertex is a point on its record's texel of a
  :data:`CAPTURE_TARGET_WIDTH`-wide texture and hands its group's vec4s as flat varyings to
  ``rgba32uint`` color targets. A vertex without a place lands on the last texel with flag 2.

The statements and entry points are the shader files ``capture_*.wgsl``; the record is
:data:`gpuia.wgsl.blocks.CAPTURE_RECORD`.
"""

from __future__ import annotations

from ..d3d.layout import InputLayout
from ..util.named import NamedMode
from ..util.resources import shader_text
from .blocks import CAPTURE_ERRORS, CAPTURE_RECORD

__all__ = ["CaptureRoute", "CAPTURE_HEADER_WORDS", "CAPTURE_TARGET_WIDTH", "record_words",
           "target_values", "capture_binding_lines", "capture_lines",
           "capture_target_entry_points"]

CAPTURE_HEADER_WORDS = CAPTURE_RECORD.word("elements")
"""Per capture record: written flag, SV_VertexID, SV_InstanceID; then 4 words per element
(:data:`gpuia.wgsl.blocks.CAPTURE_RECORD`)."""

CAPTURE_TARGET_WIDTH = 256
"""Texels per row of the render-target capture route (a multiple of 16: 256-byte rows)."""


class CaptureRoute(NamedMode):
    """How a capture leaves the vertex stage (see the module doc)."""

    STORAGE = "storage"
    TARGETS = "targets"

    @classmethod
    def of(cls, value, where: str = "capture", field_name: str = "route") -> CaptureRoute:
        """A member, or its value; anything else raises
        :class:`~gpuia.errors.InvalidDescError` (:meth:`gpuia.util.named.NamedMode.of`)."""
        return super().of(value, where, field_name)


def record_words(element_count: int) -> int:
    """u32 words of one capture record of a layout with ``element_count`` elements."""
    return CAPTURE_RECORD.words(4 * element_count)


def target_values(layout: InputLayout, group: int, per_group: int) -> list[str]:
    """The vec4 expressions capture group ``group`` renders on the targets route: its share of
    the header and each element's four words."""
    values = ["vec4<u32>(gpuia_flag, sv_vertex_id, sv_instance_id, vi)"]
    values += [f"e{e.index}" for e in layout.elements]
    return values[group * per_group:(group + 1) * per_group]


def capture_binding_lines(route, element_count: int = 0) -> list[str]:
    """The route's group-0 bindings (after the per-draw block): the record struct of a layout
    with ``element_count`` elements and the record buffer, the draw's fetch indices and the
    error counters on the storage route, the fetch indices alone on the targets route.
    ``route``: a :class:`CaptureRoute` or its value."""
    if CaptureRoute.of(route) is CaptureRoute.TARGETS:
        return [shader_text("capture_bindings_targets.wgsl")]
    return [shader_text("capture_bindings.wgsl",
                        GPUIA_RECORD=CAPTURE_RECORD.wgsl(4 * element_count))]


def _storage_lines(layout: InputLayout) -> list[str]:
    stores = [f"gpuia_capture[rec].elements[{4 * e.index + c}] = e{e.index}[{c}];"
              for e in layout.elements for c in range(4)]
    return [shader_text("capture_search.wgsl"),
            shader_text("capture_storage.wgsl", ELEMENT_STORES="\n".join(stores),
                        UNEXPECTED=CAPTURE_ERRORS.word("unexpected"),
                        MAX_VERTEX_INDEX=CAPTURE_ERRORS.word("max_vertex_index"))]


def _target_lines(layout: InputLayout, group: int, per_group: int) -> list[str]:
    outputs = [f"gpuia_out.o{j} = {value};"
               for j, value in enumerate(target_values(layout, group, per_group))]
    return [shader_text("capture_search.wgsl"),
            shader_text("capture_targets.wgsl", WIDTH=CAPTURE_TARGET_WIDTH,
                        OUTPUTS="\n".join(outputs))]


def capture_lines(layout: InputLayout, route, group: int = -1, per_group: int = 0) -> list[str]:
    """The entry point's capture statements, after ``vi``, ``sv_vertex_id``, ``sv_instance_id``
    and every ``e<element>`` are defined: the record written (storage route), or ``gpuia_out``
    filled with group ``group`` of ``per_group`` vec4s (targets route). ``route``: a
    :class:`CaptureRoute` or its value."""
    if CaptureRoute.of(route) is CaptureRoute.TARGETS:
        return _target_lines(layout, group, per_group)
    return _storage_lines(layout)


def capture_target_entry_points(params: list[str], body: list[str], layout: InputLayout,
                                group: int, per_group: int) -> list[str]:
    """The targets route's entry points: ``gpuia_vs`` (``params``, ``body`` holding
    :func:`capture_lines`, then returning ``gpuia_out``) and ``gpuia_fs``, which copies the
    group's flat varyings to its color targets; then an empty line."""
    count = len(target_values(layout, group, per_group))
    return [shader_text(
        "capture_entry_targets.wgsl", PARAMS=", ".join(params), BODY="\n".join(body),
        OUT_MEMBERS=", ".join(f"@location({j}) @interpolate(flat) o{j}: vec4<u32>"
                              for j in range(count)),
        TARGET_MEMBERS=", ".join(f"@location({j}) t{j}: vec4<u32>" for j in range(count)),
        COPIES="\n".join(f"t.t{j} = i.o{j};" for j in range(count))), ""]
