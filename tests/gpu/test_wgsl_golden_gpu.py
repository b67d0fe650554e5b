"""Every golden WGSL file (tests/golden/wgsl/) compiles on the adapter through gpuia's own error
mapping, so a golden file naga rejects cannot sit in the tree. The text itself is checked
against the generator with no adapter, in tests/unit/test_wgsl_golden.py, which also fails on a
golden file without a spec and on a spec without its file.
"""

from __future__ import annotations

import pytest

from helpers import GOLDEN_DIR, REGENERATE_GOLDEN


@pytest.mark.parametrize("name", sorted(p.stem for p in GOLDEN_DIR.glob("*.wgsl")))
def test_golden_wgsl_compiles(name, gpu_device, regenerate):
    from gpuia.gpu.pipelines import compile_module

    path = GOLDEN_DIR / f"{name}.wgsl"
    if regenerate:
        pytest.fail(f"--regenerate-golden given: {path} is compiled by a run without it "
                    f"(`{REGENERATE_GOLDEN}` regenerates)", pytrace=False)
    compile_module(gpu_device.device, path.read_text(encoding="utf-8"), f"golden {name}",
                   "does not compile")
