"""2-opt local search over permutations, restarted at random until the budget is spent."""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

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

    def run(self, objective: Objective, rng: np.random.Generator) -> None:
        """Descents from random starts, one neighbour a step, so that a checkpoint can fall between any
        two evaluations (a pass over the moves of a board of hundreds of pieces takes seconds)."""
        space, saved = objective.space, objective.restored
        step = reverse if self.move == "reversal" else swap
        if saved is None:
            moves = rng.permutation(self.moves(space))
            s = Descent(space.identity() if self.start == "identity" else space.random(rng))
        else:
            moves, s = saved["moves"], saved["descent"]
        count = len(moves)
        while True:
            objective.checkpoint(lambda: {"moves": moves, "descent": s})
            if s.value is None:  # a new descent: score its start, then its first pass
                s.value = s.best_value = objective(s.genome)
                s.best_genome, s.start, s.done = s.genome, int(rng.integers(count)), 0
                continue
            if s.done == count:  # a pass over every move ended
                if s.best_value < s.value:  # "best": take the best neighbour, pass again
                    s.genome, s.value = s.best_genome, s.best_value
                    s.start, s.done = int(rng.integers(count)), 0
                else:  # a local optimum: restart at random
                    s.genome, s.value = space.random(rng), None
                continue
            kind, a, b = moves[(s.start + s.done) % count]
            s.done += 1
            if kind == 0:
                candidate = step(s.genome, a, b)
            elif s.genome[space.n + a] != b:
                candidate = reorient(s.genome, space, a, b)
            else:
                continue  # the item is turned that way already
            score = objective(candidate)
            if score < s.best_value:
                s.best_value, s.best_genome = score, candidate
                if self.strategy == "first":  # take it, and pass again from it
                    s.genome, s.value = candidate, score
                    s.start, s.done = int(rng.integers(count)), 0


@dataclass
class Descent:
    """Where a descent is: the genome of its pass and its value (None: not scored yet, a new start),
    the best neighbour seen in the pass, and the pass's first move and moves tried so far."""

    genome: np.ndarray
    value: float | None = None
    best_value: float = math.inf
    best_genome: np.ndarray = field(init=False)
    start: int = 0
    done: int = 0

    def __post_init__(self) -> None:
        self.best_genome = self.genome
