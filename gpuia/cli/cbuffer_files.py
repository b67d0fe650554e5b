"""``gpuia layout --cbuffer bN=FILE``: the constant buffers ``--check`` draws ``--shader`` with.

``FILE`` is either the bytes of root constant buffer N as the application uploads them (any
file not ending in ``.json``), or a ``.json`` object of the cbuffer's members by name, packed
by D3D's rules from the HLSL shader's reflection (:func:`gpuia.hlsl.pack_constant_buffer`;
docs/case-format.md, ``constant_buffers`` ``values``). Slots the shader reads that no option
names stay zero-filled.

Refused (:class:`~gpuia.errors.UnsupportedError` or :class:`~gpuia.errors.InvalidDescError`,
exit 2 with one ``error:`` line, before any file is read): an option not of the form
``bN=FILE``, a slot given twice, ``--cbuffer`` without ``--shader``, a slot the shader does not
read, a file that cannot be read, bytes over 65536 (4096 registers), JSON that is not an
object, members by name for a WGSL shader (WGSL has no D3D packing to reflect), and members
that do not fit the cbuffer.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from ..errors import InvalidDescError, UnsupportedError

__all__ = ["CBufferInput", "cbuffer_inputs", "register_lines"]

_SPEC = re.compile(r"^[bB](\d+)=(.+)$", re.S)
_MAX_BYTES = 65536
_REGISTER = 16


@dataclass
class CBufferInput:
    """One ``--cbuffer``: its slot, file, the case's value (bytes, or members by name), the
    packed bytes and the cbuffer's name ('' for a WGSL uniform)."""

    slot: int
    file: Path
    value: bytes | dict
    packed: bytes
    name: str

    @property
    def form(self) -> str:
        return "members by name" if isinstance(self.value, dict) else "bytes"

    def describe(self) -> list[str]:
        what = f"cbuffer {self.name}" if self.name else f"@group(3) @binding({self.slot})"
        return [f"constant buffer b{self.slot} ({what}): {len(self.packed)} bytes from "
                f"{self.file} ({self.form})", *register_lines(self.packed)]

    def as_json(self) -> dict:
        return {"slot": self.slot, "cbuffer": self.name or None, "file": str(self.file),
                "form": self.form, "bytes": len(self.packed),
                "registers": [self.packed[i:i + _REGISTER].hex()
                              for i in range(0, len(self.packed), _REGISTER)]}


def register_lines(data: bytes) -> list[str]:
    """``data`` as one line per 16-byte register (``c<N>`` and its four 32-bit words, each as
    its bytes in memory order, in hex); a run of all-zero registers is one line."""
    lines: list[str] = []
    n = (len(data) + _REGISTER - 1) // _REGISTER
    r = 0
    while r < n:
        reg = data[r * _REGISTER:(r + 1) * _REGISTER]
        end = r
        while not any(reg) and end + 1 < n and not any(
                data[(end + 1) * _REGISTER:(end + 2) * _REGISTER]):
            end += 1
        if end > r:
            lines.append(f"  c{r}..c{end}  zero")
        else:
            words = [reg[i:i + 4].hex() for i in range(0, len(reg), 4)]
            lines.append(f"  c{r:<5} {' '.join(words)}")
        r = end + 1
    return lines


def cbuffer_inputs(specs: list[str], shader) -> list[CBufferInput]:
    """The ``--cbuffer`` options, checked against ``shader`` (the command's ``--shader``: its
    ``hlsl`` compiled shader or None, and its case-format ``doc``); see the module docstring for
    what is refused."""
    if not specs:
        return []
    if shader is None:
        raise UnsupportedError("--cbuffer needs --shader: the pass-through shader reads no "
                               "constant buffer")
    if shader.not_drawn is not None:
        raise UnsupportedError(f"--cbuffer: {shader.not_drawn}, and constant buffers are "
                               f"what --check draws it with")
    from ..harness.case import vertex_shader_reads
    from ..hlsl.cbuffer_pack import pack_constant_buffer

    reads = set(vertex_shader_reads(shader.doc))
    out: dict[int, CBufferInput] = {}
    for spec in specs:
        m = _SPEC.match(spec)
        if not m:
            raise UnsupportedError(f"--cbuffer {spec}: expected bN=FILE (N the register of "
                                   f"the cbuffer, as in register(b0))")
        slot, file = int(m.group(1)), Path(m.group(2))
        where = f"--cbuffer b{slot}"
        if slot in out:
            raise UnsupportedError(f"{where}: constant buffer {slot} is given twice")
        if slot not in reads:
            raise InvalidDescError(where, "slot", slot, f"{shader.path} reads no constant buffer "
                                   f"in register b{slot} (it reads "
                                   f"{', '.join(f'b{s}' for s in sorted(reads)) or 'none'})")
        cb = None if shader.hlsl is None else shader.hlsl.constant_buffer(slot)
        value = _read(file, where)
        if isinstance(value, dict):
            if cb is None:
                raise UnsupportedError(f"{where}: members by name are packed from an HLSL "
                                       f"shader's reflection; {shader.path} is WGSL: give the "
                                       f"bytes (a file not ending in .json)")
            packed = pack_constant_buffer(cb, value, where)
        else:
            packed = value
        out[slot] = CBufferInput(slot, file, value, packed, "" if cb is None else cb.name)
    return [out[s] for s in sorted(out)]


def _read(file: Path, where: str) -> bytes | dict:
    """The file's bytes, or its JSON object when it ends in ``.json``."""
    try:
        data = file.read_bytes()
    except OSError as e:
        raise UnsupportedError(f"{where}: cannot read {file}: {e.strerror or e}") from None
    if file.suffix.lower() != ".json":
        if len(data) > _MAX_BYTES:
            raise InvalidDescError(where, "bytes", len(data), f"{file}: a constant buffer holds "
                                   f"at most 4096 registers ({_MAX_BYTES} bytes)")
        return data
    try:
        value = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise UnsupportedError(f"{where}: {file} is not JSON: {e}") from None
    if not isinstance(value, dict):
        raise UnsupportedError(f"{where}: {file}: expected a JSON object of the cbuffer's "
                               f"members by name")
    return value
