"""The seed's greedy as an entry of the optimizer config group, so a sweep can put it beside the
metaheuristics (`optimizer=greedy_faithful,greedy,sa,...`).

The greedy builds one board from the pieces; it evaluates no genomes and spends no budget, so it
runs under `task=colour_sweep`, not `task=optimise` (which says so in one line).
"""
from __future__ import annotations

from heuristics.edge_greedy import greedy
from puzzles.edge_matching import EdgeMatching, Layout
from core import InputError


class GreedySolver:
    """The seed's greedy scoring solver; `seed_faithful` keeps the seed's bugs (duplicates included)."""

    def __init__(self, seed_faithful: bool = False):
        self.seed_faithful = seed_faithful
        self.name = "greedy_faithful" if seed_faithful else "greedy"

    def solve(self, puzzle: EdgeMatching) -> Layout:
        """One greedy board, checked: hints kept, and each piece once unless seed-faithful."""
        if not isinstance(puzzle, EdgeMatching):
            raise InputError(f"optimizer={self.name} solves edge-matching puzzles only (puzzle=edge_matching)")
        if self.seed_faithful and puzzle.rotations:
            raise InputError("optimizer=greedy_faithful reproduces the seed, whose pieces never turn: "
                                   "use puzzle.rotations=false, or optimizer=greedy")
        try:
            piece, rot = greedy(puzzle.colours, puzzle.n, puzzle.fixed, rotations=puzzle.rotations,
                                seed_faithful=self.seed_faithful)
        except ValueError as err:
            raise InputError(f"optimizer={self.name}: {err}") from None
        layout = Layout(puzzle.n, piece, rot)
        puzzle.check(layout, allow_duplicates=self.seed_faithful)
        return layout

    def run(self, objective, rng) -> None:
        """Refuse, in one line: the greedy needs the pieces, which an objective does not carry."""
        raise InputError(
            f"optimizer={self.name} builds its board from the pieces rather than by evaluating genomes: "
            "run it with task=colour_sweep (add +sweep.colours=[20] for a single board)")
