"""DrawAuto's compute step: the draw's vertex count from a BufferFilledSize counter, on the GPU.

One invocation of ``gpuia.wgsl.so_pass``'s ``draw_auto_program`` reads the counter where the
GPU left it (nothing is read back, so the Stream Output of every draw encoded before counts)
and writes draw-indirect arguments: (BufferLocation + BufferFilledSize - the IA view's offset)
/ the IA view's stride vertices, 0 where that is negative or the stride is 0 (D3D11.3 spec
8.9), one instance. Encoded into the context's command encoder, in submission order.
"""

from __future__ import annotations

import numpy as np

from ...wgsl.blocks import DRAW_AUTO
from ...wgsl.so_pass import draw_auto_program

__all__ = ["DrawAutoPass"]

_AUTO_WORDS = DRAW_AUTO.words()
_AUTO_COUNTER, _AUTO_LOCATION, _AUTO_IA_OFFSET, _AUTO_STRIDE = (DRAW_AUTO.word(name) for name in (
    "counter_word", "location", "ia_offset", "stride"))


class DrawAutoPass:
    """DrawAuto's compute step for one context; its pipeline is built on first use.

    Arguments:
        device: the gpuia Device.
        recorder: the context's Recorder (``compute_encoder()``, ``keep(obj)``).
    """

    def __init__(self, device, recorder):
        self.device = device
        self.recorder = recorder
        self._pipeline = None

    def encode(self, counter, counter_offset: int, location: int, ia_offset: int, stride: int):
        """Encode the compute step of DrawAuto over the counter at byte ``counter_offset`` of
        the wgpu buffer ``counter``, for an SO view at BufferLocation ``location`` read by an
        IA view at ``ia_offset`` with ``stride``; returns the indirect-args buffer it fills."""
        dev = self.device.device
        if self._pipeline is None:
            mod = dev.create_shader_module(code=draw_auto_program())
            self._pipeline = dev.create_compute_pipeline(
                layout="auto", compute={"module": mod, "entry_point": "main"})
        args = dev.create_buffer(size=16, usage="STORAGE|INDIRECT")
        words = np.zeros(_AUTO_WORDS, np.uint32)
        words[_AUTO_COUNTER] = counter_offset // 4
        words[_AUTO_LOCATION] = location
        words[_AUTO_IA_OFFSET] = ia_offset
        words[_AUTO_STRIDE] = stride
        params = dev.create_buffer_with_data(data=words, usage="UNIFORM")
        group = dev.create_bind_group(layout=self._pipeline.get_bind_group_layout(0), entries=[
            {"binding": 0, "resource": {"buffer": counter, "offset": 0, "size": counter.size}},
            {"binding": 1, "resource": {"buffer": args, "offset": 0, "size": 16}},
            {"binding": 2, "resource": {"buffer": params, "offset": 0, "size": 4 * _AUTO_WORDS}}])
        self.recorder.keep((args, params, group))
        cp = self.recorder.compute_encoder().begin_compute_pass()
        cp.set_pipeline(self._pipeline)
        cp.set_bind_group(0, group)
        cp.dispatch_workgroups(1)
        cp.end()
        return args
