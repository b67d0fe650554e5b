"""The rasterizer on the GPU side: how a planned draw reaches a WebGPU render pass (its
primitive state and draw calls, ``drawcall``) and the raster probe that records what a device
rasterizes (``probe``). It imports the vertex and Input Assembler stages and the base."""
