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
    case document as a dict), or ``layout=`` (D3D12 input element descriptions) with
    generated data; it returns the :class:`gpuia.crosscheck.CheckResult`.
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
    """``gpuia_check(case=None, *, layout=None, path="all", vertices=64, instances=3, seed=0,
    table=False)``: cross-check and fail with the comparison table on any difference.

    ``path``: ``all`` (native and pulling), ``native``, ``pulling`` or ``auto``. With
    ``layout``, :func:`gpuia.crosscheck.layout_case` generates the data (seeded random bytes,
    ``vertices`` points per instance, ``instances`` instances)."""
    from .case import Case, load_case
    from .crosscheck import cross_check, layout_case
    from .errors import GpuiaError

    def check(case=None, *, layout=None, path: str = "all", vertices: int = 64,
              instances: int = 3, seed: int = 0, table: bool = False):
        if (case is None) == (layout is None):
            raise TypeError("gpuia_check takes a case or layout=, not both and not neither")
        try:
            if layout is not None:
                case = layout_case(layout, vertices=vertices, instances=instances, seed=seed)
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
