"""The ``geometry_shader`` section of a case file (``docs/case-format.md``) and what the rest of
the case must agree with.

:func:`case_geometry_shader` checks the object (``hlsl`` or ``hlsl_file``, with the fields an
HLSL vertex shader takes) and compiles it with :func:`gpuia.hlsl.compile_geometry_shader`, whose
declaration checks rules 13.1, 13.3, 13.4 and 13.7. :func:`check_geometry` makes the pipeline's
checks: the input primitive matches the topology's class (rules 13.2) and every input the
geometry shader reads is an output of the vertex shader, with at least its components (rules
13.9). :func:`stream_records` gives each stream's output record as the Stream Output declaration
names it (rules 8.3, 13.7), :func:`record_members` any record in that form. A malformed object
raises :class:`~gpuia.errors.CaseError`, what D3D12 refuses
:class:`~gpuia.errors.InvalidDescError` naming the rule.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ..d3d.geometry import check_linkage, check_topology
from ..d3d.signature import Member
from ..errors import CaseError, InvalidDescError, UnsupportedError
from .case_shader import hlsl_source, located

if TYPE_CHECKING:  # annotations only: the HLSL front end loads where a case has a GS
    from ..d3d.topology import TopologyInfo
    from ..hlsl import HlslGeometryShader

__all__ = ["case_geometry_shader", "check_geometry", "record_members", "stream_records"]

WHERE = "geometry_shader"


def case_geometry_shader(gs: object, base: Path) -> HlslGeometryShader:
    """Check a case's ``geometry_shader`` object and compile it.

    Arguments:
        gs (dict): ``{"hlsl": ...}`` or ``{"hlsl_file": ...}`` with the optional
            ``entry_point``, ``defines`` and ``matrix_layout``.
        base (Path): the folder ``hlsl_file`` and ``#include`` paths are relative to.

    Returns:
        The compiled :class:`gpuia.hlsl.HlslGeometryShader`.

    Raises:
        CaseError: a malformed object or field.
        InvalidDescError: a shader Slang or D3D's declaration rules refuse (rules section 13).
        UnsupportedError: no Slang compiler on this machine; a DXBC geometry shader.
    """
    if not isinstance(gs, dict):
        raise CaseError(WHERE, "expected {\"hlsl\": ...} or {\"hlsl_file\": ...}")
    forms = [k for k in ("hlsl", "hlsl_file") if k in gs]
    if not forms and ("dxbc" in gs or "dxbc_file" in gs):
        raise UnsupportedError(f"{WHERE}: a compiled (DXBC) geometry shader is not drawn: "
                               f"SPIRV-Cross, which gives gpuia HLSL of DXBC code, writes no "
                               f"HLSL geometry shaders; give its HLSL source")
    if len(forms) != 1:
        raise CaseError(WHERE, f"expected exactly one of 'hlsl' or 'hlsl_file' (a geometry "
                               f"shader is HLSL), got {forms or 'none'}")
    source = hlsl_source(gs, WHERE, base)
    from ..hlsl import compile_geometry_shader

    try:
        return compile_geometry_shader(source.text, source.entry_point, source.defines,
                                       source.matrix_layout, file_name=source.file_name,
                                       include_dirs=source.include_dirs,
                                       source_path=source.source_path)
    except InvalidDescError as e:
        raise located(e, WHERE, "geometry shader") from None


def check_geometry(gs: HlslGeometryShader, topology: TopologyInfo | None,
                   vs_outputs: tuple[Member, ...]) -> None:
    """The pipeline's checks of a geometry shader against the rest of the case.

    Arguments:
        gs (HlslGeometryShader): the compiled shader.
        topology (TopologyInfo): the case's primitive topology; None where no draw names one
            (``gpuia layout``): the class is then not checked.
        vs_outputs (tuple): the vertex shader's outputs (:class:`~gpuia.d3d.signature.Member`).

    Raises:
        InvalidDescError: the input primitive does not take the topology's class (rules 13.2);
            an input the vertex shader does not output, or with more components than its
            output has (rules 13.9).
    """
    if topology is not None:
        check_topology(gs.declaration, topology)
    check_linkage(gs.input_members, vs_outputs, WHERE)


def stream_records(gs: HlslGeometryShader) -> tuple[tuple[Member, ...], ...]:
    """Each stream's output record as :class:`~gpuia.d3d.signature.Member` values, stream 0
    first (:attr:`gpuia.hlsl.HlslGeometryShader.stream_members`)."""
    return gs.stream_members


def record_members(record) -> tuple[Member, ...]:
    """A geometry shader's record (its :attr:`~gpuia.hlsl.HlslGeometryShader.input_record` or
    a :meth:`~gpuia.hlsl.HlslGeometryShader.stream_record`) as
    :class:`~gpuia.d3d.signature.Member` values, in declaration order
    (:func:`gpuia.hlsl.geometry.signature_members`)."""
    from ..hlsl.geometry import signature_members

    return signature_members(record)
