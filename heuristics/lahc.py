"""Late acceptance hill climbing (Burke & Bykov, 2017): one setting, and a worked example of adding
an optimiser (this module and configs/optimizer/lahc.yaml are all it takes)."""

from __future__ import annotations

from functools import partial

import numpy as np

from core.errors import InputError
from core.faces import Face
from core.objective import Objective
from core.space import PermutationSpace
from heuristics.moves import random_move


class LateAcceptance:
    """Accept a neighbour no worse than the current genome or than the one `history` steps ago.

    The memory of past fitness values makes the acceptance threshold fall as slowly as the search
    improves, with no temperature schedule to tune; `history` (the list length) is the one setting.
    """

    name = "lahc"
    needs = Face.FITNESS

    def __init__(self, history: int = 50, move: str = "swap"):
        if history < 1:
            raise InputError(f"optimizer.history must be >= 1, got {history}")
        if move not in ("swap", "insert", "reversal"):
            raise InputError(f"optimizer.move must be 'swap', 'insert' or 'reversal', got {move!r}")
        self.history, self.move = history, move

    def step_kind(self, space: PermutationSpace, rng: np.random.Generator) -> str:
        """The order move, or (half the time, where items turn) an orientation move."""
        return "orientation" if space.oriented and rng.random() < 0.5 else self.move

    def run(self, objective: Objective, rng: np.random.Generator) -> None:
        space, saved = objective.space, objective.restored
        if saved is None:
            current = space.random(rng)
            value = objective(current)
            past, first = np.full(self.history, value), 0
        else:
            current, value, past, first = saved["current"], saved["value"], saved["past"], saved["step"]
        for step in range(first, 2**62):
            objective.checkpoint(partial(dict, current=current, value=value, past=past, step=step))
            candidate = random_move(current, space, self.step_kind(space, rng), rng)
            score = objective(candidate)
            slot = step % self.history
            if score <= past[slot] or score <= value:
                current, value = candidate, score
            past[slot] = min(past[slot], value)
