"""The vertex stage on the GPU side: each draw's plan (WebGPU's own vertex fetch or gpuia's
vertex pulling, and the reasons; ``plan``), the shader modules and render pipelines of both
paths (``pipelines``) and the layout translation a port can read without gpuia
(``translate``). It imports the Input Assembler stage (``gpuia.gpu.ia``) and the base."""
