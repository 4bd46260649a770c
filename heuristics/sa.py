"""Simulated annealing with swap, insert and reversal moves and geometric cooling."""

from __future__ import annotations

import math
from functools import partial

import numpy as np

from core.errors import InputError
from core.faces import Face
from core.objective import Objective
from core.space import PermutationSpace
from heuristics.moves import random_move

MOVES = ("swap", "insert", "reversal")


class SimulatedAnnealing:
    """Metropolis acceptance at temperature T; T *= alpha each step; reheat to t0 below t_min.

    `moves` weights the three order moves; `orientation_rate` is the chance that a step turns
    one item instead (only where the space has orientations).
    """

    name = "sa"
    needs = Face.FITNESS

    def __init__(
        self,
        t0: float = 5.0,
        alpha: float = 0.999,
        t_min: float = 0.05,
        moves: dict[str, float] | None = None,
        orientation_rate: float = 0.3,
    ):
        weights = dict(moves or {"swap": 1.0, "insert": 1.0, "reversal": 1.0})
        unknown = set(weights) - set(MOVES)
        if unknown:
            raise InputError(f"optimizer.moves: unknown move(s) {sorted(unknown)}; use {list(MOVES)}")
        if not (t0 > 0 and 0 < alpha < 1 and 0 < t_min < t0):
            raise InputError(
                f"optimizer needs t0 > t_min > 0 and 0 < alpha < 1, got t0={t0}, t_min={t_min}, alpha={alpha}"
            )
        if not 0 <= orientation_rate <= 1:
            raise InputError(f"optimizer.orientation_rate must be in [0, 1], got {orientation_rate}")
        total = sum(weights.values())
        if total <= 0 or min(weights.values()) < 0:
            raise InputError(f"optimizer.moves weights must be >= 0 and not all 0, got {weights}")
        self.t0, self.alpha, self.t_min = t0, alpha, t_min
        self.kinds = list(weights)
        self.cumulative = np.cumsum([weights[k] / total for k in self.kinds])
        self.orientation_rate = orientation_rate

    def step_kind(self, space: PermutationSpace, rng: np.random.Generator) -> str:
        """Which move to try next."""
        if space.oriented and rng.random() < self.orientation_rate:
            return "orientation"
        return self.kinds[min(int(np.searchsorted(self.cumulative, rng.random())), len(self.kinds) - 1)]

    def run(self, objective: Objective, rng: np.random.Generator) -> None:
        space, saved = objective.space, objective.restored
        if saved is None:
            current = space.random(rng)
            value, t = objective(current), self.t0
        else:
            current, value, t = saved["current"], saved["value"], saved["t"]
        while True:
            objective.checkpoint(partial(dict, current=current, value=value, t=t))
            candidate = random_move(current, space, self.step_kind(space, rng), rng)
            score = objective(candidate)
            if score <= value or rng.random() < math.exp((value - score) / t):
                current, value = candidate, score
            t *= self.alpha
            if t < self.t_min:
                t = self.t0
