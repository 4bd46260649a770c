"""Decoder speed: evaluations per second of the project's bottom-left decoder against the seed's
plain numpy version (tests/oracles/seed_pentomino.py), both on the same random orders, in the same run.
Target: >= 500x.

    python -m benchmarks.bench_pentomino_decoder [--genomes 2000] [--repeats 5]
"""

from __future__ import annotations

import argparse

import numpy as np

from benchmarks import flags
from benchmarks.timing import compare, report, score_all
from puzzles.pentomino import PentominoStrip
from tests.oracles.seed_pentomino import bl_score, seed_pieces

SEED, OURS, FREE = "seed decoder (numpy)", "project decoder (numba)", "project decoder, free orientations"


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    """The flags, each checked before anything runs (benchmarks/flags.py)."""
    parser = flags.Parser("bench_pentomino_decoder", __doc__.splitlines()[0])
    parser.add_argument(
        "--genomes", type=flags.count, default=2000, help="genomes scored per repeat, by each side"
    )
    parser.add_argument(
        "--passes",
        type=flags.count,
        default=50,
        help="passes over the genomes per repeat by the compiled sides (the baseline makes one)",
    )
    parser.add_argument("--repeats", type=flags.count, default=5)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = parse(argv)
    puzzle, free = PentominoStrip(), PentominoStrip(orientations="free")
    pieces = seed_pieces(puzzle.pieces)
    genomes = [np.random.default_rng(s).permutation(12) for s in range(args.genomes)]
    free_genomes = [free.space.random(np.random.default_rng(s)) for s in range(args.genomes)]
    puzzle.fitness(genomes[0]), free.fitness(free_genomes[0])  # compile outside the clock
    timings = compare(
        {
            SEED: lambda: score_all(lambda g: bl_score(g, pieces), genomes),
            OURS: lambda: score_all(puzzle.fitness, genomes, args.passes),
            FREE: lambda: score_all(free.fitness, free_genomes, args.passes),
        },
        repeats=args.repeats,
        warmup=0,
    )
    assert timings[SEED].result == timings[OURS].result[: args.genomes]  # same answers, same genomes
    print(
        f"the same {args.genomes} genomes for both sides: the seed's decoder scores them once per "
        f"repeat, the project's {args.passes} times"
    )
    fast = args.genomes * args.passes
    free_timing = timings.pop(FREE)
    report(
        timings,
        baseline=SEED,
        work={SEED: args.genomes, OURS: fast},
        unit="evaluations",
        targets={OURS: "target >= 500x"},
    )
    report({FREE: free_timing}, work=fast, unit="evaluations")


if __name__ == "__main__":
    flags.run(main)
