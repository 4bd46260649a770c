"""Compiled optimisers on a puzzle's local-search face: SA, ILS, and SA with exact large steps (VLNS).

Why beside the Python optimisers: these count one priced move as one evaluation and run millions
of them a second in numba kernels (heuristics/kernels.py); the Python `sa` stays as the baseline and
for puzzles that offer only a fitness.
"""

from __future__ import annotations

import numpy as np

from core import InputError
from heuristics.local_search import Chain, check_start, face_of, run_chunks, start_chain
from heuristics.objective import Objective

CHUNK = 1 << 18  # priced moves between two looks at the clock: about 0.1 s


def _positive(**settings: float) -> None:
    """Raise one line naming the first setting that is not positive."""
    for name, value in settings.items():
        if not value > 0:
            raise InputError(f"optimizer.{name} must be positive, got {value}")


class CompiledSA:
    """Simulated annealing on the local-search face: Metropolis acceptance, cyclic geometric cooling
    from t_start to t_end every `period` evaluations (the schedule depends on evaluations, never on time).
    `start`: from the face's random board or its greedy one (every compiled optimiser takes it).
    """

    name = "sa_compiled"
    evaluation_kind = "priced move"
    kernel = "sa"

    def __init__(
        self,
        t_start: float = 0.5,
        t_end: float = 0.07,
        period: float = 1.5e8,
        chunk: int = CHUNK,
        start: str = "random",
    ):
        _positive(t_start=t_start, t_end=t_end, period=period, chunk=chunk)
        if t_end > t_start:
            raise InputError(f"optimizer.t_end must be <= t_start, got t_start={t_start}, t_end={t_end}")
        self.params = {"t_start": t_start, "t_end": t_end, "period": period}
        self.chunk, self.start = chunk, check_start(start)

    def run(self, objective: Objective, rng: np.random.Generator) -> None:
        chain = start_chain(objective, face_of(objective, self.name), rng, "sa", self.params, self.start)
        run_chunks(objective, chain, self.chunk)


class CompiledILS:
    """Iterated local search: random-move descent (sideways moves allowed) ended after `patience`
    moves without improvement, then `kick` random moves; a worse local optimum goes back home."""

    name = "ils_compiled"
    evaluation_kind = "priced move"
    kernel = "ils"

    def __init__(self, patience: int = 20000, kick: int = 8, chunk: int = CHUNK, start: str = "random"):
        _positive(patience=patience, kick=kick, chunk=chunk)
        self.params = {"patience": patience, "kick": kick}
        self.chunk, self.start = chunk, check_start(start)

    def run(self, objective: Objective, rng: np.random.Generator) -> None:
        chain = start_chain(objective, face_of(objective, self.name), rng, "ils", self.params, self.start)
        run_chunks(objective, chain, self.chunk)


class HybridVLNS(CompiledSA):
    """SA interleaved with the face's exact large step (for edge matching, Schaus and Deville's
    reassignment of `size` non-adjacent cells): every `every` moves, `steps` repairs of the current board.

    Each (cell, piece) pair a repair prices counts as one evaluation; repairs are skipped once the
    evaluation budget has less than steps * size**2 left, so the budget still stops exactly.
    """

    name = "hybrid_vlns"

    def __init__(
        self,
        t_start: float = 0.5,
        t_end: float = 0.07,
        period: float = 1.5e8,
        every: int = 1 << 20,
        steps: int = 20,
        size: int = 98,
        start: str = "random",
    ):
        super().__init__(t_start, t_end, period, every, start)
        _positive(steps=steps, size=size)
        self.steps, self.size = steps, size

    def run(self, objective: Objective, rng: np.random.Generator) -> None:
        face = face_of(objective, self.name)
        if face.repair is None:
            raise InputError(
                f"optimizer={self.name} needs a puzzle whose face offers a large step; "
                "use optimizer=sa_compiled"
            )
        chain = start_chain(objective, face, rng, "sa", self.params, self.start)
        repair_rng = np.random.default_rng(rng.integers(2**62))

        def repair(chain: Chain, left: int | None) -> list[tuple[int, int]]:
            if left is not None and left < self.steps * self.size**2:
                return []
            return chain.repair(repair_rng, self.steps, self.size)

        run_chunks(objective, chain, self.chunk, repair)
