"""Read-only buffer shader resource views of an HLSL vertex shader, bounds-checked as D3D12.

gpuia binds three kinds of buffer SRV a vertex shader declares at ``register(tN, spaceS)`` (S
0..6; ``space0`` when not written): ``StructuredBuffer<T>`` (``[i]``, ``Load``,
``GetDimensions``), ``ByteAddressBuffer`` (``Load``, ``Load2/3/4``, ``GetDimensions``) and a
typed ``Buffer<T>``, which Slang compiles as the structured buffer gpuia lowers it to and whose
reads this module hands to ``gpuia.hlsl.typed_buffers`` (a storage buffer of words, decoded by
the view's format, which the views uniform's z and w carry).
Guaranteed, in the WGSL :func:`rewrite` makes of Slang's:

* resource tN of space S is ``@group(3) @binding(16 + 128 S + N)``
  (:func:`gpuia.d3d.srv_bindings.srv_binding`), a read-only storage buffer bound whole; the
  view (its first element and element count, D3D12_BUFFER_SRV's FirstElement and
  NumElements: 4-byte words for a raw view) is a ``vec4<u32>`` of gpuia's uniform array at
  ``@group(3) @binding(VIEWS_BINDING)``, one per resource in the order of :attr:`index`;
* every read goes through a function of gpuia's that returns 0 (every member zero) for an
  element past the view, as D3D12 does (WebGPU's robust access may clamp or return any value of
  the buffer instead); a raw load is checked word by word, so a ``Load4`` straddling the end
  keeps the words inside; ``GetDimensions`` gives the view's count.

Refused, naming the resource: textures, samplers and UAVs (only these three kinds are
bound); a register space past 6; a register past t127 (D3D12's 128 SRV slots of
a shader stage in a D3D11-style binding); a structured element whose D3D layout (members packed
at 4-byte steps) differs from WGSL's storage layout (a ``float3`` element, a matrix stored as
3-component vectors; the emitted WGSL's stride is compared with D3D's), or
that holds a type other than float, int and uint (a bool, 16- and 64-bit types); a use of the
resource in Slang's WGSL gpuia cannot bound-check.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..d3d.srv_bindings import SRV_SLOTS, SRV_SPACES, VIEWS_BINDING, srv_binding
from ..d3d.uav_bindings import MAX_UAVS, UAV_SLOTS, uav_binding
from ..errors import InvalidDescError
from ..wgsl.storage_types import element_type
from . import typed_buffers, uavs
from .typed_buffers import TYPED_SHAPE

__all__ = ["ShaderResource", "KINDS",
           "shader_resources", "rewrite", "is_bound_resource", "d3d_layout"]

# Slang's reflected shape -> gpuia's kind; a typed Buffer<T> is lowered by gpuia.hlsl.typed_buffers
KINDS = {"structuredBuffer": "structured", "byteAddressBuffer": "raw", TYPED_SHAPE: "typed"}
_SCALARS = ("float32", "int32", "uint32")  # bool: 4 bytes in D3D, 1 in Slang's C++ (refused)


@dataclass(frozen=True)
class ShaderResource:
    """One buffer SRV the shader reads: ``kind`` ``structured`` or ``raw``; ``stride`` the
    bytes of one element as D3D lays it out (4 for raw: one word); ``index`` its place in
    gpuia's view array; ``var`` its name in Slang's WGSL; ``type`` as the shader declares it;
    ``writable`` a UAV (``RWStructuredBuffer``, ``RWByteAddressBuffer`` in ``register(uN)``:
    ``gpuia.hlsl.uavs``), ``slot`` its place among the shader's UAVs."""

    name: str
    register: int
    space: int
    kind: str
    stride: int
    index: int
    var: str = ""
    type: str = ""
    writable: bool = False
    slot: int = -1

    @property
    def binding(self) -> int:
        return uav_binding(self.slot) if self.writable else srv_binding(self.register,
                                                                         self.space)

    @property
    def register_name(self) -> str:
        """``t5``, ``u1 space2``: the register as HLSL writes it."""
        space = f" space{self.space}" if self.space else ""
        return f"{'u' if self.writable else 't'}{self.register}{space}"


def is_bound_resource(param: dict) -> bool:
    """Whether a reflection parameter is a kind of SRV gpuia binds."""
    t = param.get("type", {})
    return t.get("kind") == "resource" and t.get("baseShape") in KINDS and \
        t.get("access", "read") == "read" and \
        param.get("binding", {}).get("kind") == "shaderResource"


def d3d_layout(t: dict, where: str, what: str, column_major: bool) -> tuple[int, int, int]:
    """(D3D size, WGSL storage size, WGSL alignment) of a structured element's type (a matrix's
    WGSL layout taken as D3D's: :func:`shader_resources` checks the emitted WGSL's stride);
    refused, naming the member, where they differ (see the module docstring)."""
    kind = t.get("kind")
    if kind == "scalar":
        if t.get("scalarType") not in _SCALARS:
            raise InvalidDescError(what, where, t.get("scalarType"),
                                   "a structured buffer element of float, int and uint only "
                                   "(a bool is 4 bytes in D3D and 1 in the CPU reference's "
                                   "C++; 16- and 64-bit types are laid out unlike D3D)")
        return 4, 4, 4
    if kind == "vector":
        d, _, _ = d3d_layout(t["elementType"], where, what, column_major)
        n = int(t["elementCount"])
        # a 3-vector is 12 bytes in both, aligned to 16 in WGSL only: its offset is checked
        return d * n, d * n, {1: 4, 2: 8, 3: 16, 4: 16}[n]
    if kind == "matrix":
        # Its packing (which of rows or columns are WGSL's vectors) is not in the reflection: the
        # WGSL stride check of shader_resources decides; alignment 4 here refuses nothing wrongly.
        rows, cols = int(t["rowCount"]), int(t["columnCount"])
        d3d_layout(t["elementType"], where, what, column_major)
        return 4 * rows * cols, 4 * rows * cols, 4
    if kind == "array":
        d, w, a = d3d_layout(t["elementType"], where, what, column_major)
        count = int(t.get("elementCount", 0))
        if w % a or d != w:
            raise InvalidDescError(what, where, "array", "its element is laid out differently "
                                                          "by D3D and WGSL")
        return d * count, w * count, a
    if kind == "struct":
        d_at = w_at = 0
        align = 4
        for f in t.get("fields", []):
            d, w, a = d3d_layout(f["type"], f"{where}.{f['name']}", what, column_major)
            w_at = -(-w_at // a) * a
            if w_at != d_at:
                raise InvalidDescError(what, f"{where}.{f['name']}", f"offset {d_at}",
                                       f"D3D's structured layout puts it at byte {d_at}, WGSL's "
                                       f"storage layout at {w_at}: gpuia refuses the mismatch "
                                       f"(reorder the members or pad them to 16-byte vectors)")
            d_at, w_at, align = d_at + d, w_at + w, max(align, a)
        w_size = -(-w_at // align) * align
        if w_size != d_at:
            raise InvalidDescError(what, where, f"{d_at} bytes",
                                   f"D3D's structured stride is {d_at} bytes, WGSL's storage "
                                   f"stride {w_size}: gpuia refuses the mismatch (pad the "
                                   f"struct to a multiple of 16 bytes)")
        return d_at, w_size, align
    raise InvalidDescError(what, where, kind, "a structured buffer element of scalars, "
                                              "vectors, matrices, arrays and structs only")


_WGSL_SCALARS = {"f32": 4, "i32": 4, "u32": 4}


def wgsl_storage_layout(type_text: str, structs: dict) -> tuple[int, int]:
    """(size, alignment) of a WGSL type in a storage buffer (WGSL's layout rules), given the
    module's structs (:func:`gpuia.hlsl.cbuffer.parse_wgsl_structs`)."""
    t = type_text.strip()
    if t in _WGSL_SCALARS:
        return 4, 4
    m = re.fullmatch(r"vec([234])\s*<\s*\w+\s*>", t)
    if m:
        n = int(m.group(1))
        return 4 * n, {2: 8, 3: 16, 4: 16}[n]
    m = re.fullmatch(r"array\s*<\s*(.+)\s*,\s*(?:i32|u32)?\(?\s*(\d+)\s*\)?\s*>", t)
    if m:
        size, align = wgsl_storage_layout(m.group(1), structs)
        return -(-size // align) * align * int(m.group(2)), align
    if t in structs:
        at, align = 0, 4
        for _, member, forced in structs[t]:
            size, a = wgsl_storage_layout(member, structs)
            a = max(a, forced)
            at = -(-at // a) * a + size
            align = max(align, a)
        return -(-at // align) * align, align
    raise InvalidDescError("vertex shader", "WGSL", t, "a type gpuia cannot lay out in storage")


def shader_resources(params: dict[str, dict], code: str, what: str, column_major: bool
                     ) -> tuple[ShaderResource, ...]:
    """The buffer SRVs Slang's WGSL ``code`` declares (``params``: the reflection's global
    parameters by emitted name), ordered by space and register. A structured element's D3D
    stride must be its WGSL storage stride (then every member sits at the same offset: WGSL
    only adds padding): a matrix whose packing differs from the default (``row_major`` under
    column-major) is caught here, where the reflection does not say it."""
    from .cbuffer import parse_wgsl_structs

    structs = parse_wgsl_structs(code)
    found = []
    for m in re.finditer(r"@binding\(\s*\d+\s*\)\s*@group\(\s*\d+\s*\)\s*var\s*<\s*storage\s*,"
                         r"\s*read(_write)?\s*>\s*(\w+)\s*:\s*([^;]+);", code):
        writable, var, decl = bool(m.group(1)), m.group(2), m.group(3)
        p = params.get(re.sub(r"_\d+$", "", var))
        if p is None or not (uavs.is_bound_uav(p) if writable else is_bound_resource(p)):
            continue
        b = p["binding"]
        name = p["name"]
        space = int(b.get("space", 0))
        if space >= SRV_SPACES:
            raise InvalidDescError(what, f"resource {name}", f"space{space}",
                                   f"gpuia binds shader resource views of register spaces 0.."
                                   f"{SRV_SPACES - 1} (their bindings fit WebGPU's 1000 of a "
                                   f"bind group)")
        register = int(b.get("index", 0))
        slots, letter = (UAV_SLOTS, "u") if writable else (SRV_SLOTS, "t")
        if register >= slots:
            raise InvalidDescError(what, f"resource {name}", f"register({letter}{register})",
                                   f"gpuia binds {letter}0..{letter}{slots - 1}")
        if writable:
            uavs.refuse_atomics(code, var, name, what)
        kind = KINDS[p["type"]["baseShape"]]
        stride = 4
        if kind == "typed":  # T's bytes as the shader reads them; the format's come at the bind
            stride = wgsl_storage_layout(element_type(decl), structs)[0]
        if kind == "structured":
            stride, _, align = d3d_layout(p["type"]["resultType"], f"resource {name}", what,
                                          column_major)
            if -(-stride // align) * align != stride:
                raise InvalidDescError(what, f"resource {name}", f"{stride}-byte element",
                                       f"D3D's structured stride is {stride} bytes, WGSL's "
                                       f"storage stride {-(-stride // align) * align}: gpuia "
                                       f"refuses the mismatch (use 4-component vectors)")
            size, align = wgsl_storage_layout(element_type(decl), structs)
            if -(-size // align) * align != stride:
                raise InvalidDescError(what, f"resource {name}", f"{stride}-byte element",
                                       f"D3D's structured stride is {stride} bytes, WGSL's "
                                       f"storage stride {-(-size // align) * align} (a "
                                       f"row_major or column_major matrix of 3-vectors?): "
                                       f"gpuia refuses the mismatch")
        found.append((writable, space, register, name, kind, stride, var, decl.strip()))
    found.sort()  # the SRVs, then the UAVs, each by space and register
    n_uav = sum(f[0] for f in found)
    if n_uav > MAX_UAVS:
        raise InvalidDescError(what, "UAVs", n_uav,
                               f"gpuia binds at most {MAX_UAVS} UAVs of a vertex shader (the "
                               f"bindings left of WebGPU's 1000 in a bind group)")
    first_uav = len(found) - n_uav
    return tuple(ShaderResource(name, reg, space, kind, stride, k, var, ty, rw,
                                k - first_uav if rw else -1)
                 for k, (rw, space, reg, name, kind, stride, var, ty) in enumerate(found))


def _calls(code: str, var: str, fn: str) -> str:
    """``var[expr]`` replaced by ``fn(u32(expr))`` (brackets balanced)."""
    out, at = [], 0
    pattern = re.compile(rf"(?<![\w&]){re.escape(var)}\s*\[")
    while True:
        m = pattern.search(code, at)
        if m is None:
            break
        depth, k = 1, m.end()
        while depth and k < len(code):
            depth += {"[": 1, "]": -1}.get(code[k], 0)
            k += 1
        inner = _calls(code[m.end():k - 1], var, fn)  # an index that reads it too
        out.append(code[at:m.start()] + f"{fn}(u32({inner}))")
        at = k
    return "".join(out) + code[at:]


def rewrite(code: str, resources: tuple[ShaderResource, ...], group: int, what: str) -> str:
    """Slang's WGSL with every resource of ``resources`` moved to ``@group(group)`` and read
    through gpuia's bounds-checked functions (see the module docstring)."""
    if not resources:
        return code
    helpers = [f"@binding({VIEWS_BINDING}) @group({group}) var<uniform> gpuia_srv_views : "
               f"array<vec4<u32>, {len(resources)}>;"]
    for r in resources:
        element = element_type(r.type)
        code = re.sub(rf"@binding\(\s*\d+\s*\)\s*@group\(\s*\d+\s*\)(\s*var\s*<\s*storage\s*,"
                      rf"\s*read(?:_write)?\s*>\s*{re.escape(r.var)}\s*:)",
                      rf"@binding({r.binding}) @group({group})\1", code)
        code = re.sub(rf"arrayLength\(\s*&\s*{re.escape(r.var)}\s*\)",
                      f"gpuia_srv_views[{r.index}].y", code)
        fn = f"gpuia_srv_load{r.index}"
        if r.writable:  # D3D12: a write past the view is dropped (gpuia.hlsl.uavs)
            code = uavs.guard_writes(code, r.var, "gpuia_srv_views", r.index, r.name, what)
        code = _calls(code, r.var, fn)
        decoded = r.kind == "typed" and not r.writable  # a typed UAV stores T's bits
        if decoded:  # the view's raw words, decoded by gpuia.hlsl.typed_buffers
            code = re.sub(rf"(var\s*<\s*storage\s*,\s*read\s*>\s*{re.escape(r.var)}\s*:)"
                          rf"\s*[^;]+;", r"\1 array<u32>;", code)
        rest = re.findall(rf"(?<!\w){re.escape(r.var)}(?!\w)", code)
        if len(rest) != 1:  # only its declaration may remain
            raise InvalidDescError(what, f"resource {r.name}", None,
                                   "Slang's WGSL uses it other than by element (a pointer to "
                                   "it?): gpuia cannot bound-check that use")
        code = code.replace(f"{uavs.PLACEHOLDER}{r.index}[", f"{r.var}[")
        if decoded:
            helpers.append(typed_buffers.wgsl_helpers(r.index, r.var, element))
            continue
        # D3D12: a read past the view returns 0 (every member); WebGPU's robust access would
        # clamp or return another element of the buffer.
        helpers.append(f"fn {fn}(i : u32) -> {element}\n{{\n"
                       f"    let v = gpuia_srv_views[{r.index}];\n"
                       f"    if (i < v.y) {{ return {r.var}[v.x + i]; }}\n"
                       f"    return {element}();\n}}")
    if any(r.kind == "typed" and not r.writable for r in resources):
        helpers.append(typed_buffers.wgsl_decoders())
    note = "// gpuia: shader resource views, bounds-checked as D3D12 (docs/resources.md)"
    return f"{code}\n{note}\n" + "\n".join(helpers) + "\n"
