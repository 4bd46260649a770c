"""The vocabulary that puzzles, solvers and experiments share, owned by none of them.

`puzzles/` and `heuristics/` both import this module and never each other: a metaheuristic sees a
`PermutationSpace` and a fitness, a constructive solver sees a `ConstructivePuzzle`, an exact
solver sees a cover model. Every user mistake, wherever it is found, is an `InputError`: one line
that says what is wrong and how to fix it.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np

if TYPE_CHECKING:  # only for annotations: the objective lives with the optimisers
    from heuristics.objective import Objective


class InputError(ValueError):
    """Bad input (a config value, a piece file, an impossible puzzle, an optimiser setting) a user can fix."""


@dataclass(frozen=True)
class PermutationSpace:
    """n items to order; `orientations[i]` choices for item i, or () when the order is all.

    A genome is one flat int array: a permutation of n items, followed (when items have
    orientations) by one orientation index per *item*, so an item keeps its orientation wherever
    it moves in the order.
    """

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


@dataclass(frozen=True)
class Budget:
    """When a run ends: after `evaluations`, after `seconds`, or once best <= `target`."""

    evaluations: int | None = None
    seconds: float | None = None
    target: float | None = None

    def __post_init__(self):
        for name in ("evaluations", "seconds"):
            value = getattr(self, name)
            if value is not None and not value > 0:
                raise InputError(f"budget.{name} must be positive, got {value}")
        if self.evaluations is None and self.seconds is None:  # a target alone may never be reached
            raise InputError("the budget is unbounded: set budget.evaluations or budget.seconds")


@dataclass
class Result:
    """What one run found and what it cost; `trace` rows are (evaluations, seconds, best)."""

    best: float
    best_genome: np.ndarray
    evaluations: int
    seconds: float
    stop_reason: str
    trace: list[tuple[int, float, float]]


@runtime_checkable
class Puzzle(Protocol):
    """A puzzle seen by a metaheuristic: a space, a fitness to minimise, and a picture.

    `fitness` is what optimisers minimise and `known_optimum` its best possible value where known;
    `score` gives the numbers users read, `score_name` says what `fitness` counts (axis labels),
    and `instance_keys` name the parameters that pick one instance among many of a kind (runs of
    different optimisers on equal instance keys pair up in the statistics).
    """

    name: str
    space: PermutationSpace
    known_optimum: float | None
    score_name: str
    instance_keys: tuple[str, ...]

    def fitness(self, genome: np.ndarray) -> float: ...

    def score(self, genome: np.ndarray) -> dict[str, float]: ...

    def decode(self, genome: np.ndarray) -> Any: ...

    def draw(self, layout: Any, ax=None): ...


class Optimizer(Protocol):
    """A metaheuristic: a plain loop that calls the objective until it raises Stop."""

    name: str

    def run(self, objective: Objective, rng: np.random.Generator) -> None: ...


class ConstructiveSolver(Protocol):
    """A solver that builds one layout from the puzzle's pieces (a greedy, a backtracker)."""

    name: str

    def solve(self, puzzle: Any) -> Any: ...
