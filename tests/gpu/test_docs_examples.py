"""Every Python block in docs/*.md and README.md runs as written, pasted whole into a file of its
own: in a fresh folder that sees a checkout's tests/ and examples/ (as from the checkout's
root), on the adapter the tests use, and printing what the text around it says it prints. A
block that is a fragment (names it never defines, files it never writes) fails here.
docs/pytest-plugin.md's block is a test module and runs under pytest in
tests/tools/test_pytest_plugin.py."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md"]
BLOCK = re.compile(r"```python\n(.*?)```", re.S)

# What each block prints, from the prose around it (every block is listed: a new one without
# an entry fails the coverage test below).
EXPECTED_OUTPUT = {
    "README.md:0": ["pulling: OK: 192/192 invocations match",
                    "('PerFrame', [('ViewProj', 0, 64), ('Time', 64, 4), ('Wobble', 68, 8)])"],
    "compiled-shaders.md:0": ["links: []", "reads BLENDINDICES0 (register 2) but the input "
                              "layout has no element with that semantic"],
    "embedding.md:0": ["drawn into the application's texture"],
    "gpu.md:0": ["path: native"],
    "gpu.md:1": ["(600, 800, 4) [255   0   0 255] [ 51  51 102 255]"],
    "gpu.md:2": ["[{'NumPrimitivesWritten': 2, 'PrimitivesStorageNeeded': 3}]",
                 "[{'Overflow': 1}]", "filled while predicated: 0", "16 4 16 None",
                 "['CInvocations', 'CPrimitives', 'PSInvocations']"],
    "hlsl.md:0": ["in BLENDINDICES0 i.bones uint 4 None", "out SV_POSITION0 return.pos float 4",
                  "PerFrame b0 68 [('ViewProj', 0, 64), ('Time', 64, 4)]",   # D3D packing
                  "semantic='BLENDINDICES', index=0, type='uint', components=4",
                  "// gpuia: HLSL vertex shader vs_main (mesh.hlsl)"],
    "pipeline.md:0": ["Renderer.cpp:15:5 psoDesc particleLayout particleSO",
                      "pulling: OK: 12/12 invocations match",
                      "stream output: OK: NumPrimitivesWritten 12, PrimitivesStorageNeeded 12",
                      "topology type: pipeline_state: PrimitiveTopologyType='TRIANGLE': takes no "
                      "POINTLIST draw", "pixel shader: pipeline_state.pixel_shader: "
                      "input='TEXCOORD0'", "render targets: pipeline_state: RTVFormats[1]="],
    "reference.md:0": ["[0 1 2] [0 0 0] [[0 1 2]] {'IAVertices': 3, 'IAPrimitives': 1}",
                       "1056997505"],   # 128 / 255 as float32's bits
    "streamout.md:0": ["{'NumPrimitivesWritten': 2, 'PrimitivesStorageNeeded': 2}",
                       "[0, 1, 2, 1, 3, 2]"],
    "translate.md:0": ["center pixel: [  0 255   0 255]"],
}
RUN_ELSEWHERE = {"pytest-plugin.md:0": "tests/tools/test_pytest_plugin.py"}

# The blocks' objects live for the session, as an application's device does: on an adapter with
# the ONE_DEVICE quirk, dropping a device would break the session's other devices.
_KEEP: list = []


def _blocks() -> dict[str, str]:
    return {f"{doc.name}:{i}": code for doc in DOCS
            for i, code in enumerate(BLOCK.findall(doc.read_text()))}


def test_every_block_has_an_expected_output():
    assert set(_blocks()) == set(EXPECTED_OUTPUT) | set(RUN_ELSEWHERE)


@pytest.mark.parametrize("name", sorted(EXPECTED_OUTPUT))
def test_the_block_runs_as_written(name, gpu_device, tmp_path, monkeypatch, capsys):
    import wgpu

    import gpuia.gpu

    # The adapter under test, not the block's own choice: a session on OpenGL must not make a
    # device on Vulkan, and the reverse. The block's text is run unchanged.
    monkeypatch.setattr(gpuia.gpu, "get_device", lambda *args, **kwargs: gpu_device)
    monkeypatch.setattr(wgpu.gpu, "request_adapter_sync", lambda **kwargs: gpu_device.adapter)
    for shared in ("tests", "examples"):
        (tmp_path / shared).symlink_to(ROOT / shared, target_is_directory=True)
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": "__main__"}
    _KEEP.append(namespace)
    exec(compile(_blocks()[name], name, "exec"), namespace)
    out = capsys.readouterr().out
    for expected in EXPECTED_OUTPUT[name]:
        assert expected in out, f"{name} printed:\n{out}"
