"""``InputSlotClass``: every spelling the case format documents is accepted with its meaning, the
documentation lists every spelling accepted, and anything else is refused naming D3D's names
(docs/case-format.md, ``input_layout``). Before, ``PER_INSTANCE`` was accepted although the
documentation listed only D3D's full names.

The meanings are D3D12_INPUT_CLASSIFICATION's: ``..._PER_VERTEX_DATA`` is 0,
``..._PER_INSTANCE_DATA`` is 1 (d3d12.h); D3D11 and D3D10 name them ``D3D11_INPUT_...`` and
``D3D10_INPUT_...``."""

from __future__ import annotations

import re

import pytest

from gpuia.errors import InvalidDescError
from gpuia.harness.case import load_case
from helpers import REPO

PER_INSTANCE = ["PER_INSTANCE_DATA", "D3D12_INPUT_CLASSIFICATION_PER_INSTANCE_DATA",
                "per_instance_data", "d3d12_input_classification_per_instance_data",
                "D3D11_INPUT_PER_INSTANCE_DATA", "D3D10_INPUT_PER_INSTANCE_DATA", "PER_INSTANCE",
                "INSTANCE", "Per_Instance", 1]
PER_VERTEX = ["PER_VERTEX_DATA", "D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA",
              "per_vertex_data", "D3D11_INPUT_PER_VERTEX_DATA", "D3D10_INPUT_PER_VERTEX_DATA",
              "PER_VERTEX", "VERTEX", 0]
# Each documented form, as the row names it.
DOCUMENTED = ["`PER_VERTEX_DATA`", "`PER_INSTANCE_DATA`", "in any case",
              "`D3D12_INPUT_CLASSIFICATION_`", "`D3D11_INPUT_`", "`D3D10_INPUT_`",
              "`PER_VERTEX`", "`VERTEX`", "`PER_INSTANCE`", "`INSTANCE`", "0 or 1"]


def _case(classification) -> dict:
    return {"gpuia_case": 1,
            "input_layout": [{"SemanticName": "A", "Format": "R32_FLOAT",
                              "InputSlotClass": classification,
                              "InstanceDataStepRate": 1 if classification in PER_INSTANCE else 0}],
            "vertex_buffers": [{"slot": 0, "stride": 4,
                                "data": {"dtype": "float32", "values": [1, 2]}}],
            "primitive_topology": "POINTLIST",
            "draw": {"DrawInstanced": {"VertexCountPerInstance": 1, "InstanceCount": 2}}}


@pytest.mark.parametrize("spelling", PER_INSTANCE)
def test_per_instance_spellings(spelling):
    assert load_case(_case(spelling)).layout.elements[0].per_instance is True


@pytest.mark.parametrize("spelling", PER_VERTEX)
def test_per_vertex_spellings(spelling):
    assert load_case(_case(spelling)).layout.elements[0].per_instance is False


@pytest.mark.parametrize("spelling", ["PER_PRIMITIVE", "INSTANCE_DATA", "", True, None])
def test_anything_else_is_refused_naming_d3ds_names(spelling):
    with pytest.raises(InvalidDescError) as refused:
        load_case(_case(spelling))
    assert str(refused.value) == (
        f"input_layout: element 0 (A0): InputSlotClass={spelling!r}: {spelling!r} is not a "
        f"D3D12_INPUT_CLASSIFICATION; expected one of PER_VERTEX_DATA, PER_INSTANCE_DATA")


def test_an_integer_other_than_0_or_1_is_refused():
    with pytest.raises(InvalidDescError) as refused:
        load_case(_case(2))
    assert str(refused.value) == ("input_layout: element 0 (A0): InputSlotClass=2: 2 is not a "
                                  "D3D12_INPUT_CLASSIFICATION value")


def test_the_documentation_lists_every_accepted_form():
    text = (REPO / "docs" / "case-format.md").read_text(encoding="utf-8")
    row = re.search(r"^\| `InputSlotClass` \|.*$", text, re.M)
    assert row is not None
    missing = [form for form in DOCUMENTED if form not in row.group(0)]
    assert not missing, row.group(0)
