"""Uniform random sampling: the floor every optimiser should clear."""

from __future__ import annotations

import numpy as np

from heuristics.objective import Objective


class RandomSearch:
    """Draw genomes uniformly at random until the budget ends the run."""

    name = "random_search"

    def run(self, objective: Objective, rng: np.random.Generator) -> None:
        while True:
            objective(objective.space.random(rng))
