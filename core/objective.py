"""The one objective wrapper every optimiser calls, and the optimiser protocol beside it.

It counts evaluations, keeps the best-so-far trace and ends the run on a budget, so optimisers
stay plain loops: they call the objective until it raises `Stop`.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from core import interrupt
from core.faces import Face, LocalSearchFace
from core.space import Budget, PermutationSpace

if TYPE_CHECKING:
    from core.checkpoint import Checkpoint

PROGRESS_EVERY = 1000


class Stop(Exception):
    """Raised by the objective when the budget is spent or the target is reached."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


@dataclass
class Objective:
    """A fitness to minimise, wrapped with a budget and a best-so-far trace.

    `trace` holds one row (evaluations, seconds, best) per improvement. With `checkpoints`, an
    optimiser that calls `checkpoint` keeps its search state there, and `restored` hands a continued
    run the state it saved (None: a fresh run).
    """

    fitness: Callable[[np.ndarray], float]
    space: PermutationSpace
    budget: Budget
    clock: Callable[[], float] = time.perf_counter
    on_progress: Callable[[Objective], None] | None = None  # called every PROGRESS_EVERY evaluations
    face: LocalSearchFace | None = None  # the puzzle's local-search face, for compiled optimisers
    evaluations: int = 0
    best: float = math.inf
    best_genome: np.ndarray | None = None
    trace: list[tuple[int, float, float]] = field(default_factory=list)
    checkpoints: Checkpoint | None = None  # where a long run keeps its search state (core.checkpoint)
    restored: Any = None  # what the optimiser's snapshot returned, when the run continues from it

    def __post_init__(self) -> None:
        self.started = self.clock()
        self.stops_at_checkpoints = False  # True once the optimiser calls `checkpoint`: stops wait for it

    @property
    def seconds(self) -> float:
        return self.clock() - self.started

    def __call__(self, genome: np.ndarray) -> float:
        """Score a genome; raise Stop instead of going over the budget."""
        budget = self.budget
        if interrupt.requested() and self.evaluations and not self.stops_at_checkpoints:
            raise Stop("interrupted")
        if budget.evaluations is not None and self.evaluations >= budget.evaluations:
            raise Stop("evaluations")
        if budget.seconds is not None and self.evaluations and self.seconds >= budget.seconds:
            raise Stop("seconds")
        value = float(self.fitness(genome))
        self.evaluations += 1
        if self.on_progress is not None and self.evaluations % PROGRESS_EVERY == 0:
            self.on_progress(self)
        if value < self.best:
            self.best = value
            self.best_genome = np.array(genome, dtype=np.int64)
            self.trace.append((self.evaluations, self.seconds, value))
            if budget.target is not None and value <= budget.target:
                raise Stop("target")
        return value

    def checkpoint(self, snapshot: Callable[[], Any]) -> None:
        """Called by an optimiser where its state is whole (between two steps), `snapshot()` returning
        that state: saved when `checkpoints.every` seconds have passed or a stop was asked for, and
        the run stops here, not in a step (whose half-done state nothing could continue)."""
        keeper = self.checkpoints
        if keeper is None:
            return
        self.stops_at_checkpoints = True
        stopping = interrupt.requested() and self.evaluations > 0  # a stop keeps a best: one evaluation
        if stopping or keeper.clock() >= keeper.next:  # keeper.due(), inlined: called every step
            keeper.save(self.state(), snapshot())
        if stopping:
            raise Stop("interrupted")

    def state(self) -> dict[str, Any]:
        """The counters a checkpoint keeps: evaluations, best, its genome, the trace and the time spent."""
        genome = None if self.best_genome is None else self.best_genome.copy()
        return {
            "evaluations": self.evaluations,
            "best": self.best,
            "best_genome": genome,
            "trace": list(self.trace),
            "seconds": self.seconds,
        }

    def restore(self, state: dict[str, Any]) -> None:
        """Continue from a checkpoint's counters; the clock goes on from the time already spent."""
        self.evaluations, self.best = int(state["evaluations"]), float(state["best"])
        self.best_genome, self.trace = state["best_genome"], list(state["trace"])
        self.started = self.clock() - float(state["seconds"])

    def prelude(self, rows: Sequence[tuple[float, float]]) -> None:
        """Trace rows (seconds, value) of a start's own search (a backtracker's curve), before the
        first evaluation: each new best gets a row at evaluation 1, the start's one evaluation."""
        for seconds, value in rows:
            if value < self.best:
                self.best = float(value)
                self.trace.append((1, float(seconds), float(value)))

    def evaluations_left(self) -> int | None:
        """Evaluations the budget still allows (None: no evaluation budget)."""
        cap = self.budget.evaluations
        return None if cap is None else cap - self.evaluations

    def account(
        self,
        evaluations: int,
        improvements: Sequence[tuple[int, float]],
        best_genome: np.ndarray | None = None,
    ) -> None:
        """Take a compiled chunk's results; raise Stop as a call would.

        `evaluations` counts the run so far (one priced move = one evaluation); `improvements` holds
        the (evaluation index, value) of every new best in the chunk and `best_genome` the last one's
        genome. Trace rows carry the chunk's end time (the evaluation index is exact).
        """
        budget, before = self.budget, self.evaluations
        if budget.evaluations is not None and evaluations > budget.evaluations:
            raise ValueError(
                f"a chunk went over the budget: {evaluations} > {budget.evaluations} evaluations"
            )
        self.evaluations, seconds = evaluations, self.seconds
        for index, value in improvements:
            if value < self.best:
                self.best = float(value)
                self.trace.append((int(index), seconds, float(value)))
        if improvements:
            self.best_genome = np.array(best_genome, dtype=np.int64)
        if self.on_progress is not None and evaluations // PROGRESS_EVERY > before // PROGRESS_EVERY:
            self.on_progress(self)
        if budget.target is not None and self.best <= budget.target:
            raise Stop("target")
        if interrupt.requested() and not self.stops_at_checkpoints:  # else at the next checkpoint
            raise Stop("interrupted")
        if budget.evaluations is not None and evaluations >= budget.evaluations:
            raise Stop("evaluations")
        if budget.seconds is not None and self.seconds >= budget.seconds:
            raise Stop("seconds")


class Optimizer(Protocol):
    """A metaheuristic: a plain loop that calls the objective until it raises Stop.

    `needs` declares what it needs from a puzzle (`core.faces.Face.FITNESS` or `Face.LOCAL_SEARCH`).
    """

    name: str
    needs: Face

    def run(self, objective: Objective, rng: np.random.Generator) -> None: ...
