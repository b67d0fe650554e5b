"""Stream Output on the GPU side: the engine the context calls (``engine``) and its parts, one
job each: the bound targets and counters (``targets``), the overflow flag, the statistics and
the host's copy of them (``statistics``), each draw's plan (``plan``), its uniform block
(``block``), its dispatches (``passes``, ``chunked``), the pipelines (``programs``) and DrawAuto's
compute step (``draw_auto``). It imports the vertex and Input Assembler stages and the base."""
