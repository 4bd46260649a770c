"""Decoder speed: evaluations per second of the project's bottom-left decoder against the seed's
plain numpy version (benchmarks/seed_pentomino.py), on the same random orders. Target: >= 500x.

    python -m benchmarks.bench_pentomino_decoder [--seconds 3]
"""
from __future__ import annotations

import argparse

import numpy as np

from benchmarks.timing import rate
from benchmarks.seed_pentomino import bl_score, seed_pieces
from puzzles.pentomino import PentominoStrip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    args = parser.parse_args()
    puzzle = PentominoStrip()
    pieces = seed_pieces(puzzle.pieces)
    genomes = [np.random.default_rng(s).permutation(12) for s in range(200)]
    assert all(puzzle.fitness(g) == bl_score(g, pieces) for g in genomes)  # same answers first
    puzzle.fitness(genomes[0])  # compile outside the clock
    fast = rate(puzzle.fitness, genomes, args.seconds)
    slow = rate(lambda g: bl_score(g, pieces), genomes[:20], args.seconds)
    free = PentominoStrip(orientations="free")
    free_genomes = [free.space.random(np.random.default_rng(s)) for s in range(200)]
    free_rate = rate(free.fitness, free_genomes, args.seconds)
    print(f"seed decoder (numpy)      : {slow:12,.0f} evaluations/s")
    print(f"project decoder (numba)   : {fast:12,.0f} evaluations/s   ratio {fast / slow:,.0f}x (target >= 500x)")
    print(f"project decoder, free     : {free_rate:12,.0f} evaluations/s")


if __name__ == "__main__":
    main()
