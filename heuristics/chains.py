"""The driver of compiled local search: resumable chains run in chunks, accounted by the Objective.

Why a thin Python layer: the kernels (heuristics/kernels.py) make the moves; the Objective keeps what
it keeps for every optimiser (evaluations, the best-so-far trace, the budget). Between chunks the
driver hands it the evaluations used and the (evaluation index, value) of every improvement, so an
evaluation budget stops exactly, traces stay exact and the clock is read only between chunks.

Checkpoints (issue 58): between two epochs every chain's state is whole (its boards, counters,
settings and generator, `Chain.state`), and so is the between-epoch repair's (the large step's
generator, `Repair.state`), so that is where a run that keeps a checkpoint saves them and stops;
`start_chains` rebuilds the chains and `run_chains` the repair from it in a continued run, which then
goes on bit for bit under an evaluation budget. A built start is built on a `core.checkpoint` stage:
a builder that keeps its state there (the break backtracker) goes on from it when the run stopped
while it built.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Any, Protocol

import numpy as np

from core.checkpoint import staged
from core.errors import InputError
from core.faces import ConstructiveSolver, LocalSearchFace
from core.objective import Objective
from core.rng import make_rng
from heuristics.kernels import (
    BEST,
    CURRENT,
    EVALS,
    ILS_HOME,
    ILS_KICK_LEFT,
    ILS_SINCE,
    kernel_row,
)

Start = str | ConstructiveSolver  # a start by name ("random", or one the face builds) or a built solver


def face_of(objective: Objective, who: str) -> LocalSearchFace:
    """The objective's local-search face, or a one-line error saying what to use instead."""
    if objective.face is None:
        raise InputError(
            f"optimizer={who} needs a puzzle with a local-search face (an edge-matching puzzle whose "
            "grey sides give every cell its kind, e.g. puzzle=eternity2, or a pentomino strip); "
            "use optimizer=sa for this puzzle"
        )
    return objective.face


class Chain:
    """One resumable search chain: a kernel on a face, with every array it resumes from.

    `params` are the kernel's settings by name (its row: `kernels.kernel_row`); the RNG stream is
    (seed, stream). The start state counts as evaluation 1, so kernel evaluation indices are the Objective's.
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
        row = kernel_row(kernel, face)
        self.run = row.compiled(face)
        self.st, self.best, self.home = state.copy(), state.copy(), state.copy()
        self.rng = make_rng(seed, stream)
        f = int(face.fitness(self.inst, self.st))
        self.ctl = np.zeros(row.control, np.int64)
        self.ctl[EVALS], self.ctl[CURRENT], self.ctl[BEST], self.ctl[ILS_HOME] = 1, f, f, f
        self.params = np.array([params[k] for k in row.settings] + [-1], np.float64)
        self.scale = face.scale
        self.start_value = f // self.scale
        self._te = np.zeros(trace_cap, np.int64)
        self._tv = np.zeros(trace_cap, np.int64)

    STATE = ("st", "best", "home", "rng", "ctl", "params")  # what the kernel changes, and its settings

    @property
    def evaluations(self) -> int:
        """Evaluations so far (the start, priced moves and repairs)."""
        return int(self.ctl[EVALS])

    def state(self) -> dict[str, Any]:
        """What a checkpoint keeps of the chain between chunks (copies)."""
        return {name: getattr(self, name).copy() for name in self.STATE} | {"start_value": self.start_value}

    def resume(self, state: Mapping[str, Any]) -> None:
        """Go on from a checkpoint's `state` of this chain (its kernel and face as when it was saved)."""
        for name in self.STATE:
            getattr(self, name)[...] = state[name]
        self.start_value = state["start_value"]

    def set_target(self, target: float | None) -> None:
        """Stop a chunk as soon as the best reaches `target` (None: never), on the face's scale."""
        self.params[-1] = -1 if target is None else np.floor(target) * self.scale + self.scale - 1

    def step(self, max_moves: int) -> list[tuple[int, int]]:
        """Run one chunk of at most max_moves priced moves; the improvements it made."""
        _, nt = self.run(
            self.inst,
            self.st,
            self.best,
            self.home,
            self.rng,
            self.ctl,
            self.params,
            max_moves,
            self._te,
            self._tv,
        )
        values = (self._tv[:nt] // self.scale).tolist()
        return list(zip(self._te[:nt].tolist(), values, strict=True))

    def adopt(self, state: np.ndarray, value: int) -> None:
        """Continue from another chain's board (its fitness `value`); this chain's best is kept."""
        self.st[:] = state
        self.home[:] = state
        self.ctl[CURRENT] = self.ctl[ILS_HOME] = value
        self.ctl[ILS_SINCE] = self.ctl[ILS_KICK_LEFT] = 0

    def repair(self, rng: np.random.Generator, steps: int, size: int) -> list[tuple[int, int]]:
        """Apply the face's large step to the current state; its improvement of the best, if any."""
        change, priced = self.face.repair(self.inst, self.st, rng, steps, size)
        self.ctl[EVALS] += priced
        self.ctl[CURRENT] += change
        if self.ctl[CURRENT] >= self.ctl[BEST]:
            return []
        self.ctl[BEST] = self.ctl[CURRENT]
        self.best[:] = self.st
        return [(self.evaluations, int(self.ctl[BEST]) // self.scale)]


def start_state(
    face: LocalSearchFace,
    rng: np.random.Generator,
    start: Start,
    seconds: float | None = None,
    history: list | None = None,
) -> np.ndarray:
    """A chain's first board: the face's random one, or the one the face builds for the start it was
    given (a name such as 'greedy' or a board file, or a constructive solver), within `seconds` (None:
    no limit); `history` gets the builder's anytime rows (seconds, work, value)."""
    if start == "random":
        return face.start(rng)
    if face.built is None:
        raise InputError(
            f"optimizer.start={start} needs a puzzle whose face builds an edge-matching board; use start=random"
        )
    return face.built(rng, seconds, history)


def start_chains(
    objective: Objective,
    face: LocalSearchFace,
    rng: np.random.Generator,
    kernel: str,
    params: Mapping[str, float],
    count: int = 1,
    start: Start = "random",
    seconds: float | None = None,
) -> list[Chain]:
    """`count` chains, each from a start state (`start`: random or a built one, built within
    `seconds`) drawn by `rng` and accounted as one evaluation. A built board is built once: every
    chain starts from it, and the builder's own curve opens the run's trace. A run continued from a
    checkpoint saved between epochs gets its chains back as they were (nothing built or drawn)."""
    saved = objective.restored
    if isinstance(saved, dict) and "chains" in saved:
        return [_resumed(face, kernel, params, state) for state in saved["chains"]]
    history: list = []
    began = objective.seconds
    before = rng.bit_generator.state  # the builder's seed is drawn from it: again so when continued
    with staged(objective, before):  # a builder that keeps its state keeps it there
        built = start_state(face, rng, start, seconds, history) if start != "random" else None
    objective.prelude([(began + row[0], row[2]) for row in history])
    chains: list[Chain] = []
    for _ in range(count):
        state = built if built is not None else start_state(face, rng, start)
        chain = Chain(face, state, kernel, params, seed=int(rng.integers(2**62)))
        chain.set_target(objective.budget.target)
        chains.append(chain)
        _account(objective, chains, [(_total(chains), chain.start_value)])
    return chains


def _resumed(
    face: LocalSearchFace, kernel: str, params: Mapping[str, float], state: Mapping[str, Any]
) -> Chain:
    """A chain as a checkpoint saved it."""
    chain = Chain(face, state["st"], kernel, params, seed=0)
    chain.resume(state)
    return chain


class Repair(Protocol):
    """The step run on every chain between epochs, with a state of its own beside the chains' (its
    generator): a checkpoint keeps it, so a continued run takes the steps the unbroken run takes."""

    def __call__(self, chain: Chain, left: int | None) -> list[tuple[int, int]]: ...

    def state(self) -> Any: ...

    def resume(self, state: Any) -> None: ...


Pace = Callable[[Objective, Sequence[Chain]], None]


def run_chains(
    objective: Objective,
    chains: Sequence[Chain],
    chunk: int,
    repair: Repair | None = None,
    exchange: int = 0,
    pace: Pace | None = None,
) -> None:
    """Epochs of at most `chunk` moves per chain until the objective raises Stop.

    Two or more chains run on their own threads (the kernels release the GIL). After each epoch
    `repair(chain, evaluations left)` runs on every chain in turn, and every `exchange` epochs
    (0: never) a chain whose current board is worse than the best board found copies it; before
    each epoch `pace(objective, chains)` may retune the chains from the run so far. Epochs
    are counted in moves, never in time, so a seed gives the same run on any machine and load.
    Evaluation indices count the chains' moves as if they took turns, one move each, so a
    parallel run's trace and budget read like a single chain's. Before each epoch the run's
    checkpoint, if it keeps one, may save the chains, the repair's state and the epoch count
    (`Objective.checkpoint`: every 30 s, and where a stop ends the run); a continued run starts at the
    epoch it saved.
    """
    pool = ThreadPoolExecutor(len(chains)) if len(chains) > 1 else None
    saved = objective.restored
    try:
        epoch = _resume(saved, repair)
        while True:
            objective.checkpoint(partial(_snapshot, chains, epoch, repair))
            if pace is not None:
                pace(objective, chains)
            shares = _shares(chunk, objective.evaluations_left(), len(chains))
            before = [chain.evaluations for chain in chains]
            found = list(pool.map(Chain.step, chains, shares)) if pool else [chains[0].step(shares[0])]
            _account(objective, chains, _interleave(before, found, [c.evaluations for c in chains]))
            if repair is not None:
                for chain in chains:
                    repaired = repair(chain, objective.evaluations_left())
                    _account(objective, chains, [(_total(chains), value) for _, value in repaired])
            epoch += 1
            if exchange and epoch % exchange == 0:
                _exchange(chains)
    finally:
        if pool is not None:
            pool.shutdown()


def _resume(saved: Any, repair: Repair | None) -> int:
    """The epoch a run starts at (0, or the one its checkpoint saved), the repair put back as it was.

    A checkpoint saved before the repair's state was kept has none: its run goes on, not bit for bit."""
    if not (isinstance(saved, dict) and "chains" in saved):
        return 0
    if repair is not None and "repair" in saved:
        repair.resume(saved["repair"])
    return saved["epoch"]


def _snapshot(chains: Sequence[Chain], epoch: int, repair: Repair | None = None) -> dict[str, Any]:
    """What a checkpoint keeps of the chains (and their repair) at the top of an epoch."""
    kept = {"chains": [chain.state() for chain in chains], "epoch": epoch}
    return kept if repair is None else kept | {"repair": repair.state()}


def _total(chains: Sequence[Chain]) -> int:
    return sum(chain.evaluations for chain in chains)


def _shares(chunk: int, left: int | None, count: int) -> list[int]:
    """Moves per chain in the next epoch: `chunk` each, or the budget left split as evenly as it goes."""
    if left is None:
        return [chunk] * count
    q, r = divmod(min(left, chunk * count), count)
    return [q + (c < r) for c in range(count)]


def _interleave(
    before: Sequence[int], found: Sequence[Sequence[tuple[int, int]]], after: Sequence[int]
) -> list[tuple[int, int]]:
    """The chains' improvements at run-wide evaluation indices, the chains taking turns move by move.

    Chain c's j-th move of the epoch comes after j moves of each earlier chain and j - 1 of each
    later one (fewer when a chain stopped early, at its target).
    """
    base, moves = sum(before), [a - b for a, b in zip(after, before, strict=True)]
    indexed = []
    for c, improvements in enumerate(found):
        for index, value in improvements:
            j = index - before[c]
            earlier = sum(min(j, m) for m in moves[:c]) + sum(min(j - 1, m) for m in moves[c + 1 :])
            indexed.append((base + earlier + j, value))
    return sorted(indexed)


def _leader(chains: Sequence[Chain]) -> Chain:
    """The chain holding the best board (the first of equals)."""
    return min(chains, key=lambda chain: int(chain.ctl[BEST]))


def _account(objective: Objective, chains: Sequence[Chain], improvements: Sequence[tuple[int, int]]) -> None:
    """Give the objective the run's count and improvements (it raises Stop when the budget ends)."""
    leader = _leader(chains)
    genome = leader.face.genome(leader.best) if improvements else None
    objective.account(_total(chains), improvements, genome)


def _exchange(chains: Sequence[Chain]) -> None:
    """Chains whose current board is worse than the best board found restart from it."""
    leader = _leader(chains)
    for chain in chains:
        if chain is not leader and chain.ctl[CURRENT] > leader.ctl[BEST]:
            chain.adopt(leader.best, int(leader.ctl[BEST]))


def warm_up(face: LocalSearchFace, kernel: str) -> None:
    """Compile (or load from numba's disk cache) a kernel on the face, outside any run's clock."""
    params = dict.fromkeys(kernel_row(kernel, face).settings, 1.0)
    Chain(face, face.start(np.random.default_rng(0)), kernel, params, seed=0).step(1)
