"""A worker process of ``gpuia check --workers N`` (and of ``run`` and ``validate``):
``python -m gpuia.cli.check_child``.

It serves the worker protocol of :func:`gpuia.util.worker_pool.serve` (one JSON line of
configuration, then a JSON request per line, a JSON answer per request) in ``check`` mode. At
start it opens the selected adapters' devices once (:class:`~gpuia.gpu.device.DevicePool`) and
says which it has: ``infos`` (summary -> :attr:`Device.info`) and ``unavailable`` ((summary,
reason) per adapter that made no device). Each request names one case file; the child runs
``gpuia check FILE`` with the parent's options (``config["argv"]``) through the command line in
this process (:func:`gpuia.cli.in_process.run_command`), with ``--json`` (and ``--html``) into
a scratch folder of its own (made once, in the pool's workdir, which the parent removes; the
reports written without a disk flush, :func:`gpuia.util.files.scratch_writes`, and deleted before
the next case), and ``--csv`` into the parent's folder.

With ``config["adapter_slot"]`` (``--workers`` with ``--adapter``), the worker opens one adapter
only, the slot's of those ``--adapter`` selects (:func:`~gpuia.gpu.adapters.spread_adapter`:
round-robin), pins its pool to it, and says which in its ready message: ``group`` and
``adapter_index`` (its position in wgpu's enumeration) and ``adapters_matching`` (how many
matched). A request with ``digest`` also runs ``gpuia run FILE --backend gpu`` there and answers
``digest``: a SHA-256 per part of the result document (:func:`result_digest`).

Answer: ``rc``, ``stdout`` (without the ``<adapter>: unavailable: <reason>`` lines every
``check`` starts with: the parent prints them once), ``stderr``, ``traceback`` when one escaped,
and ``record``: the case's entry of the JSON report (:mod:`gpuia.harness.check_report`), None
when the command wrote none.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
import tempfile

from ..gpu.adapters import spread_adapter
from ..gpu.device import DevicePool
from ..util.files import scratch_writes
from ..util.worker_pool import serve
from .in_process import run_command

__all__ = ["make_handler", "result_digest", "main"]

# Keys of a result document that name where and how it ran, not what it holds.
_PROVENANCE = ("adapter", "adapter_info", "path")


def make_handler(config: dict, devices: DevicePool | None = None):
    """The request handler of a ``check`` worker and its ready message (see the module
    docstring); in ``command`` mode (``run`` and ``validate`` on workers), :func:`_command`'s.
    Raises ValueError for another mode, RuntimeError when no selected adapter made a device,
    and what selecting the adapters raises (UnsupportedError when none matches)."""
    pool = devices if devices is not None else DevicePool()
    spread = _pin(config, pool)
    if config.get("mode") == "command":
        return _command(config, pool, spread)
    if config.get("mode") != "check":
        raise ValueError(f"this child serves the 'check' and 'command' modes, not "
                         f"{config.get('mode')!r}")
    made, missing = pool.select(config.get("adapter"), config.get("gpu_backend"))
    if not made:
        raise RuntimeError(_no_device(config, missing, spread))
    ready = {"infos": {d.info["summary"]: d.info for d in made},
             "unavailable": [list(pair) for pair in missing],
             "cpu_only": all(d.info["type"] == "CPU" for d in made), **spread}
    from . import build_parser

    parser = build_parser()  # once: making it costs about a third of a small case's check
    opening = "".join(f"{summary}: unavailable: {reason}\n" for summary, reason in missing)

    # One scratch folder for the worker's life, in the pool's workdir (which the parent
    # removes, a killed worker's included): a folder made and removed per case, and a disk
    # flush of each case's report, cost milliseconds a case and kept nothing.
    scratch = tempfile.mkdtemp(prefix="gpuia-check-", dir=config.get("workdir"))
    report, page = os.path.join(scratch, "case.json"), os.path.join(scratch, "case.html")

    def handle(req):
        for old in (report, page):  # never the previous case's report
            with contextlib.suppress(FileNotFoundError):
                os.unlink(old)
        argv = ["check", req["path"], *config["argv"], "--json", report]
        if req.get("html"):
            argv += ["--html", page]
        if req.get("csv"):
            argv += ["--csv", req["csv"]]
        with scratch_writes():
            answer = run_command(argv, pool, parser)
        if answer["stdout"].startswith(opening):
            answer["stdout"] = answer["stdout"][len(opening):]
        cases = []
        if os.path.exists(report):
            with open(report, encoding="utf-8") as f:
                cases = json.load(f)["cases"]
        answer["record"] = cases[0] if cases else None
        if spread:
            answer["adapter_index"] = spread["adapter_index"]
        if req.get("digest"):
            answer["digest"] = result_digest(run_command(
                ["run", req["path"], "--backend", "gpu", *config.get("run_argv", [])], pool,
                parser))
        return answer

    return handle, ready


def _pin(config: dict, pool: DevicePool) -> dict:
    """With ``config["adapter_slot"]``: pin ``pool`` to the slot's adapter and return what the
    ready message says of it; else ``{}``."""
    slot = config.get("adapter_slot")
    if slot is None:
        return {}
    adapter, index, count = spread_adapter(config.get("adapter"), config.get("gpu_backend"),
                                           int(slot))
    pool.pin(adapter)
    return {"group": index, "adapter_index": index, "adapters_matching": count}


def _no_device(config: dict, missing: list, spread: dict) -> str:
    """Why a worker has no device: with its own adapter (``spread``), that adapter by position
    and summary, wgpu's reason and what to do (the run stops: docs/scale-out.md); else every
    selected adapter's reason."""
    if not spread:
        return "no selected adapter could create a device" + \
            "".join(f"; {s}: {r}" for s, r in missing)
    ((summary, reason),) = missing
    reason = reason.removeprefix(f"cannot create a device on {summary}: ")
    return (f"--adapter {config.get('adapter')}: adapter #{spread['adapter_index']} {summary} "
            f"cannot create a device ({reason}); give --adapter the adapters that work")


def result_digest(answer: dict) -> dict | None:
    """The SHA-256 of each part of the result document a ``gpuia run --backend gpu`` answer
    printed (``invocations``: what the IA delivered; ``outputs``: every invocation's vertex
    shader outputs, where the result has them; ``statistics``, ``stream_output``, ...),
    without what names the adapter and the path (:data:`_PROVENANCE`); None when the run
    printed no result (its exit status was not 0)."""
    if answer.get("rc") != 0:
        return None
    try:
        doc = json.loads(answer["stdout"])
    except ValueError:
        return None
    parts = {key: value for key, value in doc.items() if key not in _PROVENANCE}
    # The shader's computed outputs apart from the IA's inputs: a driver may round the first
    # (within the check's tolerance), never the second.
    invocations = parts.pop("invocations", [])
    parts["invocations"] = [{k: v for k, v in inv.items() if k != "outputs"}
                            for inv in invocations]
    if any("outputs" in inv for inv in invocations):
        parts["outputs"] = [inv.get("outputs") for inv in invocations]
    return {key: hashlib.sha256(json.dumps(value, sort_keys=True).encode()).hexdigest()
            for key, value in sorted(parts.items())}


def _command(config: dict, pool: DevicePool, spread: dict):
    """The handler of a ``command`` worker: ``gpuia <config["command"]> FILE <config["argv"]>``
    per request, its answer ``rc``, ``stdout``, ``stderr`` (and ``traceback``); the selected
    adapters' devices are opened first when ``config["devices"]``."""
    from . import build_parser

    parser = build_parser()
    ready: dict = {"cpu_only": True, **spread}
    if config.get("devices"):
        made, missing = pool.select(config.get("adapter"), config.get("gpu_backend"))
        if not made:
            raise RuntimeError(_no_device(config, missing, spread))
        ready["cpu_only"] = all(d.info["type"] == "CPU" for d in made)

    def handle(req):
        return run_command([config["command"], req["path"], *config["argv"]], pool, parser)

    return handle, ready


def main(wrap=None) -> int:
    """Serve requests until stdin closes (:func:`gpuia.util.worker_pool.serve`); ``wrap`` as
    there."""
    return serve(make_handler, wrap)


if __name__ == "__main__":
    sys.exit(main())
