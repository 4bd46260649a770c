"""The edge-matching family's own solvers: they read its board (grey frame, turns, pre-placed pieces).

greedy (the seed's scoring rule), beam (beam search), backtrack (deepening and exact search),
perfect_search (the count of perfect boards), cpsat (an independent CP-SAT model of perfect boards),
board_file (a board read from a file). They may drive a generic engine of heuristics/; heuristics/
never imports them.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from core.errors import InputError
from core.faces import ConstructiveSolver

STARTS = (
    "greedy",
    "beam",
    "breaks",
    "race",
)  # the built starts the face offers by name (race: breaks and beam at once, the better board); any
# other name is a board file


def starting_solver(start: str, settings: Mapping[str, Any] | None = None) -> ConstructiveSolver:
    """The solver that builds the local-search face's start named `start` (an optimiser's
    `optimizer.start`): the greedy, the beam (`settings`: its width, max_width, order), the break
    backtracker (`settings`: its own), both at once (`race`, the better board; `settings`: "breaks"
    and "beam", each one's own; once the beam is done, its thread runs another backtracker), or
    else the board in the file at path `start` (best_board.txt of an earlier run)."""
    from puzzles.edge_matching.solvers.beam import Beam
    from puzzles.edge_matching.solvers.board_file import BoardFile
    from puzzles.edge_matching.solvers.breaks import Breaks
    from puzzles.edge_matching.solvers.greedy import Greedy
    from puzzles.edge_matching.solvers.race import Race

    settings = dict(settings or {})
    if start == "greedy":
        return Greedy(**settings)
    if start == "beam":
        return Beam(**settings)
    if start == "breaks":
        return Breaks(**settings)
    if start == "race":
        breaks = settings.get("breaks", {})
        spare = Breaks(**{**breaks, "threads": 1})  # takes the beam's thread once the beam is done
        return Race([Breaks(**breaks), Beam(**settings.get("beam", {}))], spare)
    if not Path(start).is_file():
        raise InputError(
            f"optimizer.start must be one of random, {', '.join(STARTS)} or a board file (best_board.txt of "
            f"an edge-matching run), got {start!r}: no such file"
        )
    return BoardFile(Path(start))
