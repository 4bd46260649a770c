"""The driver of compiled local search: resumable chains run in chunks, accounted by the Objective.

Why a thin Python layer: the kernels (heuristics/kernels.py) make the moves; the Objective keeps what
it keeps for every optimiser (evaluations, the best-so-far trace, the budget). Between chunks the
driver hands it the evaluations used and the (evaluation index, value) of every improvement, so an
evaluation budget stops exactly, traces stay exact and the clock is read only between chunks.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from core import InputError, LocalSearchFace
from core.rng import make_rng
from heuristics import kernels
from heuristics.objective import Objective

KERNEL_PARAMS = {"sa": ("t_start", "t_end", "period"), "ils": ("patience", "kick")}
STARTS = ("random", "greedy")  # an optimiser's `start`: the face's random board or its greedy one


def face_of(objective: Objective, who: str) -> LocalSearchFace:
    """The objective's local-search face, or a one-line error saying what to use instead."""
    if objective.face is None:
        raise InputError(
            f"optimizer={who} needs a puzzle with a local-search face (an edge-matching puzzle whose "
            "grey sides give every cell its kind, e.g. puzzle=eternity2); use optimizer=sa for this puzzle"
        )
    return objective.face


class Chain:
    """One resumable search chain: a kernel on a face, with every array it resumes from.

    `params` are the kernel's settings by name (KERNEL_PARAMS); the RNG stream is (seed, stream).
    The start state counts as evaluation 1, so kernel evaluation indices are the Objective's.
    """

    def __init__(
        self,
        face: LocalSearchFace,
        state: np.ndarray,
        kernel: str,
        params: Mapping[str, float],
        seed: int,
        stream: int = 0,
        trace_cap: int = 1 << 14,
    ):
        self.face, self.inst, self.kernel = face, face.instance, kernel
        self.st, self.best, self.home = state.copy(), state.copy(), state.copy()
        self.rng = make_rng(seed, stream)
        f = int(face.fitness(self.inst, self.st))
        self.ctl = np.array([1, f, f, 0, 0, f], np.int64)
        self.params = np.array([params[k] for k in KERNEL_PARAMS[kernel]] + [-1], np.float64)
        self.start_value = f
        self._te = np.zeros(trace_cap, np.int64)
        self._tv = np.zeros(trace_cap, np.int64)

    @property
    def evaluations(self) -> int:
        """Evaluations so far (the start, priced moves and repairs)."""
        return int(self.ctl[0])

    def set_target(self, target: float | None) -> None:
        """Stop a chunk as soon as the best reaches `target` (None: never)."""
        self.params[-1] = -1 if target is None else np.floor(target)

    def step(self, max_moves: int) -> list[tuple[int, int]]:
        """Run one chunk of at most max_moves priced moves; the improvements it made."""
        sa, ils = kernels.for_face(self.face.propose, self.face.delta, self.face.apply)
        common = (self.rng, self.ctl, self.params, max_moves, self._te, self._tv)
        if self.kernel == "sa":
            _, nt = sa(self.inst, self.st, self.best, *common)
        else:
            _, nt = ils(self.inst, self.st, self.best, self.home, *common)
        return list(zip(self._te[:nt].tolist(), self._tv[:nt].tolist(), strict=True))

    def repair(self, rng: np.random.Generator, steps: int, size: int) -> list[tuple[int, int]]:
        """Apply the face's large step to the current state; its improvement of the best, if any."""
        change, priced = self.face.repair(self.inst, self.st, rng, steps, size)
        self.ctl[0] += priced
        self.ctl[1] += change
        if self.ctl[1] >= self.ctl[2]:
            return []
        self.ctl[2] = self.ctl[1]
        self.best[:] = self.st
        return [(self.evaluations, int(self.ctl[2]))]


def hand_over(objective: Objective, chain: Chain, improvements: Sequence[tuple[int, float]]) -> None:
    """Give the objective a chunk's count and improvements (it raises Stop when the budget ends)."""
    genome = chain.face.genome(chain.best) if improvements else None
    objective.account(chain.evaluations, improvements, genome)


def check_start(start: str) -> str:
    """An optimiser's `start` setting, or a one-line error naming the choices."""
    if start not in STARTS:
        raise InputError(f"optimizer.start must be one of {', '.join(STARTS)}, got {start!r}")
    return start


def start_state(face: LocalSearchFace, rng: np.random.Generator, start: str) -> np.ndarray:
    """The chain's first board: the face's random one, or its greedy one (start='greedy')."""
    if start == "random":
        return face.start(rng)
    if face.greedy is None:
        raise InputError(
            "optimizer.start=greedy needs a puzzle whose face offers a greedy board; use start=random"
        )
    return face.greedy(rng)


def start_chain(
    objective: Objective,
    face: LocalSearchFace,
    rng: np.random.Generator,
    kernel: str,
    params: Mapping[str, float],
    start: str = "random",
) -> Chain:
    """A chain from a start state (`start`: random or greedy) drawn by `rng`, accounted as the first evaluation."""
    chain = Chain(face, start_state(face, rng, start), kernel, params, seed=int(rng.integers(2**62)))
    chain.set_target(objective.budget.target)
    hand_over(objective, chain, [(1, chain.start_value)])
    return chain


def run_chunks(objective: Objective, chain: Chain, chunk: int, repair=None) -> None:
    """Chunks of at most `chunk` moves until the objective raises Stop; `repair(chain, left)` after each."""
    while True:
        left = objective.evaluations_left()
        hand_over(objective, chain, chain.step(chunk if left is None else min(chunk, left)))
        if repair is not None:
            hand_over(objective, chain, repair(chain, objective.evaluations_left()))


def warm_up(face: LocalSearchFace, kernel: str) -> None:
    """Compile (or load from numba's disk cache) a kernel on the face, outside any run's clock."""
    params = dict.fromkeys(KERNEL_PARAMS[kernel], 1.0)
    Chain(face, face.start(np.random.default_rng(0)), kernel, params, seed=0).step(1)
