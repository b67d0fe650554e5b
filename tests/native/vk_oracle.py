"""A native oracle for geometry shaders and Stream Output: Vulkan on Mesa's lavapipe.

gpuia emulates Direct3D 12's geometry shader (GS) and Stream Output (SO) in WebGPU compute; its
tests need truth that no gpuia code computed. This module runs an equivalent native pipeline, a
GLSL vertex shader and geometry shader with transform feedback (the path vkd3d-proton and DXVK give
D3D Stream Output), on lavapipe, the CPU Vulkan device, and returns what it wrote.

Guaranteed: ``run`` records its draws, in order, in one command buffer inside one transform
feedback begin/end and one set of queries, into up to 4 transform feedback buffers of the given
sizes (overflow is reachable; each starts as ``FILL`` bytes, so untouched bytes show), and returns
each buffer's bytes, the counters (D3D12's BufferFilledSize: the byte offset each buffer's writes
reached), per stream (primitives written, primitives needed) and the pipeline statistics (D3D's
names in snake_case). One instance and device per process (``device()``), destroyed at exit;
every object a run creates is destroyed before it returns (``live_objects()`` counts them).

Refused: a missing piece (the ``vulkan`` package, the Vulkan loader, a CPU Vulkan device,
glslangValidator, a feature or limit) raises ``OracleUnavailable`` naming it; a failed Vulkan call
``OracleError`` naming the step; GLSL that does not compile, malformed input, primitive restart
with a list topology (Vulkan core restarts strips only) and a rasterized stream lavapipe cannot
select (it rasterizes stream 0 only) raise ``ValueError``. Nothing here aborts the process.

Where lavapipe differs from D3D (tests/native/README.md): its GSInvocations statistic counts input
primitives, not primitives x GS instances, and ``max_vertices`` limits each stream on its own.
"""

from __future__ import annotations

import atexit
import functools
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

MAX_STREAMS = 4  # D3D's stream count; the device must offer as many
FILL = 0xCD  # every transform feedback buffer's bytes before a run
FENCE_TIMEOUT_NS = 60 * 10**9
NO_GLSLANG = "glslangValidator is not on PATH (Debian: apt-get install glslang-tools)"

TOPOLOGIES = {  # Vulkan's VkPrimitiveTopology values, by D3D-like names
    "point_list": 0, "line_list": 1, "line_strip": 2, "triangle_list": 3, "triangle_strip": 4,
    "line_list_with_adjacency": 6, "line_strip_with_adjacency": 7,
    "triangle_list_with_adjacency": 8, "triangle_strip_with_adjacency": 9,
}
STRIPS = {"line_strip", "triangle_strip", "line_strip_with_adjacency",
          "triangle_strip_with_adjacency"}

# Pipeline statistics in Vulkan's bit order (bit i is the i-th name), as D3D12 names them.
STATISTICS = ("ia_vertices", "ia_primitives", "vs_invocations", "gs_invocations",
              "gs_primitives", "c_invocations", "c_primitives")

ATTRIBUTE_FORMATS = {"f": 109, "u": 107, "i": 108}  # R32G32B32A32_{SFLOAT,UINT,SINT} by dtype kind

class OracleUnavailable(RuntimeError):
    """The oracle cannot run on this machine; the message names what is missing."""


class OracleError(RuntimeError):
    """A Vulkan call failed during a run; the message names the step and the VkResult."""


@dataclass(frozen=True)
class Draw:
    """One draw: ``vkCmdDraw`` without an index buffer, ``vkCmdDrawIndexed`` with one.

    ``count`` is vertices (or indices), ``first`` the first vertex (or index); ``vertex_offset``
    (D3D's BaseVertexLocation) is added to every index of an indexed draw."""

    count: int
    instance_count: int = 1
    first: int = 0
    first_instance: int = 0
    vertex_offset: int = 0


@dataclass
class Result:
    """What a run wrote. ``buffers[i]``: buffer i's bytes (uint8, its whole size);
    ``counters[i]``: the byte offset its writes reached (uint32; it started at ``starts[i]``);
    ``streams[s]``: (primitives written, primitives needed) of stream s (uint64);
    ``statistics``: pipeline statistics by name (empty where the device has none)."""

    buffers: list[np.ndarray]
    counters: np.ndarray
    starts: np.ndarray
    streams: np.ndarray
    statistics: dict[str, int] = field(default_factory=dict)

    def records(self, buffer: int, dtype: Any = np.uint32, width: int = 4) -> np.ndarray:
        """The bytes buffer ``buffer`` received (from its start to its counter) as rows of
        ``width`` values of ``dtype``."""
        start, end = int(self.starts[buffer]), int(self.counters[buffer])
        return self.buffers[buffer][start:end].view(dtype).reshape(-1, width)


def _load_vulkan() -> Any:
    try:
        import vulkan
    except ImportError as exc:
        raise OracleUnavailable("the `vulkan` Python package is not installed "
                                "(pip install vulkan; it needs cffi)") from exc
    except OSError as exc:  # the package dlopens the loader at import
        raise OracleUnavailable(f"the Vulkan loader (libvulkan.so.1) is missing: {exc}") from exc
    return vulkan


@functools.lru_cache(maxsize=64)
def spirv(stage: str, source: str) -> bytes:
    """``source`` (GLSL, stage ``vert`` or ``geom``) compiled by ``glslangValidator
    -V`` to SPIR-V; a compile error raises ``ValueError`` with the compiler's log."""
    tool = shutil.which("glslangValidator")
    if tool is None:
        raise OracleUnavailable(NO_GLSLANG)
    with tempfile.TemporaryDirectory(prefix="vk-oracle-") as tmp:
        src, out = Path(tmp) / f"shader.{stage}", Path(tmp) / f"{stage}.spv"
        src.write_text(source)
        done = subprocess.run([tool, "-V", "--target-env", "vulkan1.1", "-o", str(out), str(src)],
                              capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise ValueError(f"glslangValidator refused the {stage} shader:\n{done.stdout}"
                             f"{done.stderr}")
        return out.read_bytes()


@contextmanager
def _step(vk: Any, what: str) -> Iterator[None]:
    """Turns the binding's VkResult exceptions into an ``OracleError`` naming the step."""
    try:
        yield
    except (vk.VkError, vk.VkException) as exc:
        raise OracleError(f"Vulkan failed while {what}: {type(exc).__name__}") from exc


_live = [0]  # Vulkan objects runs created and have not destroyed yet


def live_objects() -> int:
    """How many objects runs created that are not destroyed yet (0 between runs)."""
    return _live[0]


class _Scope:
    """The objects of one run, destroyed in reverse order of creation when it closes."""

    def __init__(self, dev: NativeDevice):
        self.dev, self.vk = dev, dev.vk
        self._undo: list[Callable[[], None]] = []

    def keep(self, handle: Any, destroy: Callable[..., None]) -> Any:
        _live[0] += 1

        def undo() -> None:
            destroy(self.dev.device, handle, None)
            _live[0] -= 1
        self._undo.append(undo)
        return handle

    def close(self) -> None:
        """Waits for the device (a run that failed may have left work queued), then destroys."""
        with suppress(self.vk.VkError, self.vk.VkException):  # a lost device runs nothing
            self.vk.vkDeviceWaitIdle(self.dev.device)
        while self._undo:  # vkDestroy* and vkFreeMemory return nothing: none of them raises
            self._undo.pop()()

    def buffer(self, size: int, usage: int, data: bytes | None = None) -> tuple[Any, Any]:
        """A host-visible, coherent buffer of ``size`` bytes holding ``data`` (else ``FILL``);
        returns the buffer and its mapping."""
        vk = self.vk
        buf = self.keep(vk.vkCreateBuffer(self.dev.device, vk.VkBufferCreateInfo(
            size=size, usage=usage, sharingMode=vk.VK_SHARING_MODE_EXCLUSIVE), None),
            vk.vkDestroyBuffer)
        req = vk.vkGetBufferMemoryRequirements(self.dev.device, buf)
        flags = vk.VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | vk.VK_MEMORY_PROPERTY_HOST_COHERENT_BIT
        memory = self.memory(req, flags)
        vk.vkBindBufferMemory(self.dev.device, buf, memory, 0)
        mapped = vk.vkMapMemory(self.dev.device, memory, 0, size, 0)
        mapped[:] = data if data is not None else bytes([FILL]) * size
        return buf, mapped

    def memory(self, req: Any, flags: int) -> Any:
        vk, props = self.vk, self.dev.memory_properties
        for i in range(props.memoryTypeCount):
            type_flags = props.memoryTypes[i].propertyFlags
            if req.memoryTypeBits & (1 << i) and type_flags & flags == flags:
                return self.keep(vk.vkAllocateMemory(self.dev.device, vk.VkMemoryAllocateInfo(
                    allocationSize=req.size, memoryTypeIndex=i), None), vk.vkFreeMemory)
        raise OracleUnavailable(f"no memory type with flags {flags:#x} for bits "
                                f"{req.memoryTypeBits:#x}")


class NativeDevice:
    """lavapipe's Vulkan device with geometry shaders and 4-stream transform feedback.

    ``name``: the device's name; ``statistics``: whether pipeline statistics queries work;
    ``draw_parameters``: whether shaders may read gl_BaseVertex and gl_BaseInstance;
    ``limits``: the transform feedback limits read from the device."""

    def __init__(self) -> None:
        self.vk = vk = _load_vulkan()
        self.device = self.instance = None
        with _step(vk, "creating the instance"):
            try:
                app = vk.VkApplicationInfo(pApplicationName="gpuia-vk-oracle",
                                           apiVersion=vk.VK_MAKE_VERSION(1, 1, 0))
                self.instance = vk.vkCreateInstance(vk.VkInstanceCreateInfo(
                    pApplicationInfo=app), None)
            except vk.VkErrorIncompatibleDriver as exc:
                raise OracleUnavailable("no Vulkan ICD (driver) found: install Mesa's lavapipe "
                                        "(Debian: mesa-vulkan-drivers)") from exc
        try:
            self._open(vk)
        except BaseException:
            self.close()
            raise

    def _open(self, vk: Any) -> None:
        self.physical = self._pick_cpu_device(vk)
        self.name = vk.vkGetPhysicalDeviceProperties(self.physical).deviceName
        families = vk.vkGetPhysicalDeviceQueueFamilyProperties(self.physical)
        self.family = next(i for i, f in enumerate(families)
                           if f.queueFlags & vk.VK_QUEUE_GRAPHICS_BIT)
        # gl_BaseVertex and gl_BaseInstance (GLSL 4.60), where there, give D3D's SV_VertexID
        # and SV_InstanceID, which exclude what Vulkan's gl_VertexIndex and gl_InstanceIndex add
        draw_parameters = vk.VkPhysicalDeviceShaderDrawParametersFeatures(
            shaderDrawParameters=int(self.draw_parameters))
        xfb = vk.VkPhysicalDeviceTransformFeedbackFeaturesEXT(
            pNext=draw_parameters, transformFeedback=1, geometryStreams=1)
        features = vk.VkPhysicalDeviceFeatures(geometryShader=1,
                                               pipelineStatisticsQuery=int(self.statistics))
        with _step(vk, "creating the device"):
            self.device = vk.vkCreateDevice(self.physical, vk.VkDeviceCreateInfo(
                pNext=xfb, pQueueCreateInfos=[vk.VkDeviceQueueCreateInfo(
                    queueFamilyIndex=self.family, pQueuePriorities=[1.0])],
                ppEnabledExtensionNames=["VK_EXT_transform_feedback"],
                pEnabledFeatures=features), None)
            self.queue = vk.vkGetDeviceQueue(self.device, self.family, 0)
            self.memory_properties = vk.vkGetPhysicalDeviceMemoryProperties(self.physical)
            self.ext = {name: vk.vkGetDeviceProcAddr(self.device, name) for name in (
                "vkCmdBindTransformFeedbackBuffersEXT", "vkCmdBeginTransformFeedbackEXT",
                "vkCmdEndTransformFeedbackEXT", "vkCmdBeginQueryIndexedEXT",
                "vkCmdEndQueryIndexedEXT")}

    def _pick_cpu_device(self, vk: Any) -> Any:
        """The first CPU device with what the oracle needs; else ``OracleUnavailable`` saying
        what the CPU devices lack."""
        with _step(vk, "listing physical devices"):
            physical = list(vk.vkEnumeratePhysicalDevices(self.instance))
        cpus = [p for p in physical if vk.vkGetPhysicalDeviceProperties(p).deviceType
                == vk.VK_PHYSICAL_DEVICE_TYPE_CPU]
        if not cpus:
            raise OracleUnavailable(f"no CPU Vulkan device (lavapipe) among {len(physical)} "
                                    "devices: install Mesa's mesa-vulkan-drivers")
        lacks = []
        for p in cpus:
            missing = self._missing(vk, p)
            if not missing:
                return p
            lacks.append(f"{vk.vkGetPhysicalDeviceProperties(p).deviceName} lacks "
                         + ", ".join(missing))
        raise OracleUnavailable("; ".join(lacks))

    def _missing(self, vk: Any, physical: Any) -> list[str]:
        """What ``physical`` lacks of the features and limits the oracle needs; records the
        limits and whether pipeline statistics work."""
        names = {e.extensionName for e in vk.vkEnumerateDeviceExtensionProperties(physical, None)}
        if "VK_EXT_transform_feedback" not in names:
            return ["VK_EXT_transform_feedback"]
        draw_parameters = vk.VkPhysicalDeviceShaderDrawParametersFeatures()
        xfb = vk.VkPhysicalDeviceTransformFeedbackFeaturesEXT(pNext=draw_parameters)
        features = vk.VkPhysicalDeviceFeatures2(pNext=xfb)
        vk.vkGetPhysicalDeviceFeatures2(physical, features)
        limits = vk.VkPhysicalDeviceTransformFeedbackPropertiesEXT()
        vk.vkGetPhysicalDeviceProperties2(physical, vk.VkPhysicalDeviceProperties2(pNext=limits))
        self.limits = {name: int(getattr(limits, name)) for name in (
            "maxTransformFeedbackStreams", "maxTransformFeedbackBuffers",
            "maxTransformFeedbackBufferDataStride", "transformFeedbackQueries",
            "transformFeedbackStreamsLinesTriangles",
            "transformFeedbackRasterizationStreamSelect")}
        self.statistics = bool(features.features.pipelineStatisticsQuery)
        self.draw_parameters = bool(draw_parameters.shaderDrawParameters)
        missing = [name for name, have in (
            ("the geometryShader feature", features.features.geometryShader),
            ("the transformFeedback feature", xfb.transformFeedback),
            ("the geometryStreams feature", xfb.geometryStreams),
            ("transformFeedbackQueries", limits.transformFeedbackQueries)) if not have]
        return missing + [f"{name} >= {MAX_STREAMS} (has {self.limits[name]})" for name in (
            "maxTransformFeedbackStreams", "maxTransformFeedbackBuffers")
            if self.limits[name] < MAX_STREAMS]

    def close(self) -> None:
        """Destroys the device and the instance (at exit; safe to call twice)."""
        vk = self.vk
        if self.device is not None:
            with suppress(vk.VkError, vk.VkException):  # a lost device runs nothing
                vk.vkDeviceWaitIdle(self.device)
            vk.vkDestroyDevice(self.device, None)
            self.device = None
        if self.instance is not None:
            vk.vkDestroyInstance(self.instance, None)
            self.instance = None

    def run(self, vertex_shader: str, geometry_shader: str | None, *,
            topology: str, draws: Sequence[Draw], xfb_sizes: Sequence[int],
            attributes: Mapping[int, np.ndarray] | None = None,
            indices: np.ndarray | None = None, primitive_restart: bool = False,
            rasterized_stream: int | None = None,
            starts: Sequence[int] | None = None) -> Result:
        """Draws ``draws`` with ``topology`` (a ``TOPOLOGIES`` name) through the vertex shader,
        the geometry shader (None: the vertex shader feeds transform feedback) and transform
        feedback into buffers of ``xfb_sizes`` bytes (their counters start at ``starts``, D3D12's
        BufferFilledSize, default 0).

        ``attributes[location]``: an (n, 4) float32/uint32/int32 array, read as
        R32G32B32A32_{SFLOAT,UINT,SINT} at that location from one interleaved buffer.
        ``indices``: uint16 or uint32; with ``primitive_restart`` the all-ones index cuts the
        strip. ``rasterized_stream``: None discards rasterization (D3D's NO_RASTERIZED_STREAM),
        else that stream is rasterized (points need gl_PointSize then) with no fragment shader
        and no attachment."""
        request = _Request.check(self, topology, draws, xfb_sizes, attributes or {}, indices,
                                 primitive_restart, rasterized_stream, starts)
        stages = [("vert", vertex_shader), ("geom", geometry_shader)]  # no fragment shader
        code = [(stage, spirv(stage, src)) for stage, src in stages if src is not None]
        scope = _Scope(self)
        try:
            return _execute(scope, request, code)
        finally:
            scope.close()


@dataclass
class _Request:
    """A run's checked input."""

    topology: str
    draws: list[Draw]
    xfb_sizes: list[int]
    starts: list[int]
    vertex_data: bytes
    formats: list[tuple[int, int]]  # (location, VkFormat), interleaved 16 bytes apart
    indices: np.ndarray | None
    primitive_restart: bool
    rasterized_stream: int | None

    @classmethod
    def check(cls, dev: NativeDevice, topology: str, draws: Sequence[Draw],
              xfb_sizes: Sequence[int], attributes: Mapping[int, np.ndarray],
              indices: np.ndarray | None, primitive_restart: bool,
              rasterized_stream: int | None, starts: Sequence[int] | None) -> _Request:
        if topology not in TOPOLOGIES:
            raise ValueError(f"unknown topology {topology!r}; known: {sorted(TOPOLOGIES)}")
        if primitive_restart and topology not in STRIPS:
            raise ValueError(f"primitive restart with {topology}: Vulkan restarts strips only")
        if not 1 <= len(xfb_sizes) <= dev.limits["maxTransformFeedbackBuffers"]:
            raise ValueError(f"{len(xfb_sizes)} transform feedback buffers; the device has "
                             f"1..{dev.limits['maxTransformFeedbackBuffers']}")
        starts = list(starts) if starts is not None else [0] * len(xfb_sizes)
        if len(starts) != len(xfb_sizes) or any(s < 0 or s % 4 for s in starts):
            raise ValueError(f"starts {starts}: one multiple of 4 per buffer")
        if any(size <= 0 or size % 4 for size in xfb_sizes):
            raise ValueError(f"transform feedback buffer sizes {list(xfb_sizes)}: each a "
                             "positive multiple of 4")
        if rasterized_stream not in (None, *range(MAX_STREAMS)):
            raise ValueError(f"rasterized stream {rasterized_stream}: None or 0..3")
        if rasterized_stream and not dev.limits["transformFeedbackRasterizationStreamSelect"]:
            raise ValueError(f"rasterized stream {rasterized_stream}: {dev.name} rasterizes "
                             "stream 0 only (transformFeedbackRasterizationStreamSelect is 0)")
        if any(min(d.count, d.instance_count, d.first, d.first_instance) < 0 for d in draws):
            raise ValueError(f"draws {list(draws)}: counts and firsts are unsigned")
        if indices is not None and indices.dtype not in (np.uint16, np.uint32):
            raise ValueError(f"indices of {indices.dtype}: uint16 or uint32")
        data, formats = _interleave(attributes)
        return cls(topology, list(draws), list(xfb_sizes), starts, data, formats,
                   indices, primitive_restart, rasterized_stream)


def _interleave(attributes: Mapping[int, np.ndarray]) -> tuple[bytes, list[tuple[int, int]]]:
    """One vertex buffer holding the attributes in location order, 16 bytes each."""
    columns, formats = [], []
    for location in sorted(attributes):
        array = np.asarray(attributes[location])
        if array.ndim != 2 or array.shape[1] != 4 or array.dtype.itemsize != 4 \
                or array.dtype.kind not in ATTRIBUTE_FORMATS:
            raise ValueError(f"attribute {location}: an (n, 4) float32/uint32/int32 array, "
                             f"not {array.shape} {array.dtype}")
        columns.append(array.view(np.uint32))
        formats.append((location, ATTRIBUTE_FORMATS[array.dtype.kind]))
    if len({c.shape[0] for c in columns}) > 1:
        raise ValueError("attributes of different lengths: "
                         f"{ {loc: len(attributes[loc]) for loc in sorted(attributes)} }")
    data = np.ascontiguousarray(np.concatenate(columns, axis=1)) if columns else None
    return (data.tobytes() if data is not None else b""), formats


def _execute(scope: _Scope, req: _Request, code: list[tuple[str, bytes]]) -> Result:
    """Creates the run's objects in ``scope``, records and submits one command buffer, waits,
    and reads the results back."""
    vk, dev = scope.vk, scope.dev
    with _step(vk, "creating buffers"):
        usage_xfb = vk.VK_BUFFER_USAGE_TRANSFORM_FEEDBACK_BUFFER_BIT_EXT
        xfb = [scope.buffer(size, usage_xfb) for size in req.xfb_sizes]
        counter = scope.buffer(4 * len(req.xfb_sizes),
                               vk.VK_BUFFER_USAGE_TRANSFORM_FEEDBACK_COUNTER_BUFFER_BIT_EXT,
                               np.asarray(req.starts, np.uint32).tobytes())
        vertices = (scope.buffer(len(req.vertex_data), vk.VK_BUFFER_USAGE_VERTEX_BUFFER_BIT,
                                 req.vertex_data) if req.vertex_data else None)
        index = (scope.buffer(req.indices.nbytes, vk.VK_BUFFER_USAGE_INDEX_BUFFER_BIT,
                              req.indices.tobytes()) if req.indices is not None else None)
    with _step(vk, "creating the render pass and pipeline"):
        render_pass, framebuffer = _target(scope)
        pipeline = _pipeline(scope, req, code, render_pass)
    with _step(vk, "creating query pools"):
        queries = _query_pools(scope)
    with _step(vk, "recording and submitting"):
        pool = scope.keep(vk.vkCreateCommandPool(dev.device, vk.VkCommandPoolCreateInfo(
            queueFamilyIndex=dev.family), None), vk.vkDestroyCommandPool)
        cmd = vk.vkAllocateCommandBuffers(dev.device, vk.VkCommandBufferAllocateInfo(
            commandPool=pool, level=vk.VK_COMMAND_BUFFER_LEVEL_PRIMARY,
            commandBufferCount=1))[0]
        vk.vkBeginCommandBuffer(cmd, vk.VkCommandBufferBeginInfo(
            flags=vk.VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT))
        _record(dev, cmd, req, render_pass, framebuffer, pipeline, queries,
                [b for b, _ in xfb], counter[0], vertices, index)
        vk.vkEndCommandBuffer(cmd)
        fence = scope.keep(vk.vkCreateFence(dev.device, vk.VkFenceCreateInfo(), None),
                           vk.vkDestroyFence)
        vk.vkQueueSubmit(dev.queue, 1, [vk.VkSubmitInfo(pCommandBuffers=[cmd])], fence)
        vk.vkWaitForFences(dev.device, 1, [fence], vk.VK_TRUE, FENCE_TIMEOUT_NS)
    with _step(vk, "reading query results"):
        streams, statistics = _read_queries(dev, queries)
    return Result(buffers=[np.frombuffer(bytes(m), np.uint8) for _, m in xfb],
                  counters=np.frombuffer(bytes(counter[1]), np.uint32).copy(),
                  starts=np.asarray(req.starts, np.uint32), streams=streams,
                  statistics=statistics)


def _target(scope: _Scope) -> tuple[Any, Any]:
    """A render pass and a 1x1 framebuffer without attachments: transform feedback needs a
    render pass; a rasterized stream is drawn and counted (c_invocations), its pixels unkept."""
    vk, device = scope.vk, scope.dev.device
    subpass = vk.VkSubpassDescription(pipelineBindPoint=vk.VK_PIPELINE_BIND_POINT_GRAPHICS)
    render_pass = scope.keep(vk.vkCreateRenderPass(device, vk.VkRenderPassCreateInfo(
        pSubpasses=[subpass]), None), vk.vkDestroyRenderPass)
    framebuffer = scope.keep(vk.vkCreateFramebuffer(device, vk.VkFramebufferCreateInfo(
        renderPass=render_pass, width=1, height=1, layers=1), None), vk.vkDestroyFramebuffer)
    return render_pass, framebuffer


def _pipeline(scope: _Scope, req: _Request, code: list[tuple[str, bytes]],
              render_pass: Any) -> Any:
    """The graphics pipeline: the shaders, the vertex input, the topology and restart, and
    rasterization discarded (or the chosen stream rasterized)."""
    vk, device = scope.vk, scope.dev.device
    stage_bits = {"vert": vk.VK_SHADER_STAGE_VERTEX_BIT, "geom": vk.VK_SHADER_STAGE_GEOMETRY_BIT}
    stages = []
    for stage, blob in code:
        module = scope.keep(vk.vkCreateShaderModule(device, vk.VkShaderModuleCreateInfo(
            codeSize=len(blob), pCode=blob), None), vk.vkDestroyShaderModule)
        stages.append(vk.VkPipelineShaderStageCreateInfo(stage=stage_bits[stage],
                                                         module=module, pName="main"))
    stride = 16 * len(req.formats)
    vertex_input = vk.VkPipelineVertexInputStateCreateInfo(
        pVertexBindingDescriptions=[vk.VkVertexInputBindingDescription(
            binding=0, stride=stride, inputRate=vk.VK_VERTEX_INPUT_RATE_VERTEX)]
        if stride else None,
        pVertexAttributeDescriptions=[vk.VkVertexInputAttributeDescription(
            location=loc, binding=0, format=fmt, offset=16 * i)
            for i, (loc, fmt) in enumerate(req.formats)] or None)
    raster_stream = (vk.VkPipelineRasterizationStateStreamCreateInfoEXT(
        rasterizationStream=req.rasterized_stream) if req.rasterized_stream else None)
    layout = scope.keep(vk.vkCreatePipelineLayout(device, vk.VkPipelineLayoutCreateInfo(),
                                                  None), vk.vkDestroyPipelineLayout)
    info = vk.VkGraphicsPipelineCreateInfo(
        pStages=stages, pVertexInputState=vertex_input,
        pInputAssemblyState=vk.VkPipelineInputAssemblyStateCreateInfo(
            topology=TOPOLOGIES[req.topology], primitiveRestartEnable=req.primitive_restart),
        pViewportState=vk.VkPipelineViewportStateCreateInfo(
            pViewports=[vk.VkViewport(0, 0, 1, 1, 0, 1)],
            pScissors=[vk.VkRect2D(vk.VkOffset2D(0, 0), vk.VkExtent2D(1, 1))]),
        pRasterizationState=vk.VkPipelineRasterizationStateCreateInfo(
            pNext=raster_stream, rasterizerDiscardEnable=req.rasterized_stream is None,
            polygonMode=vk.VK_POLYGON_MODE_FILL, cullMode=vk.VK_CULL_MODE_NONE,
            frontFace=vk.VK_FRONT_FACE_COUNTER_CLOCKWISE, lineWidth=1.0),
        pMultisampleState=vk.VkPipelineMultisampleStateCreateInfo(
            rasterizationSamples=vk.VK_SAMPLE_COUNT_1_BIT),
        layout=layout, renderPass=render_pass, subpass=0)
    pipelines = vk.vkCreateGraphicsPipelines(device, None, 1, [info], None)
    return scope.keep(pipelines[0], vk.vkDestroyPipeline)


def _query_pools(scope: _Scope) -> dict[str, Any]:
    """One transform feedback query per stream; one pipeline statistics query (if supported)."""
    vk, dev = scope.vk, scope.dev
    pools = {"streams": scope.keep(vk.vkCreateQueryPool(dev.device, vk.VkQueryPoolCreateInfo(
        queryType=vk.VK_QUERY_TYPE_TRANSFORM_FEEDBACK_STREAM_EXT, queryCount=MAX_STREAMS), None),
        vk.vkDestroyQueryPool)}
    if dev.statistics:
        pools["statistics"] = scope.keep(vk.vkCreateQueryPool(
            dev.device, vk.VkQueryPoolCreateInfo(
                queryType=vk.VK_QUERY_TYPE_PIPELINE_STATISTICS, queryCount=1,
                pipelineStatistics=(1 << len(STATISTICS)) - 1), None), vk.vkDestroyQueryPool)
    return pools


def _record(dev: NativeDevice, cmd: Any, req: _Request, render_pass: Any, framebuffer: Any,
            pipeline: Any, queries: dict[str, Any], xfb: list[Any], counter: Any,
            vertices: tuple[Any, Any] | None, index: tuple[Any, Any] | None) -> None:
    """The command buffer: the queries and transform feedback enclose every draw; a barrier
    makes the buffers and counters visible to the host."""
    vk, ext, n = dev.vk, dev.ext, len(xfb)
    vk.vkCmdResetQueryPool(cmd, queries["streams"], 0, MAX_STREAMS)
    if "statistics" in queries:
        vk.vkCmdResetQueryPool(cmd, queries["statistics"], 0, 1)
    vk.vkCmdBeginRenderPass(cmd, vk.VkRenderPassBeginInfo(
        renderPass=render_pass, framebuffer=framebuffer,
        renderArea=vk.VkRect2D(vk.VkOffset2D(0, 0), vk.VkExtent2D(1, 1))),
        vk.VK_SUBPASS_CONTENTS_INLINE)
    vk.vkCmdBindPipeline(cmd, vk.VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline)
    if vertices is not None:
        vk.vkCmdBindVertexBuffers(cmd, 0, 1, [vertices[0]], [0])
    if index is not None and req.indices is not None:
        wide = req.indices.dtype == np.uint32
        vk.vkCmdBindIndexBuffer(cmd, index[0], 0, vk.VK_INDEX_TYPE_UINT32 if wide else
                                vk.VK_INDEX_TYPE_UINT16)
    ext["vkCmdBindTransformFeedbackBuffersEXT"](cmd, 0, n, xfb, [0] * n, req.xfb_sizes)
    if "statistics" in queries:
        vk.vkCmdBeginQuery(cmd, queries["statistics"], 0, 0)
    for stream in range(MAX_STREAMS):
        ext["vkCmdBeginQueryIndexedEXT"](cmd, queries["streams"], stream, 0, stream)
    counters, offsets = [counter] * n, [4 * i for i in range(n)]
    ext["vkCmdBeginTransformFeedbackEXT"](cmd, 0, n, counters, offsets)
    for draw in req.draws:
        if index is not None:
            vk.vkCmdDrawIndexed(cmd, draw.count, draw.instance_count, draw.first,
                                draw.vertex_offset, draw.first_instance)
        else:
            vk.vkCmdDraw(cmd, draw.count, draw.instance_count, draw.first, draw.first_instance)
    ext["vkCmdEndTransformFeedbackEXT"](cmd, 0, n, counters, offsets)
    for stream in range(MAX_STREAMS):
        ext["vkCmdEndQueryIndexedEXT"](cmd, queries["streams"], stream, stream)
    if "statistics" in queries:
        vk.vkCmdEndQuery(cmd, queries["statistics"], 0)
    vk.vkCmdEndRenderPass(cmd)
    vk.vkCmdPipelineBarrier(
        cmd, vk.VK_PIPELINE_STAGE_TRANSFORM_FEEDBACK_BIT_EXT, vk.VK_PIPELINE_STAGE_HOST_BIT, 0,
        1, [vk.VkMemoryBarrier(
            srcAccessMask=vk.VK_ACCESS_TRANSFORM_FEEDBACK_WRITE_BIT_EXT
            | vk.VK_ACCESS_TRANSFORM_FEEDBACK_COUNTER_WRITE_BIT_EXT,
            dstAccessMask=vk.VK_ACCESS_HOST_READ_BIT)], 0, None, 0, None)


def _read_queries(dev: NativeDevice, queries: dict[str, Any]) -> tuple[np.ndarray, dict]:
    """Per stream (written, needed) and the pipeline statistics, as 64-bit values."""
    vk = dev.vk
    flags = vk.VK_QUERY_RESULT_64_BIT | vk.VK_QUERY_RESULT_WAIT_BIT
    data = vk.ffi.new("uint64_t[]", 2 * MAX_STREAMS)
    vk.vkGetQueryPoolResults(dev.device, queries["streams"], 0, MAX_STREAMS,
                             vk.ffi.sizeof(data), data, 16, flags)
    streams = np.array(list(data), np.uint64).reshape(MAX_STREAMS, 2)
    statistics: dict[str, int] = {}
    if "statistics" in queries:
        stats = vk.ffi.new("uint64_t[]", len(STATISTICS))
        vk.vkGetQueryPoolResults(dev.device, queries["statistics"], 0, 1, vk.ffi.sizeof(stats),
                                 stats, vk.ffi.sizeof(stats), flags)
        statistics = dict(zip(STATISTICS, (int(v) for v in stats), strict=True))
    return streams, statistics


_device: list[NativeDevice | OracleUnavailable] = []


def device() -> NativeDevice:
    """The process's oracle device, made on first use and destroyed at exit; raises
    ``OracleUnavailable`` (the same message every time) where it cannot be made."""
    if not _device:
        try:
            made = NativeDevice()
        except OracleUnavailable as exc:
            _device.append(exc)
        else:
            atexit.register(made.close)
            _device.append(made)
    if isinstance(_device[0], OracleUnavailable):
        raise OracleUnavailable(str(_device[0]))
    if shutil.which("glslangValidator") is None:
        raise OracleUnavailable(NO_GLSLANG)
    return _device[0]


def run(vertex_shader: str, geometry_shader: str | None, **kwargs: Any) -> Result:
    """``device().run(...)``: see ``NativeDevice.run``."""
    return device().run(vertex_shader, geometry_shader, **kwargs)
