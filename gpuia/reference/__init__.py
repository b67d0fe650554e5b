"""The numpy CPU reference: what Direct3D delivers, exactly, with no GPU involved."""

from .decode import bits_to_values, decode_words, gather_words
from .ia import ElementData, IAResult, run_ia

__all__ = ["run_ia", "IAResult", "ElementData", "decode_words", "gather_words", "bits_to_values"]
