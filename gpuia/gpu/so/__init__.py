"""Stream Output on the GPU side: the bound targets, counters and statistics and the compute
work of each draw (``engine``). It imports the vertex and Input Assembler stages and the
base."""
