"""The search spaces that puzzles offer and optimisers explore.

A genome is one flat int array: a permutation of n items, followed (when items have orientations)
by one orientation index per *item*, so an item keeps its orientation wherever it moves in the order.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np


@dataclass(frozen=True)
class PermutationSpace:
    """n items to order; `orientations[i]` choices for item i, or () when the order is all."""

    n: int
    orientations: tuple[int, ...] = ()

    def __post_init__(self):
        if self.orientations and len(self.orientations) != self.n:
            raise ValueError("need one orientation count per item")

    @property
    def oriented(self) -> bool:
        return bool(self.orientations) and max(self.orientations) > 1

    @cached_property
    def turnable(self) -> np.ndarray:
        """Items with more than one orientation: the only ones an orientation move can change."""
        return np.flatnonzero(np.asarray(self.orientations, dtype=np.int64) > 1)

    @property
    def genome_length(self) -> int:
        return 2 * self.n if self.orientations else self.n

    def split(self, genome: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        """(order, orientation per item) views of a genome."""
        if not self.orientations:
            return genome, None
        return genome[: self.n], genome[self.n:]

    def random(self, rng: np.random.Generator) -> np.ndarray:
        """A uniformly random genome."""
        order = rng.permutation(self.n)
        if not self.orientations:
            return order
        return np.concatenate([order, rng.integers(0, self.orientations)])

    def identity(self) -> np.ndarray:
        """Items in id order, each as drawn: the seed's starting point."""
        return np.concatenate([np.arange(self.n), np.zeros(len(self.orientations), dtype=np.int64)])

    def contains(self, genome) -> bool:
        """Is this a valid genome of the space?"""
        genome = np.asarray(genome)
        if genome.shape != (self.genome_length,):
            return False
        order, orient = self.split(genome)
        if not np.array_equal(np.sort(order), np.arange(self.n)):
            return False
        return orient is None or bool(np.all((orient >= 0) & (orient < self.orientations)))
