"""Shared fixtures. GPU tests never skip silently: without an adapter they fail, in CI and here.

``GPUIA_ADAPTER`` / ``GPUIA_BACKEND`` choose the adapter (default: the first non-OpenGL one,
lavapipe in CI); run ``gpuia adapters`` to see what is there.
"""

import os

import pytest

os.environ.setdefault("XDG_RUNTIME_DIR", "/tmp")


@pytest.fixture(scope="session")
def gpu_device():
    """The gpuia Device every GPU test draws on. Fails (does not skip) when no adapter exists."""
    from gpuia.errors import UnsupportedError
    from gpuia.gpu import get_device

    try:
        return get_device()
    except UnsupportedError as e:
        pytest.fail(f"no GPU adapter: {e}. Install Mesa's lavapipe (mesa-vulkan-drivers); "
                    f".ci/setup does it.")
