"""Shared fixtures. GPU tests never skip silently: without an adapter they fail, in CI and here.

``--gpuia-adapter`` / ``--gpuia-backend`` (or ``GPUIA_ADAPTER`` / ``GPUIA_BACKEND``) choose the
adapter (default: the first non-OpenGL one, lavapipe in CI); run ``gpuia adapters`` to see what is
there. The options and the device fixture come from gpuia's pytest plugin (gpuia/pytest_plugin.py),
which the editable install registers.
"""

import os

import pytest

os.environ.setdefault("XDG_RUNTIME_DIR", "/tmp")


pytest_plugins = ["pytester"]


@pytest.fixture(scope="session")
def gpu_device(gpuia_device):
    """The gpuia Device every GPU test draws on: gpuia's own pytest plugin's ``gpuia_device``
    (``--gpuia-adapter``, ``--gpuia-backend``), which fails (never skips) without an adapter."""
    return gpuia_device
