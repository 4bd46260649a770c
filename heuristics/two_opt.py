"""2-opt local search over permutations, restarted at random until the budget is spent."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import numpy as np

from core.errors import InputError
from core.faces import Face
from core.objective import Objective
from core.space import PermutationSpace
from heuristics.moves import reorient, reverse, swap


class TwoOpt:
    """Local search by segment reversal (or swap) moves, plus orientation moves where the space has them.

    `strategy`: "first" takes the first improving neighbour, "best" scans them all and takes the best.
    The first descent starts from the identity when `start` is "identity" (as the seed did), else at random.
    Neighbours are scanned in an order shuffled once per run, from a random starting point each pass,
    so a pass costs nothing before its first evaluation (boards of hundreds of pieces have 10^4+ moves).
    """

    name = "two_opt"
    needs = Face.FITNESS

    def __init__(self, strategy: str = "first", move: str = "reversal", start: str = "random"):
        if strategy not in ("first", "best"):
            raise InputError(f"optimizer.strategy must be 'first' or 'best', got {strategy!r}")
        if move not in ("reversal", "swap"):
            raise InputError(f"optimizer.move must be 'reversal' or 'swap', got {move!r}")
        if start not in ("random", "identity"):
            raise InputError(f"optimizer.start must be 'random' or 'identity', got {start!r}")
        self.strategy, self.move, self.start = strategy, move, start

    @staticmethod
    def moves(space: PermutationSpace) -> np.ndarray:
        """Every move as a row (kind, a, b): kind 0 permutes positions a, b; kind 1 turns item a to b."""
        rows = [(0, i, j) for i, j in itertools.combinations(range(space.n), 2)]
        if space.oriented:
            rows += [(1, item, k) for item in range(space.n) for k in range(space.orientations[item])]
        return np.array(rows, dtype=np.int64)

    def neighbours(
        self, genome: np.ndarray, space: PermutationSpace, moves: np.ndarray, rng: np.random.Generator
    ) -> Iterator[np.ndarray]:
        """Every neighbour by one move, starting at a random point of the (shuffled) move list."""
        step = reverse if self.move == "reversal" else swap
        start = int(rng.integers(len(moves)))
        for idx in range(start, start + len(moves)):
            kind, a, b = moves[idx % len(moves)]
            if kind == 0:
                yield step(genome, a, b)
            elif genome[space.n + a] != b:
                yield reorient(genome, space, a, b)

    def descend(
        self, objective: Objective, genome: np.ndarray, moves: np.ndarray, rng: np.random.Generator
    ) -> tuple[np.ndarray, float]:
        """Improve one genome until no neighbour is better."""
        value = objective(genome)
        improved = True
        while improved:
            improved, best = False, (value, genome)
            for candidate in self.neighbours(genome, objective.space, moves, rng):
                score = objective(candidate)
                if score < best[0]:
                    best, improved = (score, candidate), True
                    if self.strategy == "first":
                        break
            value, genome = best
        return genome, value

    def run(self, objective: Objective, rng: np.random.Generator) -> None:
        space = objective.space
        moves = rng.permutation(self.moves(space))
        genome = space.identity() if self.start == "identity" else space.random(rng)
        while True:
            self.descend(objective, genome, moves, rng)
            genome = space.random(rng)
