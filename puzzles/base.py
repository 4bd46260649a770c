"""What every puzzle offers a solver: the vocabulary shared by puzzles and experiments."""
from __future__ import annotations

from typing import Any, Protocol

import numpy as np

from puzzles.space import PermutationSpace


class Puzzle(Protocol):
    """A puzzle seen by a metaheuristic: a space, a fitness to minimise, and a picture.

    `score` gives the numbers users read (e.g. gaps, match rate); `fitness` is what optimisers
    minimise; `known_optimum` is the best possible fitness where it is known, else None.
    """

    name: str
    space: PermutationSpace
    known_optimum: float | None

    def fitness(self, genome: np.ndarray) -> float: ...

    def score(self, genome: np.ndarray) -> dict[str, float]: ...

    def decode(self, genome: np.ndarray) -> Any: ...

    def draw(self, layout: Any, ax=None): ...

    def params(self) -> dict[str, Any]: ...
