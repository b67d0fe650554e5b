"""Cases with a root signature drawn on the GPU (docs/resources.md, "Root signatures"): the
registers a root signature covers land where the implied root signature puts them, so the
draws give what the same cases give without one. The expected values are the CPU reference's
of the case without a root signature (the skinning palette: exact, as in
test_gpu_shader_resources.py) and, for the float cbuffer shader, the GPU's own bits without a
root signature (the same program must read the same bytes)."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest

from gpuia.errors import UnsupportedError
from gpuia.harness.case import load_case
from gpuia.harness.run import run_reference, shader_outputs
from gpuia.harness.run_gpu import run_case_gpu, run_case_so_gpu
from helpers import EXAMPLE_CASES

pytest.importorskip("gpuia.hlsl.library")


def _doc(name: str, root_signature=None) -> dict:
    doc = json.loads((EXAMPLE_CASES / f"{name}.json").read_text())
    if "hlsl_file" in doc["vertex_shader"]:  # found from the example's folder
        doc["vertex_shader"]["hlsl_file"] = str(EXAMPLE_CASES / doc["vertex_shader"]["hlsl_file"])
    if root_signature is not None:
        doc["root_signature"] = copy.deepcopy(root_signature)
    return doc


PALETTE_RS = {"flags": ["ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT", "ALLOW_STREAM_OUTPUT"],
              "parameters": [{"type": "descriptor_table", "visibility": "vertex",
                              "ranges": [{"type": "srv", "num_descriptors": 4,
                                          "base_shader_register": 0}]}]}


def test_palette_through_a_descriptor_table(gpu_device):
    plain = load_case(_doc("srv_skinning_palette"))
    case = load_case(_doc("srv_skinning_palette", PALETTE_RS))
    assert case.root_signature is not None
    cpu = shader_outputs(plain, run_reference(plain))
    want = np.concatenate([cpu[k] for k in ("TEXCOORD0", "TEXCOORD1")], axis=1)
    so = run_case_so_gpu(case, gpu_device)
    got = np.frombuffer(so.buffers[0], np.uint32)[:want.size].reshape(want.shape)
    np.testing.assert_array_equal(got, want)
    for path in ("native", "pulling"):
        result = run_case_gpu(case, gpu_device, path=path)
        assert not result.missing.any() and result.path == path


PARTICLES_RS = ("RootFlags(ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT | ALLOW_STREAM_OUTPUT), "
                "CBV(b0, visibility=SHADER_VISIBILITY_VERTEX), "
                "RootConstants(num32BitConstants=4, b1)")  # Frame: 16 bytes


def test_cbuffers_through_a_root_cbv_and_root_constants(gpu_device):
    plain = run_case_so_gpu(load_case(_doc("hlsl_skinned_particles")), gpu_device)
    case = load_case(_doc("hlsl_skinned_particles", PARTICLES_RS))
    kinds = [(b.register, r.kind) for _, b, r in case.root_signature.covered]
    assert kinds == [(0, "root descriptor"), (1, "root constants")]
    got = run_case_so_gpu(case, gpu_device)
    assert got.buffers[0] == plain.buffers[0]


def test_root_constants_smaller_than_the_cbuffer_are_refused():
    rs = PARTICLES_RS.replace("num32BitConstants=4", "num32BitConstants=3")
    with pytest.raises(UnsupportedError, match="16 bytes"):
        load_case(_doc("hlsl_skinned_particles", rs))
