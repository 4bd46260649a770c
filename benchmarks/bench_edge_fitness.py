"""Fitness speed: evaluations per second on a 16 x 16 board with rotations (Eternity II's size
and rules, 22 colours), the project's compiled fitness against a plain numpy version
(benchmarks/edge_fitness_numpy.py), on the same random genomes, measured in the same run.

    python -m benchmarks.bench_edge_fitness [--genomes 5000] [--repeats 5]
"""

from __future__ import annotations

import argparse

import numpy as np

from benchmarks import flags
from benchmarks.edge_fitness_numpy import unmatched_numpy
from benchmarks.timing import compare, report, score_all
from core.objective import Objective
from core.space import Budget
from puzzles.edge_matching import EdgeMatching

PLAIN, OURS, WRAPPED = "plain numpy", "compiled fitness", "compiled, through Objective"


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    """The flags, each checked before anything runs (benchmarks/flags.py)."""
    parser = flags.Parser("bench_edge_fitness", __doc__.splitlines()[0])
    parser.add_argument(
        "--genomes", type=flags.count, default=5000, help="genomes scored per repeat, by each side"
    )
    parser.add_argument(
        "--passes",
        type=flags.count,
        default=10,
        help="passes over the genomes per repeat by the compiled sides (the baseline makes one)",
    )
    parser.add_argument("--repeats", type=flags.count, default=5)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = parse(argv)
    puzzle = EdgeMatching(n=16, colours=22, rotations=True, fix_centre=False, instance_seed=0)
    genomes = [puzzle.space.random(np.random.default_rng(s)) for s in range(args.genomes)]
    objective = Objective(puzzle.fitness, puzzle.space, Budget(evaluations=10**12))
    puzzle.fitness(genomes[0])  # compile outside the clock
    timings = compare(
        {
            PLAIN: lambda: score_all(lambda g: unmatched_numpy(g, puzzle), genomes),
            OURS: lambda: score_all(puzzle.fitness, genomes, args.passes),
            WRAPPED: lambda: score_all(objective, genomes, args.passes),
        },
        repeats=args.repeats,
        warmup=0,
    )
    assert (
        timings[PLAIN].result
        == timings[OURS].result[: args.genomes]
        == timings[WRAPPED].result[: args.genomes]
    )
    print(
        f"16x16, rotations, genome of {puzzle.space.genome_length} integers; the same {args.genomes} "
        f"genomes for every side: plain numpy scores them once per repeat, the compiled sides {args.passes} times"
    )
    fast = args.genomes * args.passes
    report(
        timings,
        baseline=PLAIN,
        work={PLAIN: args.genomes, OURS: fast, WRAPPED: fast},
        unit="evaluations",
        targets={WRAPPED: "budget counting and trace included"},
    )


if __name__ == "__main__":
    flags.run(main)
