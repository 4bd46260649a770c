"""Time to the optimum (12 gaps) on the seed's fixed-orientation pentomino strip.

The project's GA (its compiled decoder) against vcopt's tspGA (pool 20) as the seed ran it (the
seed's numpy decoder); vcopt's tspGA on the project decoder is also shown, to separate the algorithm
from the decoder. Each side's repeat runs the same seeds (`--timed-seeds`), each run stopping at 12
gaps or at the budget; the sides are interleaved. The GA's success rate is counted over `--seeds`
seeds (seeded runs, counted once: not a timing).
Targets: the GA reaches 12 in >= 29 of 30 runs; the seed's way takes >= 50x the GA's time.

    python -m benchmarks.bench_pentomino_time_to_optimum [--seeds 30] [--timed-seeds 5] [--budget 100000] [--repeats 5]
"""

from __future__ import annotations

import argparse
import statistics

from benchmarks import flags
from benchmarks.timing import compare, report
from core.space import Budget, Result
from heuristics.ga import GA
from heuristics.minimize import minimize
from heuristics.vcopt_baselines import VcoptTspGA
from puzzles.pentomino import PentominoStrip
from tests.oracles.seed_pentomino import bl_score, seed_pieces

GA_SIDE, FAIR, SEED = (
    "project GA (project decoder)",
    "vcopt tspGA (project decoder)",
    "vcopt tspGA (seed's decoder)",
)


class SeedScore:
    """The seed's BL_score as a picklable callable."""

    def __init__(self, pieces):
        self.pieces = pieces

    def __call__(self, genome) -> float:
        return float(bl_score(genome, self.pieces))


def runs(fitness, space, make_optimizer, seeds, budget: Budget) -> list[Result]:
    """One seeded run per seed, each stopping at the target or the budget."""
    return [minimize(fitness, space, make_optimizer(), budget, seed) for seed in seeds]


def summary(results: list[Result], target: float) -> str:
    """How many runs reached the target, and their median evaluations to get there."""
    hits = [r.evaluations for r in results if r.best <= target]
    median = f"{statistics.median(hits):,.0f}" if hits else "-"
    return f"reached {target:g} in {len(hits)}/{len(results)}, median {median} evaluations"


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    """The flags, each checked before anything runs (benchmarks/flags.py)."""
    parser = flags.Parser("bench_pentomino_time_to_optimum", __doc__.splitlines()[0])
    parser.add_argument("--seeds", type=flags.count, default=30, help="seeds for the GA's success rate")
    parser.add_argument(
        "--timed-seeds", type=flags.count, default=5, help="seeds run by every side in each timed repeat"
    )
    parser.add_argument("--budget", type=flags.count, default=100_000)
    parser.add_argument("--repeats", type=flags.count, default=5)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = parse(argv)
    puzzle = PentominoStrip()
    budget = Budget(evaluations=args.budget, target=12)
    puzzle.fitness(puzzle.space.identity())  # compile outside the clock
    success = runs(puzzle.fitness, puzzle.space, GA, range(args.seeds), budget)
    print(f"project GA, {args.seeds} seeds: {summary(success, 12)} (target: 12 in >= 29 of 30)")

    seeds, seed_score = range(args.timed_seeds), SeedScore(seed_pieces(puzzle.pieces))
    timings = compare(
        {
            GA_SIDE: lambda: runs(puzzle.fitness, puzzle.space, GA, seeds, budget),
            FAIR: lambda: runs(puzzle.fitness, puzzle.space, VcoptTspGA, seeds, budget),
            SEED: lambda: runs(seed_score, puzzle.space, VcoptTspGA, seeds, budget),
        },
        repeats=args.repeats,
        warmup=0,
    )
    print(
        f"wall time of the same {args.timed_seeds} seeded runs per side (each to 12 gaps or "
        f"{args.budget:,} evaluations):"
    )
    for name, t in timings.items():
        print(f"  {name}: {summary(t.result, 12)}")
    report(timings, baseline=SEED, targets={GA_SIDE: "target >= 50x"})
    print(
        f"the algorithm alone (both on the project decoder): ratio "
        f"{timings[FAIR].median / timings[GA_SIDE].median:,.1f}x, {GA_SIDE} vs {FAIR}"
    )


if __name__ == "__main__":
    flags.run(main)
