"""The fuzzer's child process: ``python -m gpuia.fuzz.worker``.

The parent writes one JSON line of configuration on the child's stdin, then one JSON request
per line; the child answers each with one JSON line on its stdout. Running cases in a child
keeps the fuzzer alive when wgpu aborts the process (a Rust panic is not a Python exception) or
a case hangs: the parent sees the pipe close or its timeout pass, reports the case it had sent,
and starts a new child.

Two modes:

* ``valid``: the child creates one :class:`gpuia.gpu.Device` per selected adapter once, and
  for each request loads the case with :func:`gpuia.harness.case.load_case` and cross-checks it with
  :func:`gpuia.harness.crosscheck.cross_check` (the code ``gpuia check`` runs, with its comparison
  rules). Answer ``status``: ``ok``, ``different``, ``unsupported`` (gpuia raised
  :class:`UnsupportedError` for the whole case), ``wgpu-refused`` (wgpu rejected what gpuia
  encoded, for the case or one path), ``rejected`` (any other gpuia error: the generator believed
  the case valid) or ``error`` (an unexpected exception, with its traceback).
* ``cli``: each request carries the bytes of a case file; the child writes them to a file and
  runs ``gpuia validate FILE`` and, when the case loads, ``gpuia check FILE`` through
  :func:`gpuia.cli.main`, capturing exit status, stdout and stderr (:func:`run_cli_case`). An
  exception escaping ``main`` is answered with its traceback (a real command line would have
  printed it). ``check`` keeps its devices from one request to the next
  (:func:`gpuia.cli.keep_devices`), dropping them after a lost device, an out-of-memory or a
  traceback (:data:`DEVICE_GONE`).

The child's own stdout is moved to its stderr at start, so nothing printed by gpuia or a native
library can corrupt the protocol. With a memory limit, the child caps its address space
(``RLIMIT_AS``) at its size after start-up plus the limit, so a case that would exhaust memory
raises :class:`MemoryError` in the child instead of taking the machine down.
"""

from __future__ import annotations

import base64
import contextlib
import io
import json
import os
import sys
import tempfile
import traceback

__all__ = ["adapter_args", "case_demand", "main", "make_handler", "run_cli_case", "run_valid_case"]

_TEXT_LIMIT = 8000  # characters of stdout/stderr/traceback sent back per case
DEVICE_GONE = ("device was lost", "out of memory", "out of host memory")
"""Words of the error lines of DeviceLostError, GpuOutOfMemoryError and a host MemoryError:
after such a check, or one that ended in a traceback, the child's kept devices are dropped (see
:func:`gpuia.cli.keep_devices`): a device in doubt must not turn the cases after it into
findings."""
WGPU_REFUSED = "wgpu refused"
"""What gpuia's GPU side says when wgpu rejected work it encoded (``UnsupportedError``). gpuia
checks everything before wgpu sees it, so for a valid case this is a gpuia defect, not a limit:
the valid-mode judge reports it as a ``wgpu-refused`` finding."""


def _clip(text: str) -> str:
    if len(text) <= _TEXT_LIMIT:
        return text
    half = _TEXT_LIMIT // 2
    return text[:half] + f"\n... ({len(text) - _TEXT_LIMIT} characters left out) ...\n" + text[-half:]


def _vm_kib(field: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def _limit_memory(limit_mb: int) -> int:
    """Cap the address space at its current peak plus ``limit_mb``; returns the cap in MiB."""
    import resource

    cap = _vm_kib("VmPeak") * 1024 + (limit_mb << 20)
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    return cap >> 20


def adapter_args(config: dict) -> list[str]:
    """The ``gpuia check`` options that select the configured adapters and capture route."""
    args = []
    if config.get("adapter"):
        args += ["--adapter", config["adapter"]]
    if config.get("gpu_backend"):
        args += ["--gpu-backend", config["gpu_backend"]]
    if config.get("capture"):
        args += ["--capture", config["capture"]]
    return args


def _select_adapters(config: dict):
    from ..gpu.device import select_adapter, select_adapters

    if config.get("adapter"):
        name = config["adapter"]
        return select_adapters(None if name == "all" else name, config.get("gpu_backend"))
    return [select_adapter(None, config.get("gpu_backend"))]


def run_valid_case(doc: dict, devices, paths, capture: str = "auto") -> tuple[dict, object]:
    """Load and cross-check one case dict on ``devices`` (none: the CPU reference only).
    Returns the answer (see the module docstring) and, for in-process callers, the reference
    :class:`~gpuia.reference.IAResult` (None when the case did not load)."""
    from ..harness.case import load_case
    from ..harness.crosscheck import cross_check
    from ..errors import GpuiaError, UnsupportedError
    from ..harness.run import reference_ia, reference_so

    ref = None
    try:
        case = load_case(doc)
        if not devices:
            ref = reference_ia(case)
            reference_so(case, ref)
            return {"status": "ok", "lines": []}, ref
        result = cross_check(case, devices, paths, capture_route=capture, rows=16)
    except UnsupportedError as e:
        text = " ".join(str(e).split())
        return {"status": "wgpu-refused" if WGPU_REFUSED in text else "unsupported",
                "detail": text}, ref
    except GpuiaError as e:
        return {"status": "rejected", "detail": f"{type(e).__name__}: {' '.join(str(e).split())}"}, ref
    except Exception as e:  # noqa: BLE001 - any other exception is what the fuzzer looks for
        return {"status": "error", "detail": f"{type(e).__name__}: {e}",
                "traceback": _clip(traceback.format_exc())}, ref
    lines = []
    for line in result.lines:
        head, path = line.label.rsplit(": ", 1)
        adapter = head.split(": ", 1)[1] if ": " in head else head
        lines.append({"adapter": adapter, "path": path, "status": line.status,
                      "detail": line.detail,
                      "text": _clip(line.text()) if line.status == "DIFFERENT" else ""})
    refused = [line for line in lines if line["status"] == "not applicable"
               and WGPU_REFUSED in line["detail"]]
    if refused:
        detail = "; ".join(f"{line['path']}: {line['detail']}" for line in refused)
        return {"status": "wgpu-refused", "detail": detail, "lines": lines}, ref
    detail = "; ".join(f"{line['path']}: {line['detail']}" for line in lines
                       if line["status"] == "DIFFERENT")
    return {"status": "ok" if result.ok else "different", "detail": detail, "lines": lines}, ref


def _cli(argv: list[str]) -> dict:
    """``gpuia.cli.main(argv)`` in this process: exit status, stdout, stderr, and the traceback
    of an exception that escaped it."""
    from ..cli import main as cli_main

    out, err = io.StringIO(), io.StringIO()
    answer: dict = {}
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = cli_main(argv)
        except SystemExit as e:  # argparse and friends
            rc = e.code if isinstance(e.code, int) else 1
        except Exception:  # noqa: BLE001 - a traceback from the command line is a finding
            rc = 1
            answer["traceback"] = _clip(traceback.format_exc())
    answer.update({"rc": rc, "stdout": _clip(out.getvalue()), "stderr": _clip(err.getvalue())})
    return answer


def run_cli_case(content: bytes, config: dict, workdir: str) -> dict:
    """Run ``gpuia check`` on a case file holding ``content``, in this process.

    ``gpuia validate`` runs first: ``check`` loads its cases with the same code and prints the
    same error line for a case that does not load, but only after choosing adapters and creating
    devices, which costs far more (0.3 s on an H200) than loading. So a case ``validate`` refuses
    is answered by ``validate``; every other case goes through ``check``. A ``check`` that ran
    out of host memory also answers the case's ``demand`` (:func:`case_demand`)."""
    from ..cli import HOST_OUT_OF_MEMORY, keep_devices

    path = os.path.join(workdir, "fuzzcase.json")
    with open(path, "wb") as f:
        f.write(content)
    answer = _cli(["validate", "-q", path])
    if answer["rc"] != 0 or answer.get("traceback"):
        answer["command"] = "validate"
        return answer
    answer = _cli(["check", path] + adapter_args(config))
    answer["command"] = "check"
    if answer.get("traceback") or any(lost in answer["stderr"] for lost in DEVICE_GONE):
        keep_devices(True)  # starts over: the next check creates new devices
    if HOST_OUT_OF_MEMORY in answer["stderr"]:
        try:
            answer["demand"] = case_demand(path)
        except MemoryError:
            pass  # loading alone exhausts the cap: the case asks for much memory
    return answer


def case_demand(path: str) -> dict:
    """What a case that loads asks of host memory: ``invocations`` (the bound on delivered
    vertices the size limit checks) and ``buffer_bytes`` (vertex, index and SO target bytes).
    The invalid-mode judge sets an out-of-memory refusal against it."""
    from ..harness.case import load_case
    from ..reference.ia import as_bytes

    case = load_case(path)
    views = [v for v in case.vertex_buffers.values() if v is not None]
    views += [case.index_buffer] if case.index_buffer is not None else []
    data = sum(as_bytes(v.buffer).nbytes for v in views if v.buffer is not None)
    data += sum(t.size for t in case.so_targets.values())
    return {"invocations": case.invocation_count, "buffer_bytes": data}


def make_handler(config: dict):
    """The request handler of one child: ``handler(request) -> answer`` (both dicts), plus the
    ``ready`` message describing what it set up."""
    mode = config.get("mode", "valid")
    if mode == "cli":
        from ..cli import keep_devices

        keep_devices(True)
        adapters = _select_adapters(config)
        ready = {"adapters": [a.summary for a in adapters],
                 "cpu_only": all(a.info.get("adapter_type") == "CPU" for a in adapters)}
        workdir = tempfile.mkdtemp(prefix="gpuia-fuzz-")

        def handle(req):
            return run_cli_case(base64.b64decode(req["content"]), config, workdir)

        return handle, ready
    if mode != "valid":
        raise ValueError(f"unknown worker mode {mode!r}")
    from ..errors import GpuiaError
    from ..gpu import Device

    devices, unavailable = [], []
    for a in _select_adapters(config):
        try:
            devices.append(Device(a))
        except GpuiaError as e:
            unavailable.append(f"{a.summary}: {' '.join(str(e).split())}")
    if not devices:
        raise RuntimeError("no selected adapter could create a device: " + "; ".join(unavailable))
    ready = {"adapters": [d.info["summary"] for d in devices], "unavailable": unavailable,
             "cpu_only": all(d.info["type"] == "CPU" for d in devices)}
    paths = list(config.get("paths", ["native", "pulling"]))
    capture = config.get("capture") or "auto"

    def handle(req):
        return run_valid_case(req["case"], devices, paths, capture)[0]

    return handle, ready


def main(wrap=None) -> int:
    """Serve requests until stdin closes. ``wrap(handler) -> handler`` lets a caller put its own
    code around every request (the test suite makes a child abort on a marker with it)."""
    from ..util.interrupt import exit_with_parent

    exit_with_parent()  # a case in progress must not outlive a killed fuzzer
    proto = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
    os.dup2(2, 1)  # stray prints (Python or native) go to stderr, never into the protocol

    def send(msg):
        proto.write(json.dumps(msg) + "\n")
        proto.flush()

    config = json.loads(sys.stdin.readline() or "{}")
    try:
        handler, ready = make_handler(config)
    except Exception as e:  # noqa: BLE001 - reported to the parent, which stops with an error
        send({"ready": False, "error": f"{type(e).__name__}: {' '.join(str(e).split())}"})
        return 2
    limit = config.get("memory_limit_mb")
    if limit is None and ready.get("cpu_only"):
        limit = config.get("cpu_memory_limit_mb", 4096)
    ready["memory_cap_mb"] = _limit_memory(limit) if limit else None
    ready.update({"ready": True, "pid": os.getpid()})
    if wrap is not None:
        handler = wrap(handler)
    send(ready)
    for line in sys.stdin:
        if not line.strip():
            continue
        req = json.loads(line)
        answer = handler(req)
        answer["id"] = req.get("id")
        answer["rss_kib"] = _vm_kib("VmRSS")
        send(answer)
    return 0


if __name__ == "__main__":
    sys.exit(main())
