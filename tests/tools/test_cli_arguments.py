"""Bad arguments are one line, ``error: <command>: <message>; see gpuia <command> --help``, and
exit status 2 (docs/case-format.md, "Command line"): not argparse's usage of 6 to 8 lines, and an
argument no option of a command takes is that command's error, not the top level's (before:
``gpuia run case.json -o x`` printed the usage of ``gpuia`` itself).

Each expected line is argparse's message for the mistake, written out by hand."""

from __future__ import annotations

import pytest

from helpers import TRIANGLE, gpuia_cli

COMMANDS = ("'validate', 'run', 'check', 'report', 'adapters', 'formats', 'demo', 'fuzz', "
            "'layout', 'translate', 'shader'")


@pytest.mark.parametrize("args, line", [
    (["run", TRIANGLE, "-o", "x"],
     "error: run: unrecognized arguments: -o x; see gpuia run --help"),
    (["validate", "--bogus=3", TRIANGLE],
     "error: validate: unrecognized arguments: --bogus=3; see gpuia validate --help"),
    ([], "error: gpuia: the following arguments are required: COMMAND; see gpuia --help"),
    (["nosuch"], f"error: gpuia: argument COMMAND: invalid choice: 'nosuch' (choose from "
                 f"{COMMANDS}); see gpuia --help"),
    (["check", TRIANGLE, "--rows", "-1"],
     "error: check: argument --rows: -1: a row count is 0 or more; see gpuia check --help"),
    (["check", "--path", "sideways", TRIANGLE],
     "error: check: argument --path: invalid choice: 'sideways' (choose from 'all', 'native', "
     "'pulling'); see gpuia check --help"),
    (["run", TRIANGLE, "--backend"],
     "error: run: argument --backend: expected one argument; see gpuia run --help"),
    (["layout"], "error: layout: the following arguments are required: FILE; see gpuia layout "
                 "--help"),
    (["shader"], "error: shader: the following arguments are required: FILE; see gpuia shader "
                 "--help"),
    (["fuzz", "--cases", "0"],
     "error: fuzz: argument --cases: '0' must be greater than 0; see gpuia fuzz --help"),
])
def test_a_bad_argument_is_one_line_naming_the_command(args, line):
    proc = gpuia_cli(*args)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stdout == ""
    assert proc.stderr.splitlines() == [line]


def test_help_and_version_are_not_errors():
    for args in (["--help"], ["run", "--help"], ["--version"]):
        proc = gpuia_cli(*args)
        assert proc.returncode == 0, proc.stderr
        assert proc.stderr == "" and proc.stdout
