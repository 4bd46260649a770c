"""The search-space vocabulary: what a metaheuristic searches (`PermutationSpace`), when it stops
(`Budget`) and what it reports (`Result`)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from core.errors import InputError


@dataclass(frozen=True)
class PermutationSpace:
    """n items to order; `orientations[i]` choices for item i, or () when the order is all.

    A genome is one flat int array: a permutation of n items, followed (when items have
    orientations) by one orientation index per *item*, so an item keeps its orientation wherever
    it moves in the order.
    """

    n: int
    orientations: tuple[int, ...] = ()

    def __post_init__(self) -> None:
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
        return genome[: self.n], genome[self.n :]

    def random(self, rng: np.random.Generator) -> np.ndarray:
        """A uniformly random genome."""
        order = rng.permutation(self.n)
        if not self.orientations:
            return order
        return np.concatenate([order, rng.integers(0, self.orientations)])

    def identity(self) -> np.ndarray:
        """Items in id order, each as drawn: the seed's starting point."""
        return np.concatenate([np.arange(self.n), np.zeros(len(self.orientations), dtype=np.int64)])

    def contains(self, genome: Sequence[int] | np.ndarray) -> bool:
        """Is this a valid genome of the space?"""
        array = np.asarray(genome)
        if array.shape != (self.genome_length,):
            return False
        order, orient = self.split(array)
        if not np.array_equal(np.sort(order), np.arange(self.n)):
            return False
        return orient is None or bool(np.all((orient >= 0) & (orient < self.orientations)))


@dataclass(frozen=True)
class Budget:
    """When a run ends: after `evaluations`, after `seconds`, or once best <= `target`."""

    evaluations: int | None = None
    seconds: float | None = None
    target: float | None = None

    def __post_init__(self) -> None:
        check_limits(self.evaluations, self.seconds)
        if self.evaluations is None and self.seconds is None:  # a target alone may never be reached
            raise InputError("the budget is unbounded: set budget.evaluations or budget.seconds")


LARGEST_COUNT = 2**63 - 1  # what a record's int64 columns hold


def check_limits(evaluations: int | None, seconds: float | None) -> None:
    """The one budget check: a count a record can store, a time that ends. Run before any work."""
    if evaluations is not None and not 0 < evaluations <= LARGEST_COUNT:
        bound = "positive" if evaluations <= 0 else "at most 2^63 - 1 (what a record stores)"
        raise InputError(f"budget.evaluations must be {bound}, got {evaluations}")
    if seconds is not None and not 0 < seconds < math.inf:
        bound = "positive" if not seconds > 0 else "finite"
        raise InputError(f"budget.seconds must be {bound}, got {seconds}")


@dataclass
class Result:
    """What one run found and what it cost; `trace` rows are (evaluations, seconds, best).

    `seconds` is read on the run's clock (wall-clock unless `minimize` was given another);
    `cpu_seconds` is the process's CPU time over the same span (every thread, numba's included).
    """

    best: float
    best_genome: np.ndarray
    evaluations: int
    seconds: float
    stop_reason: str
    trace: list[tuple[int, float, float]]
    cpu_seconds: float | None = None
