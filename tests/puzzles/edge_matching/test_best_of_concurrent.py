"""Constructive solvers run at once, the better board kept (`BestOfConcurrent`,
puzzles/edge_matching/solvers/concurrent.py), portfolio's start: the better of the solvers' boards (each
as it builds alone, re-scored), ties to the first, and a history that is the best board held over time."""

from __future__ import annotations

import time

import pytest

from core.errors import InputError
from puzzles.edge_matching.eternity2 import Eternity2Like
from puzzles.edge_matching.solvers import breaks_and_beam, starting_solver
from puzzles.edge_matching.solvers import concurrent as concurrent_module
from puzzles.edge_matching.solvers.beam import Beam
from puzzles.edge_matching.solvers.breaks import Breaks
from puzzles.edge_matching.solvers.concurrent import NOTE, SPARE_SEED, BestOfConcurrent
from tests.puzzles.edge_matching.test_breaks import _assert_legal, _unmatched

BREAKS = {"max_nodes": 200_000, "restart_nodes": 50_000, "finish_width": 20}


@pytest.mark.parametrize(("n", "m", "seed"), [(8, 8, 0), (8, 8, 3), (6, 9, 2), (10, 10, 1)])
def test_it_keeps_the_better_board_of_its_solvers_each_as_built_alone(n, m, seed):
    colours = {} if n == m else {"frame_colours": 3, "inner_colours": 5}
    puzzle = Eternity2Like(n=n, m=m, instance_seed=seed, **colours)
    solvers = [Breaks(seed=seed, **BREAKS), Beam(width=50, seed=seed)]
    alone = [_unmatched(puzzle, solver.construct(puzzle).layout) for solver in solvers]
    built = BestOfConcurrent(solvers).construct(puzzle)
    _assert_legal(puzzle, built.layout, [])
    assert (
        _unmatched(puzzle, built.layout) == min(alone) == puzzle.score_layout(built.layout)["unmatched_edges"]
    )
    winner = solvers[alone.index(min(alone))]
    assert (built.layout.piece == winner.construct(puzzle).layout.piece).all()
    assert f"{winner.name}'s board kept" in built.note
    values = [row[2] for row in built.history]
    assert values == sorted(values, reverse=True) and len(set(values)) == len(values)
    assert values[-1] == min(alone)


def test_a_tie_goes_to_the_first_solver():
    puzzle = Eternity2Like(n=6, instance_seed=4)
    twins = [Beam(width=30, seed=1), Beam(width=30, seed=1)]
    twins[1].name = "second"
    built = BestOfConcurrent(twins).construct(puzzle)
    assert "beam's board kept" in built.note and "second's" not in built.note


def test_built_from_each_solver_and_by_name_with_their_own_defaults():
    both = breaks_and_beam(Breaks(threads=1, finish_width=7), Beam(width=9))
    assert isinstance(both, BestOfConcurrent) and both.name == "breaks+beam"
    breaks, beam = both.solvers
    assert isinstance(breaks, Breaks) and breaks.finish_width == 7
    assert isinstance(beam, Beam) and beam.width == 9
    assert both.seeded(3).solvers[1].seed == 3
    assert both.spare is not None and (both.spare.threads, both.spare.finish_width) == (1, 7)
    named = starting_solver("concurrent")
    assert isinstance(named, BestOfConcurrent) and [s.name for s in named.solvers] == ["breaks", "beam"]
    assert (named.solvers[1].width, named.solvers[0].finish_width) == (Beam().width, Breaks().finish_width)
    old = starting_solver("race")  # its old name, which a config written before the rename says
    assert isinstance(old, BestOfConcurrent) and [s.name for s in old.solvers] == ["breaks", "beam"]
    with pytest.raises(InputError, match=r"one of random, greedy, beam, breaks, concurrent or a board file"):
        starting_solver("best")


def test_once_one_solves_the_board_the_others_stop():
    """The backtracker solves this 6 x 6 board in a tenth of a second; a beam given 20 s widens until
    its next width would not fit them (beam_within). The builders end with the perfect board at once."""
    puzzle = Eternity2Like(n=6, instance_seed=0)
    solvers = [Breaks(seed=0, finish_width=20), Beam(width=10_000_000, max_width=None)]
    for solver in solvers:
        solver.warm_up(puzzle)
    started = time.perf_counter()
    built = BestOfConcurrent(solvers).construct(puzzle, 20)
    assert _unmatched(puzzle, built.layout) == 0 and "breaks's board kept" in built.note
    assert time.perf_counter() - started < 5


def builder_scores(note: str) -> list[tuple[str, int]]:
    """(name, unmatched joins) of each run the note lists, in its order."""
    listed = note.split(f"{NOTE}: ")[1].split(";")[0].split(", ")
    return [(name, int(score)) for name, score in (item.rsplit(" ", 1) for item in listed)]


@pytest.mark.slow
def test_a_thread_whose_solver_ends_early_runs_the_spare_for_the_time_left(monkeypatch):
    """A beam of width 50 is done in milliseconds; under a time limit, with a core per solver, its
    thread then runs the spare backtracker (its own seed) until the builders' time is up, and the best
    of the three boards is kept. On one core (the backtracker takes the freed core) and under
    a node budget (each solver runs its own work) no spare runs."""
    monkeypatch.setattr(concurrent_module, "threads_available", lambda: 2)
    puzzle = Eternity2Like(n=10, instance_seed=1)
    both = breaks_and_beam(Breaks(finish_width=20), Beam(width=50, max_width=50))
    both = both.seeded(3)
    assert both.spare is not None and both.spare.seed == 3 + SPARE_SEED != both.solvers[0].seed
    both.warm_up(puzzle)
    started = time.perf_counter()
    built = both.construct(puzzle, 4)
    took = time.perf_counter() - started
    _assert_legal(puzzle, built.layout, [])
    assert 3.5 < took < 6
    scores = builder_scores(built.note)
    assert [name for name, _ in scores] == ["breaks", "beam", "breaks (spare)"]
    assert _unmatched(puzzle, built.layout) == min(score for _, score in scores)
    values = [row[2] for row in built.history]
    assert values == sorted(values, reverse=True) and values[-1] == _unmatched(puzzle, built.layout)
    assert all(0 <= row[0] <= took for row in built.history)  # every curve on the builders' shared clock
    beam_first = BestOfConcurrent(
        [Beam(width=50, max_width=50, seed=0), Breaks(seed=0, finish_width=20)], both.spare
    )
    scores = builder_scores(beam_first.construct(puzzle, 2).note)
    assert [name for name, _ in scores] == ["beam", "breaks (spare)", "breaks"]
    small = BestOfConcurrent([Breaks(seed=0, **BREAKS), Beam(width=50, seed=0)], Breaks(seed=1, **BREAKS))
    assert "(spare)" not in small.construct(puzzle).note
    monkeypatch.setattr(concurrent_module, "threads_available", lambda: 1)
    assert "(spare)" not in both.construct(puzzle, 2).note
