"""Shared fixtures. GPU tests never skip silently: without an adapter they fail, in CI and here.

``--gpuia-adapter`` / ``--gpuia-backend`` (or ``GPUIA_ADAPTER`` / ``GPUIA_BACKEND``) choose the
adapter (default: the first non-OpenGL one, lavapipe in CI); run ``gpuia adapters`` to see what is
there. The options and the device fixture come from gpuia's pytest plugin (gpuia/pytest_plugin.py),
which the editable install registers.
"""

import os
from pathlib import Path

import pytest

os.environ.setdefault("XDG_RUNTIME_DIR", "/tmp")


pytest_plugins = ["pytester"]

GPU_FIXTURES = {"gpu_device", "gpuia_device", "devices"}  # and every fixture using one


def pytest_addoption(parser):
    parser.addoption("--regenerate-golden", action="store_true", default=False,
                     help="rewrite tests/golden/wgsl/*.wgsl from the generator; every golden "
                          "test then fails, naming the file it wrote (review the diff, rerun "
                          "without the flag)")


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: draws on a GPU adapter (`.ci/run` runs these on "
                                       "every software adapter; `-m gpu` selects them)")


TESTS = Path(__file__).resolve().parent
UNIT_DIR, GPU_DIR = TESTS / "unit", TESTS / "gpu"


def pytest_collection_modifyitems(config, items):
    """Mark every test that draws on a GPU with ``gpu``: every test under tests/gpu/ (their
    subprocesses draw on the adapter ``GPUIA_BACKEND`` names too), and anywhere a test using a
    device fixture (``GPU_FIXTURES``, or a fixture depending on one: ``fixturenames`` is the
    whole closure). A test under tests/unit/ that uses a device fixture or carries the marker is
    refused before anything runs, naming it: the unit tests must pass with no adapter at all."""
    misplaced = []
    for item in items:
        path = Path(item.path)
        uses_device = bool(GPU_FIXTURES & set(getattr(item, "fixturenames", ())))
        if UNIT_DIR in path.parents:
            if uses_device or item.get_closest_marker("gpu") is not None:
                misplaced.append(item.nodeid)
            continue
        if GPU_DIR in path.parents or uses_device:
            item.add_marker(pytest.mark.gpu)
    if misplaced:
        raise pytest.UsageError(
            "tests under tests/unit/ need no GPU adapter, but these use a device fixture or the "
            "gpu marker (move them to tests/gpu/): " + ", ".join(misplaced))


# Pointed at a file that does not exist, these hide every adapter from a new process: the Vulkan
# loader's driver list (both spellings) and glvnd's EGL vendor list (wgpu's OpenGL backend).
NO_ADAPTER_ENV = {"VK_ICD_FILENAMES": "/nonexistent/gpuia-unit-test.json",
                  "VK_DRIVER_FILES": "/nonexistent/gpuia-unit-test.json",
                  "__EGL_VENDOR_LIBRARY_FILENAMES": "/nonexistent/gpuia-unit-test.json"}


@pytest.fixture(autouse=True)
def _unit_tests_see_no_adapter(request, monkeypatch):
    """A unit test runs as on a machine without a GPU: the processes it starts find no adapter,
    and so does this one where wgpu has not listed them yet (``pytest tests/unit``). A unit test
    that needs an adapter after all fails here too, instead of passing only where there is one."""
    if UNIT_DIR in Path(request.node.path).parents:
        for name, value in NO_ADAPTER_ENV.items():
            monkeypatch.setenv(name, value)


@pytest.fixture(scope="session")
def gpu_device(gpuia_device):
    """The gpuia Device every GPU test draws on: gpuia's own pytest plugin's ``gpuia_device``
    (``--gpuia-adapter``, ``--gpuia-backend``), which fails (never skips) without an adapter."""
    return gpuia_device


@pytest.fixture(scope="module")
def devices():
    """A gpuia Device on every adapter wgpu lists that makes one (the tests that measure a quirk
    table or check on every adapter); fails, never skips, when none does."""
    from helpers import every_adapter_device

    made, unavailable = every_adapter_device()
    assert made, f"no adapter made a device: these tests must run ({unavailable})"
    return made


@pytest.fixture(scope="module")
def shared_pipelines(gpu_device):
    """One pipeline cache for a module's contexts (pipelines are device objects), so cells of
    one layout reuse their pipelines."""
    from gpuia.gpu import Context

    return Context(gpu_device).cache


@pytest.fixture
def ctx(gpu_device, shared_pipelines):
    """A fresh Context per test sharing the module's pipeline cache: each test starts from clean
    binding state. Not one context for the module: a reused context's capture bind group can
    outlive its capture buffer (STALE_CAPTURE_BIND_GROUP), which would make unrelated tests fail
    now and then."""
    from gpuia.gpu import Context

    context = Context(gpu_device)
    context.cache = shared_pipelines
    return context


@pytest.fixture
def regenerate(request) -> bool:
    """Whether ``--regenerate-golden`` was given (the golden WGSL tests then write and fail)."""
    return bool(request.config.getoption("--regenerate-golden"))


@pytest.fixture
def capped_python():
    """``capped_python(*args, cap_gib=8)``: run ``python *args`` (from the repository root) with
    its address space capped, so that a regression that sizes work by a huge count fails fast
    with MemoryError instead of exhausting the machine (or, on a host with the memory, passing
    slowly). The cap never exceeds the limit the test process already has."""
    import resource
    import subprocess
    import sys
    from pathlib import Path

    def run(*args, cap_gib: int = 8, timeout: float = 120):
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        cap = cap_gib << 30
        if hard != resource.RLIM_INFINITY:
            cap = min(cap, hard)

        def limit():
            resource.setrlimit(resource.RLIMIT_AS, (cap, hard))

        env = dict(os.environ, XDG_RUNTIME_DIR=os.environ.get("XDG_RUNTIME_DIR", "/tmp"))
        return subprocess.run([sys.executable, *map(str, args)], capture_output=True, text=True,
                              timeout=timeout, env=env, preexec_fn=limit, check=False,
                              cwd=Path(__file__).resolve().parent.parent)

    return run
