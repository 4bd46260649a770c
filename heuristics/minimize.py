"""The driver: one call runs one optimiser on one fitness under one budget, like pymoo's `minimize`."""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from core.checkpoint import Checkpoint
from core.errors import InputError
from core.faces import LocalSearchFace
from core.objective import Objective, Optimizer, Stop
from core.space import Budget, PermutationSpace, Result


def minimize(
    fitness: Callable[[np.ndarray], float],
    space: PermutationSpace,
    optimizer: Optimizer,
    budget: Budget,
    seed: int,
    on_progress: Callable[[Objective], None] | None = None,
    face: LocalSearchFace | None = None,
    clock: Callable[[], float] = time.perf_counter,
    checkpoint: Checkpoint | None = None,
) -> Result:
    """Run `optimizer` on `fitness` until the budget ends it; seeded, so it reproduces.

    `face`, the puzzle's local-search face if it offers one, is there for compiled optimisers;
    `clock` times the budget and `Result.seconds` (default wall-clock; time.thread_time: CPU seconds,
    fairer on a shared machine); `Result.cpu_seconds` is the process's CPU time over the same span.
    `checkpoint` keeps the search state of an optimiser that calls `Objective.checkpoint`, and when
    it holds a loaded state (`Checkpoint.saved`) the run continues from it, the RNG's state included.
    """
    if space.n < 2:
        raise InputError(f"nothing to optimise: the search space orders {space.n} item(s)")
    cpu_started = time.process_time()  # CPU time beside the clock: wall time alone hides waiting and threads
    objective = Objective(
        fitness, space, budget, on_progress=on_progress, face=face, clock=clock, checkpoints=checkpoint
    )
    rng = np.random.default_rng(seed)
    if checkpoint is not None:
        checkpoint.rng = rng
        saved = checkpoint.saved
        if saved is not None:
            objective.restore(saved.objective)
            rng.bit_generator.state = saved.rng
            objective.restored = saved.search
    try:
        optimizer.run(objective, rng)
        reason = "finished"
    except Stop as stop:
        reason = stop.reason
    if objective.best_genome is None:  # no genome scored below inf: a NaN or inf fitness, or no evaluation
        raise InputError(
            f"the run found no genome with a finite fitness in {objective.evaluations} evaluation(s); "
            "the fitness must return finite numbers"
        )
    return Result(
        objective.best,
        objective.best_genome,
        objective.evaluations,
        objective.seconds,
        reason,
        objective.trace,
        cpu_seconds=time.process_time() - cpu_started,
    )
