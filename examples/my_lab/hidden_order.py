"""A puzzle from outside puzzlelab: find a hidden order of n items (the Kendall tau distance to it)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from core.faces import Face
from core.space import PermutationSpace


class HiddenOrder:
    """Order n items as a hidden order (drawn from the instance seed) does; fitness: pairs out of order."""

    name = "hidden_order"
    offers = frozenset({Face.FITNESS})
    known_optimum = 0.0
    score_name = "pairs out of order"
    instance_keys = ("instance_seed",)

    def __init__(self, n: int = 8, instance_seed: int = 0):
        self.n, self.instance_seed = n, instance_seed
        self.space = PermutationSpace(n)
        self.rank = np.argsort(np.random.default_rng(instance_seed).permutation(n))

    def fitness(self, genome: np.ndarray) -> float:
        ranks = self.rank[np.asarray(genome)]
        return float(np.triu(ranks[:, None] > ranks[None, :]).sum())

    def score(self, genome: np.ndarray) -> dict[str, float]:
        return {"pairs_out_of_order": self.fitness(genome)}

    def decode(self, genome: np.ndarray) -> list[int]:
        return [int(self.rank[g]) for g in genome]

    def draw(self, layout: list[int], ax=None):
        fig, ax = plt.subplots(figsize=(3, 2)) if ax is None else (ax.figure, ax)
        ax.plot(layout, "o-")
        ax.set(xlabel="position", ylabel="hidden rank")
        return fig
