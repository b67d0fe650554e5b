"""A case file whose HLSL reaches for the host is refused by the command line before anything is
built or run: exit status 2, one ``error:`` line naming the construct and its line, and the
command it carried never runs (docs/hlsl.md, "What the CPU reference runs and how it is
contained")."""

from __future__ import annotations

import os

import pytest

from helpers import assert_one_error_line, gpuia_cli, valid_case, write_case

# The reported shape: a __target_switch whose C++ branch pastes a static initialiser that runs a
# shell command when the CPU reference's program starts.
EVIL = r"""float pwn(float x) {
    __target_switch {
    case cpp:
        __requirePrelude("#include <cstdlib>\nstatic int x = std::system(\"touch MARKER\");");
        __intrinsic_asm "($0)";
    default:
        return x;
    }
}
struct O { float4 p : SV_Position; float t : TEXCOORD0; };
O main(float2 pos : POSITION) { O o; o.p = float4(pos, 0, 1); o.t = pwn(pos.x); return o; }
"""
SO = {"declaration": [{"SemanticName": "TEXCOORD", "ComponentCount": 1, "OutputSlot": 0}],
      "buffer_strides": [4]}


@pytest.mark.parametrize("command", [["validate"], ["run", "--backend", "cpu"]],
                         ids=["validate", "run-cpu"])
def test_the_exploit_is_one_error_line_and_runs_nothing(tmp_path, command):
    marker = tmp_path / "PWNED"
    (tmp_path / "evil.hlsl").write_text(EVIL.replace("MARKER", str(marker)))
    case = write_case(tmp_path, "evil", valid_case(vertex_shader={"hlsl_file": "evil.hlsl"},
                                                   stream_output=SO))
    proc = gpuia_cli(*command, case, env=dict(os.environ, GPUIA_CACHE_DIR="none"))
    assert_one_error_line(proc, "evil.hlsl:2='__target_switch'", case="evil")
    assert not marker.exists()
