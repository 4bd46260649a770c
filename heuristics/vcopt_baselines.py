"""vcopt's opt2 and tspGA, run unchanged on the project's objective, as baselines.

vcopt ends a run when it meets its own stopping rule; the adapters then restart it with a new
seed until the objective's budget stops them. vcopt orders items and nothing else, so where the
space has orientations the adapters hand it a permutation of (item, orientation) tokens instead:
each item takes the place and the orientation of its first token (see `TokenEncoding`).
vcopt is imported where it runs: its import (it loads pyplot and more) would cost every app start
a fifth of its time, since the app reads every optimiser's signature.
"""

from __future__ import annotations

import numpy as np

from core.errors import InputError
from core.faces import Face
from core.objective import Objective
from core.space import PermutationSpace


class TokenEncoding:
    """Orders and orientations as one permutation, for optimisers that only permute.

    There is one token per (item, orientation) pair; a permutation of tokens decodes to the order
    in which items first appear, each with the orientation of its first token. Every genome of the
    space is reachable, so a permutation-only optimiser searches the whole space.
    """

    def __init__(self, space: PermutationSpace):
        self.space = space
        counts = space.orientations or (1,) * space.n
        self.items = np.repeat(np.arange(space.n), counts)
        self.turns = np.concatenate([np.arange(k) for k in counts])

    @property
    def size(self) -> int:
        return len(self.items)

    def decode(self, tokens) -> np.ndarray:
        """The genome that a permutation of tokens stands for."""
        tokens = np.asarray(tokens)
        if not self.space.orientations:
            return tokens
        _, first = np.unique(self.items[tokens], return_index=True)
        return np.concatenate([np.argsort(first), self.turns[tokens[first]]])

    def identity(self) -> np.ndarray:
        """Tokens in id order: items in id order, each as drawn."""
        return np.arange(self.size)


class _Encoded:
    """The objective seen through the token encoding (what vcopt calls)."""

    def __init__(self, objective: Objective, encoding: TokenEncoding):
        self.objective, self.encoding = objective, encoding

    def __call__(self, tokens) -> float:
        return self.objective(self.encoding.decode(tokens))


def _aim(objective: Objective) -> float:
    """vcopt's 'aim' is the score it tries to reach: the target when there is one."""
    return objective.budget.target if objective.budget.target is not None else 0.0


class VcoptOpt2:
    """vcopt().opt2 from random starting orders (the first from the identity, as in seed 002)."""

    name = "vcopt_opt2"
    needs = Face.FITNESS

    def __init__(self, start: str = "identity"):
        if start not in ("identity", "random"):
            raise InputError(f"optimizer.start must be 'identity' or 'random', got {start!r}")
        self.start = start

    def run(self, objective: Objective, rng: np.random.Generator) -> None:
        encoding = TokenEncoding(objective.space)
        score = _Encoded(objective, encoding)
        para = encoding.identity() if self.start == "identity" else rng.permutation(encoding.size)
        while True:
            _vcopt().opt2(para, score, _aim(objective), show_para_func=None, seed=int(rng.integers(2**31)))
            para = rng.permutation(encoding.size)


class VcoptTspGA:
    """vcopt().tspGA with the seed's pool size, restarted when it stops by itself."""

    name = "vcopt_tspga"
    needs = Face.FITNESS

    def __init__(self, pool_num: int = 20, max_gen: int | None = None):
        self.pool_num, self.max_gen = pool_num, max_gen

    def run(self, objective: Objective, rng: np.random.Generator) -> None:
        encoding = TokenEncoding(objective.space)
        score = _Encoded(objective, encoding)
        while True:
            _vcopt().tspGA(
                encoding.identity(),
                score,
                _aim(objective),
                show_pool_func=None,
                seed=int(rng.integers(2**31)),
                pool_num=self.pool_num,
                max_gen=self.max_gen,
            )


def _vcopt():
    from vcopt import vcopt

    return vcopt()
