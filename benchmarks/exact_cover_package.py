"""Baseline: the `exact-cover` package from PyPI (dancing links in C), fed the same models as the engine.

The package knows only primary items (every column covered exactly once), so its matrix keeps a
model's primary columns. The other columns must be ones no row uses (board slots that are holes or
off the board, a calendar's date cells once their rows are dropped); otherwise dropping them would
change the problem, and `matrix` refuses.
"""

from __future__ import annotations

import numpy as np

from core.exact import CoverModel
from heuristics.exact_cover import bool_matrix


def matrix(model: CoverModel) -> np.ndarray:
    """The model as the package's 0/1 int32 matrix: one row per model row, its primary columns."""
    bits = bool_matrix(model.masks)[:, : model.n_items]
    primary = bool_matrix(model.primary[None, :])[0, : model.n_items]
    if bits[:, ~primary].any():
        raise ValueError("the model has secondary items that rows use; the package cannot express them")
    return np.ascontiguousarray(bits[:, primary], dtype=np.int32)


def count(m: np.ndarray) -> int:
    """Number of solutions (one counting search)."""
    import exact_cover

    return int(exact_cover.get_solution_count(m))


def solutions(m: np.ndarray, known: int) -> set[tuple[int, ...]]:
    """Every solution, in one enumerating search told the count (`known`, from a count made earlier)."""
    import exact_cover

    return exact_cover.get_all_solutions(m, max_count=known) if known else set()
