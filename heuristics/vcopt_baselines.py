"""vcopt's opt2 and tspGA, run unchanged on the project's objective, as baselines.

vcopt ends a run when it meets its own stopping rule; the adapters then restart it with a new
seed until the objective's budget stops them. vcopt orders items only: it has no orientation genes.
"""
from __future__ import annotations

import numpy as np
from vcopt import vcopt

from heuristics.objective import Objective
from puzzles.errors import PuzzleInputError


def _order_only(objective: Objective, name: str) -> None:
    """vcopt cannot search orientations; say so instead of silently ignoring them."""
    if objective.space.orientations:
        raise PuzzleInputError(
            f"{name} orders items only and cannot choose orientations; "
            "use it on a fixed-orientation puzzle (e.g. puzzle.orientations=fixed)")


def _aim(objective: Objective) -> float:
    """vcopt's 'aim' is the score it tries to reach: the target when there is one."""
    return objective.budget.target if objective.budget.target is not None else 0.0


class VcoptOpt2:
    """vcopt().opt2 from random starting orders (the first from the identity, as in seed 002)."""

    name = "vcopt_opt2"

    def __init__(self, start: str = "identity"):
        self.start = start

    def run(self, objective: Objective, rng: np.random.Generator) -> None:
        _order_only(objective, self.name)
        space = objective.space
        para = space.identity() if self.start == "identity" else space.random(rng)
        while True:
            vcopt().opt2(para, objective, _aim(objective), show_para_func=None,
                         seed=int(rng.integers(2**31)))
            para = space.random(rng)


class VcoptTspGA:
    """vcopt().tspGA with the seed's pool size, restarted when it stops by itself."""

    name = "vcopt_tspga"

    def __init__(self, pool_num: int = 20, max_gen: int | None = None):
        self.pool_num, self.max_gen = pool_num, max_gen

    def run(self, objective: Objective, rng: np.random.Generator) -> None:
        _order_only(objective, self.name)
        items = np.arange(objective.space.n)
        while True:
            vcopt().tspGA(items, objective, _aim(objective), show_pool_func=None,
                          seed=int(rng.integers(2**31)), pool_num=self.pool_num, max_gen=self.max_gen)
