"""Every module of gpuia under 600 lines and every function under 80, or a comment that says
why not (``# size: <why>``: a module's within its first 30 lines, a function's within the
first 5 lines of its body). A long module or function is where a reader loses the thread and a
change touches more than it meant to; the comment makes each exception a decision someone
wrote down. Needs no adapter."""

from __future__ import annotations

import ast
from pathlib import Path

from helpers import REPO

ROOT = REPO / "gpuia"
MODULE_LINES = 600
FUNCTION_LINES = 80
MARK = "# size:"


def _excused(lines: list[str], first: int, count: int) -> bool:
    """A ``# size:`` comment with a reason in lines[first:first + count]."""
    return any(line.strip().startswith(MARK) and line.strip()[len(MARK):].strip()
               for line in lines[first:first + count])


def _long_functions(path: Path, base: Path = REPO) -> list[str]:
    lines = path.read_text().splitlines()
    wrong = []
    for node in ast.walk(ast.parse("\n".join(lines))):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        length = node.end_lineno - node.lineno + 1
        first = node.body[0]
        if (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str) and len(node.body) > 1):
            first = node.body[1]  # after the docstring
        # From the line after ``def`` to 5 lines into the code (first.lineno is 1-based).
        window = first.lineno - 1 - node.lineno + 5
        if length > FUNCTION_LINES and not _excused(lines, node.lineno, window):
            wrong.append(f"{path.relative_to(base)}:{node.lineno} {node.name}: {length} lines")
    return wrong


def test_modules_are_under_the_limit_or_say_why():
    wrong = []
    for path in sorted(ROOT.rglob("*.py")):
        lines = path.read_text().splitlines()
        if len(lines) > MODULE_LINES and not _excused(lines, 0, 30):
            wrong.append(f"{path.relative_to(REPO)}: {len(lines)} lines")
    assert not wrong, (f"modules over {MODULE_LINES} lines with no '{MARK} <why>' comment:\n"
                       + "\n".join(wrong))


def test_functions_are_under_the_limit_or_say_why():
    wrong = [w for path in sorted(ROOT.rglob("*.py")) for w in _long_functions(path)]
    assert not wrong, (f"functions over {FUNCTION_LINES} lines with no '{MARK} <why>' comment:\n"
                       + "\n".join(wrong))


def test_the_rule_sees_a_long_function_and_its_excuse(tmp_path):
    """The rule itself: an 81-line function is caught, the same function with a reason is not,
    and an empty reason is no reason."""
    body = "".join(f"    x{i} = {i}\n" for i in range(FUNCTION_LINES))
    path = tmp_path / "probe.py"
    path.write_text("def f():\n" + body)
    assert len(_long_functions(path, tmp_path)) == 1
    path.write_text("def f():\n    # size: one table of constants, read top to bottom\n" + body)
    assert _long_functions(path, tmp_path) == []
    path.write_text("def f():\n    # size:\n" + body)
    assert len(_long_functions(path, tmp_path)) == 1
