"""What RenderDoc's mesh viewer shows of a case's draws, as data: the vertex shader's inputs
("VS In") and outputs ("VS Out") per index position, and the primitives the draws assemble.

The text tables (:mod:`.text`, put together for ``gpuia check --table`` by :func:`mesh_text`),
the HTML report (:mod:`.html`) and the CSV export (:mod:`gpuia.harness.export.mesh_csv`) all read
what this module derives, so the three agree.

* **Rows** (:func:`instance_rows`): RenderDoc shows one instance of one draw at a time, one row
  per index position ``VTX`` from 0, strip cuts included as restart rows (rules 5.4: a cut
  delivers no vertex). Each other row points at its invocation in IA order.
* **Columns**: VS In has one column group per layout element the vertex shader reads, named as
  RenderDoc's D3D12 pipeline state names it (:func:`input_columns`); VS Out one per output of
  the shader's signature, named as RenderDoc's D3D shader reflection names it, the position
  first (:func:`output_columns`).
* **VS outputs**: a case with a vertex shader of its own has them on every check: the GPU's
  outputs of every invocation, read back by the ``vs outputs`` run
  (:mod:`gpuia.harness.run_outputs`; :func:`captured_vs_outputs`). A case with the pass-through
  shader has them only through its ``stream_output`` section. The CPU side is the reference's
  pass-through shader or the HLSL shader run on the CPU (a WGSL shader has none); a Stream
  Output run's GPU side is its targets read back, laid on the reference's primitive order
  (rules 9.2-9.4): every component the declaration writes, for every vertex of a written
  primitive (:func:`gpu_vs_outputs`). Components the GPU wrote nowhere are unknown, not zero.
* **Primitives** (:mod:`gpuia.harness.primitives`, whose names this module re-exports): the
  reference's assembly (:func:`reference_primitives`), and the GPU side's own list where gpuia
  draws one it built (adjacency, or a strip an adapter cannot restart: :func:`gpu_primitives`);
  where WebGPU assembles the draw itself, nothing of its assembly is read back and the note says
  so (the raster check, ``docs/raster-check.md``, compares it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ...errors import UnsupportedError
from ..primitives import GPUPrimitives, PrimitiveList, gpu_primitives, reference_primitives

if TYPE_CHECKING:  # annotations only: the modules whose values these functions read
    from ...d3d.signature import ShaderSignature
    from ...reference import IAResult
    from ...reference.stream_output import SOResult
    from ..case import Case
    from ..compare import ShaderTolerance
    from ..crosscheck import CheckResult
    from ..run_outputs import GPUOutputs

__all__ = ["MeshColumn", "InstanceRows", "VSOutputs", "PrimitiveList", "GPUPrimitives",
           "input_columns", "output_columns", "instance_rows", "vs_outputs_note",
           "reference_vs_outputs", "gpu_vs_outputs", "captured_vs_outputs", "tolerated_outputs",
           "reference_primitives",
           "gpu_primitives", "mesh_text"]


@dataclass(frozen=True)
class MeshColumn:
    """One column group of a mesh table: an input element or a shader output.

    Arguments:
        name (str): the group's name as RenderDoc writes it (``POSITION``, ``TEXCOORD1``);
            its components are ``name.x`` .. ``name.w``, or ``name`` alone for one component.
        key (str): gpuia's key of the same value (``POSITION0``), as results key inputs and
            outputs.
        type (str): ``"float"``, ``"uint"`` or ``"sint"``.
        components (int): the components shown, 1-4.
    """

    name: str
    key: str
    type: str
    components: int

    @property
    def headers(self) -> list[str]:
        """The column names of the group: ``name.x``, ``name.y``, ... or ``[name]`` for one
        component (RenderDoc's header convention)."""
        if self.components == 1:
            return [self.name]
        return [f"{self.name}.{c}" for c in "xyzw"[: self.components]]


@dataclass
class InstanceRows:
    """The rows of one instance of one draw, as RenderDoc's mesh viewer lists them.

    Arguments:
        draw (int): the draw's position in the case's draw list.
        instance (int): the instance shown.
        invocation (numpy.ndarray): int64 per row (row ``r`` is index position ``VTX = r``):
            the invocation's row in IA order, or -1 for a strip cut (a restart row).
        no_vertices (bool): the draw's vertex or index count is 0 (RenderDoc writes a
            ``No Vertices`` row instead).
        no_instances (bool): its InstanceCount is 0 (a ``No Instances`` row).
    """

    draw: int
    instance: int
    invocation: np.ndarray
    no_vertices: bool = False
    no_instances: bool = False


@dataclass
class VSOutputs:
    """One side's vertex shader outputs, per invocation in IA order.

    Arguments:
        source (str): what produced them, for people (``CPU reference: the pass-through
            shader``).
        columns (list): the :class:`MeshColumn` of every output, in table order.
        bits (dict): output key -> uint32 ``(invocations, components)`` bit patterns.
        known (dict): output key -> bool ``(invocations, components)``: the component's value
            is known (the GPU side knows only what Stream Output wrote); None (the default):
            every component is known.
        origin (dict): for values read from Stream Output targets, output key -> int64
            ``(invocations, components)``: ``slot << 32 | word`` of the 32-bit word each known
            component was read from, -1 elsewhere; None (the default) otherwise.
    """

    source: str
    columns: list[MeshColumn]
    bits: dict[str, np.ndarray]
    known: dict[str, np.ndarray] | None = None
    origin: dict[str, np.ndarray] | None = None

    def known_mask(self, key: str) -> np.ndarray:
        """The ``known`` mask of output ``key``: all True when every component is known.

        Arguments:
            key (str): an output key of :attr:`columns`.

        Returns:
            A bool array shaped like ``bits[key]``.
        """
        if self.known is None:
            return np.ones(self.bits[key].shape, bool)
        return self.known[key]


def input_columns(case: Case) -> list[MeshColumn]:
    """VS In's columns: every layout element the vertex shader reads, in layout order, with its
    format's component count, named as RenderDoc's D3D12 pipeline state names vertex inputs:
    the SemanticName as the layout spells it, followed by the SemanticIndex only when another
    element has the same name (compared without case): ``POSITION``, ``TEXCOORD0`` and
    ``TEXCOORD1``, but ``TEXCOORD`` for a lone TEXCOORD1.

    Arguments:
        case (Case): the parsed case.

    Returns:
        A list of :class:`MeshColumn`.
    """
    reads = {m.key for m in case.shader_signature().inputs}
    elements = case.layout.elements
    upper = [e.desc.semantic_name.upper() for e in elements]  # semantics match without case
    out = []
    for e, name in zip(elements, upper, strict=True):
        if e.key not in reads:
            continue
        shared = upper.count(name) > 1
        label = e.desc.semantic_name + (str(e.desc.semantic_index) if shared else "")
        out.append(MeshColumn(label, e.key, e.format.shader_type, e.format.component_count))
    return out


def output_columns(signature: ShaderSignature) -> list[MeshColumn]:
    """VS Out's columns: every output of the vertex shader's signature, named as RenderDoc's
    D3D shader reflection names signature parameters: the semantic name followed by the
    semantic index when another output has the same name or the index is not 0
    (``TEXCOORD1``, ``COLOR``); the position (``SV_POSITION``) moved first, the others in
    signature order. gpuia keeps semantic names upper-case, where RenderDoc shows the shader's
    own spelling (``SV_Position``).

    Arguments:
        signature (ShaderSignature): the vertex shader's signature.

    Returns:
        A list of :class:`MeshColumn`.
    """
    outs = list(signature.outputs)
    names = [m.semantic for m in outs]
    cols = []
    for m in outs:
        indexed = names.count(m.semantic) > 1 or m.index != 0
        cols.append(MeshColumn(m.semantic + (str(m.index) if indexed else ""), m.key, m.type,
                               m.components))
    position = [c for c in cols if c.key == "SV_POSITION0"]
    return position + [c for c in cols if c.key != "SV_POSITION0"]


def instance_rows(case: Case, ia: IAResult) -> list[InstanceRows]:
    """The mesh viewer's rows of every draw and instance of a case: for each draw, one
    :class:`InstanceRows` per instance (one, flagged, for a draw that delivers nothing).

    Arguments:
        case (Case): the parsed case.
        ia (IAResult): a result of the case (the reference's, or a GPU run's, whose ``draw``
            and ``vertex`` are the reference's).

    Returns:
        A list of :class:`InstanceRows`, draw by draw, instance by instance.
    """
    draws = ia.draw.astype(np.int64)
    out = []
    for d, draw in enumerate(case.draws):
        count, instances = draw.count, draw.instance_count
        if count == 0 or instances == 0:
            out.append(InstanceRows(d, 0, np.zeros(0, np.int64), no_vertices=count == 0,
                                    no_instances=instances == 0))
            continue
        block = np.flatnonzero(draws == d)
        per = block.shape[0] // instances  # every instance delivers the same positions
        for i in range(instances):
            rows = block[i * per:(i + 1) * per]
            invocation = np.full(count, -1, np.int64)  # a position with no invocation is a cut
            invocation[ia.vertex[rows].astype(np.int64)] = rows
            out.append(InstanceRows(d, i, invocation))
    return out


def vs_outputs_note(case: Case) -> str | None:
    """Why a case has no vertex shader outputs to show, or None when it has them.

    Arguments:
        case (Case): the parsed case.

    Returns:
        The reason as a sentence, or None for a case with Stream Output or a vertex shader of
        its own.
    """
    if case.so is None and case.vertex_shader is None:
        return ("no VS outputs: the pass-through shader's outputs are its inputs (VS In); "
                "gpuia reads them back only through Stream Output, and the case has no "
                "stream_output section")
    return None


def reference_vs_outputs(case: Case, ref: IAResult) -> tuple[VSOutputs | None, str]:
    """The CPU reference's vertex shader outputs of a case with Stream Output or a vertex
    shader of its own.

    Arguments:
        case (Case): the parsed case.
        ref (IAResult): the case's reference Input Assembler result.

    Returns:
        ``(outputs, note)``: the :class:`VSOutputs` (every component known) and its source;
        or None and the reason: no outputs to show (:func:`vs_outputs_note`), a WGSL shader
        (which the CPU reference does not run), or an HLSL shader whose CPU build cannot be
        made here.
    """
    note = vs_outputs_note(case)
    if note is not None:
        return None, note
    from ...reference.vertex import pass_through_outputs

    columns = output_columns(case.shader_signature())
    if case.vertex_shader is None:
        source = "CPU reference: the pass-through shader"
        outputs = pass_through_outputs(ref, case.layout)
    elif case.hlsl is None:
        return None, ("no CPU VS outputs: the CPU reference runs the pass-through shader and "
                      "HLSL shaders, not WGSL ones")
    else:
        from ..run import shader_outputs

        source = "CPU reference: the HLSL shader run on the CPU"
        try:
            outputs = shader_outputs(case, ref) if len(ref) else {}
        except UnsupportedError as e:
            return None, f"no CPU VS outputs: {e}"
    bits = {}
    for c in columns:
        got = outputs.get(c.key)
        bits[c.key] = (np.zeros((len(ref), c.components), np.uint32) if got is None
                       else np.ascontiguousarray(got[:, :c.components], dtype=np.uint32))
    return VSOutputs(source, columns, bits), source


def gpu_vs_outputs(case: Case, ia: IAResult, so: SOResult | None) -> VSOutputs | None:
    """A GPU's vertex shader outputs as its Stream Output targets hold them, per invocation.

    Each target's written vertices are the bytes from its initial BufferFilledSize to its
    final one, ``stride`` bytes each. D3D writes the draws' complete primitives in order
    (rules 9.2-9.4) and stops at the first that does not fit (9.7), so the written vertices
    are the first ones of the reference's primitive list (``ia.primitives``); each declared
    entry's components are read there for the corner's invocation (its first written
    occurrence: a strip's vertex is written once per primitive it is in).

    Arguments:
        case (Case): the parsed case.
        ia (IAResult): a result of the case whose ``primitives`` are the reference's (the
            reference itself, or ``GPUResult.ia``).
        so (SOResult): the Stream Output the GPU wrote
            (:func:`gpuia.harness.run_gpu.run_case_so_gpu`), or None (none was read back).

    Returns:
        The :class:`VSOutputs`, ``known`` where the GPU wrote a component; None for a case
        without Stream Output or for ``so`` None.
    """
    if case.so is None or so is None:
        return None
    columns = output_columns(case.shader_signature())
    n = len(ia)
    bits = {c.key: np.zeros((n, c.components), np.uint32) for c in columns}
    known = {c.key: np.zeros((n, c.components), bool) for c in columns}
    origin = {c.key: np.full((n, c.components), -1, np.int64) for c in columns}
    vertices_per = ia.topology.vertices
    corners = ia.primitives.reshape(-1)
    for slot in case.so.slots:
        data = so.buffers.get(slot.slot)
        target = case.so_targets.get(slot.slot)
        if data is None or target is None:
            continue
        start = target.filled_size
        end = min(int(so.filled_size.get(slot.slot, start)), len(data))
        written = min(max(end - start, 0) // slot.stride, corners.shape[0])
        written -= written % vertices_per  # only whole primitives are written (rules 9.2)
        if written == 0:
            continue
        width = slot.stride // 4
        words = np.frombuffer(bytes(data), "<u4", count=len(data) // 4)
        rows = words[start // 4: start // 4 + written * width].reshape(written, width)
        invocation, first = np.unique(corners[:written], return_index=True)
        for e in slot.entries:
            if e.member is None or e.member.key not in bits:  # a gap, or no such output
                continue
            key = e.member.key
            at = e.byte_offset // 4
            comps = slice(e.start_component, e.start_component + e.component_count)
            bits[key][invocation, comps] = rows[first, at:at + e.component_count]
            known[key][invocation, comps] = True
            word = start // 4 + first[:, None] * width + at + np.arange(e.component_count)
            origin[key][invocation, comps] = (np.int64(slot.slot) << 32) | word
    return VSOutputs("GPU: Stream Output read back", columns, bits, known, origin)


def captured_vs_outputs(case: Case, gpu: GPUOutputs) -> VSOutputs:
    """A GPU's vertex shader outputs as the ``vs outputs`` run read them back, per invocation:
    every component of every output known, except those of an invocation the GPU wrote no
    record of.

    Arguments:
        case (Case): the parsed case.
        gpu (GPUOutputs): the outputs read back
            (:func:`gpuia.harness.run_outputs.run_case_outputs_gpu`).

    Returns:
        The :class:`VSOutputs`.
    """
    columns = output_columns(case.shader_signature())
    known = {c.key: np.broadcast_to(~gpu.missing[:, None], gpu.bits[c.key].shape)
             for c in columns}
    return VSOutputs("GPU: every invocation's outputs read back", columns,
                     {c.key: gpu.bits[c.key] for c in columns}, known)


def tolerated_outputs(gpu: VSOutputs, ref_so: SOResult | None, gpu_so: SOResult,
                      tolerance: ShaderTolerance | None) -> dict[str, np.ndarray]:
    """The components of a GPU's VS outputs that differ from the reference only within the
    shader tolerance: those read from a Stream Output word the SO comparison accepts
    (:func:`gpuia.harness.compare.tolerated_bytes`: a float an HLSL shader computed), so the
    VS Out table judges each component as the Stream Output line does.

    Arguments:
        gpu (VSOutputs): the GPU's outputs (:func:`gpu_vs_outputs`).
        ref_so (SOResult): the CPU reference's Stream Output, or None (nothing is tolerated).
        gpu_so (SOResult): the GPU's Stream Output.
        tolerance (ShaderTolerance): the tolerance the check compared with; None is
            :data:`gpuia.harness.compare.SHADER_TOLERANCE`.

    Returns:
        Output key -> bool ``(invocations, components)``.
    """
    from ..compare import SHADER_TOLERANCE, tolerated_bytes

    tolerance = tolerance or SHADER_TOLERANCE
    out = {key: np.zeros(bits.shape, bool) for key, bits in gpu.bits.items()}
    if ref_so is None or gpu.origin is None:
        return out
    accepted = {}
    for slot, data in gpu_so.buffers.items():
        cpu = ref_so.buffers.get(slot)
        if cpu is not None:
            accepted[slot] = tolerated_bytes(ref_so, slot, cpu, data, tolerance)[0::4]
    for key, where in gpu.origin.items():
        for slot, words in accepted.items():
            at = (where >= 0) & ((where >> 32) == slot)
            word = where[at] & 0xFFFFFFFF
            inside = word < words.shape[0]
            hit = np.zeros(word.shape, bool)
            hit[inside] = words[word[inside]]
            out[key][at] = hit
    return out


def mesh_text(result: CheckResult, max_rows: int | None = 32) -> str:
    """What ``gpuia check --table`` prints of a case beside its input tables: the VS Out table
    of each vs outputs run and each Stream Output run (CPU against GPU), or the reason the case
    has none, the
    primitive list with a column per adapter (``GPU0``, ``GPU1``, ... named below it). A case
    with a geometry shader adds the CPU reference's GS Out tables
    (:func:`.gs_out.check_gs_out_text`).

    Arguments:
        result (CheckResult): the case's result from ``cross_check(keep=True)`` (its
            ``tolerance`` judges the VS outputs of an HLSL shader).
        max_rows (int): the most rows per table; None shows all. Default 32.

    Returns:
        The text, sections headed ``== <case>: ...``.

    Raises:
        ValueError: ``result`` kept no case or reference (``keep`` was False).
    """
    from .text import primitive_table, vs_out_table

    case, ref = result.case_data, result.reference
    if case is None or ref is None:
        raise ValueError(f"{result.case}: the mesh tables need cross_check(keep=True) results")
    parts = []
    cpu, note = reference_vs_outputs(case, ref)
    so_runs = [(ln.adapter, ln.so_gpu) for ln in result.lines if ln.so_gpu is not None]
    captured = [ln for ln in result.lines if ln.vs_outputs is not None]
    if case.so is None and not captured:
        parts.append(f"== {result.case}: VS Out: {note}")
    against = (note if cpu is None else f"against the {cpu.source}, rows marked ! differ, ~ "
                                        f"within the shader tolerance")
    for line in captured:  # the vs outputs runs: every invocation's outputs
        assert line.vs_outputs is not None
        got = captured_vs_outputs(case, line.vs_outputs)
        cmp = line.output_comparison
        parts.append(f"== {result.case}: VS Out: {line.adapter}: {got.source} ({against}; - "
                     f"where a side has no value)")
        parts.append(vs_out_table(ref, cpu, got, max_rows, None if cmp is None
                                  else cmp.tolerated))
    for adapter, so_gpu in so_runs:
        gpu = gpu_vs_outputs(case, ref, so_gpu)
        if gpu is None:  # a case without Stream Output: the note above says so
            continue
        tolerated = tolerated_outputs(gpu, result.so_reference, so_gpu, result.tolerance)
        parts.append(f"== {result.case}: VS Out: {adapter}: {gpu.source} ({against}; - "
                     f"where a side has no value)")
        parts.append(vs_out_table(ref, cpu, gpu, max_rows, tolerated))
    labels = {f"GPU{i}": summary for i, summary in enumerate(result.primitives)}
    parts.append(f"== {result.case}: primitives (the CPU reference's assembly"
                 + "".join(f"; {k}: {v}" for k, v in labels.items()) + ")")
    parts.append(primitive_table(reference_primitives(ref),
                                 {k: result.primitives[v] for k, v in labels.items()}, max_rows))
    return "\n".join(parts) + "\n"
