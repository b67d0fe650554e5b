"""The geometry shader's expansion into Stream Output as WGSL compute programs: text only.

What the GS program leaves, one region of u32 words per invocation (``1 + N * (1 + R)`` words:
the count of Appends that took effect, then per Append a header word, bits 0-1 its stream and
bit 2 set when it starts a strip of its stream, and the stream's record zero-padded to ``R``
words), becomes each stream's complete primitives in the targets, in four programs that
:mod:`gpuia.gpu.gs.expansion` binds and dispatches:

* ``count`` (:data:`COUNT`): one invocation per GS invocation counts the complete primitives its
  strips make per stream (rules 13.4, 13.5), a ``vec4<u32>`` per invocation;
* ``scan`` (:data:`REDUCE`, :data:`SCAN_LEVEL`): an exclusive prefix sum of those counts over the
  invocations, reduce-then-scan over blocks of :data:`BLOCK` entries, as many levels as
  :func:`scan_levels` gives (at most :data:`MAX_LEVELS`); the top level's workgroup records the
  grand totals at ``total_at``;
* ``fit`` (:data:`FIT`): one invocation fits each stream into its slots (rules 9.7, 9.8, 10.1,
  10.2, 13.8) and updates the counters, the overflow flags and the 64-bit statistics of
  :data:`gpuia.wgsl.blocks.GS_SO_STATE`;
* ``write`` (:data:`WRITE`): one invocation per GS invocation writes its primitives the fit let
  through, each in D3D's strip order (rules 9.3), each slot's entries at their offsets.

Nothing depends on a declaration: the slots, entries and streams are tables in the
:data:`gpuia.wgsl.blocks.GS_SO_PARAMS` block and an entries buffer, so each program is built
once per device. Workgroups of 256 invocations and 4 KiB of workgroup memory stay within
WebGPU's default limits; the write program binds 8 storage buffers, the default most.
"""

from __future__ import annotations

from ..util.resources import shader_placeholders, shader_text
from .blocks import GS_SO_PARAMS, GS_SO_STATE

__all__ = ["WORKGROUP", "ITEMS", "BLOCK", "MAX_LEVELS", "PARAMS_WORDS", "STATE_WORDS", "COUNT",
           "REDUCE", "SCAN_LEVEL", "FIT", "WRITE", "PROGRAMS", "scan_levels", "gs_program"]

WORKGROUP = 256
"""Invocations per workgroup: WebGPU's default maxComputeInvocationsPerWorkgroup."""
ITEMS = 4
"""Entries per invocation in the scan programs."""
BLOCK = WORKGROUP * ITEMS
"""Entries one scan workgroup covers."""
MAX_LEVELS = 4
"""Levels of a scan: the invocations, then totals per block (2**30 invocations need 3)."""
PARAMS_WORDS = GS_SO_PARAMS.words()
"""u32 words of one ``GpuiaGSSO`` record."""
STATE_WORDS = GS_SO_STATE.words()
"""u32 words of the ``GpuiaGSSOState`` buffer."""

COUNT, REDUCE, SCAN_LEVEL, FIT, WRITE = ("gpuia_gs_count", "gpuia_gs_reduce",
                                         "gpuia_gs_scan_level", "gpuia_gs_fit", "gpuia_gs_write")
"""The entry points."""
PROGRAMS = {"count": (COUNT,), "scan": (REDUCE, SCAN_LEVEL), "fit": (FIT,), "write": (WRITE,)}
"""Each program (its shader file ``gs_<name>.wgsl``) and its entry points."""


def scan_levels(count: int) -> list[int]:
    """Entries per level of a scan over ``count`` invocations: level 0 is the invocations,
    level ``i + 1`` holds one total per :data:`BLOCK` entries of level ``i``, the last one fits
    one workgroup. ``[0]`` for none."""
    if count <= 0:
        return [0]
    levels = [count]
    while levels[-1] > BLOCK:
        levels.append((levels[-1] + BLOCK - 1) // BLOCK)
    return levels


def gs_program(name: str) -> str:
    """The WGSL module of program ``name``, a key of :data:`PROGRAMS`: the common header (the
    parameter block at @binding(0)), then the program's bindings and entry points. Refused with
    :class:`ValueError`: any other name."""
    if name not in PROGRAMS:
        raise ValueError(f"no GS expansion program {name!r} (there are {', '.join(PROGRAMS)})")
    values: dict[str, str | int] = {"WORKGROUP": WORKGROUP, "ITEMS": ITEMS, "BLOCK": BLOCK,
                                    "GS_SO_STATE": GS_SO_STATE.wgsl()}
    file = f"gs_{name}.wgsl"
    wanted = shader_placeholders(file)
    header = shader_text("gs_common.wgsl", GS_SO_PARAMS=GS_SO_PARAMS.wgsl())
    return header + "\n" + shader_text(file, **{k: v for k, v in values.items() if k in wanted})
