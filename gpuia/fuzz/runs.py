"""How one fuzz case runs in a child: a valid case through the harness, as ``gpuia check`` runs
it, answered as the protocol's dict (:mod:`gpuia.fuzz.worker`), and what a case asks of host
memory. The fuzzing parent runs valid cases here too, on the CPU reference alone
(:class:`gpuia.fuzz.engine.ReferenceRunner`)."""

from __future__ import annotations

import traceback

from ..d3d.ia_desc import IndexBufferView, VertexBufferView
from ..errors import GpuiaError, UnsupportedError
from ..harness.case import load_case
from ..harness.crosscheck import cross_check
from ..harness.run import reference_gs, reference_ia, reference_so
from ..reference.ia import as_bytes

__all__ = ["WGPU_REFUSED", "case_demand", "clip", "run_valid_case"]

_TEXT_LIMIT = 8000  # characters of stdout/stderr/traceback sent back per case
WGPU_REFUSED = "wgpu refused"
"""What gpuia's GPU side says when wgpu rejected work it encoded (``UnsupportedError``). gpuia
checks everything before wgpu sees it, so for a valid case this is a gpuia defect, not a limit:
the valid-mode judge reports it as a ``wgpu-refused`` finding."""


def clip(text: str) -> str:
    """``text`` cut to the characters an answer carries (its start and its end)."""
    if len(text) <= _TEXT_LIMIT:
        return text
    half = _TEXT_LIMIT // 2
    left_out = f"\n... ({len(text) - _TEXT_LIMIT} characters left out) ...\n"
    return text[:half] + left_out + text[-half:]


def run_valid_case(doc: dict, devices, paths, capture: str = "auto") -> tuple[dict, object]:
    """Load and cross-check one case dict on ``devices`` (none: the CPU reference only).
    Returns the answer (see :mod:`gpuia.fuzz.worker`) and, for in-process callers, the reference
    :class:`~gpuia.reference.IAResult` (None when the case did not load)."""
    ref = None
    try:
        case = load_case(doc)
        if not devices:  # the CPU reference's stages, as `gpuia run --backend cpu` runs them
            ref = reference_ia(case)
            reference_so(case, ref, reference_gs(case, ref))
            return {"status": "ok", "lines": []}, ref
        result = cross_check(case, devices, paths, capture_route=capture, rows=16)
    except UnsupportedError as e:
        text = " ".join(str(e).split())
        return {"status": "wgpu-refused" if WGPU_REFUSED in text else "unsupported",
                "detail": text}, ref
    except GpuiaError as e:
        detail = f"{type(e).__name__}: {' '.join(str(e).split())}"
        return {"status": "rejected", "detail": detail}, ref
    except Exception as e:  # noqa: BLE001 - any other exception is what the fuzzer looks for
        return {"status": "error", "detail": f"{type(e).__name__}: {e}",
                "traceback": clip(traceback.format_exc())}, ref
    lines = []
    for line in result.lines:
        head, path = line.label.rsplit(": ", 1)
        adapter = head.split(": ", 1)[1] if ": " in head else head
        lines.append({"adapter": adapter, "path": path, "status": line.status,
                      "detail": line.detail,
                      "text": clip(line.text()) if line.status == "DIFFERENT" else ""})
    refused = [line for line in lines if line["status"] == "not applicable"
               and WGPU_REFUSED in line["detail"]]
    if refused:
        detail = "; ".join(f"{line['path']}: {line['detail']}" for line in refused)
        return {"status": "wgpu-refused", "detail": detail, "lines": lines}, ref
    detail = "; ".join(f"{line['path']}: {line['detail']}" for line in lines
                       if line["status"] == "DIFFERENT")
    return {"status": "ok" if result.ok else "different", "detail": detail, "lines": lines}, ref


def case_demand(path: str) -> dict:
    """What a case that loads asks of host memory: ``invocations`` (the bound on delivered
    vertices the size limit checks) and ``buffer_bytes`` (vertex, index and SO target bytes).
    The invalid-mode judge sets an out-of-memory refusal against it."""
    case = load_case(path)
    views: list[VertexBufferView | IndexBufferView] = [
        v for v in case.vertex_buffers.values() if v is not None]
    views += [case.index_buffer] if case.index_buffer is not None else []
    data = sum(as_bytes(v.buffer).nbytes for v in views if v.buffer is not None)
    data += sum(t.size for t in case.so_targets.values())
    return {"invocations": case.invocation_count, "buffer_bytes": data}
