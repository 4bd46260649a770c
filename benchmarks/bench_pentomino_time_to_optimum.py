"""Time to the optimum (12 gaps) on the seed's fixed-orientation pentomino strip.

The project's GA (its compiled decoder) against vcopt's tspGA (pool 20) as the seed ran it (the
seed's numpy decoder), on the same seeds in the same run; vcopt's tspGA on the project decoder is
also shown, to separate the algorithm from the decoder. Target: the GA reaches 12 in >= 29 of 30
runs, with a median wall time >= 50x lower than vcopt's tspGA as the seed ran it.

    python -m benchmarks.bench_pentomino_time_to_optimum [--seeds 30] [--budget 100000]
"""
from __future__ import annotations

import argparse
import statistics

from benchmarks.seed_pentomino import bl_score, seed_pieces
from heuristics.ga import GA
from heuristics.minimize import minimize
from core import Budget
from heuristics.vcopt_baselines import VcoptTspGA
from puzzles.pentomino import PentominoStrip


class SeedScore:
    """The seed's BL_score as a picklable callable."""

    def __init__(self, pieces):
        self.pieces = pieces

    def __call__(self, genome) -> float:
        return float(bl_score(genome, self.pieces))


def measure(name, fitness, space, optimizer, seeds, budget):
    """Success count and medians (evaluations and seconds to reach 12, over successful runs)."""
    results = [minimize(fitness, space, optimizer, budget, seed) for seed in seeds]
    hits = [r for r in results if r.best <= budget.target]
    evals = statistics.median(r.evaluations for r in hits) if hits else float("nan")
    secs = statistics.median(r.seconds for r in hits) if hits else float("nan")
    print(f"{name:38s} reached 12 in {len(hits):2d}/{len(results)}   median {evals:8,.0f} evaluations"
          f"  {secs:9.4f} s", flush=True)
    return secs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=30)
    parser.add_argument("--budget", type=int, default=100_000)
    args = parser.parse_args()
    puzzle = PentominoStrip()
    seeds, budget = range(args.seeds), Budget(evaluations=args.budget, target=12)
    puzzle.fitness(puzzle.space.identity())
    ga = measure("project GA (project decoder)", puzzle.fitness, puzzle.space, GA(), seeds, budget)
    fair = measure("vcopt tspGA pool 20 (project decoder)", puzzle.fitness, puzzle.space, VcoptTspGA(), seeds, budget)
    seed = measure("vcopt tspGA pool 20 (seed's decoder)", SeedScore(seed_pieces(puzzle.pieces)), puzzle.space,
                   VcoptTspGA(), seeds, budget)
    print(f"median wall time ratio, vcopt tspGA as the seed ran it / project GA: {seed / ga:,.0f}x (target >= 50x)")
    print(f"median wall time ratio, vcopt tspGA on the project decoder / project GA: {fair / ga:,.1f}x")


if __name__ == "__main__":
    main()
