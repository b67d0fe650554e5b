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

GPU_FIXTURES = {"gpu_device", "gpuia_device", "devices"}


def pytest_addoption(parser):
    parser.addoption("--regenerate-golden", action="store_true", default=False,
                     help="rewrite tests/golden/wgsl/*.wgsl from the generator; every golden "
                          "test then fails, naming the file it wrote (review the diff, rerun "
                          "without the flag)")


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: draws on a GPU adapter (`.ci/run` runs these on "
                                       "every software adapter; `-m gpu` selects them)")


GPU_DIR = Path(__file__).resolve().parent / "gpu"


def pytest_collection_modifyitems(config, items):
    """Mark every test that draws on a GPU: every test under tests/gpu/, those using a device
    fixture, and every test of a ``test_gpu_*`` module (their subprocesses draw on the adapter
    ``GPUIA_BACKEND`` names)."""
    for item in items:
        path = Path(item.path) if hasattr(item, "path") else None
        in_gpu = path is not None and GPU_DIR in path.parents
        named = path is not None and path.name.startswith("test_gpu_")
        if in_gpu or named or GPU_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.gpu)


@pytest.fixture(scope="session")
def gpu_device(gpuia_device):
    """The gpuia Device every GPU test draws on: gpuia's own pytest plugin's ``gpuia_device``
    (``--gpuia-adapter``, ``--gpuia-backend``), which fails (never skips) without an adapter."""
    return gpuia_device


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
