"""gpuia's pytest plugin: GPU cross-checks of vertex layouts and case files in any test suite.

Installing gpuia registers it (entry point ``pytest11``, name ``gpuia``). It adds:

Options
    ``--gpuia-adapter S``  the adapter whose description contains S (default ``$GPUIA_ADAPTER``;
    ``gpuia adapters`` lists them); ``--gpuia-backend B``  Vulkan, Metal, D3D12, OpenGL
    (default ``$GPUIA_BACKEND``).

Fixtures
    ``gpuia_device`` (session): the :class:`gpuia.gpu.Device`. With no adapter the test
    *fails* with how to install Mesa's lavapipe; it never skips, so a CI machine without a GPU
    cannot pass by running nothing.

    ``gpuia_check``: a function that runs the CPU reference and the GPU on a case and fails the
    test with the RenderDoc-style comparison table on any difference, or when no GPU run could
    be compared at all. It takes a case (a :class:`gpuia.case.Case`, a case file path, or a
    case document as a dict; its vertex shader may be HLSL), or ``layout=`` (D3D12 input
    element descriptions) with generated data and, with ``vertex_shader=`` (an ``.hlsl`` or
    ``.wgsl`` path, optionally ``path:entry``, or a case-format ``vertex_shader`` object), the
    engine's own vertex shader, which the layout must feed as CreateGraphicsPipelineState
    demands; it returns the :class:`gpuia.crosscheck.CheckResult`.
"""

from __future__ import annotations

import os

import pytest


def pytest_addoption(parser):
    group = parser.getgroup("gpuia", "gpuia GPU cross-checks")
    group.addoption("--gpuia-adapter", default=None, metavar="S",
                    help="adapter whose description contains S (default: $GPUIA_ADAPTER, "
                         "else the first non-OpenGL adapter)")
    group.addoption("--gpuia-backend", default=None, metavar="B",
                    help="adapter backend: Vulkan, Metal, D3D12, OpenGL (default: "
                         "$GPUIA_BACKEND)")


def pytest_report_header(config):
    adapter = config.getoption("gpuia_adapter") or os.environ.get("GPUIA_ADAPTER")
    return f"gpuia: adapter {adapter or 'default'}"


@pytest.fixture(scope="session")
def gpuia_device(pytestconfig):
    """The gpuia Device the tests draw on; fails (never skips) without an adapter."""
    from .errors import UnsupportedError
    from .gpu import get_device

    try:
        return get_device(pytestconfig.getoption("gpuia_adapter"),
                          pytestconfig.getoption("gpuia_backend"))
    except UnsupportedError as e:
        pytest.fail(f"gpuia: no GPU adapter: {e}. On Debian or Ubuntu, install Mesa's lavapipe "
                    f"(apt-get install mesa-vulkan-drivers); `gpuia adapters` lists what wgpu "
                    f"finds.", pytrace=False)


@pytest.fixture
def gpuia_check(gpuia_device):
    """``gpuia_check(case=None, *, layout=None, vertex_shader=None, path="all", vertices=64,
    instances=3, seed=0, table=False)``: cross-check and fail with the comparison table on any
    difference.

    ``path``: ``all`` (native and pulling), ``native``, ``pulling`` or ``auto``. With
    ``layout``, :func:`gpuia.crosscheck.layout_case` generates the data (seeded random bytes,
    ``vertices`` points per instance, ``instances`` instances), drawn with ``vertex_shader``
    when given (see the module docstring; its constant buffers zero-filled)."""
    from .case import Case, load_case
    from .crosscheck import cross_check, layout_case
    from .errors import GpuiaError

    def check(case=None, *, layout=None, vertex_shader=None, path: str = "all",
              vertices: int = 64, instances: int = 3, seed: int = 0, table: bool = False):
        if (case is None) == (layout is None):
            raise TypeError("gpuia_check takes a case or layout=, not both and not neither")
        if vertex_shader is not None and layout is None:
            raise TypeError("gpuia_check's vertex_shader= goes with layout= (a case brings "
                            "its own)")
        try:
            if layout is not None:
                case = layout_case(layout, vertices=vertices, instances=instances, seed=seed,
                                   vertex_shader=_shader_object(vertex_shader))
            elif not isinstance(case, Case):
                case = load_case(case)  # a relative path is relative to the working directory
            paths = ("native", "pulling") if path == "all" else (path,)
            result = cross_check(case, [gpuia_device], paths, table=table)
        except GpuiaError as e:  # bad input: say what and why, not gpuia's stack
            pytest.fail(f"gpuia: {' '.join(str(e).split())}", pytrace=False)
        if not result.ok:
            pytest.fail(f"gpuia: {case.name}: the GPU differs from the CPU reference\n"
                        f"{result.text()}", pytrace=False)
        if not result.compared:
            pytest.fail(f"gpuia: {case.name}: no GPU run could be compared\n{result.text()}",
                        pytrace=False)
        return result

    return check


def _shader_object(shader):
    """A case-format ``vertex_shader`` object from what ``gpuia_check`` takes."""
    from pathlib import Path

    if shader is None or isinstance(shader, dict):
        return shader
    text = str(shader)
    path, entry = text, None
    if not Path(text).is_file() and ":" in text:
        path, entry = text.rsplit(":", 1)
    file = Path(path).resolve()
    if file.suffix.lower() == ".wgsl":
        try:
            doc = {"wgsl": file.read_text(encoding="utf-8")}
        except (OSError, UnicodeDecodeError) as e:
            from .errors import CaseError

            raise CaseError("vertex_shader", f"cannot read {file}: {e}") from None
    else:
        doc = {"hlsl_file": str(file)}
    if entry:
        doc["entry_point"] = entry
    return doc
