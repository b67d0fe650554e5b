"""Hypothesis strategy for invalid geometry shader cases (``gpuia fuzz --invalid --gs``).

:func:`invalid_gs_cases` draws a valid case with a geometry shader
(:func:`gpuia.fuzz.geometry.gs_cases`) and breaks it in one of the ways docs/case-format.md lists
for geometry shaders (:data:`FORMS`), each of which CreateGraphicsPipelineState refuses with
``E_INVALIDARG`` and ``gpuia check`` must refuse with exit 2 and one ``error:`` line naming the
rule. The drawn value is ``(what, content, expect)``: the change in words, the case file's bytes
and the text the error line must contain (the rule); the invalid-mode judge holds the refusal to
it. The broken sources come from a few fixed edits of the shapes' sources, so a run compiles
few of them.
"""

from __future__ import annotations

import json
import re

from hypothesis import strategies as st

from .geometry import INPUTS, SHAPES, Shape, gs_cases, gs_source

__all__ = ["FORMS", "break_case", "invalid_gs_cases"]

FORMS: dict[str, str] = {
    # the form: the text the refusal names (docs/rules.md)
    "topology": "rules 13.2",  # an input primitive of another class than the topology's
    "maxvertexcount 0": "rules 13.4",
    "maxvertexcount 1025": "rules 13.4",
    "scalar limit": "rules 13.4",  # 114 records of 9 scalars: over 1024
    "instances 33": "rules 13.3",
    "line and point streams": "rules 13.7",  # several streams, not all PointStream
    "input not output": "rules 13.9",  # a GS input the vertex shader does not output
    "entry not in stream": "rules 8.3",  # an SO entry naming what its stream does not output
    "slot fed by two streams": "rules 8.9",
    "stream past the shader's": "rules 13.7",  # an SO entry of a stream the shader lacks
    "does not compile": "E30015",  # Slang: undefined identifier
}
"""Each invalid form and the text its refusal must contain."""


def _source_edit(form: str, source: str) -> str:
    """``source`` broken as ``form`` says (forms that change the shader)."""
    if form.startswith("maxvertexcount"):
        return re.sub(r"maxvertexcount\(\d+\)", f"maxvertexcount({form.split()[1]})", source)
    if form == "scalar limit":
        return re.sub(r"maxvertexcount\(\d+\)", "maxvertexcount(114)", source)
    if form == "instances 33":
        return re.sub(r"\[instance\(\d+\)\]\n", "", source).replace(
            "void main(", "[instance(33)]\nvoid main(", 1)
    if form == "line and point streams":
        # a second stream of lines beside the first (point, line or triangle) stream
        body = ") {\n    uint count"
        return source.replace(body, ", inout LineStream<O> extra" + body, 1)
    if form == "input not output":
        return source.replace("BLENDINDICES", "NORMAL", 1)  # the layout has no NORMAL
    assert form == "does not compile"
    return source.replace("uint count =", "uint count = undefined_name +", 1)


def _other_classes(shape_input: str) -> tuple[str, ...]:
    """The topologies of every class but ``shape_input``'s (rules 13.2)."""
    own = INPUTS[shape_input][1]
    return tuple(t for _, tops in INPUTS.values() for t in tops if t not in own)


def _break_so(form: str, doc: dict, shape: Shape) -> bool:
    """Break the Stream Output declaration as ``form`` says, with no other rule broken (a slot
    keeps one stream); False where this case cannot show the form (one stream has no second to
    share a slot with; four streams leave none past the shader's)."""
    entries = doc["stream_output"]["declaration"]
    streams = len(shape.streams)
    first = entries[0]  # slot 0 always has a named entry (gpuia.fuzz.geometry)
    own, slot = first["Stream"], first["OutputSlot"]
    if form == "entry not in stream":
        # COLOR is in no record; where odd streams write P, SRC is only in even streams' and
        # TEXCOORD3 only in odd ones'
        name, index = ("COLOR", 0) if not shape.mixed else (
            ("SRC", 0) if own % 2 else ("TEXCOORD", 3))
        entries.insert(0, {"Stream": own, "SemanticName": name, "SemanticIndex": index,
                           "ComponentCount": 1, "OutputSlot": slot})
        return True
    if form == "slot fed by two streams":
        entries.append({"Stream": (own + 1) % streams, "SemanticName": "TAG",
                        "ComponentCount": 1, "OutputSlot": slot})
        return streams > 1
    assert form == "stream past the shader's"
    free = [s for s in range(4) if s not in {e["OutputSlot"] for e in entries}]
    entries.append({"Stream": streams, "SemanticName": "TAG", "ComponentCount": 1,
                    "OutputSlot": free[0] if free else 0})
    return streams < 4 and bool(free)


def break_case(doc: dict, form: str, pick: int = 0) -> tuple[list, bytes, str] | None:
    """A valid geometry shader case (:func:`gpuia.fuzz.geometry.gs_cases`, not changed) broken
    as ``form`` (a key of :data:`FORMS`) says, as ``(what, content, expect)``; None where the
    case's shader cannot show the form (a slot fed by two streams needs two streams, a stream
    past the shader's fewer than four).

    Arguments:
        doc (dict): the valid case.
        form (str): the invalid form.
        pick (int): which topology of another class ``topology`` takes (modulo their number).
    """
    doc = json.loads(json.dumps(doc))
    doc["name"] = "fuzzcase"
    source = doc["geometry_shader"]["hlsl"]
    shape = next(s for s in SHAPES if gs_source(s) == source)
    if form == "topology":
        others = _other_classes(shape.input)
        doc["primitive_topology"] = others[pick % len(others)]
    elif form in ("entry not in stream", "slot fed by two streams", "stream past the shader's"):
        if not _break_so(form, doc, shape):
            return None
    else:
        doc["geometry_shader"]["hlsl"] = _source_edit(form, source)
    return [f"geometry shader: {form}"], json.dumps(doc).encode(), FORMS[form]


@st.composite
def invalid_gs_cases(draw):
    """``(what, content, expect)``: a geometry shader case broken in one way (see the module
    docstring); a form the drawn shader cannot show becomes a topology of another class."""
    doc = draw(gs_cases())
    form = draw(st.sampled_from(tuple(FORMS)))
    pick = draw(st.integers(0, 8))
    return break_case(doc, form, pick) or break_case(doc, "topology", pick)
