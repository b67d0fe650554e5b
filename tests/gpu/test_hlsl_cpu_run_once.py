"""A check of an HLSL case runs its shader on the CPU once: the ``vs outputs`` line and the
Stream Output reference read the same run (gpuia.harness.run.vertex_outputs), which is a
process of its own per run."""

from __future__ import annotations

import gc

from gpuia.harness.case import load_case
from gpuia.harness.crosscheck import cross_check
from gpuia.hlsl import cpu as hcpu
from helpers import EXAMPLE_CASES


def test_the_shader_runs_once_per_check_and_the_lines_agree(gpu_device, monkeypatch):
    """hlsl_skinned_particles has both lines; each check runs the CPU build once, and a second
    check (a new reference) runs it again: nothing is reused across checks."""
    runs = []
    real = hcpu.CpuShader.run

    def counted(self, *args, **kwargs):
        runs.append(1)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(hcpu.CpuShader, "run", counted)
    case = load_case(EXAMPLE_CASES / "hlsl_skinned_particles.json")
    for checks in (1, 2):
        result = cross_check(case, [gpu_device], ("native",))
        assert result.ok, result.text()
        lines = {line.path: line.status for line in result.lines}
        assert lines.get("vs outputs") == "OK" and lines.get("stream output") == "OK", lines
        gc.collect()
        assert len(runs) == checks
