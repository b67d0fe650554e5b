"""Device creation works for any number of devices in one process, on every adapter: devices
made one after another (each drawing a case, then dropped), adapters listed in between, and
devices kept alive side by side (issue: an OpenGL adapter once refused new devices with
"Parent device is lost" after earlier cases, and enumerating again aborted the process).

Each adapter runs in a child process, so an abort is a failed test, not a dead session.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from gpuia.gpu.device import list_adapters

_CHILD = textwrap.dedent("""
    import gc, sys
    from gpuia.case import load_case
    from gpuia.compare import compare
    from gpuia.gpu import Device, run_case_gpu
    from gpuia.gpu.device import list_adapters
    from gpuia.runner import reference_ia

    index, rounds = int(sys.argv[1]), int(sys.argv[2])
    doc = {"gpuia_case": 1, "name": "churn",
           "input_layout": [{"SemanticName": "POSITION", "Format": "R32G32_FLOAT"}],
           "vertex_buffers": [{"slot": 0, "stride": 8,
                               "data": {"dtype": "float32", "values": [0, 0, 1, 0, 0, 1]}}],
           "primitive_topology": "TRIANGLELIST",
           "draw": {"DrawInstanced": {"VertexCountPerInstance": 3, "InstanceCount": 2}}}
    case = load_case(doc)
    ref = reference_ia(case)
    summary = list_adapters()[index].summary
    kept = []
    for i in range(rounds):
        dev = Device(adapter_name=summary)
        res = run_case_gpu(case, dev, "pulling" if i % 2 else "auto", ref)
        assert compare(ref, res, case.layout).ok, i
        if i % 10 == 0:
            kept.append(dev)  # some devices live on beside the new ones
        del dev, res
        if i % 3 == 0:
            gc.collect()
            list_adapters()
    for dev in kept:  # the old devices still draw
        assert compare(ref, run_case_gpu(case, dev, "pulling", ref), case.layout).ok
    print("rounds", rounds)
""")

ADAPTERS = [a.summary for a in list_adapters()]


@pytest.mark.gpu
@pytest.mark.parametrize("index", range(len(ADAPTERS)), ids=ADAPTERS)
def test_many_devices_in_one_process(index):
    rounds = 60
    proc = subprocess.run([sys.executable, "-c", _CHILD, str(index), str(rounds)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, (ADAPTERS[index], proc.returncode, proc.stderr[-3000:])
    assert f"rounds {rounds}" in proc.stdout


def test_there_are_adapters_to_churn():
    assert ADAPTERS, "no adapter: the device churn tests must run"
