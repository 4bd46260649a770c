"""The edge-matching family's own solvers: they read its board (grey frame, turns, pre-placed pieces).

greedy (the seed's scoring rule), beam (beam search), backtrack (deepening and exact search),
perfect_search (the count of perfect boards; tests/oracles/edge_cpsat_model.py counts them independently),
board_file (a board read from a file). They may drive a generic engine of heuristics/; heuristics/
never imports them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from core.errors import InputError
from core.faces import ConstructiveSolver

if TYPE_CHECKING:  # only for annotations: the solvers load when a start is asked for
    from puzzles.edge_matching.solvers.beam import Beam
    from puzzles.edge_matching.solvers.breaks import Breaks
    from puzzles.edge_matching.solvers.concurrent import BestOfConcurrent


def breaks_and_beam(breaks: Breaks, beam: Beam) -> BestOfConcurrent:
    """The backtracker and the beam at once, the better board; once the beam is done its thread runs
    another backtracker (`breaks` on one thread, restarts of its own: `BestOfConcurrent`'s spare)."""
    from puzzles.edge_matching.solvers.concurrent import BestOfConcurrent

    return BestOfConcurrent([breaks, beam], replace(breaks, threads=1))


def _concurrent() -> ConstructiveSolver:
    from puzzles.edge_matching.solvers.beam import Beam
    from puzzles.edge_matching.solvers.breaks import Breaks

    return breaks_and_beam(Breaks(), Beam())


def _named() -> dict[str, Callable[[], ConstructiveSolver]]:
    """The built starts the face offers by name, each with its solver's own defaults (concurrent:
    breaks and beam at once, the better board; "race" is its old name, still read from older configs);
    imported only when a start is asked for."""
    from puzzles.edge_matching.solvers.beam import Beam
    from puzzles.edge_matching.solvers.breaks import Breaks
    from puzzles.edge_matching.solvers.greedy import Greedy

    starts: dict[str, Callable[[], ConstructiveSolver]] = {
        "greedy": Greedy,
        "beam": Beam,
        "breaks": Breaks,
        "concurrent": _concurrent,
    }
    return {**starts, **{old: starts[new] for old, new in OLD_STARTS.items()}}


STARTS = ("greedy", "beam", "breaks", "concurrent")  # the names `_named` resolves; any other is a board file
OLD_STARTS = {"race": "concurrent"}  # a start's old name -> its name now: a config that says the old works


def starting_solver(start: str) -> ConstructiveSolver:
    """The solver that builds the local-search face's start named `start` (a user's `optimizer.start`
    on a compiled optimiser), with that solver's own defaults, or else the board in the file at path
    `start` (best_board.txt of an earlier run). A pipeline with settings of its own hands its solver
    over built (puzzles/edge_matching/pipelines.py)."""
    from puzzles.edge_matching.solvers.board_file import BoardFile

    named = _named()
    if start in named:
        return named[start]()
    if not Path(start).is_file():
        raise InputError(
            f"optimizer.start must be one of random, {', '.join(STARTS)} or a board file (best_board.txt of "
            f"an edge-matching run), got {start!r}: no such file"
        )
    return BoardFile(Path(start))
