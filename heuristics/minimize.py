"""The driver: one call runs one optimiser on one fitness under one budget, like pymoo's `minimize`."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Protocol

import numpy as np

from heuristics.objective import Budget, Objective, Stop
from puzzles.errors import PuzzleInputError
from puzzles.space import PermutationSpace


class Optimizer(Protocol):
    """An optimiser is a plain loop that calls the objective until it raises Stop."""

    name: str

    def run(self, objective: Objective, rng: np.random.Generator) -> None: ...


@dataclass
class Result:
    """What one run found and what it cost; `trace` rows are (evaluations, seconds, best)."""

    best: float
    best_genome: np.ndarray
    evaluations: int
    seconds: float
    stop_reason: str
    trace: list[tuple[int, float, float]]


def minimize(fitness: Callable[[np.ndarray], float], space: PermutationSpace,
             optimizer: Optimizer, budget: Budget, seed: int,
             on_progress: Callable[[Objective], None] | None = None) -> Result:
    """Run `optimizer` on `fitness` until the budget ends it; seeded, so it reproduces."""
    if space.n < 2:
        raise PuzzleInputError(f"nothing to optimise: the search space orders {space.n} item(s)")
    objective = Objective(fitness, space, budget, on_progress=on_progress)
    rng = np.random.default_rng(seed)
    try:
        optimizer.run(objective, rng)
        reason = "finished"
    except Stop as stop:
        reason = stop.reason
    return Result(objective.best, objective.best_genome, objective.evaluations,
                  objective.seconds, reason, objective.trace)
