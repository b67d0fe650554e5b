"""Naga's verdict on the WGSL gpuia makes of an HLSL shader, when it is compiled, not when drawn.

Slang can emit WGSL that naga (the WGSL compiler inside wgpu) refuses for HLSL it accepted; the
draw would fail, long after ``gpuia validate`` said the shader was fine. wgpu-py exposes naga
only through a device's ``create_shader_module``, so gpuia's Slang worker (``gpuia.hlsl.worker``)
keeps a device for this alone and asks it about every WGSL the front end makes.

Guaranteed: the device is made once per worker, in a thread started with the worker (its cost,
about 0.3 s on lavapipe, overlaps the Slang session's); it comes from the primary backends
(Vulkan, Metal, D3D12), a CPU adapter (lavapipe, WARP) first, then any other, and is used for
nothing but parsing and validating WGSL. Naga's parse and validation do not depend on the
adapter for the plain WGSL gpuia emits (no optional feature), so its verdict is the one every
adapter gives. Without any adapter (a machine with no GPU and no software driver, or
``GPUIA_HLSL_NAGA=0``) nothing is checked: :func:`check` says so, and the draw is where naga
speaks, as before.
"""

from __future__ import annotations

import os
import re
import threading

from ..util.wgpu_types import prefill

__all__ = ["start", "check", "position", "summary", "ENVIRONMENT"]

ENVIRONMENT = "GPUIA_HLSL_NAGA"
"""``0`` (or ``off``): no device is made and no WGSL checked at compile time."""

_STATE: dict = {}
_READY = threading.Event()
_STARTED = threading.Lock()


def _enabled() -> bool:
    return os.environ.get(ENVIRONMENT, "1").strip().lower() not in ("0", "off", "no", "false")


def _make_device() -> None:
    try:
        import wgpu
        from wgpu.backends.wgpu_native.extras import set_instance_extras

        prefill()  # wgpu-py's C types in one parse (gpuia.util.wgpu_types)
        set_instance_extras(backends=["Primary"])  # OpenGL's start-up costs 0.2 s more
        adapter = wgpu.gpu.request_adapter_sync(force_fallback_adapter=True) or \
            wgpu.gpu.request_adapter_sync(power_preference="low-power")
        _STATE["device"] = adapter.request_device_sync() if adapter is not None else None
        _STATE["error_type"] = wgpu.GPUError
    except (ImportError, OSError, RuntimeError, ValueError) as e:  # no wgpu, no driver
        _STATE["device"], _STATE["why"] = None, f"{type(e).__name__}: {e}"
    finally:  # whatever happened, check() stops waiting (an unchecked shader, not a hang)
        _READY.set()


def start() -> None:
    """Start making the device, in a thread (once per process; nothing when turned off)."""
    with _STARTED:
        if _STATE.get("started") or not _enabled():
            return
        _STATE["started"] = True
    threading.Thread(target=_make_device, name="gpuia-naga-device", daemon=True).start()


def check(code: str) -> tuple[bool, str | None]:
    """(checked, naga's error or None): whether ``code`` was checked, and what naga says of it
    when it refuses it."""
    if not _enabled():
        return False, None
    start()
    _READY.wait()
    device = _STATE.get("device")
    if device is None:
        return False, None
    try:
        device.create_shader_module(code=code, label="gpuia naga check")
    except _STATE["error_type"] as e:
        return True, str(e)
    return True, None


_POSITION_RE = re.compile(r"wgsl:(\d+):(\d+)")


def position(message: str) -> int | None:
    """The WGSL line naga's message points at (1-based), or None."""
    m = _POSITION_RE.search(message)
    return int(m.group(1)) if m else None


def summary(message: str) -> str:
    """Naga's error in one line: a parse error's own line; for a validation error, the
    innermost cause naga notes under it (its last ``= ...`` line, "Shift amount exceeds the bit
    width of ...", rather than "Function [0] 'main_0' is invalid")."""
    lines = message.splitlines()
    causes = [m.group(1).strip() for line in lines if (m := re.match(r"\s*=\s+(\S.*)$", line))]
    for line in lines:
        m = re.match(r"\s*Shader (?:'[^']*' )?(parsing|validation) error:\s*(.*)", line)
        if m:
            return causes[-1] if m.group(1) == "validation" and causes else m.group(2).strip()
    if causes:
        return causes[-1]
    lines = [x.strip() for x in lines if x.strip() and not x.startswith(" ")]
    return lines[-1] if lines else "naga refused the WGSL"
