"""What the family's constructive solvers share: the `BoardBuilder` base, the stop flag a compiled
search reads (`alarm`, `StopGroup`) and the cores a run may use (`threads_available`)."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

import numpy as np

from core import interrupt
from core.errors import InputError
from core.faces import Construction, ConstructivePuzzle, Face


def threads_available() -> int:
    """The cores this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


class BoardBuilder:
    """What every constructive solver shares: the face it needs, what it counts as work, the puzzle
    check, and a one-line refusal to be run as a metaheuristic (it builds a board from the pieces; it
    evaluates no genomes). Subclasses implement `construct`."""

    name: str
    needs = Face.BOARD
    work_unit = "placement"  # what `Construction.work` counts
    repeats_pieces = False  # may a board place a piece twice (the seed's greedy, kept faithful)?
    rectangles = False  # builds n x m boards, not only squares
    default_seconds: float | None = None  # a run's time budget when it sets none (experiments.run)

    def construct(self, puzzle, seconds: float | None = None) -> Construction:
        raise NotImplementedError

    def warm_up(self, puzzle) -> None:
        """Compile the solver's kernels, or load them from numba's cache (a second or more on a busy
        machine), before a timed construction starts its clock; nothing to do by default."""

    def solve(self, puzzle):
        """The board `construct` builds with no time limit."""
        return self.construct(puzzle).layout

    def seeded(self, seed: int) -> BoardBuilder:
        """This solver drawing its ties from `seed` (itself: a deterministic solver draws none)."""
        return self

    def _require(self, puzzle) -> ConstructivePuzzle:
        """The puzzle, if it offers what this solver needs (a square board, unless it builds rectangles);
        else a one-line error."""
        if not isinstance(puzzle, ConstructivePuzzle):
            raise InputError(
                f"optimizer={self.name} solves edge-matching puzzles only "
                "(puzzle=edge_matching or puzzle=eternity)"
            )
        if puzzle.m != puzzle.n and not self.rectangles:
            raise InputError(
                f"optimizer={self.name} builds square boards only, this one is {puzzle.n} x {puzzle.m}; "
                "use a compiled optimizer (optimizer=sa_compiled) for rectangular boards"
            )
        return puzzle

    def run(self, objective, rng) -> None:
        """Refuse, in one line: the pieces are needed, which an objective does not carry."""
        raise InputError(
            f"optimizer={self.name} builds its board from the pieces rather than by evaluating genomes: "
            "call its solve(puzzle), or run it with python -m experiments.run"
        )


class StopGroup:
    """The alarms opened in the threads that joined it (`STOP_GROUP`): `stop()` sets each one's flag,
    and that of any opened later. Why: builders run at once (`BestOfConcurrent`) stop when one of them has
    solved the board, not when the time runs out."""

    def __init__(self) -> None:
        self.flags: list[np.ndarray] = []
        self.stopped = False
        self.lock = threading.Lock()

    def add(self, flag: np.ndarray) -> None:
        with self.lock:
            self.flags.append(flag)
            if self.stopped:
                flag.fill(1)

    def stop(self) -> None:
        with self.lock:
            self.stopped = True
            for flag in self.flags:
                flag.fill(1)


STOP_GROUP: ContextVar[StopGroup | None] = ContextVar("STOP_GROUP", default=None)


@contextmanager
def alarm(seconds: float | None) -> Iterator[np.ndarray]:
    """A flag, int64[1], that a timer thread sets to 1 once `seconds` have passed (never, for None),
    or a stop request (Ctrl-C, SIGTERM: core.interrupt) sets at once, or the thread's `STOP_GROUP`.

    Why: a compiled search cannot read a clock, but it can read this flag between steps and stop;
    it runs without the GIL (nogil), so the timer fires on time.
    """
    flag = np.zeros(1, np.int64)
    group = STOP_GROUP.get()
    if group is not None:
        group.add(flag)
    timer = None if seconds is None else threading.Timer(max(seconds, 0.0), flag.fill, (1,))
    if timer is not None:
        timer.daemon = True
        timer.start()
    try:
        with interrupt.listen(lambda: flag.fill(1)):
            yield flag
    finally:
        if timer is not None:
            timer.cancel()
