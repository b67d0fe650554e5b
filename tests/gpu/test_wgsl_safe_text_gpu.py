"""User text in generated WGSL (gpuia/wgsl/text.py): a semantic name holding a line break or a
NUL is data, not code. Before the fix the pulling path pasted the name into a ``//`` comment:
"\\n", "\\r" and U+2028 ended the comment (naga: "expected global item"), and "\\0" ended the
whole program (naga: "Unable to find entry point 'gpuia_vs'"), while ``validate`` and the CPU
reference accepted the case. Here the names draw on the GPU on both paths and through Stream
Output; tests/unit/test_wgsl_safe_text.py checks the generated text and the CPU reference."""

import pytest

from gpuia.harness.compare import compare, compare_so
from gpuia.harness.run import reference_ia, reference_so
from gpuia.harness.run_gpu import run_case_gpu, run_case_so_gpu
from helpers import odd_names_case


@pytest.mark.parametrize("path", ["pulling", "native"])
def test_odd_semantic_names_run_on_the_gpu_as_on_the_cpu(gpu_device, path):
    case = odd_names_case()
    ref = reference_ia(case)
    result = compare(ref, run_case_gpu(case, gpu_device, path, ref), case.layout)
    assert result.ok, result


def test_odd_semantic_names_in_stream_output(gpu_device):
    case = odd_names_case(so=True)
    ref = reference_ia(case)
    assert compare_so(reference_so(case, ref), run_case_so_gpu(case, gpu_device)) == []

