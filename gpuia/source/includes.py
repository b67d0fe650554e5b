"""``#include`` targets: gpuia's generated headers found whatever the case of their name, and
the refusal of an include that names something the compiler cannot read safely.

D3D code is written for Windows, whose file names are case-insensitive: ``<Windows.h>``,
``<D3D12.h>``, ``<directxmath.h>`` all name the headers gpuia generates as ``windows.h``,
``d3d12.h`` and ``DirectXMath.h`` (and the standard headers it gives: ``<Stddef.h>``).
:func:`stub_aliases` gives the compiler, under each other spelling the code uses, a header that
includes the generated one by its own name: it is read once (its ``#pragma once`` holds), and
a real header of that name on the include path wins over the generated one, as always. The
aliases lie in the folder of the generated headers, searched last, so a real header spelled as
written wins too. Other files are found with the case they are written with: only the names of
gpuia's own headers are resolved case-insensitively.

:func:`check_includes` refuses, before the compiler runs, an ``#include "..."`` or ``<...>`` of
the file read whose target, where the compiler would look for it, is not a regular file (a
FIFO blocks the compiler, a device such as ``/dev/zero`` never ends) or is larger than
:data:`gpuia.util.files.MAX_INPUT_BYTES`, as an input file would be refused. An include named
through a macro, or in another header, is not seen here; the limits of the process the
compiler runs in bound those (:mod:`gpuia.source.isolated`).
"""

from __future__ import annotations

import os
import re
import stat

from ..util.files import MAX_INPUT_BYTES
from .model import SourceError

__all__ = ["stub_aliases", "written_includes", "missing_includes", "check_includes"]

_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*([<"])([^>"\r\n]+)[>"]', re.M)
_NOT_FOUND = re.compile(r"^'([^']+)' file not found")


def written_includes(data: bytes) -> list[tuple[int, bool, str]]:
    """The ``#include`` directives spelled out in a file (not those named through a macro).

    Arguments:
        data: the file's bytes.

    Returns:
        ``(line, quoted, name)`` for each, in order: ``quoted`` for ``"name"``, false for
        ``<name>``.
    """
    out = []
    line, counted = 1, 0  # lines counted up to each match from the last: linear, not quadratic
    for m in _INCLUDE.finditer(data):
        line += data.count(b"\n", counted, m.start())
        counted = m.start()
        out.append((line, m.group(1) == b'"', m.group(2).decode("utf-8", "replace").strip()))
    return out


def missing_includes(messages) -> list[str]:
    """The names of the includes the compiler did not find.

    Arguments:
        messages: the compiler's diagnostic texts.

    Returns:
        Each name as written, in order, once.
    """
    out: list[str] = []
    for text in messages:
        m = _NOT_FOUND.match(text)
        if m is not None and m.group(1) not in out:
            out.append(m.group(1))
    return out


def stub_aliases(names, headers, folder: str) -> list[tuple[str, str]]:
    """The generated headers under the spellings ``names`` use (see the module docstring).

    Arguments:
        names: include names as written (``Windows.h``).
        headers: the file names of the generated headers.
        folder: the folder they are given from.

    Returns:
        ``(path, text)`` for each name that is a generated header's name in another case (a
        name in a folder, or spelled as the header is, is left out: the compiler finds it).
    """
    lower = {name.lower(): name for name in headers}
    out = []
    for name in dict.fromkeys(names):
        own = lower.get(name.lower())
        if own is not None and own != name and "/" not in name and "\\" not in name:
            out.append((f"{folder}/{name}", f"#pragma once\n#include <{own}>\n"))
    return out


def check_includes(label: str, data: bytes, include_dirs=()) -> None:
    """Refuse an include of the file that names something other than a bounded regular file.

    The target is looked for as the compiler looks: a ``"quoted"`` name first in the file's
    folder, then in each include folder, in order; an absolute name as it is. The first entry
    found that is not a folder is the one checked (the compiler passes over folders).

    Arguments:
        label: the file, as named.
        data: its bytes.
        include_dirs: the ``-I`` folders.

    Raises:
        SourceError: naming the file, the line, the include and what its target is.
    """
    here = os.path.dirname(label) or "."
    for line, quoted, name in written_includes(data):
        if os.path.isabs(name):
            candidates = [name]
        else:
            candidates = ([os.path.join(here, name)] if quoted else []) + [
                os.path.join(str(d), name) for d in include_dirs]
        for path in candidates:
            try:
                info = os.stat(path)
            except (OSError, ValueError):
                continue
            if stat.S_ISDIR(info.st_mode):
                continue
            quote = f'"{name}"' if quoted else f"<{name}>"
            if not stat.S_ISREG(info.st_mode):
                raise SourceError(f"{label}:{line}", f"#include {quote} names {path}, which is "
                                  f"not a regular file (a FIFO, a device or a socket is not "
                                  f"read)")
            if info.st_size > MAX_INPUT_BYTES:
                raise SourceError(f"{label}:{line}", f"#include {quote} names {path}: "
                                  f"{info.st_size} bytes, more than {MAX_INPUT_BYTES} (the "
                                  f"input limit)")
            break
