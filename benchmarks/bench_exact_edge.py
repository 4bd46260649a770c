"""Exact search speed on edge matching: the lean perfect-board search against the deepening search's
first step (k = 0), which walk the same tree (tests/test_backtrack.py checks node for node).

The boards are the colour sweep's hardest for exact search (the seed's instances, no turns, centre
given): n = 13 at 8 colours and n = 15 at 10, where both sides run out of nodes; and, with turns,
a generated Eternity-II-like 7 x 7. Each side is capped at the same number of nodes, so the
ratio of times is the ratio of nodes per second. One core, CPU seconds.

    python -m benchmarks.bench_exact_edge [--nodes 200000000] [--repeats 3]
"""

from __future__ import annotations

import argparse
import time

from benchmarks.timing import compare, report
from experiments.tasks.colour_sweep import puzzle_for
from heuristics.backtrack import solve_exact
from puzzles.edge_matching import EdgeMatching

BASELINE, OURS = "deepening search, k = 0", "perfect search"


def boards() -> dict[str, EdgeMatching]:
    """The colour sweep's hard boards, and one with turns."""
    return {
        "seed n=13, 8 colours, instance 0": puzzle_for(13, 8, 0),
        "seed n=15, 10 colours, instance 0": puzzle_for(15, 10, 0),
        "generated 7x7 with turns, 6 colours": EdgeMatching(n=7, colours=6, rotations=True, instance_seed=1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=200_000_000, help="node cap per search")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    for name, p in boards().items():
        print(f"\n{name}, capped at {args.nodes:,} nodes")

        def search(perfect: bool, p=p):
            return solve_exact(p.table, p.n, p.preplaced, args.nodes, perfect_search=perfect)

        timings = compare(
            {BASELINE: lambda: search(False), OURS: lambda: search(True)},
            repeats=args.repeats,
            clock=time.process_time,
        )
        nodes = {side: t.result.nodes for side, t in timings.items()}
        assert nodes[BASELINE] == nodes[OURS], f"the sides walked different trees: {nodes}"
        found = timings[OURS].result.unmatched
        print(
            f"nodes: {nodes[OURS]:,}; {'a perfect board found' if found == 0 else 'no board within the cap'}"
        )
        report(timings, BASELINE, work=nodes[OURS], unit="nodes")


if __name__ == "__main__":
    main()
