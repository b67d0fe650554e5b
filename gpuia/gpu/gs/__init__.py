"""The geometry shader stage on the GPU: its output regions expanded into each stream's
primitives and written to the stream's Stream Output targets (:mod:`gpuia.gpu.gs.expansion`),
from the pure plan of :mod:`gpuia.gpu.gs.plan` (docs/rules.md sections 9, 10 and 13)."""
