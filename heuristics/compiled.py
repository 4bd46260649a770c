"""Compiled optimisers on a puzzle's local-search face: SA, ILS, and SA with exact large steps (VLNS).

Why beside the Python optimisers: these count one priced move as one evaluation and run millions
of them a second in numba kernels (heuristics/kernels.py); the Python `sa` stays as the baseline and
for puzzles that offer only a fitness.

Every one runs `chains` independent chains, each on its own thread (one core each), that every
`exchange` epochs of `chunk` moves hand the best board found to any chain that is doing worse. A
run is the same for a seed whatever the machine: epochs are counted in moves, never in time.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any

import numpy as np

from core.errors import InputError
from core.faces import Face
from core.objective import Objective
from heuristics.chains import Chain, Pace, Repair, Start, face_of, run_chains, start_chains
from heuristics.kernels import SA_PERIOD

CHUNK = 1 << 18  # priced moves between two looks at the clock: about 0.1 s
FIRST_PERIOD = 1e15  # a time-budgeted run's period before its first epoch shows its pace: t_start


def _positive(**settings: float) -> None:
    """Raise one line naming the first setting that is not positive."""
    for name, value in settings.items():
        if not value > 0:
            raise InputError(f"optimizer.{name} must be positive, got {value}")


class Chains:
    """What every compiled optimiser shares: its kernel, settings, chains and their exchange.

    `start` is where the chains begin: a name the puzzle's face resolves (random, greedy, a board
    file...: `optimizer.start`), or a constructive solver that builds the board (a puzzle family's
    pipeline hands over its own, settings and all), so the compiled optimisers import no solver.
    """

    name: str
    kernel: str
    needs = Face.LOCAL_SEARCH
    start: Start

    def __init__(self, params: dict[str, float], chunk: int, chains: int, exchange: int, start: Start):
        _positive(chunk=chunk, chains=chains)
        if exchange < 0:
            raise InputError(f"optimizer.exchange must be 0 (never) or positive, got {exchange}")
        self.params, self.chunk, self.chains, self.exchange = params, chunk, chains, exchange
        self.start = start

    def run(self, objective: Objective, rng: np.random.Generator) -> None:
        face = face_of(objective, self.name)
        seconds = self.start_seconds(objective)
        chains = start_chains(
            objective, face, rng, self.kernel, self.params, self.chains, self.start, seconds
        )
        run_chains(objective, chains, self.chunk, self.repair(face, rng), self.exchange, self.pace())

    def start_seconds(self, objective: Objective) -> float | None:
        """The time a built start may take (None: no limit)."""
        return None

    def pace(self) -> Pace | None:
        """What to set on every chain before each epoch, from the run so far (None: nothing)."""
        return None

    def repair(self, face, rng: np.random.Generator) -> Repair | None:
        """The step run on every chain between epochs (None: none)."""
        return None


class CompiledSA(Chains):
    """Simulated annealing on the local-search face: Metropolis acceptance, cyclic geometric cooling
    from t_start to t_end every `period` evaluations of a chain. `start`: from the face's random
    board or its greedy one (every compiled optimiser takes it).

    `period=None` (the default) cools once over the run: the period is a chain's share of the
    evaluation budget, and under a time budget the evaluations the chain is on pace to make by the
    end (its count so far x budget seconds / seconds so far, updated every epoch). A set period makes
    the schedule a function of evaluations alone, so a seed gives the same moves on any machine;
    a budget in evaluations does so with either.
    """

    name = "sa_compiled"
    kernel = "sa"

    def __init__(
        self,
        t_start: float = 0.5,
        t_end: float = 0.07,
        period: float | None = None,
        chunk: int = CHUNK,
        chains: int = 1,
        exchange: int = 8,
        start: str = "random",
    ):
        _positive(t_start=t_start, t_end=t_end)
        if period is not None:
            _positive(period=period)
        if t_end > t_start:
            raise InputError(f"optimizer.t_end must be <= t_start, got t_start={t_start}, t_end={t_end}")
        self.period = period
        params = {"t_start": t_start, "t_end": t_end, "period": period or FIRST_PERIOD}
        super().__init__(params, chunk, chains, exchange, start)

    def pace(self) -> Pace | None:
        return None if self.period is not None else partial(_one_cycle, margin=2 * self.chunk)


def _one_cycle(objective: Objective, chains: Sequence[Chain], margin: int) -> None:
    """Set each chain's cooling period to the evaluations it will have made when the budget ends.

    On a time budget, at least `margin` more than it has: the next epoch must not wrap round to
    t_start. An evaluation budget gives the end exactly (a chain's share, plus two), in any chunking.
    """
    budget, seconds = objective.budget, objective.seconds
    for chain in chains:
        done, ends = chain.evaluations, [FIRST_PERIOD]
        if budget.evaluations is not None:
            ends.append(budget.evaluations // len(chains) + 2)
        if budget.seconds is not None and done > 1 and seconds > 0:
            ends.append(max(done * budget.seconds / seconds, done + margin))
        chain.params[SA_PERIOD] = min(ends)


class CompiledILS(Chains):
    """Iterated local search: random-move descent (sideways moves allowed) ended after `patience`
    moves without improvement, then `kick` random moves; a worse local optimum goes back home."""

    name = "ils_compiled"
    kernel = "ils"

    def __init__(
        self,
        patience: int = 20000,
        kick: int = 8,
        chunk: int = CHUNK,
        chains: int = 1,
        exchange: int = 8,
        start: str = "random",
    ):
        _positive(patience=patience, kick=kick)
        params: dict[str, float] = {"patience": patience, "kick": kick, "restart": 0}
        super().__init__(params, chunk, chains, exchange, start)


class CompiledDescent(CompiledILS):
    """Local search with random restarts, the compiled counterpart of `two_opt_swap`: random-move
    descent (sideways moves allowed) until `patience` moves bring no improvement, then `restart`
    random moves (about a shuffle: by default 16 per cell of a 16 x 16 board) and descend again."""

    name = "descent_compiled"

    def __init__(
        self,
        patience: int = 20000,
        restart: int = 4096,
        chunk: int = CHUNK,
        chains: int = 1,
        exchange: int = 0,
        start: str = "random",
    ):
        _positive(restart=restart)
        super().__init__(patience, restart, chunk, chains, exchange, start)
        self.params["restart"] = 1  # leave every local optimum, as a restart does


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
        period: float | None = None,
        every: int = 1 << 20,
        steps: int = 20,
        size: int = 98,
        chains: int = 1,
        exchange: int = 8,
        start: str = "random",
    ):
        super().__init__(t_start, t_end, period, every, chains, exchange, start)
        _positive(steps=steps, size=size)
        self.steps, self.size = steps, size

    def repair(self, face, rng: np.random.Generator) -> Repair:
        if face.repair is None:
            raise InputError(
                f"optimizer={self.name} needs a puzzle whose face offers a large step; "
                "use optimizer=sa_compiled"
            )
        return LargeStep(np.random.default_rng(rng.integers(2**62)), self.steps, self.size)


class LargeStep:
    """The face's large step, `steps` repairs of `size` cells, run on every chain in turn between
    epochs, all drawing from one generator (`rng`).

    Why its state is kept: a checkpoint saves the generator with the chains (`state`) and a continued
    run puts it back (`resume`), so the continued run takes the unbroken run's steps, bit for bit.
    """

    def __init__(self, rng: np.random.Generator, steps: int, size: int):
        self.rng, self.steps, self.size = rng, steps, size

    def __call__(self, chain: Chain, left: int | None) -> list[tuple[int, int]]:
        """The step on `chain`; none once the evaluations `left` could not pay for a whole one."""
        if left is not None and left < self.steps * self.size**2:
            return []
        return chain.repair(self.rng, self.steps, self.size)

    def state(self) -> Mapping[str, Any]:
        """The generator's state (a copy, as numpy hands it out)."""
        return self.rng.bit_generator.state

    def resume(self, state: Mapping[str, Any]) -> None:
        """Draw on from a checkpoint's `state` of the generator."""
        self.rng.bit_generator.state = state


class WindowLNS(Chains):
    """Large neighbourhood search with exact repair: windows of `size` x `size` cells lifted and re-filled
    with `extra` lone cells from anywhere (their pieces join the re-fill) by branch and bound (the face's
    `window` kernel, a row of its `kernels`), each re-solve pricing at most `cap`
    placements; a window sits on a mismatch with probability `focus`. The lone cells hold the pieces
    that best fit the window's open joins. With probability `kick` a window instead takes the first
    re-fill found within two joins of the board, worse or not (a kick off a local optimum). A re-fill
    that ties the board is taken, so chains walk plateaus; every placement priced is one evaluation.
    """

    name = "window_lns"
    kernel = "window"
    needs = Face.WINDOWS

    def __init__(
        self,
        size: int = 2,
        cap: int = 20_000,
        focus: float = 0.8,
        extra: int = 6,
        kick: float = 0.0,
        chunk: int = CHUNK,
        chains: int = 1,
        exchange: int = 8,
        start: str = "random",
    ):
        _positive(size=size, cap=cap)
        if not 0 <= focus <= 1:
            raise InputError(f"optimizer.focus must be a probability in [0, 1], got {focus}")
        if extra < 0:
            raise InputError(f"optimizer.extra must be 0 or more, got {extra}")
        if not 0 <= kick <= 1:
            raise InputError(f"optimizer.kick must be a probability in [0, 1], got {kick}")
        params = {"size": size, "cap": cap, "focus": focus, "extra": extra, "kick": kick}
        super().__init__(params, chunk, chains, exchange, start)
