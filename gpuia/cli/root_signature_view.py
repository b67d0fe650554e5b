"""What ``gpuia translate`` shows of a case's root signature: the desc and where each register
the vertex shader reads lands in WebGPU (docs/translate.md, docs/resources.md "Root
signatures").

:func:`root_signature_section` returns None for an input that is no case file with a root
signature (its own ``root_signature``, or a ``[RootSignature]`` / ``RTS0`` of its vertex
shader): the output is then what it was. Otherwise it loads the case (every check of
``gpuia validate``, rules 16 among them) and maps the registers on each set of limits; a
register gpuia cannot bind, or more bindings than a limit allows, raises
:class:`~gpuia.errors.UnsupportedError` naming the register or the limit.
"""

from __future__ import annotations

import json
from pathlib import Path

from ..d3d.root_signature import webgpu_bindings
from ..errors import GpuiaError

__all__ = ["root_signature_section", "root_signature_text"]

# those an adapter listing lacks are WebGPU's guaranteed values (webgpu.DEFAULT_LIMITS)
_LIMITS = ("max_uniform_buffers_per_shader_stage", "max_storage_buffers_per_shader_stage",
           "max_sampled_textures_per_shader_stage", "max_samplers_per_shader_stage",
           "max_bindings_per_bind_group")
_MAX_CASE_BYTES = 64 << 20


def _may_have_one(path: str) -> bool:
    """Whether ``path`` is a JSON case that names a root signature or whose vertex shader
    may carry one (cheap: no compile)."""
    if not path.endswith(".json"):
        return False
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.loads(f.read(_MAX_CASE_BYTES))
    except (OSError, ValueError):
        return False  # extract() reports what is wrong with it
    if not isinstance(doc, dict) or "gpuia_case" not in doc:
        return False
    if "root_signature" in doc:
        return True
    vs = doc.get("vertex_shader")
    if not isinstance(vs, dict):
        return False
    if "dxbc" in vs or "dxbc_file" in vs:
        return True
    text = vs.get("hlsl")
    if isinstance(vs.get("hlsl_file"), str):
        try:
            text = (Path(path).parent / vs["hlsl_file"]).read_text(errors="replace")
        except OSError:
            return False
    return isinstance(text, str) and "RootSignature" in text


def root_signature_section(path: str, limits: list[tuple[str, object]]) -> dict | None:
    """The ``root_signature`` member of translate's document (see the module docstring)."""
    if not _may_have_one(path):
        return None
    from ..gpu.vertex.pipelines import OWN_UNIFORM_BUFFERS
    from ..harness.case import load_case

    case = load_case(Path(path))
    crs = case.root_signature
    if crs is None:
        return None
    covered = [(b, r) for stage, b, r in crs.covered if stage == "vertex"]
    mapped = []
    for label, caps in limits:
        numbers = {k: getattr(caps, k) for k in _LIMITS if hasattr(caps, k)}
        try:
            rows = webgpu_bindings(crs.root_signature, covered, numbers,
                                   OWN_UNIFORM_BUFFERS["draw"], label)
        except GpuiaError as e:
            raise type(e)(f"{path}: on {label}: {e}") from None
        mapped.append({"limits": label, "bindings": rows})
    return {"origin": crs.root_signature.origin, "desc": crs.root_signature.as_dict(),
            "mapped": mapped}


def root_signature_text(section: dict) -> str:
    """The section as readable text."""
    desc = section["desc"]
    out = [f"== root signature ({section['origin']}, version {desc['version']}, flags "
           f"{' | '.join(desc['flags']) or 'none'})"]
    for i, p in enumerate(desc["parameters"]):
        if p["type"] == "descriptor_table":
            ranges = "; ".join(
                f"{r['type']} base {r['base_shader_register']} x{r['num_descriptors']} "
                f"space{r['register_space']}" for r in p["ranges"])
            out.append(f"  parameter {i}: descriptor table ({ranges}), visibility "
                       f"{p['visibility']}")
        else:
            extra = f", {p['num_32bit_values']} values" if "num_32bit_values" in p else ""
            out.append(f"  parameter {i}: {p['type']} register {p['shader_register']} "
                       f"space{p['register_space']}{extra}, visibility {p['visibility']}")
    out += [f"  static sampler {i}: s{s['shader_register']} space{s['register_space']}, "
            f"filter {s['filter']}, address {s['address_u']}/{s['address_v']}/"
            f"{s['address_w']}, visibility {s['visibility']}"
            for i, s in enumerate(desc["static_samplers"])]
    for m in section["mapped"]:
        out.append(f"-- on {m['limits']}: the vertex shader's registers")
        out += [f"  {r['register']} space{r['space']} ({r['name']}) <- {r['root']} "
                f"({r['held_by']}) -> " + (
                    f"@group({r['group']}) @binding({r['binding']}), {r[r['resource']]} "
                    f"{r['resource']}" if r["binding"] is not None else
                    f"no WebGPU binding, {r[r['resource']]}") for r in m["bindings"]] \
            or ["  (none)"]
    return "\n".join(out)
