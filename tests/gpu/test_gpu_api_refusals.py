"""The Python API refuses what it cannot do, with gpuia errors, before anything reaches wgpu.

1. Host data: ``Device.create_buffer`` / ``Buffer.write`` copy non-contiguous numeric arrays
   into C order and refuse lists, str and object/string/datetime arrays; bad ``bind``,
   ``label``, ``size``; ``Context(target=...)`` and ``cross_check(...)`` arguments.
2. A root constant buffer view smaller than the shader's uniform (WGSL sizes derived by hand
   here, from the WGSL spec's alignment and size rules) is refused at the draw that would use
   it, nothing is recorded for it, and the draws before it still flush and render.
3. ``Buffer.release()`` / ``Texture.release()`` (and ``.wgpu.destroy()``, routed to them): draws
   recorded before the release still run (the wgpu object is destroyed only after their
   submit, which the scripts probe), any later use raises a gpuia error naming the object.
4. One ``Context`` hammered from four threads: every concurrent call is refused with an
   ``UnsupportedError`` saying a Context is not thread-safe, nothing aborts, and the context
   still draws correctly; one context per thread on a shared device is clean, also while
   another thread releases the buffers they draw with.

Whatever could reach wgpu (draws, flushes, captures) runs in subprocesses (a validation error
at submit aborts the process in wgpu-py 0.32); each script prints ``BAD label | type |
message``, ``GOOD label | status``, ``VALUE label | json`` lines and ``OK`` last. Refusals that
stop before any GPU work are also tested in-process (those that need no device at all:
tests/unit/test_api_refusals.py).
"""

from __future__ import annotations

import functools
import json
import threading

import numpy as np
import pytest

from gpuia import DrawInstanced, IndexBufferView, InputElementDesc, InputLayout, VertexBufferView
from gpuia.d3d.so_desc import StreamOutputBufferView
from gpuia.errors import InvalidDescError, UnsupportedError
from gpuia.gpu import Context, Device, PipelineState, Texture
from gpuia.harness.case import load_case
from gpuia.harness.compare import compare
from gpuia.harness.crosscheck import cross_check
from gpuia.harness.run import reference_ia
from gpuia.harness.run_gpu import run_case_gpu
from helpers import EXAMPLE_CASES as CASES
from helpers import describe, run_script, script_text

POS = InputLayout([InputElementDesc("POSITION", 0, "R32G32_FLOAT", 0, 0)])
VERTS = np.array([[0, 0.5], [1, 2], [3, -4]], np.float32)


# ============================================================================================
# 1. Host data and arguments (refused before any GPU work: in-process)
# ============================================================================================

def _records():
    rec = np.zeros(6, dtype=[("p", "<f4", 2), ("c", "u1", 4)])
    rec["p"] = np.arange(12, dtype=np.float32).reshape(6, 2)
    rec["c"] = np.arange(24, dtype=np.uint8).reshape(6, 4)
    return rec


NON_CONTIGUOUS = {
    "every other float32": lambda: np.arange(16, dtype=np.float32)[::2],
    "reversed uint16": lambda: np.arange(10, dtype=np.uint16)[::-1],
    "Fortran-ordered 2-D": lambda: np.asfortranarray(np.arange(12, dtype=np.uint16).reshape(3, 4)),
    "transposed 2-D": lambda: np.arange(12, dtype=np.float32).reshape(3, 4).T,
    "column of a 2-D array": lambda: np.arange(12, dtype=np.int32).reshape(4, 3)[:, 1],
    "every other record": lambda: _records()[::2],
    "strided bool": lambda: np.array([1, 0, 0, 1, 1, 1, 0, 0], dtype=bool)[::2],
}


@pytest.mark.parametrize("label", list(NON_CONTIGUOUS))
def test_create_buffer_copies_non_contiguous_arrays_in_c_order(gpu_device, label):
    """The buffer holds the array's elements in C order: numpy's own tobytes() of it."""
    data = NON_CONTIGUOUS[label]()
    assert not data.flags.c_contiguous
    expected = data.tobytes(order="C")
    buf = gpu_device.create_buffer(data, bind="vertex_buffer")
    assert buf.size == len(expected)
    assert bytes(buf.host) == expected
    assert buf.read() == expected


def test_create_buffer_copies_a_strided_memoryview(gpu_device):
    words = np.arange(8, dtype=np.uint32)
    view = memoryview(words)[::2]
    assert not view.c_contiguous
    buf = gpu_device.create_buffer(view, bind="vertex_buffer")
    assert buf.read() == np.array([0, 2, 4, 6], np.uint32).tobytes()


@pytest.mark.parametrize("size", [1, 5, 16, 21])
def test_create_buffer_keeps_bytes_and_copies_arrays(gpu_device, size):
    """Immutable bytes are the host copy as they are (no second copy of a large buffer); an
    array is copied, so changing it later changes neither the host copy nor the GPU's bytes.
    The wgpu buffer's padding past ``size`` (to a multiple of 16) reads 0."""
    data = bytes(range(1, size + 1))
    kept = gpu_device.create_buffer(data, bind="vertex_buffer")
    assert np.shares_memory(kept.host, np.frombuffer(data, np.uint8))
    assert kept.read() == data and not kept.host.flags.writeable
    words = np.arange(1, size + 1, dtype=np.uint8)
    copied = gpu_device.create_buffer(words, bind="vertex_buffer")
    words[:] = 0
    assert bytes(copied.host) == data and copied.read() == data
    padded = -(-size // 16) * 16
    assert gpu_device.device.queue.read_buffer(kept.wgpu) == data + bytes(padded - size)


def test_buffer_write_copies_non_contiguous_arrays(gpu_device):
    buf = gpu_device.create_buffer(bytes(16), bind="vertex_buffer")  # with a host copy
    buf.write(np.arange(8, dtype=np.float32)[::2])
    expected = np.array([0, 2, 4, 6], np.float32).tobytes()
    assert buf.read() == expected and bytes(buf.host) == expected


BAD_DATA = {
    "list of numbers": ([0.0, 0.5, 1.0], ("data", "list", "bytes or a numpy array")),
    "tuple of numbers": ((1, 2, 3), ("data", "tuple", "bytes or a numpy array")),
    "str": ("abcd", ("data", "str", "bytes or a numpy array")),
    "object array": (np.array([object(), object()]), ("data", "object", "numeric or structured")),
    "object array of numbers": (np.array([1, 2, 3], dtype=object), ("data", "object")),
    "record holding an object": (np.zeros(2, dtype=[("a", "<f4"), ("o", object)]),
                                 ("data", "numeric or structured")),
    "unicode array": (np.array(["ab", "cd"]), ("data", "<U2", "numeric or structured")),
    "bytes-string array": (np.array([b"ab", b"cd"]), ("data", "S2")),
    "datetime array": (np.array(["2024-01-01"], dtype="datetime64[D]"), ("data", "datetime64")),
    "non-contiguous object array": (np.array([object()] * 4)[::2], ("data", "object")),
    "int": (5, ("data", "int", "bytes-like")),
    "dict": ({"a": 1}, ("data", "dict")),
}


@pytest.mark.parametrize("label", list(BAD_DATA))
def test_create_buffer_refuses_data_that_is_not_bytes(gpu_device, label):
    data, substrings = BAD_DATA[label]
    with pytest.raises(InvalidDescError) as e:
        gpu_device.create_buffer(data, bind="vertex_buffer")
    for s in substrings:
        assert s in str(e.value), (s, str(e.value))


@pytest.mark.parametrize("label", ["list of numbers", "str", "object array", "unicode array"])
def test_buffer_write_refuses_data_that_is_not_bytes(gpu_device, label):
    data, substrings = BAD_DATA[label]
    buf = gpu_device.create_buffer(size=64, bind="vertex_buffer")
    with pytest.raises(InvalidDescError) as e:
        buf.write(data)
    assert "Buffer.write" in str(e.value)
    for s in substrings:
        assert s in str(e.value)
    assert buf.read() == bytes(64)  # nothing was written


BAD_BUFFER_ARGS = {
    "bind an int": (dict(size=16, bind=5), ("bind=5", "iterable")),
    "bind holding an int": (dict(size=16, bind=[1]), ("bind", "strings")),
    "bind unknown": (dict(size=16, bind=["vertex"]), ("bind", "vertex_buffer")),
    "label an int": (dict(size=16, label=5), ("label=5", "str")),
    "size a float": (dict(size=16.0), ("size=16.0", "integer")),
    "size a bool": (dict(size=True), ("size=True", "integer")),
    "size a str": (dict(size="16"), ("size='16'", "integer")),
}


@pytest.mark.parametrize("label", list(BAD_BUFFER_ARGS))
def test_create_buffer_refuses_bad_arguments(gpu_device, label):
    kwargs, substrings = BAD_BUFFER_ARGS[label]
    with pytest.raises(InvalidDescError) as e:
        gpu_device.create_buffer(**kwargs)
    for s in substrings:
        assert s in str(e.value), (s, str(e.value))


def test_structured_and_bool_arrays_are_accepted_as_their_bytes(gpu_device):
    rec = _records()
    assert gpu_device.create_buffer(rec).read() == rec.tobytes()
    flags = np.array([True, False, True, True])
    assert gpu_device.create_buffer(flags).read() == b"\x01\x00\x01\x01"


# -- cross_check ------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def triangle():
    return load_case(CASES / "triangle_two_slots.json")


BAD_CROSS_CHECK = {
    "devices a str": (dict(devices="str"), ("devices='str'", "iterable of gpuia Device", "str")),
    "devices an int": (dict(devices=5), ("devices=5", "iterable of gpuia Device")),
    "devices holding an int": (dict(devices=[1]), ("devices[0]=1", "gpuia Device")),
    "devices holding a str": (dict(devices=["llvmpipe"]), ("devices[0]='llvmpipe'",)),
    "paths a str": (dict(paths="native"), ("paths='native'", "sequence", "['native']")),
    "paths an int": (dict(paths=5), ("paths=5", "sequence")),
    "paths unknown": (dict(paths=["fast"]), ("paths='fast'", "native, pulling, auto")),
    "case a dict": (dict(case={"gpuia_case": 1}), ("case='dict'", "gpuia Case", "load_case")),
    "case a path": (dict(case="x.json"), ("case='str'", "gpuia Case")),
    "capture_route unknown": (dict(capture_route="fast"), ("capture_route='fast'", "storage")),
    "rows negative": (dict(rows=-1), ("rows=-1", "non-negative")),
    "rows a str": (dict(rows="32"), ("rows='32'",)),
    "max_invocations a float": (dict(max_invocations=1.5), ("max_invocations=1.5", "integer")),
    "on_run not callable": (dict(on_run=5), ("on_run=5", "callable")),
}


@pytest.mark.parametrize("label", list(BAD_CROSS_CHECK))
def test_cross_check_refuses_bad_arguments_before_running(gpu_device, triangle, label):
    overrides, substrings = BAD_CROSS_CHECK[label]
    ran = []
    kwargs = dict(case=triangle, devices=[gpu_device], on_run=ran.append)
    kwargs.update(overrides)
    with pytest.raises(InvalidDescError) as e:
        cross_check(kwargs.pop("case"), kwargs.pop("devices"), **kwargs)
    assert str(e.value).startswith("cross_check: ")
    for s in substrings:
        assert s in str(e.value), (s, str(e.value))
    assert ran == []  # refused before any run


def test_cross_check_takes_one_device_or_any_iterable_of_them(gpu_device, triangle):
    for devices in (gpu_device, (d for d in [gpu_device])):
        result = cross_check(triangle, devices, ["pulling"])
        assert [line.status for line in result.lines] == ["OK"]


# -- Context(target=...) -----------------------------------------------------------------------

def _wgpu_texture(dev, fmt="rgba8unorm", usage=None, **kw):
    import wgpu

    usage = wgpu.TextureUsage.RENDER_ATTACHMENT if usage is None else usage
    return dev.device.create_texture(size=(4, 4, 1), format=fmt, usage=usage, **kw)


BAD_TARGETS = {
    "a str": (lambda dev: "rgba8unorm", ("target='rgba8unorm'", "gpuia Texture", "GPUTextureView")),
    "an int": (lambda dev: 5, ("target=5", "R8G8B8A8_UNORM")),
    "a depth texture": (lambda dev: dev.create_depth_stencil(4, 4),
                        ("target format='D32_FLOAT'", "R8G8B8A8_UNORM")),
    "a BGRA texture": (lambda dev: dev.create_render_target(4, 4, "B8G8R8A8_UNORM"),
                       ("target format='B8G8R8A8_UNORM'",)),
    # Formats every adapter here renders into (OpenGL takes no rgba32float or r32float).
    "a float texture": (lambda dev: dev.create_render_target(4, 4, "R16G16B16A16_FLOAT"),
                        ("R16G16B16A16_FLOAT", "R8G8B8A8_UNORM")),
    "a texture of another device": (lambda dev: Device().create_render_target(4, 4),
                                    ("target=", "this context's device")),
    "a wgpu view without RENDER_ATTACHMENT":
        (lambda dev: _wgpu_texture(dev, usage=4).create_view(),  # TEXTURE_BINDING only
         ("target usage=4", "RENDER_ATTACHMENT")),
    "a wgpu texture without RENDER_ATTACHMENT": (lambda dev: _wgpu_texture(dev, usage=4),
                                                 ("target usage", "RENDER_ATTACHMENT")),
    "a wgpu view of an sRGB texture": (lambda dev: _wgpu_texture(dev, "rgba8unorm-srgb")
                                       .create_view(), ("R8G8B8A8_UNORM_SRGB",)),
    "a wgpu view of an rgba16float texture": (lambda dev: _wgpu_texture(dev, "rgba16float")
                                              .create_view(),
                                              ("target format='R16G16B16A16_FLOAT'",)),
    "a wgpu texture of 2 mip levels": (lambda dev: _wgpu_texture(dev, mip_level_count=2),
                                       ("target mip_level_count", "one mip level")),
    "a multisampled wgpu texture": (lambda dev: _wgpu_texture(dev, sample_count=4),
                                    ("target sample_count", "single-sampled")),
    "a wgpu texture of another device": (lambda dev: _wgpu_texture(Device()),
                                         ("target device", "another wgpu device")),
    "a wgpu texture of an unsupported format": (lambda dev: _wgpu_texture(dev, "rg8unorm"),
                                                ("target format", "rg8unorm")),
}


@pytest.mark.parametrize("label", list(BAD_TARGETS))
def test_context_refuses_a_bad_target_at_construction(gpu_device, label):
    from gpuia.gpu.quirks import ONE_DEVICE, has_effect

    make, substrings = BAD_TARGETS[label]
    if label == "a wgpu texture of another device" and has_effect(gpu_device.caps.quirks,
                                                                   ONE_DEVICE):
        # Every Device of such an adapter shares one wgpu device: the texture is this one's.
        other = Device()
        assert other.device is gpu_device.device
        Context(gpu_device, target=_wgpu_texture(other))
        return
    target = make(gpu_device)
    with pytest.raises(InvalidDescError) as e:
        Context(gpu_device, target=target)
    assert str(e.value).startswith("Context: target")
    for s in substrings:
        assert s in str(e.value), (s, str(e.value))


def test_render_targets_of_formats_the_adapter_cannot_render_into_are_refused(gpu_device):
    """Every format of the target table is either created and drawn into, or refused before
    wgpu with the adapter and the formats it takes (OpenGL has no rgba32float targets)."""
    from gpuia.errors import UnsupportedError
    from gpuia.gpu.targets import TARGET_FORMATS

    takes = gpu_device.caps.target_formats
    assert takes and "rgba8unorm" in takes
    for f in TARGET_FORMATS.values():
        make = gpu_device.create_depth_stencil if f.depth else gpu_device.create_render_target
        if f.webgpu in takes:
            make(2, 2, f.name).release()
            continue
        with pytest.raises(UnsupportedError) as e:
            make(2, 2, f.name)
        assert f"Format {f.name}" in str(e.value) and gpu_device.info["summary"] in str(e.value)
        assert "R8G8B8A8_UNORM" in str(e.value) and "wgpu refused" not in str(e.value)


def test_context_refuses_a_released_target(gpu_device):
    rt = gpu_device.create_render_target(4, 4)
    rt.release()
    with pytest.raises(InvalidDescError, match="target=.*released"):
        Context(gpu_device, target=rt)


# ============================================================================================
# 2. Constant buffer sizes: WGSL uniforms sized by hand
# ============================================================================================


# ============================================================================================
# 3. Release: the in-process part (no draw, nothing submitted)
# ============================================================================================

def test_buffer_release_is_idempotent_and_refuses_later_use(gpu_device):
    buf = gpu_device.create_buffer(VERTS, bind=("vertex_buffer", "index_buffer",
                                                "constant_buffer", "stream_output"))
    assert not buf.released
    buf.release()
    buf.release()
    assert buf.released and "released" in repr(buf)
    for call, where in ((buf.read, "Buffer.read"), (lambda: buf.write(bytes(8)), "Buffer.write")):
        with pytest.raises(InvalidDescError) as e:
            call()
        assert str(e.value).startswith(f"{where}: buffer=<gpuia.Buffer 24 bytes")
        assert "was released" in str(e.value)


def test_buffer_and_texture_are_context_managers(gpu_device):
    with gpu_device.create_buffer(size=16) as buf:
        assert not buf.released
    assert buf.released
    with gpu_device.create_render_target(2, 2) as rt:
        assert not rt.released
    assert rt.released
    with pytest.raises(InvalidDescError, match="Texture.read: texture=.*released"):
        rt.read()


def test_wgpu_destroy_on_a_gpuia_object_is_a_release(gpu_device):
    buf = gpu_device.create_buffer(size=16)
    buf.wgpu.destroy()
    assert buf.released
    rt = gpu_device.create_render_target(2, 2)
    rt.wgpu.destroy()
    assert rt.released


def test_texture_from_wgpu_release_does_not_destroy_the_foreign_texture(gpu_device):
    import wgpu

    tex = gpu_device.device.create_texture(
        size=(2, 2, 1), format="rgba8unorm",
        usage=wgpu.TextureUsage.RENDER_ATTACHMENT | wgpu.TextureUsage.COPY_SRC)
    wrapped = Texture.from_wgpu(gpu_device, tex)
    wrapped.release()
    assert wrapped.released
    # Still usable by its owner: a copy out of it works (a destroyed texture would raise).
    data = gpu_device.device.queue.read_texture({"texture": tex},
                                                {"bytes_per_row": 256, "rows_per_image": 2},
                                                (2, 2, 1))
    assert len(data) >= 16
    assert Texture.from_wgpu(gpu_device, tex).read().shape == (2, 2, 4)


def _bind_refusals(dev):
    """(label, call, substrings) for every call that binds a released resource."""
    vb, ib = dev.create_buffer(VERTS), dev.create_buffer(VERTS, bind="index_buffer")
    cb = dev.create_buffer(size=256, bind="constant_buffer")
    so = dev.create_buffer(size=64, bind="stream_output")
    counter = dev.create_buffer(size=16, bind="stream_output")
    live_so = dev.create_buffer(size=64, bind="stream_output")
    rt, ds = dev.create_render_target(4, 4), dev.create_depth_stencil(4, 4)
    views = (VertexBufferView(vb, 8), IndexBufferView(ib, "R32_UINT"),
             StreamOutputBufferView(so),
             StreamOutputBufferView(live_so, filled_size_buffer=counter))
    for r in (vb, ib, cb, so, counter, rt, ds):
        r.release()
    ctx = Context(dev)
    ctx.set_pipeline_state(PipelineState(POS))
    return ctx, [
        ("vertex buffer, D3D11 form", lambda: ctx.ia_set_vertex_buffers(0, [vb], [8], [0]),
         ("IASetVertexBuffers slot 0", "released")),
        ("vertex buffer, D3D12 view", lambda: ctx.ia_set_vertex_buffers(1, [views[0]]),
         ("IASetVertexBuffers slot 1", "released")),
        ("index buffer", lambda: ctx.ia_set_index_buffer(views[1]),
         ("IASetIndexBuffer", "released")),
        ("constant buffer", lambda: ctx.set_graphics_root_constant_buffer_view(0, cb),
         ("SetGraphicsRootConstantBufferView", "released")),
        ("render target", lambda: ctx.om_set_render_targets([rt]),
         ("OMSetRenderTargets", "ppRenderTargetDescriptors[0]", "released")),
        ("depth-stencil", lambda: ctx.om_set_render_targets([], ds),
         ("pDepthStencilDescriptor", "released")),
        ("clear render target", lambda: ctx.clear_render_target_view(rt, (0, 0, 0, 0)),
         ("ClearRenderTargetView", "released")),
        ("clear depth-stencil", lambda: ctx.clear_depth_stencil_view(ds),
         ("ClearDepthStencilView", "released")),
        ("SO target", lambda: ctx.so_set_targets([views[2]]), ("SOSetTargets slot 0", "released")),
        ("SO counter buffer",
         lambda: ctx.so_set_targets([StreamOutputBufferView(
             dev.create_buffer(size=64, bind="stream_output")), views[3]]),
         ("SOSetTargets slot 1", "BufferFilledSizeLocation", "released")),
    ]


def test_binding_a_released_resource_is_refused_and_changes_nothing(gpu_device):
    ctx, refusals = _bind_refusals(gpu_device)
    for label, call, substrings in refusals:
        with pytest.raises(InvalidDescError) as e:
            call()
        for s in substrings:
            assert s in str(e.value), (label, s, str(e.value))
    bound = ctx.stats()["bound"]
    assert bound["vertex_buffers"] == [] and not bound["index_buffer"]
    assert bound["constant_buffers"] == [] and bound["render_targets"] == 0
    assert bound["so_targets"] == []


# ============================================================================================
# 4. Threads: the in-process part (a deterministic collision)
# ============================================================================================

_ENTERED, _GO = threading.Event(), threading.Event()


class _BlockingState(PipelineState):
    """A pipeline state whose validation waits: set_pipeline_state stays inside the context
    until the test lets it go."""

    @property
    def signature(self):
        _ENTERED.set()
        assert _GO.wait(60)
        return PipelineState.signature.fget(self)


def _every_public_call(dev):
    vb = dev.create_buffer(VERTS)
    rt = dev.create_render_target(4, 4)
    return {
        "set_pipeline_state": lambda c: c.set_pipeline_state(PipelineState(POS)),
        "ia_set_primitive_topology": lambda c: c.ia_set_primitive_topology("POINTLIST"),
        "ia_set_vertex_buffers": lambda c: c.ia_set_vertex_buffers(0, [vb], [8], [0]),
        "ia_set_index_buffer": lambda c: c.ia_set_index_buffer(None),
        "om_set_render_targets": lambda c: c.om_set_render_targets([rt]),
        "clear_render_target_view": lambda c: c.clear_render_target_view(rt, (0, 0, 0, 0)),
        "clear_depth_stencil_view": lambda c: c.clear_depth_stencil_view(
            dev.create_depth_stencil(4, 4)),
        "set_graphics_root_constant_buffer_view":
            lambda c: c.set_graphics_root_constant_buffer_view(0, None),
        "set_graphics_root_shader_resource_view":
            lambda c: c.set_graphics_root_shader_resource_view(0, None),
        "set_texture_shader_resource_view":
            lambda c: c.set_texture_shader_resource_view(0, None),
        "set_sampler": lambda c: c.set_sampler(0, None),
        "set_graphics_root_unordered_access_view":
            lambda c: c.set_graphics_root_unordered_access_view(0, None),
        "set_path": lambda c: c.set_path("pulling"),
        "draw_instanced": lambda c: c.draw_instanced(3),
        "draw_indexed_instanced": lambda c: c.draw_indexed_instanced(3),
        "draw": lambda c: c.draw(DrawInstanced(3)),
        "draw_auto": lambda c: c.draw_auto(),
        "so_set_targets": lambda c: c.so_set_targets([]),
        "so_statistics": lambda c: c.so_statistics(),
        "so_filled_size": lambda c: c.so_filled_size(0),
        "flush": lambda c: c.flush(),
        "begin_capture": lambda c: c.begin_capture(),
        "end_capture": lambda c: c.end_capture(),
        "begin_gs_capture": lambda c: c.begin_gs_capture(),
        "end_gs_capture": lambda c: c.end_gs_capture(),
        "stats": lambda c: c.stats(),
        "create_query_heap": lambda c: c.create_query_heap("SO_STATISTICS", 1),
        "begin_query": lambda c: c.begin_query(None, "SO_STATISTICS_STREAM0", 0),
        "end_query": lambda c: c.end_query(None, "SO_STATISTICS_STREAM0", 0),
        "resolve_query_data": lambda c: c.resolve_query_data(None, "SO_STATISTICS_STREAM0", 0, 1),
        "set_predication": lambda c: c.set_predication(None),
    }


def test_a_call_while_another_thread_is_inside_the_context_is_refused(gpu_device, triangle):
    calls = _every_public_call(gpu_device)
    public = {n for n in dir(Context) if not n.startswith("_") and callable(getattr(Context, n))}
    assert public == set(calls), f"public methods without a test here: {public ^ set(calls)}"
    ctx = Context(gpu_device)
    _ENTERED.clear()
    _GO.clear()
    errors = []

    def hold():
        try:
            ctx.set_pipeline_state(_BlockingState(POS))
        except BaseException as e:  # noqa: BLE001  # pragma: no cover - reported below
            errors.append(e)

    t = threading.Thread(target=hold)
    t.start()
    try:
        assert _ENTERED.wait(60)
        for name, call in calls.items():
            with pytest.raises(UnsupportedError) as e:
                call(ctx)
            assert str(e.value).startswith(f"Context.{name}: another thread is inside"), name
            assert "not thread-safe" in str(e.value) and "one Context per thread" in str(e.value)
    finally:
        _GO.set()
        t.join(60)
    assert not errors
    # The refused calls changed nothing: no path, topology, bindings or draws.
    stats = ctx.stats()
    assert stats["bound"] == {"vertex_buffers": [], "index_buffer": False, "topology": None,
                              "constant_buffers": [], "render_targets": 0,
                              "depth_stencil": False, "so_targets": [], "path": "auto",
                              "capturing": False}
    assert stats["draws"] == 0
    # And the context works from this thread now (sequential use from several threads is fine).
    ref = reference_ia(triangle)
    assert compare(ref, run_case_gpu(triangle, gpu_device, "pulling", ref, context=ctx)).ok


# ============================================================================================
# The subprocess scripts
# ============================================================================================

# What the scripts here add to helpers.SCRIPT_PRELUDE.
DEFINITIONS = r'''
def good(label, fn):
    """Run one call that must work; report 'ok' or what it raised."""
    try:
        fn()
    except BaseException as e:
        print(f"GOOD {label} | {type(e).__name__}: {one_line(e)}", flush=True)
    else:
        print(f"GOOD {label} | ok", flush=True)


def value(label, v):
    print(f"VALUE {label} | {json.dumps(v)}", flush=True)


def good_case(label, ctx=None, path="pulling"):
    case = load_case(CASES / "triangle_two_slots.json")
    try:
        ref = reference_ia(case)
        ok = compare(ref, run_case_gpu(case, dev, path, ref, context=ctx)).ok
    except BaseException as e:
        print(f"GOOD {label} | {type(e).__name__}: {one_line(e)}", flush=True)
        return
    print(f"GOOD {label} | {'ok' if ok else 'DIFFERENT'}", flush=True)


POS = InputLayout([InputElementDesc("POSITION", 0, "R32G32_FLOAT", 0, 0)])
POS_COLOR = InputLayout([InputElementDesc("POSITION", 0, "R32G32_FLOAT", 0, 0),
                         InputElementDesc("COLOR", 0, "R8G8B8A8_UNORM", 0, 8)])
COLOR = (255, 0, 128, 255)
# A triangle covering the whole target, every vertex the same color.
TRI = np.zeros(3, dtype=[("p", "<f4", 2), ("c", "u1", 4)])
TRI["p"] = [[-1, -1], [-1, 3], [3, -1]]
TRI["c"] = COLOR
VS_COLOR = """
struct VSIn { POSITION: vec2<f32>, COLOR: vec4<f32>, }
struct VSOut { SV_Position: vec4<f32>, COLOR: vec4<f32>, }
@vertex fn main(input: VSIn) -> VSOut {
  var o: VSOut;
  o.SV_Position = vec4<f32>(input.POSITION, 0.0, 1.0);
  o.COLOR = input.COLOR;
  return o;
}
"""
PS_COLOR = """
struct PSIn { COLOR: vec4<f32>, }
struct PSOut { SV_Target0: vec4<f32>, }
@fragment fn ps(input: PSIn) -> PSOut { var o: PSOut; o.SV_Target0 = input.COLOR; return o; }
"""


def color_context(vb, rt, path="auto"):
    ctx = Context(dev)
    ctx.set_pipeline_state(PipelineState(POS_COLOR, VS_COLOR, pixel_shader=PS_COLOR,
                                         rtv_formats=["R8G8B8A8_UNORM"], cull_mode="NONE",
                                         depth_enable=False))
    ctx.ia_set_primitive_topology("TRIANGLELIST")
    ctx.ia_set_vertex_buffers(0, [vb], [12], [0])
    ctx.om_set_render_targets([rt])
    ctx.clear_render_target_view(rt, (0, 0, 0, 0))
    ctx.set_path(path)
    return ctx


def pixels(rt):
    """The distinct RGBA values of a render target."""
    return sorted({tuple(int(c) for c in p) for p in rt.read().reshape(-1, 4)})


def destroyed(wobj, data):
    """Whether a wgpu buffer is destroyed: writing its own bytes back raises then (a
    validation error at the write, never at a submit); otherwise nothing changes."""
    try:
        dev.device.queue.write_buffer(wobj, 0, data)
    except Exception as e:
        return "destroyed" in str(e)
    return False
'''

# -- 2. constant buffer sizes and targets at draws ----------------------------------------------

BINDING = r'''
VS = """
struct VSIn { POSITION: vec2<f32>, }
struct VSOut { SV_Position: vec4<f32>, }
@vertex fn main(input: VSIn) -> VSOut {
  var o: VSOut; o.SV_Position = vec4<f32>(input.POSITION, 0.0, 1.0); return o;
}
"""
PS = """
struct CB { m: mat4x4<f32>, tint: vec4<f32>, }
@group(3) @binding(0) var<uniform> cb: CB;
struct PSIn { SV_Position: vec4<f32>, }
struct PSOut { SV_Target0: vec4<f32>, }
@fragment fn ps(input: PSIn) -> PSOut { var o: PSOut; o.SV_Target0 = cb.tint; return o; }
"""
PS_BIG = """
struct CB { a: array<vec4<f32>, 20>, }
@group(3) @binding(0) var<uniform> cb: CB;
struct PSIn { SV_Position: vec4<f32>, }
struct PSOut { SV_Target0: vec4<f32>, }
@fragment fn ps(input: PSIn) -> PSOut { var o: PSOut; o.SV_Target0 = cb.a[19]; return o; }
"""
tri = dev.create_buffer(np.array([[-1, -1], [-1, 3], [3, -1]], np.float32), bind="vertex_buffer")
rt = dev.create_render_target(8, 8)


def pso(ps):
    return PipelineState(POS, VS, pixel_shader=ps, rtv_formats=["R8G8B8A8_UNORM"],
                         cull_mode="NONE", depth_enable=False)


consts = np.zeros(64, np.float32)
consts[16:20] = (0.0, 1.0, 0.0, 1.0)  # tint, after the 64-byte matrix
green = dev.create_buffer(consts, bind="constant_buffer")       # 256 bytes
small = dev.create_buffer(size=64, bind="constant_buffer")      # less than the 80 read
big = dev.create_buffer(size=512, bind="constant_buffer")

ctx = Context(dev)
ctx.om_set_render_targets([rt])
ctx.clear_render_target_view(rt, (0, 0, 0, 0))
ctx.set_pipeline_state(pso(PS))
ctx.ia_set_primitive_topology("TRIANGLELIST")
ctx.ia_set_vertex_buffers(0, [tri], [8])
ctx.set_graphics_root_constant_buffer_view(0, green)
good("draw with the 256-byte view", lambda: ctx.draw_instanced(3))
ctx.set_graphics_root_constant_buffer_view(0, small)
bad("draw with a 64-byte view of an 80-byte uniform", lambda: ctx.draw_instanced(3))
bad("indexed draw with a 64-byte view", lambda: ctx.draw_indexed_instanced(3))
bad("pulled draw with a 64-byte view",
    lambda: (ctx.set_path("pulling"), ctx.draw_instanced(3)))
ctx.set_path("auto")
value("draws recorded", ctx.draw_count)
good("flush after the refusals", ctx.flush)
value("pixels", pixels(rt))

# The view bound before the pipeline state that reads it.
ctx2 = Context(dev)
ctx2.om_set_render_targets([rt])
ctx2.set_graphics_root_constant_buffer_view(0, small)
ctx2.set_pipeline_state(pso(PS))
ctx2.ia_set_primitive_topology("TRIANGLELIST")
ctx2.ia_set_vertex_buffers(0, [tri], [8])
bad("view bound before the pipeline state", lambda: ctx2.draw_instanced(3))
# An offset leaves 256 of 512 bytes; the uniform is 20 x 16 = 320.
ctx2.set_pipeline_state(pso(PS_BIG))
ctx2.set_graphics_root_constant_buffer_view(0, big, 256)
bad("view at offset 256 holding 256 of a 320-byte uniform", lambda: ctx2.draw_instanced(3))
ctx2.set_graphics_root_constant_buffer_view(0, big, 0)
good("the same buffer at offset 0", lambda: (ctx2.draw_instanced(3), ctx2.flush()))
value("draws recorded (second context)", ctx2.draw_count)

# Context(target=...): the accepted forms draw, capture and flush.
import wgpu
good("Context(target=Texture) draws",
     lambda: good_case("capture into a gpuia Texture target",
                       Context(dev, target=dev.create_render_target(4, 4))))
raw = dev.device.create_texture(size=(4, 4, 1), format="rgba8unorm",
                                usage=wgpu.TextureUsage.RENDER_ATTACHMENT)
good_case("capture into a wgpu view target", Context(dev, target=raw.create_view()), "native")
good_case("capture into a wgpu texture target", Context(dev, target=raw), "native")
good_case("same device afterwards")
print("OK")
'''

# -- 3. release with draws pending ------------------------------------------------------------

RELEASE = r'''
padded = np.zeros(48, np.uint8)
padded[:36] = np.frombuffer(TRI.tobytes(), np.uint8)

# Draws recorded with a buffer, then the buffer released (or its .wgpu destroyed) before the
# flush: the draws still render its data; the wgpu buffer dies right after the submit.
for how in ("release", "wgpu.destroy"):
    for path in ("auto", "pulling"):
        label = f"{how}, {path}"
        vb = dev.create_buffer(TRI, bind="vertex_buffer")
        rt = dev.create_render_target(4, 4)
        ctx = color_context(vb, rt, path)
        ctx.draw_instanced(3)
        w = vb.wgpu
        vb.release() if how == "release" else vb.wgpu.destroy()
        value(f"{label}: released", vb.released)
        value(f"{label}: destroyed before the flush", destroyed(w, padded))
        good(f"{label}: flush", ctx.flush)
        value(f"{label}: destroyed after the flush", destroyed(w, padded))
        value(f"{label}: pixels", pixels(rt))
        count = ctx.draw_count
        bad(f"{label}: draw with it still bound", lambda: ctx.draw_instanced(3))
        bad(f"{label}: rebind (cached view)",
            lambda: ctx.ia_set_vertex_buffers(0, [vb], [12], [0]))
        bad(f"{label}: rebind (view)",
            lambda: ctx.ia_set_vertex_buffers(0, [VertexBufferView(vb, 12)]))
        value(f"{label}: draws recorded after the refusals", ctx.draw_count - count)
        fresh = dev.create_buffer(TRI, bind="vertex_buffer")
        ctx.ia_set_vertex_buffers(0, [fresh], [12], [0])
        good(f"{label}: draw and flush with a new buffer",
             lambda: (ctx.draw_instanced(3), ctx.flush()))

# Nothing pending: destroyed at once; the context that had it bound refuses its next draw.
vb = dev.create_buffer(TRI, bind="vertex_buffer")
rt = dev.create_render_target(4, 4)
ctx = color_context(vb, rt)
ctx.draw_instanced(3)
ctx.flush()
w = vb.wgpu
with vb:
    pass
value("idle: destroyed at once", destroyed(w, padded))
bad("idle: draw with it still bound", lambda: ctx.draw_instanced(3))
good("idle: flush", ctx.flush)

# Two contexts with pending draws: destroyed after the second one's submit.
vb = dev.create_buffer(TRI, bind="vertex_buffer")
rts = [dev.create_render_target(4, 4) for _ in range(2)]
ctxs = [color_context(vb, r) for r in rts]
for c in ctxs:
    c.draw_instanced(3)
w = vb.wgpu
vb.release()
ctxs[0].flush()
value("two contexts: destroyed after the first flush", destroyed(w, padded))
ctxs[1].flush()
value("two contexts: destroyed after the second flush", destroyed(w, padded))
value("two contexts: pixels", [pixels(r) for r in rts])

# A context dropped with its draws never submitted: nothing waits for it any more.
import gc
vb = dev.create_buffer(TRI, bind="vertex_buffer")
dropped = color_context(vb, dev.create_render_target(4, 4))
dropped.draw_instanced(3)
w = vb.wgpu
vb.release()
value("dropped context: destroyed while it lives", destroyed(w, padded))
del dropped
gc.collect()
value("dropped context: destroyed once it is gone", destroyed(w, padded))

# A capture in progress: its recorded draws still run with the released buffers' data. The
# capture with the buffers released before end_capture holds the very words of the same capture
# without the release, and run_case_gpu's capture on that route matches the reference.
from gpuia.harness.run_gpu import case_pipeline_state, upload_case
case = load_case(CASES / "instance_step_rates.json")
ref = reference_ia(case)
for route in ("storage", "targets"):
    words = {}
    for release in (False, True):
        ctx = Context(dev)
        ctx.set_pipeline_state(case_pipeline_state(case))
        ctx.ia_set_primitive_topology(case.topology.topology)
        views, ib = upload_case(case, dev)
        ctx.ia_set_vertex_buffers(0, [views.get(s) for s in range(case.layout.profile.slot_count)])
        ctx.ia_set_index_buffer(ib)
        ctx.set_path("pulling")
        ctx.begin_capture(route)
        for d in case.draws:
            ctx.draw(d)
        if release:
            buffers = {id(v.buffer): v.buffer for v in views.values() if v is not None}
            for b in buffers.values():
                b.release()
            bad(f"capture ({route}): a draw after the release", lambda: ctx.draw(case.draws[0]))
        try:
            words[release] = ctx.end_capture().words.copy()
        except BaseException as e:
            words[release] = f"{type(e).__name__}: {one_line(e)}"
    if isinstance(words[True], str):
        print(f"GOOD capture ({route}) released mid-capture | {words[True]}", flush=True)
        continue
    same = not isinstance(words[False], str) and np.array_equal(words[True], words[False])
    right = compare(ref, run_case_gpu(case, dev, "pulling", ref, capture_route=route)).ok
    print(f"GOOD capture ({route}) released mid-capture | "
          f"{'ok' if same and right else 'DIFFERENT'}", flush=True)

# Index buffer.
vb = dev.create_buffer(TRI, bind="vertex_buffer")
ib = dev.create_buffer(np.array([0, 1, 2], np.uint32), bind="index_buffer")
rt = dev.create_render_target(4, 4)
ctx = color_context(vb, rt)
ctx.ia_set_index_buffer(IndexBufferView(ib, "R32_UINT"))
ctx.draw_indexed_instanced(3)
ib.release()
good("index buffer: flush", ctx.flush)
value("index buffer: pixels", pixels(rt))
bad("index buffer: indexed draw", lambda: ctx.draw_indexed_instanced(3))
good("index buffer: non-indexed draw", lambda: (ctx.draw_instanced(3), ctx.flush()))

# Constant buffer: bound below the pipeline state's count, so bound at every draw.
PS_CB = """
struct CB { tint: vec4<f32>, }
@group(3) @binding(0) var<uniform> cb: CB;
struct PSIn { SV_Position: vec4<f32>, }
struct PSOut { SV_Target0: vec4<f32>, }
@fragment fn ps(input: PSIn) -> PSOut { var o: PSOut; o.SV_Target0 = cb.tint; return o; }
"""
cb = dev.create_buffer(np.array([0, 0, 1, 1], np.float32), bind="constant_buffer")
rt = dev.create_render_target(4, 4)
ctx = color_context(vb, rt)
ctx.set_pipeline_state(PipelineState(POS_COLOR, VS_COLOR, pixel_shader=PS_CB,
                                     rtv_formats=["R8G8B8A8_UNORM"], cull_mode="NONE",
                                     depth_enable=False))
ctx.set_graphics_root_constant_buffer_view(0, cb)
ctx.draw_instanced(3)
cb.release()
good("constant buffer: flush", ctx.flush)
value("constant buffer: pixels", pixels(rt))
bad("constant buffer: draw", lambda: ctx.draw_instanced(3))

# Render target (released, and destroyed through .wgpu).
for how in ("release", "wgpu.destroy"):
    rt = dev.create_render_target(4, 4)
    ctx = color_context(vb, rt)
    ctx.draw_instanced(3)
    rt.release() if how == "release" else rt.wgpu.destroy()
    good(f"render target ({how}): flush", ctx.flush)
    bad(f"render target ({how}): draw", lambda: ctx.draw_instanced(3))
    bad(f"render target ({how}): clear", lambda: ctx.clear_render_target_view(rt, (0, 0, 0, 0)))
    bad(f"render target ({how}): read", rt.read)
ds = dev.create_depth_stencil(4, 4)
rt = dev.create_render_target(4, 4)
ctx = Context(dev)
ctx.set_pipeline_state(PipelineState(POS_COLOR, VS_COLOR, pixel_shader=PS_COLOR,
                                     rtv_formats=["R8G8B8A8_UNORM"], dsv_format="D32_FLOAT",
                                     cull_mode="NONE"))
ctx.ia_set_primitive_topology("TRIANGLELIST")
ctx.ia_set_vertex_buffers(0, [vb], [12], [0])
ctx.om_set_render_targets([rt], ds)
ctx.clear_depth_stencil_view(ds, 1.0)
ctx.draw_instanced(3)
ds.release()
good("depth-stencil: flush", ctx.flush)
bad("depth-stencil: draw", lambda: ctx.draw_instanced(3))

# The context's own target.
tt = dev.create_render_target(2, 2)
ctx = Context(dev, target=tt)
ctx.set_pipeline_state(PipelineState(POS))
ctx.ia_set_primitive_topology("POINTLIST")
ctx.ia_set_vertex_buffers(0, [dev.create_buffer(np.zeros(6, np.float32))], [8])
ctx.draw_instanced(3)
tt.release()
good("context target: flush", ctx.flush)
bad("context target: draw", lambda: ctx.draw_instanced(3))
bad("context target: capture draw", lambda: (ctx.begin_capture(), ctx.draw_instanced(3)))

# Stream Output targets and counters.
SO_DESC = StreamOutputDesc((SODeclarationEntry(semantic_name="POSITION", component_count=2),))
def so_context():
    ctx = Context(dev)
    ctx.set_pipeline_state(PipelineState(POS, stream_output=SO_DESC))
    ctx.ia_set_primitive_topology("POINTLIST")
    ctx.ia_set_vertex_buffers(0, [dev.create_buffer(np.arange(6, dtype=np.float32))], [8])
    return ctx
ctx = so_context()
so = dev.create_buffer(size=64, bind=("stream_output", "vertex_buffer"))
ctx.so_set_targets([StreamOutputBufferView(so)], [0])
ctx.draw_instanced(3)
so.release()
good("SO target: flush", ctx.flush)
bad("SO target: draw", lambda: ctx.draw_instanced(3))
bad("SO target: bind again", lambda: ctx.so_set_targets([StreamOutputBufferView(so)]))
ctx = so_context()
so = dev.create_buffer(size=64, bind=("stream_output", "vertex_buffer"))
counter = dev.create_buffer(size=16, bind="stream_output")
ctx.so_set_targets([StreamOutputBufferView(so, filled_size_buffer=counter)], [0])
ctx.draw_instanced(3)
value("SO counter: filled size before the release", ctx.so_filled_size(0))
counter.release()
bad("SO counter: filled size", lambda: ctx.so_filled_size(0))
bad("SO counter: draw", lambda: ctx.draw_instanced(3))
ctx.so_set_targets([])
ctx.set_pipeline_state(PipelineState(POS))
ctx.ia_set_vertex_buffers(0, [so], [8])
bad("SO counter: DrawAuto", ctx.draw_auto)
good("SO counter: flush", ctx.flush)

good_case("same device afterwards, pulling")
good_case("same device afterwards, native", path="native")
print("OK")
'''

# -- 4. threads ---------------------------------------------------------------------------------

THREADS = r'''
import collections, threading, time
from gpuia.errors import InvalidDescError, UnsupportedError
sys.setswitchinterval(1e-5)  # switch threads often: more collisions
MODE = "THREAD_MODE"
V = np.array([[0, 0.5], [1, 2], [3, -4]], np.float32)
bufs = [dev.create_buffer(V, bind="vertex_buffer") for _ in range(4)]


def warm_context():
    """A context whose pipelines exist (so the hammering calls are short)."""
    c = Context(dev)
    c.set_pipeline_state(PipelineState(POS))
    c.ia_set_primitive_topology("POINTLIST")
    for p in ("auto", "pulling"):
        c.set_path(p)
        for b in bufs:
            c.ia_set_vertex_buffers(0, [b], [8], [0])
            c.draw_instanced(3)
    c.set_path("auto")
    c.flush()
    return c


counts = collections.Counter()
other = []
lock = threading.Lock()


def note(key):
    with lock:
        counts[key] += 1


def hammer(c, k, start):
    start.wait()
    for i in range(300):
        try:
            c.ia_set_vertex_buffers(0, [bufs[(i + k) % 4]], [8], [0])
            c.draw_instanced(3)
            if i % 3 == 0:
                c.set_path("pulling")
                c.draw_instanced(3)
                c.set_path("auto")
            if i % 7 == 0:
                c.flush()
            note("ok")
            note(f"ok in thread {k}")
        except UnsupportedError as e:
            note("refused")
            note(f"refused by thread {k}")
            if "not thread-safe" not in str(e):
                other.append(f"UnsupportedError: {one_line(e)}")
            time.sleep(0.0005)  # let the thread inside finish: every thread gets its turns
        except BaseException as e:
            with lock:
                other.append(f"{type(e).__name__}: {one_line(e)}")


if MODE == "shared":
    shared = warm_context()
    start = threading.Barrier(4)
    threads = [threading.Thread(target=hammer, args=(shared, k, start)) for k in range(4)]
    for t in threads: t.start()
    for t in threads: t.join()
    good("final flush", shared.flush)
    good_case("capture on the hammered context", shared)
elif MODE == "separate":
    start = threading.Barrier(4)
    results = {}

    def own(k):
        c = warm_context()
        hammer(c, k, start)
        case = load_case(CASES / "triangle_two_slots.json")
        ref = reference_ia(case)
        results[k] = compare(ref, run_case_gpu(case, dev, "pulling" if k % 2 else "native",
                                               ref, context=c)).ok
        c.flush()
    threads = [threading.Thread(target=own, args=(k,)) for k in range(4)]
    for t in threads: t.start()
    for t in threads: t.join()
    value("captures match", [results.get(k) for k in range(4)])
else:  # "release": buffers shared by three contexts, released by a fourth thread meanwhile
    pool = [dev.create_buffer(V, bind="vertex_buffer") for _ in range(8)]
    plock = threading.Lock()
    stop = threading.Event()
    ready = threading.Barrier(4)

    def worker(k):
        c = warm_context()
        ready.wait()
        i = 0
        while not stop.is_set():
            i += 1
            with plock:
                b = pool[(i * 3 + k) % len(pool)]
            try:
                c.set_path("pulling" if i % 2 else "auto")
                c.ia_set_vertex_buffers(0, [b], [8], [0])
                c.draw_instanced(3)
                if i % 5 == 0:
                    c.flush()
                note("ok")
            except InvalidDescError as e:
                note("released")
                if "was released" not in str(e):
                    other.append(f"InvalidDescError: {one_line(e)}")
            except BaseException as e:
                with lock:
                    other.append(f"{type(e).__name__}: {one_line(e)}")
        c.flush()

    def releaser():
        ready.wait()
        for j in range(300):
            with plock:
                k = j % len(pool)
                old, pool[k] = pool[k], dev.create_buffer(V, bind="vertex_buffer")
            old.release() if j % 2 else old.wgpu.destroy()
            time.sleep(0.002)
        stop.set()

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(3)]
    threads.append(threading.Thread(target=releaser))
    for t in threads: t.start()
    for t in threads: t.join()
value("counts", dict(counts))
value("other exceptions", other[:10])
print("OK")
'''

BATCHES = {"binding": BINDING, "release": RELEASE, "threads shared 1": THREADS,
           "threads shared 2": THREADS, "threads shared 3": THREADS,
           "threads separate": THREADS, "threads release": THREADS}


@functools.cache
def run_batch(name: str):
    """Run one script once per session: (process, {label: (type, message)}, {label: status},
    {label: value})."""
    body = BATCHES[name]
    if name.startswith("threads"):
        body = body.replace("THREAD_MODE", name.split()[1])
    proc, lines = run_script(script_text(DEFINITIONS, body))
    bad = {k: tuple(v) for k, v in lines.get("BAD", {}).items() if len(v) == 2}
    good = {k: v[0] for k, v in lines.get("GOOD", {}).items() if len(v) == 1}
    values = {k: json.loads(v[0]) for k, v in lines.get("VALUE", {}).items() if len(v) == 1}
    return proc, bad, good, values


@pytest.mark.parametrize("batch", list(BATCHES))
def test_script_survives(gpu_device, batch):
    """No abort, no signal, no traceback, no Rust panic, no glibc heap report; the script
    reaches its last line."""
    proc, _, _, _ = run_batch(batch)
    assert proc.returncode == 0, describe(proc)
    for marker in ("Traceback", "panicked", "double free", "corrupted", "malloc"):
        assert marker not in proc.stderr, describe(proc)
    assert proc.stdout.splitlines()[-1] == "OK", describe(proc)


def _bad(batch, label):
    proc, bad, _, _ = run_batch(batch)
    assert label in bad, f"no line for {label!r}\n{describe(proc)}"
    return bad[label]


def _good(batch, label):
    proc, _, good, _ = run_batch(batch)
    assert label in good, f"no line for {label!r}\n{describe(proc)}"
    return good[label]


def _value(batch, label):
    proc, _, _, values = run_batch(batch)
    assert label in values, f"no line for {label!r}\n{describe(proc)}"
    return values[label]


# -- 2. constant buffers and targets at draws -------------------------------------------------

CBV_REFUSALS = {
    "draw with a 64-byte view of an 80-byte uniform": ("80 bytes", "holds 64", "view 0"),
    "indexed draw with a 64-byte view": ("80 bytes", "holds 64"),
    "pulled draw with a 64-byte view": ("80 bytes", "holds 64"),
    "view bound before the pipeline state": ("80 bytes", "holds 64"),
    "view at offset 256 holding 256 of a 320-byte uniform": ("320 bytes", "holds 256",
                                                              "offset 256"),
}


@pytest.mark.parametrize("label", list(CBV_REFUSALS))
def test_small_constant_buffer_view_is_refused_at_the_draw(label):
    kind, message = _bad("binding", label)
    assert kind == "InvalidDescError", message
    assert message.startswith("draw: root constant buffer view 0="), message
    for s in CBV_REFUSALS[label]:
        assert s in message, (s, message)


def test_refused_draws_record_nothing_and_earlier_draws_still_render():
    assert _good("binding", "draw with the 256-byte view") == "ok"
    assert _value("binding", "draws recorded") == 1
    assert _good("binding", "flush after the refusals") == "ok"
    assert _value("binding", "pixels") == [[0, 255, 0, 255]]  # the tint, everywhere
    assert _good("binding", "the same buffer at offset 0") == "ok"
    assert _value("binding", "draws recorded (second context)") == 1


@pytest.mark.parametrize("label", ["Context(target=Texture) draws",
                                   "capture into a gpuia Texture target",
                                   "capture into a wgpu view target",
                                   "capture into a wgpu texture target",
                                   "same device afterwards"])
def test_accepted_targets_draw_and_capture_correctly(label):
    assert _good("binding", label) == "ok"


# -- 3. release ---------------------------------------------------------------------------------

COLOR = [255, 0, 128, 255]
RELEASED = ("InvalidDescError", "was released")


@pytest.mark.parametrize("how", ["release", "wgpu.destroy"])
@pytest.mark.parametrize("path", ["auto", "pulling"])
def test_pending_draws_keep_a_released_buffer_until_their_submit(how, path):
    label = f"{how}, {path}"
    assert _value("release", f"{label}: released") is True
    assert _value("release", f"{label}: destroyed before the flush") is False
    assert _good("release", f"{label}: flush") == "ok"
    assert _value("release", f"{label}: destroyed after the flush") is True
    assert _value("release", f"{label}: pixels") == [COLOR]  # drawn with the buffer's data
    for what, where in (("draw with it still bound", "draw: IA slot 0 buffer="),
                        ("rebind (cached view)", "IASetVertexBuffers slot 0: buffer="),
                        ("rebind (view)", "IASetVertexBuffers slot 0: buffer=")):
        kind, message = _bad("release", f"{label}: {what}")
        assert kind == RELEASED[0] and RELEASED[1] in message, message
        assert message.startswith(where) and "<gpuia.Buffer 36 bytes" in message, message
    assert _value("release", f"{label}: draws recorded after the refusals") == 0
    assert _good("release", f"{label}: draw and flush with a new buffer") == "ok"


def test_release_without_pending_draws_destroys_at_once():
    assert _value("release", "idle: destroyed at once") is True
    kind, message = _bad("release", "idle: draw with it still bound")
    assert kind == RELEASED[0] and "IA slot 0" in message and RELEASED[1] in message
    assert _good("release", "idle: flush") == "ok"


def test_release_waits_for_every_context_with_pending_draws():
    assert _value("release", "two contexts: destroyed after the first flush") is False
    assert _value("release", "two contexts: destroyed after the second flush") is True
    assert _value("release", "two contexts: pixels") == [[COLOR], [COLOR]]


def test_release_waiting_for_a_dropped_context_happens_when_it_goes():
    assert _value("release", "dropped context: destroyed while it lives") is False
    assert _value("release", "dropped context: destroyed once it is gone") is True


@pytest.mark.parametrize("route", ["storage", "targets"])
def test_release_during_a_capture_keeps_its_recorded_draws(route):
    assert _good("release", f"capture ({route}) released mid-capture") == "ok"
    kind, message = _bad("release", f"capture ({route}): a draw after the release")
    assert kind == RELEASED[0] and RELEASED[1] in message, message


RELEASED_AT_DRAW = {
    "index buffer: indexed draw": "draw: index buffer=",
    "constant buffer: draw": "draw: root constant buffer view 0=",
    "render target (release): draw": "draw: render target 0=",
    "render target (wgpu.destroy): draw": "draw: render target 0=",
    "render target (release): clear": "ClearRenderTargetView: RenderTargetView=",
    "render target (wgpu.destroy): clear": "ClearRenderTargetView: RenderTargetView=",
    "render target (release): read": "Texture.read: texture=",
    "render target (wgpu.destroy): read": "Texture.read: texture=",
    "depth-stencil: draw": "draw: depth-stencil target=",
    "context target: draw": "draw: Context target=",
    "context target: capture draw": "draw: Context target=",
    "SO target: draw": "draw: SO target 0 buffer=",
    "SO target: bind again": "SOSetTargets slot 0: buffer=",
    "SO counter: filled size": "so_filled_size: SO target 0 BufferFilledSizeLocation=",
    "SO counter: draw": "draw: SO target 0 BufferFilledSizeLocation=",
}


@pytest.mark.parametrize("label", list(RELEASED_AT_DRAW))
def test_use_of_a_released_resource_is_refused_naming_it(label):
    kind, message = _bad("release", label)
    assert kind == RELEASED[0], message
    assert message.startswith(RELEASED_AT_DRAW[label]), message
    assert RELEASED[1] in message, message


def test_draw_auto_from_a_released_counter_is_refused():
    kind, message = _bad("release", "SO counter: DrawAuto")
    assert kind == "InvalidDescError"
    assert "DrawAuto" in message and "BufferFilledSizeLocation" in message and "released" in message


@pytest.mark.parametrize("label", ["index buffer: flush", "index buffer: non-indexed draw",
                                   "constant buffer: flush", "render target (release): flush",
                                   "render target (wgpu.destroy): flush", "depth-stencil: flush",
                                   "context target: flush", "SO target: flush",
                                   "SO counter: flush", "same device afterwards, pulling",
                                   "same device afterwards, native"])
def test_draws_pending_at_a_release_still_flush(label):
    assert _good("release", label) == "ok"


def test_draws_pending_at_a_release_render_the_released_data():
    assert _value("release", "index buffer: pixels") == [COLOR]
    assert _value("release", "constant buffer: pixels") == [[0, 0, 255, 255]]
    assert _value("release", "SO counter: filled size before the release") == 24  # 3 x 8 bytes


# -- 4. threads ---------------------------------------------------------------------------------

@pytest.mark.parametrize("batch", ["threads shared 1", "threads shared 2", "threads shared 3"])
def test_one_context_from_four_threads_refuses_concurrent_calls(batch):
    counts = _value(batch, "counts")
    assert _value(batch, "other exceptions") == []
    assert counts.get("refused", 0) > 0, counts
    # The context really was passed around: calls from several threads went through.
    assert sum(counts.get(f"ok in thread {k}", 0) > 0 for k in range(4)) >= 2, counts
    assert _good(batch, "final flush") == "ok"
    assert _good(batch, "capture on the hammered context") == "ok"


def test_one_context_per_thread_on_a_shared_device_is_clean():
    counts = _value("threads separate", "counts")
    assert counts == {"ok": 1200, **{f"ok in thread {k}": 300 for k in range(4)}}
    assert _value("threads separate", "other exceptions") == []
    assert _value("threads separate", "captures match") == [True] * 4


def test_releasing_buffers_other_threads_draw_with_is_clean():
    counts = _value("threads release", "counts")
    assert _value("threads release", "other exceptions") == []
    assert counts.get("ok", 0) > 0, counts



# -- capture routes ------------------------------------------------------------------------------

def test_a_capture_route_is_refused_before_anything_is_recorded(gpu_device):
    """An unknown route is an InvalidDescError naming the field; the storage route on an adapter
    without vertex-writable storage an UnsupportedError saying to use targets. Neither starts a
    capture or submits the pending draws."""
    import copy
    import dataclasses

    ctx = Context(gpu_device)
    with pytest.raises(InvalidDescError, match=r"begin_capture: route='vertex': must be auto, "
                                               r"storage or targets"):
        ctx.begin_capture("vertex")
    stats = ctx.stats()
    assert not stats["bound"]["capturing"] and stats["submits"] == 0
    plain = copy.copy(gpu_device)
    plain.caps = dataclasses.replace(gpu_device.caps, vertex_writable_storage=False)
    ctx = Context(plain)
    with pytest.raises(UnsupportedError, match="vertex-writable-storage; use route='targets'"):
        ctx.begin_capture("storage")
    assert not ctx.stats()["bound"]["capturing"]
    ctx.begin_capture("auto")  # resolves to targets there
    assert ctx.stats()["bound"]["capturing"]
    ctx.end_capture()
