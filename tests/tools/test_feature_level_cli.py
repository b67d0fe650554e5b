"""``--feature-level 10_0|10_1|11_0|12`` on the commands that validate, and a case file's
``feature_level`` key: a 17-element layout is one ``error:`` line and exit 2 at 10_0 (d3d10.h:
D3D10_IA_VERTEX_INPUT_STRUCTURE_ELEMENT_COUNT 16) and valid at 10_1, 11_0 and 12 (32; rules
3.1); the option overrides the case's key. The commands run in the test's process
(``gpuia.cli.main``: their lines and exit statuses are what is tested) but for ``check``, which
opens its adapters, and the parser's refusal, which run as a user runs them."""

from __future__ import annotations

import json

import pytest

from helpers import assert_one_error_line, gpuia_cli, gpuia_in_process, write_case

RULE = ("element 16 (TEXCOORD16): NumElements=17: more than 16 elements at feature level 10_0 "
        "(IA_VERTEX_INPUT_STRUCTURE_ELEMENT_COUNT; rules 3.1)")


def elements(n: int) -> list[dict]:
    return [{"SemanticName": "TEXCOORD", "SemanticIndex": i, "Format": "R32_FLOAT",
             "AlignedByteOffset": 0} for i in range(n)]


def case(n: int, **extra) -> dict:
    return {"gpuia_case": 1, "input_layout": elements(n),
            "vertex_buffers": [{"slot": 0, "stride": 4,
                                "data": {"dtype": "float32", "values": [1, 2, 3]}}],
            "primitive_topology": "POINTLIST",
            "draw": {"DrawInstanced": {"VertexCountPerInstance": 3}}, **extra}


@pytest.mark.parametrize("command", ["validate", "run"])
def test_10_0_refuses_17_elements_and_11_0_accepts_them(tmp_path, command):
    path = write_case(tmp_path, "seventeen", case(17))
    assert_one_error_line(gpuia_in_process(command, "--feature-level", "10_0", path),
                          f"input_layout: {RULE}", case="seventeen")
    for level in ("10_1", "11_0", "12"):
        ok = gpuia_in_process(command, "--feature-level", level, path)
        assert ok.returncode == 0, (level, ok.stderr)
    ok = gpuia_in_process(command, path)  # D3D12's limits by default
    assert ok.returncode == 0, ok.stderr


def test_the_case_files_feature_level_and_the_option_over_it(tmp_path):
    path = write_case(tmp_path, "fl10", case(17, feature_level="10_0"))
    assert_one_error_line(gpuia_in_process("validate", path), RULE, case="fl10")
    ok = gpuia_in_process("validate", "--feature-level", "11_0", path)
    assert ok.returncode == 0 and ok.stdout.startswith("ok: fl10: 17 elements"), ok.stderr
    fine = write_case(tmp_path, "fl10_16", case(16, feature_level="10_0"))
    assert gpuia_in_process("validate", fine).returncode == 0
    bad = write_case(tmp_path, "bad", case(1, feature_level="9_3"))
    assert_one_error_line(gpuia_in_process("validate", bad), "feature_level", "'9_3'", "10_0",
                          case="bad")


def test_check_refuses_before_any_draw(tmp_path, gpu_device):
    """gpuia check opens its adapters, then refuses the case before drawing it."""
    path = write_case(tmp_path, "seventeen", case(17))
    assert_one_error_line(gpuia_cli("check", "--feature-level", "10_0", path), RULE,
                          case="seventeen")
    assert gpuia_cli("check", "--feature-level", "11_0", path).returncode == 0


def test_layout_and_translate_take_the_option(tmp_path):
    path = tmp_path / "list.json"
    path.write_text(json.dumps(elements(17)))
    proc = gpuia_in_process("layout", path, "--no-gpu", "--feature-level", "10_0")
    assert proc.returncode == 2 and "E001" in proc.stdout and RULE in proc.stdout, proc.stdout
    assert gpuia_in_process("layout", path, "--no-gpu", "--feature-level", "11_0").returncode == 0
    assert_one_error_line(gpuia_in_process("translate", path, "--feature-level", "10_0"), RULE,
                          case="translate")
    assert gpuia_in_process("translate", path, "--feature-level", "11_0").returncode == 0


def test_an_unknown_level_is_refused_by_the_parser(tmp_path):
    assert_one_error_line(gpuia_cli("validate", "--feature-level", "9_3",
                                    write_case(tmp_path, "c", case(1))),
                          "--feature-level", "'9_3'", "'10_0', '10_1', '11_0', '12'",
                          case="validate")


def test_layout_and_translate_take_a_case_files_own_level(tmp_path):
    """A case file's ``feature_level`` holds for ``layout`` and ``translate`` as for
    ``validate``; ``--feature-level`` still overrides it."""
    path = write_case(tmp_path, "fl10", case(17, feature_level="10_0"))
    proc = gpuia_in_process("layout", path, "--no-gpu")
    assert proc.returncode == 2 and "E001" in proc.stdout and RULE in proc.stdout, proc.stdout
    assert gpuia_in_process("layout", path, "--no-gpu", "--feature-level", "11_0").returncode == 0
    assert_one_error_line(gpuia_in_process("translate", path), RULE, case="translate")
    assert gpuia_in_process("translate", path, "--feature-level", "11_0").returncode == 0
