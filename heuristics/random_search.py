"""Uniform random sampling: the floor every optimiser should clear."""

from __future__ import annotations

import numpy as np

from core.faces import Face
from core.objective import Objective


class RandomSearch:
    """Draw genomes uniformly at random until the budget ends the run."""

    name = "random_search"
    needs = Face.FITNESS

    def run(self, objective: Objective, rng: np.random.Generator) -> None:
        while True:
            objective.checkpoint(lambda: None)  # its whole state is the RNG's, which the objective keeps
            objective(objective.space.random(rng))
