"""Fitness speed: evaluations per second on a 16 x 16 board with rotations (Eternity II's size
and rules, 22 colours), the project's compiled fitness against a plain numpy version
(benchmarks/edge_fitness_numpy.py), on the same random genomes, measured in the same run.

    python -m benchmarks.bench_edge_fitness [--seconds 3]
"""
from __future__ import annotations

import argparse

import numpy as np

from benchmarks.timing import rate
from benchmarks.edge_fitness_numpy import unmatched_numpy
from core import Budget
from heuristics.objective import Objective
from puzzles.edge_matching import EdgeMatching


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    args = parser.parse_args()
    puzzle = EdgeMatching(n=16, colours=22, rotations=True, fix_centre=False, instance_seed=0)
    genomes = [puzzle.space.random(np.random.default_rng(s)) for s in range(500)]
    assert all(puzzle.fitness(g) == unmatched_numpy(g, puzzle) for g in genomes)  # same answers first
    fast = rate(puzzle.fitness, genomes, args.seconds)
    plain = rate(lambda g: unmatched_numpy(g, puzzle), genomes, args.seconds)
    objective = Objective(puzzle.fitness, puzzle.space, Budget(evaluations=10**12))
    wrapped = rate(objective, genomes, args.seconds)
    print(f"16x16, rotations, genome of {puzzle.space.genome_length} integers")
    print(f"compiled fitness : {fast:12,.0f} evaluations/s")
    print(f"plain numpy      : {plain:12,.0f} evaluations/s")
    print(f"ratio            : {fast / plain:12.1f}x")
    print(f"through Objective: {wrapped:12,.0f} evaluations/s (budget counting and trace included)")


if __name__ == "__main__":
    main()
