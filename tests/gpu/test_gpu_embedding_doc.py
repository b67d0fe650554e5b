"""docs/embedding.md's example runs as written, on the adapter the tests use: gpuia on the
application's own wgpu device, a cross-check and a draw into the application's texture."""

from __future__ import annotations

import re
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "embedding.md"
# The example's objects live for the session, as an application's device does: on an adapter
# with the ONE_DEVICE quirk, dropping that device would break the session's other devices.
_KEEP: list = []


def test_the_embedding_example_runs(gpu_device, capsys):
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)
    assert len(blocks) == 1
    # The test's adapter, not the preferred one: the same example on the adapter under test
    # (a session on OpenGL must not make a device on Vulkan, and the reverse).
    code = blocks[0].replace(
        'adapter = wgpu.gpu.request_adapter_sync(power_preference="high-performance")',
        "adapter = ADAPTER")
    assert "adapter = ADAPTER" in code
    namespace = {"ADAPTER": gpu_device.adapter, "__name__": "example"}
    _KEEP.append(namespace)
    exec(compile(code, str(DOC), "exec"), namespace)
    out = capsys.readouterr().out
    assert "drawn into the application's texture" in out
