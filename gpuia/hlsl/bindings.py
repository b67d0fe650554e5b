"""The bindings of an HLSL entry: its constant buffers; buffer SRVs and UAVs of a vertex shader
are ``gpuia.hlsl.srv``'s (``gpuia.hlsl.uavs``), every other resource refused.

gpuia binds only root constant buffers: ``cbuffer`` / ``ConstantBuffer<T>`` at ``register(bN)``
of register space 0, N below D3D11's 14 slots. Guaranteed: :func:`constant_buffers` gives one
:class:`~gpuia.hlsl.cbuffer.ConstantBuffer` per cbuffer binding of Slang's WGSL, by the user's
spelling of its name, each at its own register. Refused, naming the item: a texture, buffer, UAV
or sampler the entry reads, at the user's declaration of it (:func:`refuse_used_resources`,
before the wrapper is compiled); a resource in the WGSL that is not a cbuffer; a uniform outside
any cbuffer (fxc's ``$Globals``); a cbuffer in another space or beyond slot 13; two cbuffers at
one register; a 64-bit type, which Slang's WGSL back end fails on (:func:`refuse_wide`).
"""

from __future__ import annotations

import re

from ..d3d.desc import CONSTANT_BUFFER_SLOTS
from ..d3d.srv_bindings import SRV_SLOTS, SRV_SPACES
from ..d3d.uav_bindings import UAV_SLOTS
from ..errors import InvalidDescError
from . import includes
from .cbuffer import ConstantBuffer, check_32bit, constant_buffer
from .reflect import emitted_name
from .srv import is_bound_resource
from .textures import is_bound_texture, texture_refusal, texture_return_type
from .uavs import is_bound_uav

__all__ = ["resources", "refuse_used_resources", "refuse_wide", "constant_buffers",
           "used_resources"]

_RESOURCE_BINDINGS = ("shaderResource", "unorderedAccess", "samplerState")
_BINDING_RE = re.compile(r"@binding\(\s*(\d+)\s*\)\s*@group\(\s*(\d+)\s*\)\s*var\s*(<[^>]*>)?\s*"
                         r"(\w+)\s*:\s*([^;]+);")


def resources(reflection: dict) -> dict[str, dict]:
    """The reflection's global parameters by the name Slang's emitted code gives them."""
    return {emitted_name(p["name"]): p for p in reflection.get("parameters", [])}


def refuse_used_resources(reflection: dict, prepared, what: str,
                          buffer_srvs: bool = False, read_only: bool = False) -> None:
    """Refuse a texture, buffer, UAV or sampler the entry reads (Slang's reflection says
    which), at the user's declaration of it, before Slang compiles gpuia's wrapper (whose WGSL
    compile would otherwise fail inside the wrapper, E36107 for a typed buffer). With
    ``buffer_srvs`` (a vertex shader), a ``StructuredBuffer`` or ``ByteAddressBuffer`` is not
    refused (``gpuia.hlsl.srv`` binds it); with ``read_only`` (a geometry shader), the buffer
    SRVs (``StructuredBuffer``, ``ByteAddressBuffer``, ``Buffer<T>``), textures and samplers are
    not refused (those a vertex shader's refusals do not refuse), its UAVs are."""
    params = {p.get("name"): p for p in reflection.get("parameters", [])}
    for entry in reflection.get("entryPoints", [])[:1]:
        for b in entry.get("bindings", []):
            binding = b.get("binding", {})
            if binding.get("kind") not in _RESOURCE_BINDINGS or not binding.get("used"):
                continue
            name = b.get("name", "?")
            refusal = texture_refusal(params.get(name, {})) if buffer_srvs or read_only \
                else None
            if refusal:
                where, spelled = _declaration(prepared, name)
                raise InvalidDescError(where, f"resource {name}", spelled, refusal)
            if read_only and (is_bound_resource(params.get(name, {}))
                              or is_bound_texture(params.get(name, {}))):
                continue  # gpuia.hlsl.srv and gpuia.hlsl.textures check and bind them
            if buffer_srvs and (is_bound_resource(params.get(name, {}))
                                or is_bound_uav(params.get(name, {}))
                                or is_bound_texture(params.get(name, {}))):
                continue  # gpuia.hlsl.srv and gpuia.hlsl.textures check and bind them
            where, spelled = _declaration(prepared, name)
            binds = ("constant buffers (cbuffer / ConstantBuffer<T>), StructuredBuffer<T>, "
                     "ByteAddressBuffer, Buffer<T>, their RW forms RWStructuredBuffer<T>, "
                     "RWByteAddressBuffer and RWBuffer<T>, Texture1D<T>, Texture1DArray<T>, "
                     "Texture2D<T>, Texture2DArray<T>, Texture3D<T>, SamplerState and "
                     "SamplerComparisonState, "
                     "each on its own; "
                     "arrays of buffers, other textures and other UAVs are refused"
                     if buffer_srvs else
                     "constant buffers, buffer SRVs, textures and samplers in a " + what +
                     " (UAVs in a vertex shader only)" if read_only else
                     "only constant buffers (cbuffer / ConstantBuffer<T>) in a " + what +
                     " (buffer SRVs in a vertex shader)")
            raise InvalidDescError(where, f"resource {name}", spelled or binding["kind"],
                                   f"the {what} reads it; gpuia binds {binds} "
                                   f"(docs/resources.md)")


_CLASSES = {"constantBuffer": "b", "shaderResource": "t", "unorderedAccess": "u",
            "samplerState": "s"}


def used_resources(reflection: dict, prepared, stage: str, column_major: bool) -> list[dict]:
    """Every resource the entry uses (Slang's reflection), in its order: ``name``, ``register``
    (``b3``, ``t0``, ``s0``, ``u1``), ``space``, ``type`` as the source spells it, ``size`` (the
    bytes a cbuffer's members span as D3D packs them, a structured buffer's element stride in D3D's
    layout; else None) and ``bound``: whether gpuia binds it for ``stage`` (a cbuffer; a
    buffer SRV, texture or sampler of a vertex or geometry shader and a UAV of a vertex shader,
    gpuia.hlsl.srv and gpuia.hlsl.textures; not one it refuses)."""
    from .srv import d3d_layout

    params = {p.get("name"): p for p in reflection.get("parameters", [])}
    out = []
    for entry in reflection.get("entryPoints", [])[:1]:
        for b in entry.get("bindings", []):
            binding = b.get("binding", {})
            if binding.get("kind") not in _CLASSES or not binding.get("used"):
                continue
            p = params.get(b.get("name"), {})
            size, bound = None, False
            if binding["kind"] == "constantBuffer":
                size = p.get("type", {}).get("elementVarLayout", {}).get("binding", {}).get(
                    "size")
                bound = binding.get("space", 0) == 0 and \
                    binding.get("index", 0) < CONSTANT_BUFFER_SLOTS
            elif stage == "vertex" and (is_bound_resource(p) or is_bound_uav(p)) or \
                    stage == "geometry" and is_bound_resource(p):
                bound = binding.get("space", 0) < SRV_SPACES and binding.get("index", 0) < (
                    UAV_SLOTS if is_bound_uav(p) else SRV_SLOTS)
                if p["type"]["baseShape"] == "structuredBuffer":
                    try:
                        size, _, _ = d3d_layout(p["type"]["resultType"], b["name"], "shader",
                                                column_major)
                    except InvalidDescError:  # laid out unlike D3D in WGSL: refused
                        bound = False
            elif stage in ("vertex", "geometry") and is_bound_texture(p):
                t = p.get("type", {})
                bound = t.get("kind") == "samplerState" or \
                    not texture_refusal(p) and texture_return_type(t) is not None
            spelled = _declaration(prepared, b["name"])[1]
            out.append({"name": b["name"],
                        "register": f"{_CLASSES[binding['kind']]}{binding.get('index', 0)}",
                        "space": binding.get("space", 0), "type": spelled, "size": size,
                        "bound": bound})
    return out


def _declaration(prepared, name: str) -> tuple[str, str | None]:
    """(``file:line``, the type as spelled) of the first declaration of global ``name`` in
    the prepared text, found through its ``#line`` markers; (the file, None) when not found."""
    text = prepared.text
    start = text.find(includes.line_marker(1, prepared.names[0]))
    code = includes.mask(text)
    for m in re.finditer(rf"(?:([A-Za-z_][\w:]*(?:\s*<[^;<>]*(?:<[^;<>]*>[^;<>]*)?>)?)\s+)?"
                         rf"\b{re.escape(name)}\s*(?:\[[^\]]*\]\s*)*[:;]", code):
        if m.start() < start or code.count("{", 0, m.start()) != code.count("}", 0, m.start()):
            continue
        file, line = includes.location(text, m.start(), prepared.names[0])
        file = prepared.names[1] if file == prepared.names[0] else file
        return f"{file}:{line}", " ".join((m.group(1) or "").split()) or None
    return prepared.names[1], None


def refuse_wide(params: dict[str, dict], diagnostics: str, what: str) -> None:
    """Refuse a 64-bit type, given the ``diagnostics`` of a failed WGSL compile (Slang's WGSL
    back end fails inside on 64-bit values): in a cbuffer of ``params`` (:func:`resources`),
    named, else in the code; nothing happens for any other failure."""
    for p in params.values():
        if p.get("type", {}).get("kind") == "constantBuffer":
            check_32bit(p["type"]["elementType"], f"cbuffer {p['name']}", p["name"], what)
    if "'double' type emitted" in diagnostics or "'int64" in diagnostics:
        raise InvalidDescError(what, None, None, "the shader computes with a 64-bit type "
                                                 "(double, int64_t); WGSL has none")


def constant_buffers(code: str, params: dict[str, dict], structs, what: str
                     ) -> list[ConstantBuffer]:
    """The constant buffers of Slang's WGSL ``code`` (its structs ``structs``, the entry's
    global parameters ``params``: :func:`resources`), in the order of their bindings; every
    other binding refused (see the module docstring)."""
    cbuffers = []
    for m in _BINDING_RE.finditer(code):
        var, type_text = m.group(4), m.group(5).strip()
        name = re.sub(r"_\d+$", "", var)
        p = params.get(name, {})
        name = p.get("name", name)  # the user's spelling (Slang's code escapes non-ASCII)
        kind = p.get("type", {}).get("kind", "resource")
        if not p and name == "globalParams":  # Slang's home for uniforms outside a cbuffer
            loose = [q["name"] for q in params.values()
                     if q.get("binding", {}).get("kind") == "uniform"]
            raise InvalidDescError(what, f"global {', '.join(loose) or 'uniforms'}", "$Globals",
                                   "a uniform outside any cbuffer (fxc's $Globals): declare it "
                                   "in a cbuffer with register(bN), which gpuia binds as root "
                                   "constant buffer N")
        if is_bound_resource(p) or is_bound_uav(p) or is_bound_texture(p):  # .srv, .textures
            continue
        if kind != "constantBuffer" or "uniform" not in (m.group(3) or ""):
            raise InvalidDescError(what, f"resource {name}", kind,
                                   "gpuia binds constant buffers (cbuffer / ConstantBuffer<T>), "
                                   "and StructuredBuffer<T> and ByteAddressBuffer in a vertex "
                                   "shader only (docs/resources.md)")
        register = _register(p.get("binding", {}), name, what)
        size = int(p["type"].get("elementVarLayout", {}).get("binding", {}).get("size", 0))
        cbuffers.append(constant_buffer(name, register,
                                        p["type"]["elementType"], size, var, type_text, structs,
                                        what))
    slots = [cb.slot for cb in cbuffers]
    if len(set(slots)) < len(slots):
        raise InvalidDescError(what, "cbuffers", slots, "two cbuffers share a register")
    return cbuffers


def _register(binding: dict, name: str, what: str) -> int:
    """The register N of a cbuffer's ``register(bN)``; refused outside space 0 or beyond the
    slots a D3D11 stage has."""
    if binding.get("space", 0) != 0:
        raise InvalidDescError(what, f"cbuffer {name}", f"space{binding['space']}",
                               "gpuia binds root constant buffers of register space 0")
    register = int(binding.get("index", 0))
    if register >= CONSTANT_BUFFER_SLOTS:  # refused here, before any draw needs it
        raise InvalidDescError(what, f"cbuffer {name}", f"register(b{register})",
                               f"gpuia binds root constant buffers b0.."
                               f"b{CONSTANT_BUFFER_SLOTS - 1}: the {CONSTANT_BUFFER_SLOTS} "
                               f"constant buffer slots of a D3D11 shader stage "
                               f"(D3D11_COMMONSHADER_CONSTANT_BUFFER_API_SLOT_COUNT)")
    return register
