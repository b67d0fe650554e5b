"""The GPU side's geometry shader input primitives (gpuia.gpu.gs.assembly), against lists
derived by hand from docs/rules.md 13.1 (the input order, adjacency included), 13.3
(SV_PrimitiveID per instance across cuts), 5.4 and 4.9 (cuts end runs, incomplete primitives
dropped) and 9.3 (an odd strip triangle's order). Each row: the input vertices' places in the
draw's vertex shader outputs (instance * count + position), then SV_PrimitiveID."""

from __future__ import annotations

import numpy as np
import pytest

from gpuia.d3d.topology import topology_info
from gpuia.gpu.gs.assembly import gs_primitives


def rows(topology, count, instances=1, cut_at=()):
    cuts = None
    if cut_at:
        cuts = np.zeros(count, bool)
        cuts[list(cut_at)] = True
    return gs_primitives(topology_info(topology), count, instances, cuts).tolist()


@pytest.mark.parametrize("topology, count, expected", [
    ("POINTLIST", 2, [[0, 0], [1, 1]]),
    ("LINELIST", 5, [[0, 1, 0], [2, 3, 1]]),  # the fifth vertex is left over (4.9)
    ("LINESTRIP", 3, [[0, 1, 0], [1, 2, 1]]),
    ("TRIANGLELIST", 7, [[0, 1, 2, 0], [3, 4, 5, 1]]),
    # odd triangles (t, t+2, t+1) (9.3)
    ("TRIANGLESTRIP", 5, [[0, 1, 2, 0], [1, 3, 2, 1], [2, 3, 4, 2]]),
    ("LINELIST_ADJ", 8, [[0, 1, 2, 3, 0], [4, 5, 6, 7, 1]]),
    ("LINESTRIP_ADJ", 5, [[0, 1, 2, 3, 0], [1, 2, 3, 4, 1]]),
    ("TRIANGLELIST_ADJ", 12, [[0, 1, 2, 3, 4, 5, 0], [6, 7, 8, 9, 10, 11, 1]]),
    # 13.1: the only triangle (0, 1, 2, 5, 4, 3)
    ("TRIANGLESTRIP_ADJ", 6, [[0, 1, 2, 5, 4, 3, 0]]),
    # 7 vertices: still (7 - 4) // 2 = 1 triangle, the seventh left over
    ("TRIANGLESTRIP_ADJ", 7, [[0, 1, 2, 5, 4, 3, 0]]),
    # 10 vertices, 3 triangles: first (0, 1, 2, 6, 4, 3); odd i = 1 (2, 5, 6, 8, 4, 0);
    # last, even i = 2: (4, 2, 6, 10, 8, 7) with 2i + 6 = 10 taken as 2i + 5 = 9
    ("TRIANGLESTRIP_ADJ", 10, [[0, 1, 2, 6, 4, 3, 0], [2, 5, 6, 8, 4, 0, 1],
                               [4, 2, 6, 9, 8, 7, 2]]),
    # 12 vertices, 4 triangles: i = 2 is even and not last: (4, 2, 6, 10, 8, 7); i = 3 odd
    # and last: (6, 9, 10, 12 -> 11, 4, 2)
    ("TRIANGLESTRIP_ADJ", 12, [[0, 1, 2, 6, 4, 3, 0], [2, 5, 6, 8, 4, 0, 1],
                               [4, 2, 6, 10, 8, 7, 2], [6, 9, 10, 11, 8, 4, 3]]),
])
def test_input_primitives(topology, count, expected):
    assert rows(topology, count) == expected


def test_cuts_end_runs_and_primitive_ids_run_on():
    # Strip 0 1 2 3 | cut at 4 | 5 6 | cut at 7 | 8 9 10: runs (0 1 2 3), (5 6), (8 9 10).
    # Triangles (0,1,2) (1,3,2), none in (5 6), (8,9,10): ids 0, 1, 2 across the cuts (13.3).
    assert rows("TRIANGLESTRIP", 11, cut_at=(4, 7)) == [[0, 1, 2, 0], [1, 3, 2, 1],
                                                        [8, 9, 10, 2]]
    # Line strip with adjacency 0 1 2 3 4 | cut | 6 7 8 9: (0 1 2 3) (1 2 3 4) (6 7 8 9).
    assert rows("LINESTRIP_ADJ", 10, cut_at=(5,)) == [[0, 1, 2, 3, 0], [1, 2, 3, 4, 1],
                                                      [6, 7, 8, 9, 2]]
    # A strip with adjacency after a cut starts its own first triangle: 0 | 1..6 is one
    # triangle on places 1..6 in the "only triangle" order (1, 2, 3, 6, 5, 4).
    assert rows("TRIANGLESTRIP_ADJ", 7, cut_at=(0,)) == [[1, 2, 3, 6, 5, 4, 0]]


def test_instances_repeat_the_list_on_their_own_places():
    # Two instances of a 4-vertex line strip: instance 1's places are 4 + those of instance
    # 0, and its SV_PrimitiveID starts again at 0 (13.3).
    assert rows("LINESTRIP", 4, instances=2) == [[0, 1, 0], [1, 2, 1], [2, 3, 2],
                                                 [4, 5, 0], [5, 6, 1], [6, 7, 2]]


def test_nothing_complete_gives_no_row():
    assert rows("TRIANGLELIST", 2) == [] and rows("TRIANGLESTRIP_ADJ", 5) == []
    assert gs_primitives(topology_info("LINELIST_ADJ"), 3, 2).shape == (0, 5)
