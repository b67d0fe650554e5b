"""Hypothesis strategy for the invalid-input fuzzer: valid cases with random corruptions.

:func:`corrupted_cases` draws a valid case (``strategies.cases``) and applies one to three
corruptions, then serialises it to the bytes of a case file. A corruption is one of:

* **replace** a value anywhere in the document (found by walking it: every key of every object,
  every list item) with a value known to break a rule at that field (``FIELD_VALUES``: formats
  that are not vertex formats, misaligned offsets, slot 32, stride 2049, counts past 2^32, SO
  component ranges, bad hex/base64/dtype data, unknown topologies, ...) or with a value of the
  wrong type or size (``NASTY_VALUES``: null, booleans, negative and huge integers, floats,
  strings, lists, objects);
* **delete** a key, **add** an unknown key, **duplicate** or **drop** a list item;
* **file**-level damage: the JSON text cut short, a byte replaced by one that is not UTF-8, the
  document nested thousands of levels deep, or a different top-level value.

Shrinking simplifies both the base case and the corruptions, so a finding ends as a small case
with the one corruption that matters. The drawn value is ``(what, content)``: the corruptions in
words and the file's bytes. With ``gs=True`` the base cases include geometry shader cases, and
about one value in three is instead one of the invalid geometry shader forms the case format
lists, ``(what, content, expect)`` (:mod:`gpuia.fuzz.geometry_invalid`), whose refusal must name
its rule.
"""

from __future__ import annotations

import copy
import json

from hypothesis import strategies as st

from .geometry_invalid import invalid_gs_cases
from .strategies import cases

__all__ = ["FIELD_VALUES", "NASTY_VALUES", "corrupted_cases"]

_U32 = 1 << 32

NASTY_VALUES: tuple = (
    None, True, False, 0, -1, 1, 3, 0.5, -0.0, 1e300, float("inf"), float("nan"),
    (1 << 31) - 1, 1 << 31, _U32 - 1, _U32, (1 << 53) + 1, 1 << 64, -(1 << 63) - 1, 1 << 30,
    "", "x", "NaN", "-1", "0xFFFF", "APPEND_ALIGNED_ELEMENT", "PER_INSTANCE_DATA", "\u00e9\u0000",
    "A" * 4096, [], [0], [[[]]], {}, {"hex": "00"}, {"": None},
)
"""Values of the wrong type or size, tried in any field."""

_COUNTS = (_U32, _U32 - 1, (1 << 26) + 1, -1, 1 << 40, 2.0)
FIELD_VALUES: dict[str, tuple] = {
    "gpuia_case": (2, 0, "1", 1.0, True),
    "name": (5, "", "a/b\n"),
    "SemanticName": ("", "POSITION1", "SV_VertexID", "SV_InstanceID", "a b", "\u00e9", 5,
                     "SV_Position"),
    "SemanticIndex": (_U32, -1, 1.5, "0"),
    "Format": ("R8G8B8A8_UNORM_SRGB", "BC1_UNORM", "R9G9B9E5_SHAREDEXP", "UNKNOWN", "D32_FLOAT",
               "R8G8B8_UNORM", "R10G10B10_XR_BIAS_A2_UNORM", "NOT_A_FORMAT", "DXGI_FORMAT_", 0, 29,
               116, 1000, -1),
    "InputSlot": (32, 33, 1 << 31, -1, 16, 31),
    "AlignedByteOffset": (1, 2, 3, 17, _U32 - 2, _U32, -4, "APPEND", 2049),
    "InputSlotClass": ("PER_PRIMITIVE", 2, "PER_VERTEX", "per_instance_data", -1,
                       "PER_INSTANCE_DATA"),
    "InstanceDataStepRate": (1, _U32, -1, 0),
    "slot": (32, -1, _U32, 4, "0", 31),
    "stride": (2049, _U32, -1, 1.5, 4096, 1 << 31, 2048),
    "offset": (-1, _U32, 10 ** 9, 7, 1 << 30),
    "size": (-1, _U32, 10 ** 9, 1 << 30, 3),
    "format": ("R8_UINT", "R32G32_UINT", "R16_SINT", 57, "UNKNOWN", "R32_UINT"),
    "strip_cut_value": ("0xFFFE", 0, 1, "ENABLED", _U32, "0xffff"),
    "primitive_topology": ("UNDEFINED", "PATCHLIST_3", "3_CONTROL_POINT_PATCHLIST", 33, 0, 1,
                           "QUADLIST", -1, "TRIANGLEFAN"),
    "draw": ([], {}, {"DrawInstanced": {}}, {"DrawAuto": {}},
             {"DrawInstanced": {"VertexCountPerInstance": 3}, "DrawIndexedInstanced": {}}),
    "VertexCountPerInstance": _COUNTS,
    "IndexCountPerInstance": _COUNTS,
    "InstanceCount": _COUNTS,
    "StartVertexLocation": (_U32, -1, _U32 - 1),
    "StartIndexLocation": (_U32, -1, _U32 - 1),
    "StartInstanceLocation": (_U32, -1, _U32 - 1),
    "BaseVertexLocation": (1 << 31, -(1 << 31) - 1, _U32, -(1 << 31)),
    "hex": ("0", "zz", "0g", "00 1", "\u0660\u0661"),
    "base64": ("!!", "AAA", "A===", "AA==\n"),
    "dtype": ("float128", "complex64", "S4", "object", "<U3", "V8", "bool", "datetime64", "f7",
              "float16"),
    "values": (["nan"], [[1, 2], [3]], [1.5], ["x"], [1 << 70], [None], [[]], [True], "1"),
    "data": (None, "00", {"hex": "00", "base64": ""}, {"dtype": "uint8"}),
    "vertex_shader": ({"wgsl": "fn"}, {"wgsl": ""}, "x",
                      {"wgsl": "struct O { @builtin(position) p: vec4<f32> };\n"
                               "@vertex fn main() -> O { var o: O; return o; }"},
                      {"wgsl": "struct I { POSITION: vec4<u32> }\n"
                               "struct O { SV_Position: vec4<f32> }\n"
                               "@vertex fn main(i: I) -> O { var o: O; o.SV_Position = "
                               "vec4<f32>(i.POSITION); return o; }"},
                      {"wgsl": "@vertex fn main() {}", "entry_point": "nope"}),
    "entry_point": (5, "", "main2"),
    "declaration": ([{}], [{"SemanticName": "NOPE"}], [{"SemanticName": None}],
                    [{"SemanticName": "SV_VertexID", "ComponentCount": 4}]),
    "Stream": (1, 4, -1),
    "StartComponent": (4, 3, -1, 1 << 31),
    "ComponentCount": (0, 5, _U32, -1, 129, 200),
    "OutputSlot": (4, -1, 3),
    "buffer_strides": ([], [0], [_U32], [3], [2052], [4, 4, 4, 4, 4], "16"),
    "rasterized_stream": (4, -1, "NONE", _U32),
    "targets": ([{}], [{"slot": 0}, {"slot": 0}], [{"slot": 9}]),
    "filled_size": (2, _U32, -4, 1 << 31, 1 << 30),
    "geometry_shader": ({"wgsl": "fn main() {}"}, {"hlsl": ""}, "x", {"hlsl_file": "none.hlsl"},
                        {"hlsl": "[maxvertexcount(1)] void main() {}"},
                        {"hlsl": "void main(point float4 v[1] : P) {}", "hlsl_file": "g.hlsl"}),
    "hlsl": ("", "x", 5, "[maxvertexcount(4)]\nvoid main(point float4 v[1] : POSITION) {}",
             "#include \"missing.hlsl\"\n"),
}
"""Values that break a rule at a field of that name (they are tried before wrong types)."""


def _walk(node, path=()):
    """Every (path, value) in the document, depth first in key order (root first)."""
    yield path, node
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _walk(v, path + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _walk(v, path + (i,))


def _get(doc, path):
    for p in path:
        doc = doc[p]
    return doc


def _show(path) -> str:
    out = ""
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else p)
    return out or "(document)"


def _short(value) -> str:
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _corrupt_once(draw, doc):
    """Apply one structural corruption to ``doc`` in place (the root may be replaced: returns
    the new document and what was done)."""
    paths = [p for p, _ in _walk(doc)]
    path = paths[draw(st.integers(0, len(paths) - 1))]
    node = _get(doc, path)
    action = draw(st.sampled_from(("replace", "replace", "replace", "delete", "add", "duplicate",
                                   "drop")))
    parent = _get(doc, path[:-1]) if path else None
    if action == "delete" and isinstance(parent, dict):
        del parent[path[-1]]
        return doc, f"deleted {_show(path)}"
    if action == "add" and isinstance(node, dict):
        key = draw(st.sampled_from(("unknown", "SemanticName", "slot", "DrawInstanced", "")))
        if key not in node:
            node[key] = draw(st.sampled_from(NASTY_VALUES[:8]))
            return doc, f"added key {key!r} to {_show(path)}"
    if action in ("duplicate", "drop") and isinstance(node, list) and node:
        i = draw(st.integers(0, len(node) - 1))
        if action == "duplicate":
            node.insert(i, copy.deepcopy(node[i]))
            return doc, f"duplicated {_show(path + (i,))}"
        del node[i]
        return doc, f"dropped {_show(path + (i,))}"
    key = next((p for p in reversed(path) if isinstance(p, str)), None)
    choices = (FIELD_VALUES.get(key, ()) if key is not None and path and isinstance(path[-1], str)
               else ())
    if choices and draw(st.booleans()) is False:
        value = copy.deepcopy(draw(st.sampled_from(choices)))
    else:
        value = copy.deepcopy(draw(st.sampled_from(NASTY_VALUES)))
    if not path:
        return value, f"replaced the document with {_short(value)}"
    assert parent is not None  # a path has a parent
    parent[path[-1]] = value
    return doc, f"set {_show(path)} to {_short(value)}"


def _file_damage(draw, text: str) -> tuple[bytes, str]:
    data = text.encode()
    kind = draw(st.integers(0, 3))
    if kind == 0:
        cut = draw(st.integers(0, max(0, len(data) - 1)))
        return data[:cut], f"cut the file after {cut} bytes"
    if kind == 1:
        pos = draw(st.integers(0, max(0, len(data) - 1)))
        return data[:pos] + b"\xff" + data[pos + 1:], f"byte {pos} replaced by 0xFF (not UTF-8)"
    if kind == 2:
        depth = draw(st.sampled_from((100, 5000, 100000)))
        return (b"[" * depth + b"]" * depth), f"a list nested {depth} levels deep"
    return b'{"gpuia_case": 1, "input_layout": ' + b"[" * 3000 + b"]" * 3000 + b"}", \
        "input_layout nested 3000 levels deep"


@st.composite
def corrupted_cases(draw, so: bool = False, gs: bool = False):
    """``(what, content)``: a corrupted case file, or with ``gs`` now and then
    ``(what, content, expect)``, an invalid geometry shader case (see the module docstring)."""
    if gs and draw(st.integers(0, 2)) == 2:
        return draw(invalid_gs_cases())
    doc = draw(cases(so=so, gs=gs))
    doc["name"] = "fuzzcase"
    what = []
    if draw(st.integers(0, 11)) == 11:
        content, text = _file_damage(draw, json.dumps(doc))
        return [text], content
    for _ in range(draw(st.integers(1, 3))):
        doc, text = _corrupt_once(draw, doc)
        what.append(text)
    return what, json.dumps(doc).encode()
