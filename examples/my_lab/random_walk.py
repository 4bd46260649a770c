"""An optimiser from outside puzzlelab: swap items at random, keep a swap that is no worse."""

from __future__ import annotations

import numpy as np

from core.faces import Face


class RandomWalk:
    """Each step swaps `swaps` random pairs of positions and keeps the result when it is no worse."""

    name = "walk"
    needs = Face.FITNESS

    def __init__(self, swaps: int = 1):
        if swaps < 1:
            raise ValueError("swaps must be at least 1")
        self.swaps = swaps

    def run(self, objective, rng: np.random.Generator) -> None:
        current = objective.space.random(rng)
        value = objective(current)
        while True:
            candidate = current.copy()
            for _ in range(self.swaps):
                i, j = rng.choice(objective.space.n, 2, replace=False)
                candidate[i], candidate[j] = candidate[j], candidate[i]
            score = objective(candidate)
            if score <= value:
                current, value = candidate, score
