"""optimizer=portfolio (puzzles/edge_matching/pipelines.py, Portfolio): the break backtracker and the beam build
the start at once (`BestOfConcurrent`), then plateau_lns chains walk from the better board. Under a node and evaluation budget
the same seed gives the same run; the board is legal and re-scored as reported, never worse than the
start."""

from __future__ import annotations

import re

import pytest

from core.errors import InputError
from experiments import api
from puzzles.edge_matching.board_files import read_board
from puzzles.edge_matching.eternity2 import Eternity2Like
from puzzles.edge_matching.pipelines import ComposedBreaks, Portfolio
from puzzles.edge_matching.solvers.concurrent import NOTE
from tests.experiments.test_bad_input import assert_one_line, needs_fork, run_forked
from tests.puzzles.edge_matching.test_plateau_lns import run_dir, trace

BREAKS = ["optimizer.breaks.max_nodes=400000", "optimizer.breaks.restart_nodes=100000"]
SMALL = [
    *BREAKS,
    "optimizer.breaks.finish_width=20",
    *("optimizer.width=50", "optimizer.max_width=500"),  # the racing beam: full width without a time limit
]


def test_from_the_app_it_repeats_starts_at_the_concurrent_builders_board_and_never_ends_worse(
    tmp_path, capsys
):
    settings = ["puzzle.n=8", *SMALL, "budget.evaluations=300000", "progress=false"]
    rows = [
        api.run(puzzle="eternity2_like", optimizer="portfolio", seed=5, overrides=settings, out=tmp_path / s)
        for s in ("a", "b")
    ]
    assert rows[0]["best_genome"] == rows[1]["best_genome"] and rows[0]["best"] == rows[1]["best"]
    assert (
        capsys.readouterr().err.count(f"{NOTE}: breaks ") == 2
    )  # the builders' boards and the kept one, shown
    steps = trace(rows[0])["best"]
    assert steps.is_monotonic_decreasing and steps.iloc[-1] == rows[0]["best"]
    puzzle = Eternity2Like(n=8)
    layout = read_board(puzzle, run_dir(rows[0]) / "best_board.txt")
    assert puzzle.score_layout(layout)["unmatched_edges"] == rows[0]["best"]


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        ("optimizer.breaks_share=0", r"optimizer.breaks_share must be in \(0, 1\]"),
        ("optimizer.threads=0", "optimizer.threads must be a whole number >= 1"),
        ("optimizer.breaks.schedule=[3,-4]", r"optimizer.breaks.schedule must be a list of depths"),
        ("optimizer.breaks.probe_batches=0", r"optimizer.breaks.probe_batches must be a whole number >= 1"),
        ("optimizer.chain_seconds=-5", r"optimizer.chain_seconds must be >= 0 \(or null\), got -5"),
        ("optimizer.chain_seconds=soon", r"optimizer.chain_seconds must be >= 0 \(or null\), got 'soon'"),
    ],
)
def test_bad_settings_are_refused_in_one_line(tmp_path, setting, message):
    with pytest.raises(InputError, match=message) as refused:
        api.run(puzzle="eternity2_like", optimizer="portfolio", overrides=[setting], out=tmp_path)
    assert "\n" not in str(refused.value)


@pytest.mark.slow
def test_its_trace_opens_with_the_break_backtrackers_curve(tmp_path):
    """Under a time budget the race's (the breaks') own new bests are trace rows before the hand-over (at
    breaks_share of the time), so the curve has points from the first seconds; it ends at the record."""
    settings = ["budget.seconds=6", "optimizer.breaks.finish_width=20", "progress=false"]
    row = api.run(puzzle="eternity2", optimizer="portfolio", seed=1, overrides=settings, out=tmp_path)
    steps = trace(row)
    before = steps[steps["seconds"] < 0.8 * 6]
    assert len(before) >= 1 and (before["evaluations"] == 1).all()
    assert steps["best"].is_monotonic_decreasing and steps["seconds"].is_monotonic_increasing
    assert steps["best"].iloc[-1] == row["best"]


@pytest.mark.parametrize(
    ("seconds", "chain_seconds", "start"),
    [(60, 60.0, 48.0), (600, 60.0, 540.0), (3600, 60.0, 3540.0), (600, None, 480.0), (None, 60.0, None)],
)
def test_the_chains_walk_breaks_share_of_a_short_run_and_at_most_chain_seconds_of_a_long_one(
    seconds, chain_seconds, start
):
    from types import SimpleNamespace

    from puzzles.edge_matching.pipelines import Portfolio

    objective = SimpleNamespace(budget=SimpleNamespace(seconds=seconds))
    assert Portfolio(chain_seconds=chain_seconds).start_seconds(objective) == pytest.approx(start)


def test_the_beam_takes_one_thread_below_beam_below_cells_and_none_on_eternity_ii():
    from puzzles.edge_matching.eternity2 import Eternity2, Eternity2Like
    from puzzles.edge_matching.pipelines import Portfolio
    from puzzles.edge_matching.solvers.beam import Beam
    from puzzles.edge_matching.solvers.breaks import Breaks
    from puzzles.edge_matching.solvers.concurrent import BestOfConcurrent

    start = Portfolio(threads=3).start
    both = start.chosen(Eternity2Like(n=12))
    assert isinstance(both, BestOfConcurrent) and both.name == "breaks+beam"
    breaks, beam = both.solvers
    assert isinstance(breaks, Breaks) and breaks.threads == 2
    assert isinstance(beam, Beam) and beam.width == 200_000
    assert both.spare is not None and both.spare.threads == 1
    official = start.chosen(Eternity2())  # 256 cells: the backtracker on every thread
    assert isinstance(official, Breaks) and official.threads == 3
    assert isinstance(Portfolio(threads=2, beam_below=300).start.chosen(Eternity2()), BestOfConcurrent)
    one = Portfolio(threads=1).start.chosen(Eternity2Like(n=8))
    assert isinstance(one, BestOfConcurrent) and one.solvers[0].threads == 1  # both share the one core
    alone = Portfolio(threads=3, beam=False)
    assert isinstance(alone.start, Breaks) and alone.start.threads == 3


# --- the backtracker's settings: one nested mapping, `optimizer.breaks` (issue 57, item 3) ---------------


def test_the_apps_breaks_settings_reach_the_backtracker(tmp_path, capsys):
    settings = ["puzzle.n=8", "optimizer.beam=false", "budget.evaluations=20000", "progress=false"]
    settings += ["optimizer.breaks.max_nodes=300000", "optimizer.breaks.restart_nodes=100000"]
    settings += ["optimizer.breaks.ladder=0"]  # (api.run names its folder by every override: few)
    api.run(puzzle="eternity2_like", optimizer="portfolio", seed=2, overrides=settings, out=tmp_path)
    said = capsys.readouterr().err
    restarts = re.search(r"breaks: (\d+) restarts, 300,000 nodes, ", said)  # max_nodes
    assert restarts and int(restarts.group(1)) >= 3, said  # restart_nodes (by default one restart)
    assert "; ladder (unmatched joins: distinct complete boards): " in said, said  # ladder


def test_one_breaks_is_built_and_every_threads_variant_is_a_copy_of_it():
    settings = {"probe_batches": 1, "schedule": [210, 200], "parity": True, "value_order": "quota"}
    start = Portfolio(threads=3, breaks=settings).start
    both = start.chosen(Eternity2Like(n=8))
    chosen = [both.solvers[0], both.spare, start.chosen(Eternity2Like(n=16))]
    assert [b.threads for b in chosen] == [2, 1, 3]
    for breaks in chosen:
        assert breaks == ComposedBreaks(threads=breaks.threads, **settings)
        assert (breaks.probe_batches, breaks.schedule, breaks.parity) == (1, (200, 210), True)
    assert Portfolio(breaks={}).start.large == Portfolio().start.large == ComposedBreaks(threads=2)


@pytest.mark.parametrize(
    ("breaks", "message"),
    [
        ({"colour": 3}, r"^optimizer.breaks has no setting 'colour'; it takes: order, tail, schedule, "),
        ({"threads": 4}, r"^optimizer.breaks.threads is the portfolio's own: set optimizer.threads$"),
        ({"seed": 4}, r"^optimizer.breaks.seed is the portfolio's own"),
        ({"tail_cells": -1}, r"^optimizer.breaks.tail_cells must be a whole number >= 0"),
        ([200, 210], r"^optimizer.breaks must be a mapping"),
    ],
)
def test_a_bad_breaks_mapping_is_refused_in_one_line(breaks, message):
    with pytest.raises(InputError, match=message) as refused:
        Portfolio(breaks=breaks)
    assert "\n" not in str(refused.value)


@needs_fork
@pytest.mark.parametrize(
    ("setting", "expected"),
    [
        ("optimizer.breaks.colour=3", "optimizer.breaks has no setting 'colour'; it takes: order, tail, "),
        ("optimizer.schedule=[200,210]", "optimizer.schedule is now optimizer.breaks.schedule"),
        ("optimizer.breaks_nodes=400000", "optimizer.breaks_nodes is now optimizer.breaks.max_nodes"),
        ("+optimizer.quota=[1,2,3]", "optimizer.quota is now optimizer.breaks.quota"),
    ],
)
def test_from_the_app_an_unknown_or_moved_setting_is_one_line(tmp_path, setting, expected):
    argv = ["puzzle=eternity2_like", "optimizer=portfolio", setting, f"hydra.run.dir={tmp_path}"]
    assert_one_line(run_forked(argv, tmp_path), expected)
