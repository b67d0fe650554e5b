"""naga's diagnostics for a generated program, told in the user's shader's lines.

gpuia compiles the user's shader inside a generated program (gpuia's own declarations first, its
entry points after), so naga's line numbers are the program's. :func:`shader_diagnostic` finds the
user's text in the program (it is embedded verbatim, line for line: see
``signature._parse_entry``), maps every ``┌─ NAME:LINE:COLUMN`` span and every numbered source
line of naga's rendering back to the user's lines, and returns a :class:`ShaderCompileError`:
an :class:`InvalidDescError` whose first line says where (``line 5, column 21 of the vertex
shader``) and what, followed by naga's rendering, still multi-line. A span outside the user's
text is named as gpuia's generated code, with the program's line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import InvalidDescError

__all__ = ["ShaderCompileError", "shader_diagnostic", "UserText"]

_SPAN_RE = re.compile(r"^(\s*)┌─ (.*?):(\d+):(\d+)\s*$")
_GUTTER_RE = re.compile(r"^( *)(\d+)( │.*)$")
_HEAD_RE = re.compile(r"^Shader '.*?' (parsing|validation) error: ?(.*)$|"
                      r"^Shader (parsing|validation) error: ?(.*)$")
GENERATED = "gpuia's generated code"


@dataclass(frozen=True)
class UserText:
    """A user text embedded verbatim in a generated program, and how messages name it."""

    name: str  # "vertex shader", "pixel shader"
    text: str


class ShaderCompileError(InvalidDescError):
    """A shader naga refused. ``summary`` is the one-line message (where and what),
    ``diagnostic`` naga's rendering with the user's line numbers, one string per line;
    ``str()`` is the summary followed by the diagnostic's lines."""

    def __init__(self, where: str, rule: str, diagnostic: tuple[str, ...]):
        super().__init__(where, "wgsl", "...", rule)
        self.summary = self.args[0]
        self.diagnostic = diagnostic
        self.args = ("\n".join((self.summary, *diagnostic)),)


def _ranges(code: str, pieces) -> list[tuple[UserText, int, int]]:
    """(piece, first program line, line count) of each piece found in ``code``."""
    out = []
    for p in pieces:
        if not p.text:
            continue
        at = code.find(p.text)
        if at < 0:
            continue
        out.append((p, code.count("\n", 0, at) + 1, p.text.count("\n") + 1))
    return out


def _locate(line: int, ranges) -> tuple[str, int]:
    """(name, line) of program line ``line``: in a user text, or in gpuia's generated code."""
    for piece, first, count in ranges:
        if first <= line < first + count:
            return piece.name, line - first + 1
    return GENERATED, line


def shader_diagnostic(message: str, code: str, pieces, where: str,
                      what: str) -> ShaderCompileError:
    """The :class:`ShaderCompileError` for naga's ``message`` about program ``code``, which
    embeds the user texts ``pieces`` (:class:`UserText`). ``where`` names the shader in the
    error (``"vertex shader"``), ``what`` says what failed (``"does not compile"``)."""
    ranges = _ranges(code, pieces)
    lines = message.replace("\r\n", "\n").split("\n")
    # wgpu's wrapper ("Validation Error / Caused by: / In wgpuDeviceCreateShaderModule") goes;
    # naga's rendering starts at its "Shader ... error:" line and ends at the blank lines after
    # which wgpu repeats the error chain.
    start = next((i for i, t in enumerate(lines) if _HEAD_RE.match(t.strip())), None)
    if start is None:
        body = [t for t in lines if t.strip()]
        text = " ".join(" ".join(body).split())
        return ShaderCompileError(where, f"{what}: {text[:600]}", ())
    end = len(lines)
    for i in range(start + 1, len(lines) - 1):
        if not lines[i].strip() and not lines[i + 1].strip():
            end = i
            break
    head = _HEAD_RE.match(lines[start].strip())
    assert head is not None  # start is the line that matched it
    kind, summary = (head.group(1), head.group(2)) if head.group(1) else (head.group(3),
                                                                            head.group(4))
    out, first_span = [], None
    for raw in lines[start + 1:end]:
        span = _SPAN_RE.match(raw)
        gutter = _GUTTER_RE.match(raw)
        if span:
            name, line = _locate(int(span.group(3)), ranges)
            col = int(span.group(4))
            first_span = first_span or (name, line, col)
            raw = f"{span.group(1)}┌─ {name}:{line}:{col}"
        elif gutter:
            _, line = _locate(int(gutter.group(2)), ranges)
            width = len(gutter.group(1)) + len(gutter.group(2))
            raw = f"{line:>{width}}{gutter.group(3)}"
        if raw.strip():
            out.append(raw.rstrip())
    if first_span is None:
        place = ""
    elif first_span[0] == GENERATED:
        place = (f" in {GENERATED} (line {first_span[1]} of the program; the shader's "
                 f"interface may not match what gpuia generates around it)")
    else:
        place = f" at line {first_span[1]}, column {first_span[2]} of the {first_span[0]}"
    return ShaderCompileError(where, f"{what}{place}: {kind} error: {summary}", tuple(out))
