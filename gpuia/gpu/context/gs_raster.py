"""What a geometry shader's rasterized stream is drawn with: an internal pipeline state.

The stage (``gpuia.gpu.context.geometry``) writes the rasterized stream's primitives as a list,
every member of the stream's record one after the other (:func:`raster_declaration`), into a
buffer of its own, and draws that buffer with :func:`raster_pipeline_state`: an input layout of
the record's members (semantic ``GPUIAR``, index = the member's place), a generated WGSL vertex
shader that hands each member on under its own semantic (the record's ``SV_Position`` as the
position) and the user's pixel shader, targets and raster state. The pixel shader so links with
the rasterized stream's outputs, as D3D links it (rules 13.9).

Refused (:class:`~gpuia.errors.InvalidDescError`): a rasterized stream whose record has no
float4 ``SV_Position``. (:class:`~gpuia.errors.UnsupportedError`): a member whose semantic
name ends in digits, which gpuia's WGSL convention cannot name (``COLOR1`` with index 0).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, replace

from ...d3d.desc import StripCutValue
from ...d3d.ia_desc import VertexBufferView
from ...d3d.layout import InputLayout, parse_semantic
from ...d3d.so_declaration import ResolvedStreamOutput, resolve_stream_output
from ...d3d.so_desc import SO_NO_RASTERIZED_STREAM, SODeclarationEntry, StreamOutputDesc
from ...d3d.topology import TopologyInfo, topology_info
from ...errors import InvalidDescError, UnsupportedError
from ..cache import remember
from ..gs.expansion import GSStreamOutput
from ..gs.plan import GSStreamPlan, GSTarget
from ..lifetime import wgpu_call
from .pso import PipelineState
from .resolve import new_state

__all__ = ["raster_stream", "raster_declaration", "raster_pipeline_state", "RASTER_SEMANTIC",
           "GSRaster", "RASTER_BYTES", "output_state"]

RASTER_SEMANTIC = "GPUIAR"
"""The input layout's semantic of the record's members (index: the member's place)."""
_FORMAT = {"float": "FLOAT", "uint": "UINT", "sint": "SINT"}  # kind -> DXGI suffix
RASTER_BYTES = 32 << 20
"""Bytes of the buffer one chunk's rasterized primitives go through, at most (a chunk is made
small enough that everything its invocations may emit fits)."""
_LIST = {1: "POINTLIST", 2: "LINELIST", 3: "TRIANGLELIST"}  # vertices -> the list drawn
_STATES: dict = {}
_LOCK = threading.Lock()


def raster_stream(pso: PipelineState) -> int | None:
    """The stream a pipeline state with a geometry shader rasterizes: RasterizedStream, stream
    0 without a Stream Output declaration (D3D's default), None for NO_RASTERIZED_STREAM."""
    so = pso.so
    if so is None:
        return 0
    return so.rasterized_stream if so.rasterizes else None


def raster_declaration(gs, stream: int) -> StreamOutputDesc:
    """A declaration of every member of ``stream``'s record into slot 0, in record order (each
    member's components at its record word), with no rasterized stream of its own."""
    members = gs.stream_members[stream]
    words = sum(m.components for m in members)
    return StreamOutputDesc(
        tuple(SODeclarationEntry(stream, m.semantic, m.index, 0, m.components, 0)
              for m in members), (4 * words,), SO_NO_RASTERIZED_STREAM)


def _output_name(semantic: str, index: int) -> str:
    if (semantic, 0) != parse_semantic(semantic):
        raise UnsupportedError(f"the rasterized stream's output {semantic}{index}: a semantic "
                               f"name ending in digits has no name in gpuia's WGSL convention")
    return semantic if index == 0 else f"{semantic}{index}"


def _vertex_shader(members) -> str:
    ins, outs, body = [], [], []
    position = None
    for j, m in enumerate(members):
        ins.append(f"  {RASTER_SEMANTIC}{j}: {m.wgsl_type},")
        if m.semantic == "SV_POSITION" and m.index == 0:
            position = m
            body.append(f"  o.SV_Position = i.{RASTER_SEMANTIC}{j};")
            continue
        name = _output_name(m.semantic, m.index)
        outs.append(f"  {name}: {m.wgsl_type},")
        body.append(f"  o.{name} = i.{RASTER_SEMANTIC}{j};")
    if position is None or position.type != "float" or position.components != 4:
        raise InvalidDescError("PipelineState GS", "rasterized stream", "SV_Position",
                               "the rasterized stream's record needs a float4 SV_Position "
                               "(rules 13.9)")
    return "\n".join(["struct GpuiaRecord {", *ins, "};", "struct GpuiaRaster {",
                      "  SV_Position: vec4<f32>,", *outs, "};",
                      "@vertex fn main(i: GpuiaRecord) -> GpuiaRaster {",
                      "  var o: GpuiaRaster;", *body, "  return o;", "}", ""])


def raster_pipeline_state(pso: PipelineState, stream: int) -> PipelineState:
    """The pipeline state that draws ``stream`` of ``pso``'s geometry shader from the buffer
    :func:`raster_declaration` fills (module docstring); cached per (pipeline state, stream)."""
    key = (pso, stream)
    out = _STATES.get(key)
    if out is None:
        members = pso.geometry_shader.stream_members[stream]
        elements, word = [], 0
        for j, m in enumerate(members):
            channels = "".join(f"{c}32" for c in "RGBA"[:m.components])
            elements.append({"SemanticName": RASTER_SEMANTIC, "SemanticIndex": j,
                             "Format": f"{channels}_{_FORMAT[m.type]}",
                             "AlignedByteOffset": 4 * word})
            word += m.components
        out = replace(pso, input_layout=InputLayout(elements), vertex_shader=_vertex_shader(
            members), entry_point="main", stream_output=None, geometry_shader=None,
            strip_cut_value=StripCutValue.DISABLED, constant_buffers=0, feature_level=None,
            shader_resources=())
        with _LOCK:
            remember(_STATES, key, out, 64)
    return out


def output_state(pso: PipelineState, max_varyings: int):
    """What follows the last shader of ``pso``: :meth:`PipelineState.output_state`, or with a
    geometry shader, that of the pipeline state drawing its rasterized stream (the pixel
    shader links with that stream, rules 13.9); with NO_RASTERIZED_STREAM the targets' alone
    (no pixel shader runs)."""
    if pso.geometry_shader is None:
        return pso.output_state(max_varyings)
    stream = raster_stream(pso)
    if stream is None or (not pso.rtv_formats and pso.dsv_format is None):
        return replace(pso, pixel_shader=None, ps_entry_point=None, stream_output=None,
                       geometry_shader=None, constant_buffers=0).output_state(max_varyings)
    return raster_pipeline_state(pso, stream).output_state(max_varyings)


@dataclass(frozen=True)
class RasterDraw:
    """What a draw's rasterized stream needs: the internal pipeline state ``pso``, the
    declaration ``so`` of the stream's records, their ``stride`` in bytes, the list
    ``topology`` drawn and ``most``, the SO vertices one invocation may emit."""

    pso: PipelineState
    so: ResolvedStreamOutput
    stride: int
    topology: TopologyInfo
    most: int

    def chunk_bound(self) -> int:
        """Invocations one chunk may hold so that all they may emit fits RASTER_BYTES."""
        return max(1, RASTER_BYTES // (self.most * self.stride))


class GSRaster:
    """Draws the rasterized stream of a context's geometry shader draws, chunk by chunk.

    Arguments:
        device, cache: the context's device and PipelineCache.
        rec: the context's Recorder (its ``compute_encoder``).
        draw_auto: ``(draw state, DrawAuto arguments)`` -> encodes a DrawAuto of that state
            (the context's own DrawAuto encoding: the count computed on the GPU).
    """

    def __init__(self, device, cache, rec, draw_auto):
        self.device = device
        self.rec = rec
        self.draw_auto = draw_auto
        self.expansion = GSStreamOutput(device, cache)
        self._buffer = None  # (gpuia Buffer, its bytes)
        self._counter = None
        self._states: dict = {}

    def prepare(self, state, plan: GSStreamPlan) -> RasterDraw | None:
        """The rasterized stream of a draw under ``state``, or None where nothing drawn can be
        seen (NO_RASTERIZED_STREAM, or no render target: the context's own target, which
        nothing reads). Refusals (module docstring) come here, before anything is recorded."""
        pso = state.pso
        stream = raster_stream(pso)
        if stream is None or (not pso.rtv_formats and pso.dsv_format is None):
            return None
        gs = pso.geometry_shader
        rpso = raster_pipeline_state(pso, stream)
        so = resolve_stream_output(raster_declaration(gs, stream), pso.signature, None,
                                   streams=gs.stream_members)
        v = plan.vertices[stream]
        return RasterDraw(rpso, so, so.slots[0].stride, topology_info(_LIST[v]),
                          v * plan.max_vertex_count)

    def encode(self, rd: RasterDraw, regions, invocations: int, plan: GSStreamPlan) -> tuple:
        """Expand one chunk's rasterized stream into the stage's buffer and draw it (with at
        most :meth:`RasterDraw.chunk_bound` invocations); returns what to keep until submitted."""
        nbytes = max(16, min(rd.chunk_bound(), invocations) * rd.most * rd.stride)
        if self._buffer is None or self._buffer[1] < nbytes:
            buf = self.device.create_buffer(size=nbytes, bind=("stream_output",
                                                               "vertex_buffer"),
                                            label="gpuia GS rasterized stream")
            self._buffer = (buf, nbytes)
            self._states.clear()
        if self._counter is None:
            dev = self.device.device
            self._counter = wgpu_call(lambda: dev.create_buffer(
                size=16, usage="STORAGE|COPY_DST|COPY_SRC"), "allocating the GS raster")
        buf, size = self._buffer
        state = self._state(rd, buf)
        enc = self.rec.compute_encoder()
        enc.clear_buffer(self._counter, 0, 16)  # each chunk's primitives from the start
        target = GSTarget(buf.wgpu, 0, size // 4 * 4, self._counter, 0)
        # An adapter whose provoking vertex is the last gets D3D's first vertex last where the
        # pixel shader reads a flat input (as host lists are rotated, gpuia.gpu.ia.host_lists).
        keep = self.expansion.encode(enc, regions, invocations, plan, rd.so, {0: target},
                                     rotate=state.assembly.rotate)
        self.draw_auto(state, (self._counter, 0, 0, 0, rd.stride))
        return keep

    def _state(self, rd: RasterDraw, buf):
        key = (rd.pso, rd.topology.topology)
        state = self._states.get(key)
        if state is None:
            view = VertexBufferView(buf, rd.stride, 0)
            caps = self.device.caps
            state = new_state(caps, rd.pso, rd.topology, False, (0,), (view,),
                              rd.pso.output_state(caps.max_inter_stage_shader_variables))
            if state.static.pulling_obstacles:
                raise UnsupportedError("drawing the geometry shader's stream pulls its "
                                       "vertices: " + "; ".join(state.static.pulling_obstacles))
            remember(self._states, key, state, 16)
        return state
