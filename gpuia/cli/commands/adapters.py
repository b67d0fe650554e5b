"""``gpuia adapters``: list the GPU adapters wgpu finds, with the limits, features and quirks
gpuia depends on (``--json``: one machine-readable document). Exit status 0, also when there
is no adapter ("no GPU adapter found")."""

from __future__ import annotations

import json

from ..common import EXIT_OK

__all__ = ["add_parser", "run"]


def add_parser(subparsers):
    p = subparsers.add_parser("adapters", help="list GPU adapters with the limits gpuia depends "
                                               "on")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    return p


def run(args) -> int:
    # The GPU side imports wgpu: only when this command runs.
    from ...gpu import list_adapters

    adapters = list_adapters()
    if args.json:
        print(json.dumps([dict(a.as_dict(), limits=a.caps.as_dict(), features=list(a.features))
                          for a in adapters], indent=1))
        return EXIT_OK
    if not adapters:
        print("no GPU adapter found")
        return EXIT_OK
    for a in adapters:
        c = a.caps
        print(f"[{a.index}] {a.summary}")
        print(f"    backend {a.backend}, type {a.type}")
        print(f"    vertex buffers {c.max_vertex_buffers}, vertex attributes "
              f"{c.max_vertex_attributes}, max stride {c.max_vertex_buffer_array_stride}")
        print(f"    storage buffers per stage {c.max_storage_buffers_per_shader_stage}, "
              f"max storage binding {c.max_storage_buffer_binding_size}, "
              f"max buffer {c.max_buffer_size}")
        print(f"    vertex-writable-storage {'yes' if c.vertex_writable_storage else 'no'}, "
              f"indirect-first-instance {'yes' if c.indirect_first_instance else 'no'}, "
              f"pipeline-statistics-query {'yes' if c.pipeline_statistics_query else 'no'}")
        print(f"    uniform buffers per stage {c.max_uniform_buffers_per_shader_stage}, "
              f"bind groups {c.max_bind_groups}")
        for q in c.quirks:
            print(f"    quirk: {q.reason}")
    return EXIT_OK
