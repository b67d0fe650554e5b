"""The numpy CPU reference: what Direct3D delivers, exactly, with no GPU involved.

One module per pipeline stage, in D3D's order:

* IA, the Input Assembler: ``ia`` (vertex sequencing and fetch), ``assembly`` (primitive
  assembly), ``decode`` (format decoding);
* VS, the vertex shader: ``vertex`` (the pass-through shader's outputs, and a shader run on the
  CPU);
* GS, the geometry shader: ``geometry`` (its invocations and their inputs, and the primitives
  its calls become: the stage's rules; the shader itself runs where the harness runs it);
* SO, Stream Output: ``stream_output`` (a vertex shader's stream 0, or each stream of a
  geometry shader);

and ``coverage``, the rasterizer's side of the raster cross-check.
"""

from .decode import bits_to_values, decode_words, gather_words
from .ia import ElementData, IAResult, run_ia

__all__ = ["run_ia", "IAResult", "ElementData", "decode_words", "gather_words", "bits_to_values"]
