"""The family's rows of the kernel table: the face's own kernels, `window` (windows.py) and `plateau`
(plateau.py), each with its settings in the order its `params` holds them and its control slots.

Why a module of their own: the kernels read their slots from these rows at compile time, and the
face hands the rows over bound to the compiled kernels (`bound`, in `EdgeMatching.local_search`), so
`heuristics.kernels.kernel_row` finds them by name without heuristics/ importing the family.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from core.faces import LocalSearchFace
from heuristics.kernels import Kernel


def _unbound(face: LocalSearchFace) -> Any:
    raise RuntimeError("a row of kernel_rows.py runs only bound to its compiled kernel (`bound`)")


def bound(row: Kernel, kernel: Any) -> Kernel:
    """The row with its compiled kernel, as the face hands it over."""
    return dataclasses.replace(row, compiled=lambda face: kernel)


WINDOW = Kernel("window", ("size", "cap", "focus", "extra", "kick"), _unbound)
PLATEAU_OPERATORS = ("square", "worst", "grow", "path", "band", "chain", "window", "twin")
PLATEAU_STATS = ("tried", "equal", "better", "best")  # per operator: accepted equal, improved, new best
# plateau: iterations since a new best, 1 once the weights are set, where the operators' counts start
# (len(PLATEAU_STATS) per operator), then one weight per operator
PLATEAU_SINCE, PLATEAU_READY, PLATEAU_COUNTS = 3, 6, 7
PLATEAU = Kernel(
    "plateau",
    ("ops", "moves", "t_hi", "t_lo", "temperature", "patience", "decay", "region", "cap"),
    _unbound,
    control=PLATEAU_COUNTS + (len(PLATEAU_STATS) + 1) * len(PLATEAU_OPERATORS),
)
