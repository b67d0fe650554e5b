"""DXBC vertex and pixel shaders drawn through gpuia's HLSL front end (docs/compiled-shaders.md).

:func:`compile_dxbc` reads a compiled container (:func:`gpuia.d3d.container.read_container`),
has its DXBC code translated to HLSL (:mod:`gpuia.hlsl.dxbc_tools`: vkd3d-compiler to SPIR-V,
SPIRV-Cross to HLSL), puts the container's semantics back on that HLSL and compiles it with
:func:`gpuia.hlsl.compile_shader`, so the result is an ordinary :class:`~gpuia.hlsl.HlslShader`
that every gpuia path draws and the CPU reference runs (the same translated HLSL through the
C++ build).

The rewrite, guaranteed:

* vkd3d declares a signature element's register as its SPIR-V location, which SPIRV-Cross
  names ``TEXCOORD<location>``: each such input or output member gets the semantic of the
  container's element in that register (system values keep SPIRV-Cross's ``SV_`` names);
* an ordinary input element the code never reads (in the signature, with no ``dcl_input``)
  becomes an unread member under its semantic, so the signature linked is the container's
  (rules 3.8: a layout must still provide it);
* SPIRV-Cross's ``SPIRV_Cross_VertexInfo`` cbuffer (the base vertex and base instance it adds
  back to SPIR-V's vertex and instance index) becomes two constants 0, so ``SV_VertexID`` and
  ``SV_InstanceID`` carry D3D's values, which gpuia's front end already gives;
* an integer constant kept as a float literal's bits (``asuint(9.8090892e-45f)``, which is 7)
  becomes the integer literal, so no compiler can flush it as a denormal;
* vkd3d numbers constant buffers' bindings in the order the program declares them, which
  SPIRV-Cross writes as ``register(b<binding>)``: each gets back the register of its
  ``dcl_constantbuffer`` (:mod:`gpuia.d3d.container.declarations`), so root constant buffer N
  is still ``cb<N>``.

vkd3d declares constant buffers as arrays of float4, so their D3D packing is exact by
construction; they are read from ``constant_buffers`` by bytes (``data``). A temporary register
read before it is written reads zero (SPIRV-Cross's ``--force-zero-initialized-variables``), the
same on the CPU and on every GPU.

Refused: a DXIL container (nothing Debian or PyPI packages translates DXIL code; its
signatures are still read), a stage other than the one asked for, a program that declares
textures, samplers, UAVs or group-shared memory (gpuia binds only constant buffers), a constant
buffer outside register space 0 or declared as a range, two signature elements packed
into one register (one register can carry one semantic here), a register the signature does not
name, anything the tools or the HLSL front end refuse, and a machine without the tools
(:class:`~gpuia.errors.UnsupportedError` naming the packages).
"""

from __future__ import annotations

import re
import struct

from ..d3d.container import SignatureParameter, read_container
from ..d3d.container.declarations import ConstantBufferDeclaration, resource_declarations
from ..errors import InvalidDescError, UnsupportedError
from . import dxbc_tools
from .frontend import STAGE_NAMES, HlslShader, compile_shader

__all__ = ["compile_dxbc", "translated_hlsl", "DXIL_REFUSAL"]

DXIL_REFUSAL = ("DXIL code (shader model 6, DXC's output) cannot be drawn: vkd3d-compiler 1.2 "
                "translates DXBC only, and no DXIL translator (dxc, dxil-spirv) is packaged by "
                "Debian or PyPI; its signatures are still read (gpuia shader, gpuia layout "
                "--shader)")

_VERTEX_INFO = re.compile(r"cbuffer SPIRV_Cross_VertexInfo\s*\{\s*int SPIRV_Cross_BaseVertex;"
                          r"\s*int SPIRV_Cross_BaseInstance;\s*\};")
_CONSTANTS = ("static const int SPIRV_Cross_BaseVertex = 0;\n"
              "static const int SPIRV_Cross_BaseInstance = 0;")
_IO_STRUCTS = {"SPIRV_Cross_Input": "input", "SPIRV_Cross_Output": "output"}
_STRUCT = re.compile(r"^struct (SPIRV_Cross_Input|SPIRV_Cross_Output)\n\{\n(.*?)^\};",
                     re.M | re.S)
_LOCATION = re.compile(r"^(\s*[^:;\n]*\b\w+ : )TEXCOORD(\d+);$", re.M)
_FLOAT = r"-?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?f"
_BITS_OF_LITERALS = re.compile(rf"\bas(u?int)\((?:float([234])\()?({_FLOAT}(?:\s*,\s*{_FLOAT})*)"
                               rf"\)?\)")
_NO_INPUT_ENTRY = re.compile(r"^(\w+) main\(\)", re.M)
_SCALARS = {"FLOAT32": "float", "UINT32": "uint", "SINT32": "int"}
_CBUFFER = re.compile(r"^(cbuffer \w+ : register\()b(\d+)\)", re.M)


def _semantic(p: SignatureParameter) -> str:
    return f"{p.semantic_name}{p.semantic_index}"


def _by_register(signature: tuple[SignatureParameter, ...], what: str,
                 where: str) -> dict[int, str]:
    """register -> semantic of the element a location stands for: the register's ordinary
    element (system values sharing it have SPIR-V built-ins of their own), else its one system
    value read as an ordinary input (a vertex shader's SV_Position input, rules 3.8)."""
    out: dict[int, list[SignatureParameter]] = {}
    system: dict[int, list[SignatureParameter]] = {}
    for p in signature:
        if p.register != 0xFFFFFFFF:
            ordinary = p.system_value_type in ("UNDEFINED", "TARGET")
            (out if ordinary else system).setdefault(p.register, []).append(p)
    for reg, params in system.items():
        if reg not in out and len(params) == 1:
            out[reg] = params
    named = {}
    for reg, params in out.items():
        if len(params) > 1:
            raise UnsupportedError(
                f"{where}: the {what} signature packs {', '.join(map(_semantic, params))} into "
                f"register {reg}; a translated DXBC shader carries one semantic per register")
        named[reg] = _semantic(params[0])
    return named


def _renamed(body: str, registers: dict[int, str], what: str, where: str) -> str:
    def member(m: re.Match) -> str:
        reg = int(m.group(2))
        if reg not in registers:
            raise InvalidDescError(where, f"{what} register", reg,
                                   "the translated code uses a register the container's "
                                   f"{what} signature does not name")
        return f"{m.group(1)}{registers[reg]};"

    return _LOCATION.sub(member, body)


def _unread(inputs: tuple[SignatureParameter, ...], named: set[str]) -> list[str]:
    """Members for the ordinary input elements the code never declares (FXC keeps an unread
    input in the signature, ReadWriteMask 0, without a ``dcl_input``): D3D links the signature,
    so a layout must still provide them (rules 3.8), as for the HLSL source."""
    lines = []
    for p in inputs:
        if p.system_value_type == "UNDEFINED" and p.register != 0xFFFFFFFF \
                and _semantic(p) not in named:
            kind = _SCALARS[p.component_type]
            flat = "" if kind == "float" else "nointerpolation "
            width = max(p.mask.bit_length(), 1)
            lines.append(f"    {flat}{kind}{width if width > 1 else ''} unread{p.register} : "
                         f"{_semantic(p)};\n")
    return lines


def _with_unread(text: str, inputs: tuple[SignatureParameter, ...], where: str) -> str:
    m = _STRUCT.search(text)
    while m is not None and m.group(1) != "SPIRV_Cross_Input":
        m = _STRUCT.search(text, m.end())
    body = m.group(2) if m is not None else ""
    named = set(re.findall(r" : (\w+);$", body, re.M))
    lines = _unread(inputs, named)
    if not lines:
        return text
    if m is not None:
        return text[:m.end(2)] + "".join(lines) + text[m.end(2):]
    entry = _NO_INPUT_ENTRY.search(text)
    if entry is None:
        raise InvalidDescError(where, None, None, "the translation's entry point is not in the "
                                                  "form gpuia adds unread inputs to")
    struct = "struct SPIRV_Cross_Input\n{\n" + "".join(lines) + "};\n\n"
    return (text[:entry.start()] + struct + entry.group(1)
            + " main(SPIRV_Cross_Input stage_input)" + text[entry.end():])


def _registers(raw: str, declared: tuple[ConstantBufferDeclaration, ...], where: str) -> str:
    """Each cbuffer's SPIR-V binding (its place among the declarations) made its register."""
    for k, cb in enumerate(declared):
        if cb.space != 0 or (cb.upper is not None and cb.upper != cb.register):
            raise UnsupportedError(f"{where}: constant buffer {k} (cb{cb.register}, space "
                                   f"{cb.space}) is a range or outside register space 0; "
                                   f"gpuia's root constant buffers are single registers of "
                                   f"space 0")
    bindings = [int(m.group(2)) for m in _CBUFFER.finditer(raw)]
    if len(set(bindings)) != len(bindings) or not set(bindings) <= set(range(len(declared))):
        raise InvalidDescError(where, None, None,
                               f"the translation binds constant buffers {bindings}, not the "
                               f"{len(declared)} the program declares")
    return _CBUFFER.sub(lambda m: f"{m.group(1)}b{declared[int(m.group(2))].register})", raw)


def _bits(m: re.Match) -> str:
    """``asuint(<float literal>)`` (or of a float2-4 of literals) as the integer literal of its
    bits: DXBC keeps integer constants as 32-bit patterns, which SPIRV-Cross writes as float
    literals (7 is ``9.8e-45f``, a denormal a compiler may flush); gpuia writes the integers."""
    kind, width, body = m.group(1), m.group(2), m.group(3)
    values = [v.strip()[:-1] for v in body.split(",")]
    if len(values) != int(width or 1):
        return m.group(0)
    words = [struct.unpack("<I", struct.pack("<f", float(v)))[0] for v in values]
    out = [f"{w}u" if kind == "uint" else f"int({w}u)" for w in words]  # int(): the same bits
    return f"{kind}{width or ''}({', '.join(out)})" if width else f"{kind}({out[0]})"


def translated_hlsl(raw: str, inputs: tuple[SignatureParameter, ...],
                    outputs: tuple[SignatureParameter, ...],
                    declared: tuple[ConstantBufferDeclaration, ...], where: str) -> str:
    """SPIRV-Cross's HLSL ``raw`` rewritten as the module docstring says, for a container
    whose signatures are ``inputs`` and ``outputs`` and whose program declares the constant
    buffers ``declared``, in order."""
    registers = {"input": _by_register(inputs, "input", where),
                 "output": _by_register(outputs, "output", where)}

    def struct(m: re.Match) -> str:
        what = _IO_STRUCTS[m.group(1)]
        return f"struct {m.group(1)}\n{{\n{_renamed(m.group(2), registers[what], what, where)}}};"

    text = _with_unread(_STRUCT.sub(struct, _registers(raw, declared, where)), inputs, where)
    if "SPIRV_Cross_VertexInfo" in text:
        text, count = _VERTEX_INFO.subn(_CONSTANTS, text)
        if count != 1:
            raise InvalidDescError(where, None, None, "SPIRV-Cross's base vertex cbuffer is "
                                                      "not in the form gpuia rewrites")
    return _BITS_OF_LITERALS.sub(_bits, text)


def compile_dxbc(blob: bytes, stage: str = "vertex", where: str | None = None) -> HlslShader:
    """The DXBC container ``blob`` (a ``.cso``) compiled as gpuia's shader of ``stage``
    (``vertex`` or ``pixel``); ``where`` names it in errors and diagnostics (default
    ``<stage>_shader.dxbc``). See the module docstring for what is guaranteed and refused;
    :class:`~gpuia.errors.ContainerError` for bytes that are not a container."""
    what = STAGE_NAMES.get(stage)
    if what is None:
        raise InvalidDescError("dxbc", "stage", stage, "expected 'vertex' or 'pixel'")
    where = where or f"{stage}_shader.dxbc"
    container = read_container(bytes(blob))
    if container.container == "DXIL":
        raise UnsupportedError(f"{where}: {DXIL_REFUSAL}")
    if container.stage != stage:
        raise InvalidDescError(where, "stage", container.stage,
                               f"the container holds a {container.stage} shader, not a {what}")
    declarations = resource_declarations(blob)
    if declarations.other_resources:
        raise UnsupportedError(f"{where}: the program declares a "
                               f"{declarations.other_resources[0]}; gpuia binds only constant "
                               f"buffers")
    raw = dxbc_tools.translate(bytes(blob), where)
    text = translated_hlsl(raw.hlsl, container.input_signature, container.output_signature,
                           declarations.constant_buffers, where)
    return compile_shader(text, stage, "main", {}, "column_major",
                          file_name=f"{where} (translated).hlsl")
