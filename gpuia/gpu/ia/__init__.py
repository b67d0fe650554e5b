"""The Input Assembler on the GPU side: how a draw's indices reach the vertex stage in D3D's
order. Each draw's index plan (bound as is, a host stream or the GPU index pass; ``plan``), the
host list streams for what WebGPU cannot assemble as D3D does (``host_lists``) and the GPU index
pass over index buffers that live only on the GPU (``index_pass``). This stage
imports the GPU side's base (devices, buffers, caches) and nothing of the later stages."""
