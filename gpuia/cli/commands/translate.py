"""``gpuia translate LAYOUT``: what gpuia would hand WebGPU for an input layout, for porters.

LAYOUT is read as ``gpuia layout`` reads it (:func:`gpuia.source.extract`: a case file, a JSON
layout collection or element list, a C/C++ file); every input-element array in it (or the one
``--array`` names) is translated by :func:`gpuia.gpu.vertex.translate.translate_layout` at its
strides: ``--strides``, else those the source states, else the tightest (the slot's extent rounded
up to 4 bytes, as ``gpuia layout`` plans it). It plans on WebGPU's default limits, no adapter
needed, or with ``--adapter`` / ``--gpu-backend`` on each selected adapter's limits, features and
quirks.

The output is one JSON document (``gpuia_translate`` 1; docs/translate.md), or with ``--text``
the same as readable text, on standard output or written atomically to ``--out FILE``. A case
file with a root signature (its own or its vertex shader's) also gets ``root_signature``: the
desc and the WebGPU binding of each register the vertex shader reads
(:mod:`gpuia.cli.root_signature_view`).

Exit status: 0, or 2 after one ``error:`` line per failing input (a file that cannot be read, an
array D3D would reject, a bad or unused ``--strides`` entry, a forced path the planner refuses,
a root signature D3D12 refuses or whose registers gpuia cannot bind on the limits); nothing is
printed or written then.
"""

from __future__ import annotations

import json
import sys

from ...errors import GpuiaError, InvalidDescError, UnsupportedError
from ...harness.report.text import layout_table, render_table
from ...util.files import write_atomic
from ..common import (
    EXIT_INVALID,
    EXIT_OK,
    compile_options,
    compile_settings,
    error_line,
    feature_level_option,
    open_devices,
    writable,
)
from ..root_signature_view import root_signature_section, root_signature_text

__all__ = ["add_parser", "run"]

_LABEL = "translate"
_DEFAULT_LIMITS = "WebGPU default limits"
_STAGES = {1: "VERTEX", 2: "FRAGMENT", 4: "COMPUTE"}  # GPUShaderStage's flags (WebGPU spec)


def add_parser(subparsers):
    p = subparsers.add_parser(
        "translate", help="print what gpuia hands WebGPU for an input layout: vertex buffer "
                          "layouts, or the WGSL fetch code with its bind groups, and why")
    p.add_argument("layout", metavar="LAYOUT",
                   help="case file, JSON layout (collection or element list) or C/C++ source")
    p.add_argument("--strides", action="append", default=[], metavar="SLOT=BYTES[,...]",
                   help="the stride bound to a slot (repeatable; default: the source's, else "
                        "the slot's extent rounded up to 4)")
    p.add_argument("--array", metavar="NAME", default=None,
                   help="translate only the input-element array of this name")
    compile_options(p)
    p.add_argument("--path", choices=["auto", "native", "pulling"], default="auto",
                   help="the planner's choice (auto), or force one path")
    p.add_argument("--adapter", metavar="SUBSTRING", default=None,
                   help="plan on the limits of the GPU adapters whose name contains SUBSTRING "
                        "('all' for every adapter) instead of WebGPU's default limits")
    p.add_argument("--gpu-backend", metavar="NAME", default=None,
                   help="plan on the adapters of this wgpu backend (Vulkan, OpenGL, Metal, "
                        "D3D12)")
    feature_level_option(p)
    p.add_argument("--text", action="store_true", help="readable text instead of JSON")
    p.add_argument("--out", metavar="FILE", default=None,
                   help="write the output to FILE (atomically) instead of standard output")
    return p


def _option_strides(values: list[str]) -> dict[int, int]:
    """``--strides`` entries as slot -> stride; raises InvalidDescError naming the entry."""
    out: dict[int, int] = {}
    for value in values:
        for item in value.split(","):
            slot, sep, stride = item.partition("=")
            try:
                if not sep:
                    raise ValueError
                out[int(slot)] = int(stride)
            except ValueError:
                raise InvalidDescError("--strides", "SLOT=BYTES", item,
                                       "expected SLOT=BYTES, comma-separated integers "
                                       "(0=32,1=8)") from None
    return out


def _limits(args) -> list[tuple[str, object]]:
    """(label, Caps) to plan on; raises GpuiaError."""
    if args.adapter is None and args.gpu_backend is None:
        from ...harness.lint import webgpu_default_caps

        return [(_DEFAULT_LIMITS, webgpu_default_caps())]
    devices, _ = open_devices(args, sys.stderr)
    if not devices:
        raise UnsupportedError("no selected adapter could create a device (leave out "
                               "--adapter and --gpu-backend to plan on WebGPU's default "
                               "limits)")
    return [(d.info["summary"], d.caps) for d in devices]


def _arrays(args):
    """The input-element arrays to translate; raises GpuiaError."""
    from ...source import extract

    arrays = [a for a in extract(args.layout, **compile_settings(args))
              if a.kind == "input_layout"]
    if args.array is not None:
        chosen = [a for a in arrays if a.name == args.array]
        if not chosen:
            names = ", ".join(a.name for a in arrays) or "none"
            raise UnsupportedError(f"{args.layout}: no input-element array named "
                                   f"{args.array!r} (arrays: {names})")
        arrays = chosen
    if not arrays:
        raise UnsupportedError(f"{args.layout}: no D3D input-element array found")
    return arrays


def _translate_array(arr, options: dict, limits, path: str, options_level: str | None = None):
    """(the resolved layout, the JSON document) of one array, checked at ``options_level``
    (``--feature-level``) or the array's own profile; raises GpuiaError naming the array."""
    from ...gpu.vertex.translate import translate_layout
    from ...harness.lint import lint_layout

    where = f"{arr.location}: array {arr.name}"
    if arr.error is not None:
        raise arr.error
    stated = {**arr.strides, **options}
    report = lint_layout(arr.elements, [], profile=options_level or arr.profile,
                         strides=stated)
    if report.layout is None:
        first = report.errors[0]
        raise GpuiaError(f"{where}: {first.where}: {first.message}")
    layout = report.layout
    origin = {s: ("option" if s in options else "source" if from_ == "source" else "tightest")
              for s, (_, from_) in report.strides.items()}
    strides = {s: stride for s, (stride, _) in report.strides.items()}
    strides.update(options)  # a slot the layout does not use is refused by translate_layout
    doc = {"name": arr.name, "location": arr.location, "struct": arr.struct,
           "notes": list(arr.notes),
           "slots": [{"slot": s, "stride": strides[s], "stride_from": origin[s],
                      "extent": info.extent,
                      "class": "instance" if info.per_instance else "vertex",
                      "step_rate": info.step_rate} for s, info in layout.slots.items()],
           "translations": []}
    for label, caps in limits:
        try:
            t = translate_layout(layout, strides, caps, path)
        except InvalidDescError as e:
            raise InvalidDescError(f"{where}: {e.where}", e.field, e.value, e.rule) from None
        except UnsupportedError as e:
            raise UnsupportedError(f"{where}: on {label}: {e}") from None
        doc["translations"].append({"limits": label, **t.as_dict()})
    return layout, doc


def run(args) -> int:
    try:
        writable("--out", args.out)
        options = _option_strides(args.strides)
        limits = _limits(args)
        arrays = _arrays(args)
        root = root_signature_section(args.layout, limits)
    except GpuiaError as exc:
        error_line(_LABEL, exc)
        return EXIT_INVALID
    docs, status = [], EXIT_OK
    for arr in arrays:
        try:
            docs.append(_translate_array(arr, options, limits, args.path, args.feature_level))
        except GpuiaError as exc:
            error_line(_LABEL, exc)
            status = EXIT_INVALID
    if status != EXIT_OK:
        return status
    if args.text:
        parts = [_text(layout, doc) for layout, doc in docs]
        text = "\n\n".join(parts + ([root_signature_text(root)] if root else [])) + "\n"
    else:
        out = {"gpuia_translate": 1, "file": args.layout,
               "limits": [label for label, _ in limits], "layouts": [doc for _, doc in docs]}
        if root is not None:
            out["root_signature"] = root
        text = json.dumps(out, indent=1) + "\n"
    if args.out is None:
        sys.stdout.write(text)
        return EXIT_OK
    try:
        write_atomic(args.out, text)
    except GpuiaError as exc:
        error_line(_LABEL, exc)
        return EXIT_INVALID
    return EXIT_OK


# -- the text form -----------------------------------------------------------------------------
def _entry_text(entry: dict) -> str:
    """One bind group layout entry (wgpu-py's spelling) as words."""
    buf = entry["buffer"]
    extra = []
    if buf.get("has_dynamic_offset"):
        extra.append("dynamic offset")
    if buf.get("min_binding_size"):
        extra.append(f"at least {buf['min_binding_size']} bytes")
    stages = "|".join(name for bit, name in _STAGES.items() if entry["visibility"] & bit)
    return (f"binding {entry['binding']}: {buf['type']} buffer"
            + (f" ({', '.join(extra)})" if extra else "") + f", visibility {stages}")


def _text(layout, doc: dict) -> str:
    out = [f"== {doc['location']}: {doc['name']} ({doc['struct']}, "
           f"{len(layout.elements)} elements)"]
    out += [f"  note: {n}" for n in doc["notes"]]
    out += [layout_table(layout), ""]
    out.append(render_table(["slot", "class", "step", "extent", "stride"],
                            [[str(s["slot"]), s["class"], str(s["step_rate"]), str(s["extent"]),
                              f"{s['stride']} ({s['stride_from']})"] for s in doc["slots"]],
                            right={0, 3}))
    for t in doc["translations"]:
        out += ["", f"-- on {t['limits']}: path {t['path']}"]
        out += [f"  - {r}" for r in t["reasons"]] or ["  - every slot is expressible natively"]
        if t["pulling"] is None:
            out.append("vertex.buffers (WebGPU buffer <- D3D slot):")
            inputs = {i["element"]: i for i in t["inputs"]}
            for k, (slot, b) in enumerate(zip(t["buffer_slots"], t["wgpu_py"]["vertex"]["buffers"],
                                              strict=True)):
                out.append(f"  buffer {k} <- slot {slot}: array_stride {b['array_stride']}, "
                           f"step_mode {b['step_mode']}")
                for a in b["attributes"]:
                    i = inputs[a["shader_location"]]
                    out.append(f"    @location({a['shader_location']}) {i['wgsl_type']}: "
                               f"{a['format']} at offset {a['offset']} (element {i['element']} "
                               f"{i['semantic']} {i['format']})")
        else:
            p = t["pulling"]
            out.append("vertex.buffers: none (every element is fetched by the WGSL below)")
            for g, group in enumerate(t["wgpu_py"]["bind_group_layouts"]):
                out += [f"bind group {g}: {_entry_text(e)}" for e in group["entries"]]
            out += [f"  storage binding {b['binding']} (group 1) <- slot {b['slot']}"
                    for b in p["storage_buffers"]]
            if p["arena"]:
                out.append("  arena: every slot's view is copied into the one buffer at "
                           "binding 0")
            out.append("inputs:")
            out += [f"  element {i['element']} {i['semantic']} {i['format']}: {i['fetch']}(vi, "
                    f"ii) -> {i['wgsl_type']}, bitcast to {i['bitcast_to']}"
                    for i in t["inputs"]]
            block = p["draw_block"]
            out.append(f"per-draw block (group {block['group']}, binding {block['binding']}, "
                       f"{block['size']} bytes):")
            out.append(render_table(["offset", "field", "type", "fetch reads", "meaning"],
                                    [[str(f["offset"]), f["name"], f["wgsl_type"],
                                      "yes" if f["read_by_fetch"] else "no", f["meaning"]]
                                     for f in block["fields"]], right={0}))
        out += [f"note: {n}" for n in t["notes"]]
        if t["pulling"] is not None:
            out += ["wgsl:", t["pulling"]["wgsl"].rstrip("\n")]
    return "\n".join(out)
