"""Every golden WGSL program (tests/golden/wgsl/, its library pieces put back) compiles on the
adapter through gpuia's own error mapping, so a golden file naga rejects cannot sit in the tree;
and so does every .wgsl file of shaders/, inside the smallest golden program that uses it (most
are pieces, not modules of their own). The text itself is checked against the generator with no
adapter, in tests/unit/test_wgsl_golden.py, which also fails on a golden file without a spec, on
a spec without its file and on a shader file no golden program uses.
"""

from __future__ import annotations

import functools

import pytest

from gpuia.util import resources
from helpers import GOLDEN_DIR, REGENERATE_GOLDEN
from wgsl_goldens import GOLDENS, expand, files_read, split_header


def _compile(device, name: str) -> None:
    from gpuia.gpu.vertex.pipelines import compile_module

    path = GOLDEN_DIR / f"{name}.wgsl"
    compile_module(device.device, expand(split_header(path.read_text(encoding="utf-8"))),
                   f"golden {name}", "does not compile")


@pytest.mark.parametrize("name", sorted(p.stem for p in GOLDEN_DIR.glob("*.wgsl")))
def test_golden_wgsl_compiles(name, gpu_device, regenerate):
    if regenerate:
        pytest.fail(f"--regenerate-golden given: {GOLDEN_DIR / name}.wgsl is compiled by a run "
                    f"without it (`{REGENERATE_GOLDEN}` regenerates)", pytrace=False)
    _compile(gpu_device, name)


@functools.cache
def _smallest_users() -> dict[str, str]:
    """Each .wgsl shader file -> the golden program of fewest characters that reads it."""
    by_size = sorted(GOLDENS.values(), key=lambda entry: len(entry.program()))
    users: dict[str, str] = {}
    for entry in by_size:
        for name in files_read(entry):
            users.setdefault(name, entry.name)
    return users


@pytest.mark.parametrize("shader", [n for n in resources.shader_names() if n.endswith(".wgsl")])
def test_every_wgsl_shader_file_compiles_in_the_smallest_program_that_uses_it(shader, gpu_device,
                                                                              regenerate):
    users = _smallest_users()
    assert shader in users, f"no golden program uses {shader} (tests/wgsl_goldens.py)"
    if regenerate:
        pytest.fail("--regenerate-golden given: the golden programs are compiled by a run "
                    "without it", pytrace=False)
    _compile(gpu_device, users[shader])
