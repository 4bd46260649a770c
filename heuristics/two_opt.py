"""2-opt local search over permutations, restarted at random until the budget is spent."""
from __future__ import annotations

import itertools

import numpy as np

from heuristics.moves import reorient, reverse, swap
from heuristics.objective import Objective
from puzzles.errors import PuzzleInputError


class TwoOpt:
    """Local search by segment reversal (or swap) moves, plus orientation moves where the space has them.

    `strategy`: "first" takes the first improving neighbour, "best" scans them all and takes the best.
    The first descent starts from the identity when `start` is "identity" (as the seed did), else at random.
    """

    name = "two_opt"

    def __init__(self, strategy: str = "first", move: str = "reversal", start: str = "random"):
        if strategy not in ("first", "best"):
            raise PuzzleInputError(f"optimizer.strategy must be 'first' or 'best', got {strategy!r}")
        if move not in ("reversal", "swap"):
            raise PuzzleInputError(f"optimizer.move must be 'reversal' or 'swap', got {move!r}")
        if start not in ("random", "identity"):
            raise PuzzleInputError(f"optimizer.start must be 'random' or 'identity', got {start!r}")
        self.strategy, self.move, self.start = strategy, move, start

    def neighbours(self, genome: np.ndarray, space, rng: np.random.Generator):
        """Every neighbour by one move, in a random order so ties break fairly."""
        step = reverse if self.move == "reversal" else swap
        pairs = list(itertools.combinations(range(space.n), 2))
        moves = [(step, i, j) for i, j in pairs]
        if space.oriented:
            moves += [(None, item, k) for item in range(space.n)
                      for k in range(space.orientations[item]) if k != genome[space.n + item]]
        for idx in rng.permutation(len(moves)):
            step_fn, a, b = moves[idx]
            yield step_fn(genome, a, b) if step_fn else reorient(genome, space, a, b)

    def descend(self, objective: Objective, genome: np.ndarray, rng: np.random.Generator):
        """Improve one genome until no neighbour is better."""
        value = objective(genome)
        improved = True
        while improved:
            improved, best = False, (value, genome)
            for candidate in self.neighbours(genome, objective.space, rng):
                score = objective(candidate)
                if score < best[0]:
                    best, improved = (score, candidate), True
                    if self.strategy == "first":
                        break
            value, genome = best
        return genome, value

    def run(self, objective: Objective, rng: np.random.Generator) -> None:
        space = objective.space
        genome = space.identity() if self.start == "identity" else space.random(rng)
        while True:
            self.descend(objective, genome, rng)
            genome = space.random(rng)
