"""Slang's and naga's refusals of an HLSL entry, said at the user's file and line.

``gpuia.hlsl.frontend`` compiles the user's source with gpuia's text around it (the prepared
source, the wrapper entry); a failure is reported where the user wrote it. Guaranteed: Slang's
first error is one line, placed at the user's line its note names when Slang placed it in
gpuia's wrapper (:func:`at_users_line`); an entry point the source does not define is named as
such, with Slang's suggestion (:func:`refuse_missing_entry`); a sample of an integer texture,
which Slang refuses by a static assertion in its core module, names the texture, its register
and rules 17.12 (:func:`refuse_integer_sample`); WGSL naga refuses is placed at the
user's line Slang emitted it for (:func:`naga_refusal`). Where no user line is known (gpuia's own
rewriting made the error, or naga points at Slang's core module) the refusal names no line,
never a wrong one.
"""

from __future__ import annotations

import re

from ..errors import InvalidDescError
from . import library, naga

__all__ = ["at_users_line", "refuse_missing_entry", "naga_refusal", "refuse_integer_sample"]

_COMMENT_RE = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_WRAPPER_FILE = "gpuia-wrapper.hlsl"  # the #line name of gpuia.hlsl.wrapper's text
# Slang's E40012 ("expected a compile-time constant") quoting a line that offsets a texture read
_OFFSET_CALL_RE = re.compile(r"\|[^\n]*\.\s*(?:SampleLevel|SampleCmpLevelZero|Load)\s*\(")
_USE_NOTE_RE = re.compile(r"note: see using of '([^']+)'\s*\n\s*-->\s*(\S+:\d+:\d+)")
# Slang's static assertion at a sample of a Texture*<uint...> or <int...>: the call its note
# names, where, and the quoted line
_INT_SAMPLE_RE = re.compile(r"supports only float and half type textures.*?note: see call to "
                            r"'(\w+)'\s*\n\s*-->\s*(\S+:\d+:\d+)\s*\n(?:\s*\|\s*\n)?"
                            r"\s*\d+\s*\|([^\n]*)", re.S)


def at_users_line(diagnostics: str) -> str:
    """Slang's first error, one line; when it is placed in gpuia's wrapper (E36107: the
    wrapper entry uses a feature WGSL lacks), at the user's line its note names instead; a
    constant expected in a line that reads a texture names the texel offset rule (17.11)."""
    first = library.first_error(diagnostics)
    if "E40012" in first and _OFFSET_CALL_RE.search(diagnostics):
        first += (" (a texel offset of SampleLevel, SampleCmpLevelZero or Load is an immediate "
                  "integer: D3D takes no programmable offset there, rules 17.11)")
    if first.startswith(_WRAPPER_FILE):
        use = _USE_NOTE_RE.search(diagnostics)
        if use:
            head = re.sub(r"^\S+:\d+:\d+:\s*", "", first)
            return f"{use.group(2)}: {head} (the use of '{use.group(1)}' here)"
    return first


def refuse_missing_entry(diagnostics: str, source: str, entry_point: str, defs, file_name: str,
                         what: str) -> None:
    """Refuse a compile whose ``diagnostics`` say the source has no function ``entry_point``;
    nothing happens for any other failure."""
    # Slang's E38000 says so (its first error may be another, "undefined identifier"
    # without a name or place); without defines the text says so too.
    code = _COMMENT_RE.sub(" ", source)
    if "E38000" in diagnostics or \
            (not re.search(rf"\b{re.escape(entry_point)}\s*\(", code) and not defs):
        hint = re.search(r"did you mean '(\w+)'", diagnostics)
        raise InvalidDescError(what, "entry_point", entry_point,
                               f"{file_name} has no function {entry_point}"
                               f"{' (with the defines given)' if defs else ''}"
                               f"{f'; did you mean {hint.group(1)}?' if hint else ''}")


def naga_refusal(message: str, with_lines, prepared, source: str, what: str
                  ) -> InvalidDescError:
    """The refusal of WGSL naga refused (``message``), at the user's line: Slang's WGSL is
    compiled again with its ``#line`` directives (``with_lines()``), which are taken out and
    kept as a map of its lines, and naga's position in that text is the user's file and line.
    Where naga accepts that text (gpuia's own rewriting made the error) or points at Slang's
    core module, the refusal names no line."""
    reason = naga.summary(message)
    where, spelled = None, None
    try:
        raw = with_lines().code.decode("utf-8", "replace")
    except InvalidDescError:
        raw = ""
    lines, origin = [], []
    current = ("", 0)
    for line in raw.split("\n"):
        m = re.match(r'\s*#line\s+(\d+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*$', line)
        if m:
            current = (m.group(2) if m.group(2) is not None else current[0], int(m.group(1)))
            continue
        lines.append(line)
        origin.append(current)
        current = (current[0], current[1] + 1)
    if lines:
        _, again = library.check_wgsl(re.sub(r"@(vertex|fragment)\b", "", "\n".join(lines)),
                                      what)
        n = naga.position(again) if again else None
        if again and n is not None and 0 < n <= len(origin) and \
                origin[n - 1][0] not in ("", "core"):
            name, line = origin[n - 1]
            name = name.replace('\\"', '"').replace("\\\\", "\\")
            where = f"{prepared.names[1] if name == prepared.names[0] else name}:{line}"
            reason = naga.summary(again)
            texts = {prepared.names[0]: source, **{f.path: f.text for f in prepared.files}}
            spelled = " ".join((texts.get(name, "").split("\n")[line - 1:line] or [""])[0]
                               .split())[:80] or None
    if where is None:
        err = InvalidDescError(what, "WGSL", None, f"naga refuses the WGSL gpuia made of the "
                                                   f"shader ({reason})")
    else:
        err = InvalidDescError(what, where, spelled, f"Slang emits WGSL for this line that "
                                                     f"naga refuses ({reason}); gpuia cannot "
                                                     f"run it (write the line otherwise)")
    err.diagnostics = message
    return err


def refuse_integer_sample(diagnostics: str, source: str, what: str) -> None:
    """Refuse a compile whose ``diagnostics`` hold Slang's static assertion at a
    ``SampleLevel``, ``SampleCmpLevelZero`` (or other sample) of an integer texture, naming the
    texture, its register (read from ``source``'s declaration, when it has one) and the rule;
    nothing happens for any other failure."""
    m = _INT_SAMPLE_RE.search(diagnostics)
    if m is None:
        return
    call, where, line = m.groups()
    named = re.search(rf"(\w+)\s*\.\s*{re.escape(call)}\s*\(", line)
    name = named.group(1) if named else "the texture"
    reg = re.search(rf"(?<!\w){re.escape(name)}\s*:\s*register\s*\(\s*(t\d+)\s*(?:,\s*"
                    rf"(space\d+)\s*)?\)", _COMMENT_RE.sub(" ", source)) if named else None
    at = f" (register {', '.join(g for g in reg.groups() if g)})" if reg else ""
    raise InvalidDescError(what, where, f"{name}.{call}",
                           f"{name}{at} is a uint or int texture, which D3D does not sample: "
                           f"its _UINT and _SINT formats take ld (Load) only, no sample, "
                           f"sample_c or gather (the D3D11.3 Format List; rules 17.12)")


def refuse_cube_load(diagnostics: str, source: str, what: str) -> None:
    """Refuse a failed compile (``diagnostics`` hold an error) whose ``source`` reads a
    ``TextureCube`` or ``TextureCubeArray`` it declares by ``Load`` or ``[]``, naming the
    texture and the rule: D3D's ld takes any resource but a TextureCube (D3D11.3 spec 22.4.6;
    Slang's own error is a type mismatch or a static assertion). Nothing happens otherwise."""
    if "error" not in diagnostics:
        return
    text = _COMMENT_RE.sub(" ", source)
    for m in re.finditer(r"(?<!\w)(TextureCube(?:Array)?)\s*(?:<[^<>;]*>)?\s+(\w+)", text):
        name = m.group(2)
        if re.search(rf"(?<![\w.]){re.escape(name)}\s*(?:\.\s*Load\s*\(|\[)", text):
            raise InvalidDescError(what, f"resource {name}", f"{m.group(1)}.Load",
                                   "D3D reads a cube by sampling only: ld (Load, []) takes any "
                                   "resource but a TextureCube (D3D11.3 spec 22.4.6; rules "
                                   "17.9)")
