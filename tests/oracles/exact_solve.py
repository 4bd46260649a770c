"""Solutions of a packing's cover model as cell owners, for tests that check fillings one by one."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from core.exact import CoverModel
from heuristics import exact_backends
from puzzles.packing import Packing


def solve(packing: Packing, model: CoverModel, limit: int | None = None) -> Iterator[np.ndarray]:
    """Each solution (up to `limit`) as the covering piece per board cell (-1: open)."""
    for rows in exact_backends.solutions(model, limit=limit):
        yield packing.owners(rows, model)
