"""What a perfect search proved (`Answer`): the boards it counted and kept, the work it did and why it
stopped. Apart from tables.py, which builds a board's tables, because the search, its jobs and its
hedge all return one.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Answer:
    """What a search proved: `count` distinct perfect boards (all of them when `complete`; at least
    that many otherwise), the first `boards` in search order as (piece, turns) per cell, the nodes
    walked (and the pieces placed) and the time; `stop_reason` "finished" (the whole tree), "limit" (enough boards),
    "max_nodes" or "seconds". `symmetry`: the boards each one found stands for (its turns)."""

    count: int
    boards: list[tuple[np.ndarray, np.ndarray]]
    nodes: int
    seconds: float
    stop_reason: str
    symmetry: int = 1
    jobs: int = 1
    order: str = ""  # the scan order whose walk found the first board (or proved there is none)
    placements: int = 0  # the pieces placed: the community's node, a census's checksum (walks.py)
    busy: float = 1.0  # the share of the threads' time in jobs (`search`'s `busy`)
    compile_seconds: float = 0.0  # of `seconds`: writing and compiling (or loading) a generated walk

    @property
    def complete(self) -> bool:
        return self.stop_reason == "finished"

    @property
    def none(self) -> bool:
        """Proved: no perfect board."""
        return self.complete and self.count == 0
