"""The seed's colour sweep by hand (benchmarks, tests): its instance and the greedy's table row.

Why apart from sweep.py: these build an `EdgeMatching`, whose sweep hooks read sweep.py.
"""

from __future__ import annotations

import time
from typing import Any

from puzzles.edge_matching.puzzle import EdgeMatching
from puzzles.edge_matching.solvers.greedy import Greedy
from puzzles.edge_matching.sweep import point


def puzzle_for(n: int, colours: int, instance_seed: int, **options) -> EdgeMatching:
    """The seed's instance: its generator and rules (unless `options` say otherwise)."""
    kwargs = {"generator": "seed", "rotations": False, "fix_centre": True, **options}
    return EdgeMatching(n=n, colours=colours, instance_seed=instance_seed, **kwargs)


def greedy_point(n: int, colours: int, instance_seed: int, seed_faithful: bool, **options) -> dict[str, Any]:
    """Make the seed's instance and solve it with the greedy (the board is checked); seconds: the solve."""
    puzzle = puzzle_for(n, colours, instance_seed, **options)
    solver = Greedy(seed_faithful)
    start, cpu_start = time.perf_counter(), time.process_time()
    layout = solver.solve(puzzle)
    return point(puzzle, layout, solver.name, time.perf_counter() - start, time.process_time() - cpu_start)
