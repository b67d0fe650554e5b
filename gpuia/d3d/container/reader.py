"""A compiled shader container (FXC's DXBC or DXC's DXIL) read into one frozen value."""

from __future__ import annotations

from dataclasses import dataclass

from ...errors import ContainerError
from .checksum import dxbc_checksum
from .chunks import Chunk, read_chunks
from .program import GeometryDeclarations, read_dxil, read_tokens
from .signatures import SignatureParameter, read_signature

__all__ = ["ShaderContainer", "read_container", "SIGNATURE_CHUNKS", "PROGRAM_CHUNKS"]

SIGNATURE_CHUNKS = {"input": ("ISG1", "ISGN"), "output": ("OSG1", "OSG5", "OSGN"),
                    "patch_constant": ("PSG1", "PCSG")}
"""Which chunks hold each signature, the first found of each row read."""

PROGRAM_CHUNKS = ("SHEX", "SHDR", "DXIL", "ILDB")
"""The chunks that hold the program: DXBC's tokens, DXIL's bitcode (ILDB: with debug data)."""


@dataclass(frozen=True)
class ShaderContainer:
    """What a compiled shader container declares.

    Attributes:
        container (str): ``"DXBC"`` (a SHDR or SHEX program) or ``"DXIL"``.
        stage (str): ``"vertex"``, ``"pixel"``, ``"geometry"``, ``"hull"``, ``"domain"``,
            ``"compute"``, ... (:data:`gpuia.d3d.container.program.STAGES`).
        shader_model (str): ``"5_0"``, ``"6_1"``.
        input_signature, output_signature, patch_constant_signature (tuple): the
            :class:`SignatureParameter` rows, in stored order (empty without the chunk).
        geometry (GeometryDeclarations): a geometry shader's declarations; None for other
            stages and for a DXIL container without a PSV0 chunk.
        chunks (tuple): (four-character code, file offset of its data, size) per chunk.
        checksum_stored (bytes): the 16 bytes after the magic.
        checksum_computed (bytes): what D3D computes and compares them with.
    """

    container: str
    stage: str
    shader_model: str
    input_signature: tuple[SignatureParameter, ...]
    output_signature: tuple[SignatureParameter, ...]
    patch_constant_signature: tuple[SignatureParameter, ...]
    geometry: GeometryDeclarations | None
    chunks: tuple[tuple[str, int, int], ...]
    checksum_stored: bytes
    checksum_computed: bytes

    @property
    def signed(self) -> bool:
        """Whether a checksum is stored at all (DXC without a validator stores zeros)."""
        return any(self.checksum_stored)

    @property
    def checksum_ok(self) -> bool:
        """Whether the stored checksum is the computed one (D3D refuses the blob if not)."""
        return self.checksum_stored == self.checksum_computed


def _first(chunks: tuple[Chunk, ...], codes: tuple[str, ...]) -> Chunk | None:
    for code in codes:
        for chunk in chunks:
            if chunk.fourcc == code:
                return chunk
    return None


def read_container(blob: bytes) -> ShaderContainer:
    """Read a DXBC or DXIL container.

    Arguments:
        blob (bytes): the whole file (a ``.cso``, FXC's or DXC's output).

    Returns:
        A :class:`ShaderContainer`. The checksum is computed and reported, not enforced.

    Raises:
        ContainerError: not a container, truncated or inconsistent (an offset, count or size
            past its chunk or the file, a name outside its chunk, no chunk, no program chunk),
            naming the chunk and the byte offset.
    """
    blob = bytes(blob)
    chunks = read_chunks(blob)
    program = _first(chunks, PROGRAM_CHUNKS)
    if program is None:
        found = ", ".join(c.fourcc for c in chunks)
        raise ContainerError("header", 28, f"no program chunk ({', '.join(PROGRAM_CHUNKS)}) "
                                           f"among the chunks {found}")
    dxil = program.fourcc in ("DXIL", "ILDB")
    info = read_dxil(program, _first(chunks, ("PSV0",))) if dxil else read_tokens(program)
    signatures = {}
    for kind, codes in SIGNATURE_CHUNKS.items():
        chunk = _first(chunks, codes)
        pixel_outputs = not dxil and kind == "output" and info.stage == "pixel"
        signatures[kind] = () if chunk is None else read_signature(chunk, pixel_outputs)
    return ShaderContainer(
        "DXIL" if dxil else "DXBC", info.stage, info.shader_model, signatures["input"],
        signatures["output"], signatures["patch_constant"], info.geometry,
        tuple((c.fourcc, c.offset, c.size) for c in chunks), blob[4:20], dxbc_checksum(blob))
