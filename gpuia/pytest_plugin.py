"""gpuia's pytest plugin: GPU cross-checks of vertex layouts and case files in any test suite.

Installing gpuia registers it (entry point ``pytest11``, name ``gpuia``; without the install,
``-p gpuia.pytest_plugin`` loads it). It adds:

Options
    ``--gpuia-adapter S``  the adapter whose summary contains S, case-insensitively (default
    ``$GPUIA_ADAPTER``, else the first non-OpenGL adapter; ``gpuia adapters`` lists them);
    ``all`` runs every test that uses ``gpuia_device`` once on each adapter.
    ``--gpuia-backend B``  only adapters of backend B: Vulkan, Metal, D3D12, OpenGL (default
    ``$GPUIA_BACKEND``).

    A selection that was asked for (by option or environment) and matches no adapter is refused
    before any test runs, with one line (:class:`pytest.UsageError`, exit status 4). With
    nothing asked, a machine without an adapter runs its other tests and fails the GPU ones.

Header
    The session header names the adapter(s) the tests will use (from wgpu's adapter list; no
    device is created for it), or says that none was found.

Fixtures
    ``gpuia_device`` (session): the :class:`gpuia.gpu.Device`. With no adapter the test
    *fails* with how to install Mesa's lavapipe; it never skips, so a CI machine without a GPU
    cannot pass by running nothing. With ``--gpuia-adapter all`` it is parametrized over the
    adapters (test ids such as ``test_x[gpuia:llvmpipe-Vulkan]``), one device per adapter per
    session; an adapter whose device cannot be created fails its tests with the reason.

    ``gpuia_check``: a function that runs the CPU reference and the GPU on a case and fails the
    test with the RenderDoc-style comparison table on any difference, or when no GPU run could
    be compared at all. It takes a case (a :class:`gpuia.harness.case.Case`, a case file path, or a
    case document as a dict; its vertex shader may be HLSL, and it may have a geometry shader,
    whose Stream Output the GPU run compares, or says with the reason that it cannot, as
    ``gpuia check`` does), or ``layout=`` (D3D12 input
    element descriptions) with generated data and, with ``vertex_shader=`` (an ``.hlsl`` or
    ``.wgsl`` path, optionally ``path:entry``, or a case-format ``vertex_shader`` object), the
    engine's own vertex shader, which the layout must feed as CreateGraphicsPipelineState
    demands; it returns the :class:`gpuia.harness.crosscheck.CheckResult`. It draws on
    ``gpuia_device``, so under ``all`` it checks on each adapter in turn.

Every failure message is printed once: the plugin fails tests outside its ``except`` blocks, so
pytest does not append the caught exception ("During handling of the above exception").
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

import pytest

LAVAPIPE_HINT = ("On Debian or Ubuntu, install Mesa's lavapipe (apt-get install "
                 "mesa-vulkan-drivers); `gpuia adapters` lists what wgpu finds.")


def pytest_addoption(parser):
    group = parser.getgroup("gpuia", "gpuia GPU cross-checks")
    group.addoption("--gpuia-adapter", default=None, metavar="S",
                    help="adapter whose summary contains S (default: $GPUIA_ADAPTER, else the "
                         "first non-OpenGL adapter); 'all': each GPU test once per adapter")
    group.addoption("--gpuia-backend", default=None, metavar="B",
                    help="adapter backend: Vulkan, Metal, D3D12, OpenGL (default: "
                         "$GPUIA_BACKEND)")


@dataclass
class _Selection:
    """The adapters a session uses, resolved once from the options and the environment."""

    substring: str | None
    backend: str | None
    asked: str  # how the user chose, for messages: "--gpuia-adapter all", "default", ...
    adapters: list = field(default_factory=list)  # wgpu GPUAdapter objects; empty on error
    ids: list = field(default_factory=list)  # test ids, parallel to adapters (all only)
    error: str | None = None
    devices: dict = field(default_factory=dict)  # adapter position -> Device or failure text

    @property
    def all(self) -> bool:
        return self.substring == "all"  # exact, as select_adapters and `gpuia check` take it


_SELECTION = pytest.StashKey[_Selection]()


def _selection(config) -> _Selection:
    """The session's :class:`_Selection`, enumerating wgpu's adapters on first use only (a
    session that never asks, e.g. ``-q`` with no GPU test, imports no wgpu)."""
    if _SELECTION in config.stash:
        return config.stash[_SELECTION]
    from .errors import GpuiaError
    from .gpu import list_adapters
    from .gpu.adapters import select_adapter, select_adapters

    sel = _Selection(*_asked(config))
    error = None
    try:
        if sel.all:
            sel.adapters = select_adapters(None, sel.backend)
            sel.ids = _adapter_ids([(a.info.get("device", a.summary),
                                     a.info.get("backend_type", "?")) for a in sel.adapters])
        else:
            sel.adapters = [select_adapter(sel.substring, sel.backend)]
    except GpuiaError as e:
        error = " ".join(str(e).split())
    if error is not None:
        try:
            nothing = not list_adapters()
        except GpuiaError:
            nothing = True
        sel.error = f"{error}. {LAVAPIPE_HINT}" if nothing else error
    config.stash[_SELECTION] = sel
    return sel


def _asked(config) -> tuple[str | None, str | None, str]:
    """The adapter substring and backend asked for (an option, else its environment variable;
    empty counts as not given) and how, for messages: ``"--gpuia-adapter all"``,
    ``"$GPUIA_BACKEND=Vulkan"``, or ``"default"`` when neither is given."""
    def chosen(option, env):
        value = config.getoption(option)
        if value:
            return value, f"--{option.replace('_', '-')} {value}"
        value = os.environ.get(env) or None
        return value, value and f"${env}={value}"

    substring, how_a = chosen("gpuia_adapter", "GPUIA_ADAPTER")
    backend, how_b = chosen("gpuia_backend", "GPUIA_BACKEND")
    return substring, backend, ", ".join(filter(None, [how_a, how_b])) or "default"


def _adapter_ids(adapters) -> list[str]:
    """Test ids for ``(device name, backend)`` pairs: ``gpuia:<name>-<backend>``, the name
    without its parenthesized parts and with runs of other characters than letters, digits and
    dots as ``-`` (``llvmpipe (LLVM 15.0.6, 256 bits)`` on Vulkan: ``gpuia:llvmpipe-Vulkan``).
    Ids that would repeat (two identical GPUs) get ``-0``, ``-1``, ... in list order."""
    ids = []
    for name, backend in adapters:
        short = re.sub(r"[^A-Za-z0-9.]+", "-", re.sub(r"\([^)]*\)", " ", name)).strip("-")
        ids.append(f"gpuia:{short or 'adapter'}-{backend}")
    seen = {i: 0 for i in ids if ids.count(i) > 1}
    out = []
    for i in ids:
        if i in seen:
            out.append(f"{i}-{seen[i]}")
            seen[i] += 1
        else:
            out.append(i)
    return out


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session):
    """Refuse an asked-for selection that matches no adapter, before the header and any test."""
    if _asked(session.config)[2] == "default":
        return  # nothing asked: resolve lazily, and let a GPU-less machine run its other tests
    sel = _selection(session.config)
    if sel.error is not None:
        raise pytest.UsageError(f"gpuia: {sel.asked}: {sel.error}")


def pytest_report_header(config):
    sel = _selection(config)
    if sel.error is not None:
        return (f"gpuia: no GPU adapter found ({sel.asked}); tests that use gpuia_device "
                f"will fail: {sel.error}")
    if not sel.all:
        return f"gpuia: adapter {sel.adapters[0].summary} ({sel.asked})"
    n = len(sel.adapters)
    return [f"gpuia: {n} adapter{'s' if n > 1 else ''} ({sel.asked}); each test that uses "
            f"gpuia_device runs on each:"] + \
        [f"  [{i}] {a.summary}" for i, a in zip(sel.ids, sel.adapters, strict=True)]


def pytest_generate_tests(metafunc):
    """Under ``--gpuia-adapter all``: one test per adapter for every test that uses
    ``gpuia_device`` (directly, through ``gpuia_check`` or any fixture that does)."""
    if "gpuia_device" not in metafunc.fixturenames:
        return
    sel = _selection(metafunc.config)
    if not sel.all:
        return  # one adapter: the fixture is not parametrized, test ids stay as they are
    if sel.error is not None:  # pytest_sessionstart has refused it; never parametrize over
        return  # nothing (pytest would skip the test): the fixture then fails with the reason
    metafunc.parametrize("gpuia_device", list(range(len(sel.adapters))), indirect=True,
                         ids=sel.ids, scope="session")


@pytest.fixture(scope="session")
def gpuia_device(request):
    """The gpuia Device the tests draw on; fails (never skips) without an adapter. Under
    ``--gpuia-adapter all``, the Device of the adapter ``request.param`` indexes, created once
    per session; an adapter that cannot create one fails each of its tests with the reason."""
    from .errors import UnsupportedError
    from .gpu import Device, get_device

    config = request.config
    position = getattr(request, "param", None)
    if position is None:
        error = None
        try:
            return get_device(config.getoption("gpuia_adapter"),
                              config.getoption("gpuia_backend"))
        except UnsupportedError as e:
            error = " ".join(str(e).split())
        # Failed outside the except, so that the message is printed once.
        if _selection(config).error is None:  # there is an adapter: its device was refused
            pytest.fail(f"gpuia: {error}", pytrace=False)
        pytest.fail(f"gpuia: no GPU adapter: {error}. {LAVAPIPE_HINT}", pytrace=False)
    sel = _selection(config)
    if position not in sel.devices:  # pytest may set the fixture up again: keep one device
        try:
            sel.devices[position] = Device(sel.adapters[position])
        except UnsupportedError as e:  # e.g. an OpenGL context on a machine without a display
            sel.devices[position] = " ".join(str(e).split())
    device = sel.devices[position]
    if isinstance(device, str):
        pytest.fail(f"gpuia: {device}", pytrace=False)  # the text names the adapter
    return device


@pytest.fixture
def gpuia_check(gpuia_device):
    """``gpuia_check(case=None, *, layout=None, vertex_shader=None, constant_buffers=None,
    path="all", vertices=64, instances=3, seed=0, table=False)``: cross-check and fail with the
    comparison table on any difference.

    ``path``: ``all`` (native and pulling), ``native``, ``pulling`` or ``auto``. With
    ``layout``, :func:`gpuia.harness.crosscheck.layout_case` generates the data (seeded random
    bytes, ``vertices`` points per instance, ``instances`` instances), drawn with
    ``vertex_shader`` when given (see the module docstring). ``constant_buffers`` ({slot: bytes
    or a dict of the cbuffer's members by name, packed by D3D's rules from an HLSL shader's
    reflection}) fills the constant buffers the shader reads; those not given are zero-filled.
    A case brings its own (its ``constant_buffers``)."""
    from .errors import GpuiaError
    from .harness.case import Case, load_case
    from .harness.crosscheck import cross_check, layout_case

    def check(case=None, *, layout=None, vertex_shader=None, constant_buffers=None,
              path: str = "all", vertices: int = 64, instances: int = 3, seed: int = 0,
              table: bool = False):
        if (case is None) == (layout is None):
            raise TypeError("gpuia_check takes a case or layout=, not both and not neither")
        if vertex_shader is not None and layout is None:
            raise TypeError("gpuia_check's vertex_shader= goes with layout= (a case brings "
                            "its own)")
        if constant_buffers is not None and vertex_shader is None:
            raise TypeError("gpuia_check's constant_buffers= goes with layout= and "
                            "vertex_shader= (a case brings its own)")
        error = None
        try:
            if layout is not None:
                case = layout_case(layout, vertices=vertices, instances=instances, seed=seed,
                                   vertex_shader=_shader_object(vertex_shader),
                                   constant_buffers=constant_buffers)
            elif not isinstance(case, Case):
                case = load_case(case)  # a relative path is relative to the working directory
            paths = ("native", "pulling") if path == "all" else (path,)
            result = cross_check(case, [gpuia_device], paths, table=table)
        except GpuiaError as e:  # bad input: say what and why, not gpuia's stack
            error = " ".join(str(e).split())
        if error is not None:  # failed outside the except, or pytest prints the message twice
            pytest.fail(f"gpuia: {error}", pytrace=False)
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
