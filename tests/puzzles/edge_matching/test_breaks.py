"""The scheduled-break backtracker (optimizer=breaks): legal boards, honest scores, the schedule kept,
a perfect board found with no breaks, the same board from the same seed, one-line refusals."""

from __future__ import annotations

from dataclasses import FrozenInstanceError, replace

import numpy as np
import pytest
from hydra import compose, initialize_config_dir
from hydra.core.global_hydra import GlobalHydra
from hypothesis import given
from hypothesis import settings as examples
from hypothesis import strategies as st

from core.errors import InputError
from experiments.run import run_task, setup
from experiments.schema import CONFIG_DIR
from puzzles.edge_matching.eternity2 import Eternity2, Eternity2Like
from puzzles.edge_matching.solvers.breaks import OPEN_CELLS, QUOTA_CELLS, Breaks
from puzzles.edge_matching.solvers.breaks_tables import (
    BLACKWOOD,
    ORDERS,
    Tables,
    default_schedule,
    quota_need,
)
from puzzles.edge_matching.solvers.breaks_walk import _quota_first


def _like(n, m=None, seed=0, hints=(), frame=2, inner=4):
    return Eternity2Like(n=n, m=m, frame_colours=frame, inner_colours=inner, instance_seed=seed, hints=hints)


def _shown(puzzle, layout):
    """Each cell's colours [left, top, right, bottom], read from the puzzle's turn table."""
    return puzzle.table[layout.piece, layout.rotation].reshape(puzzle.n, puzzle.m, 4)


def _unmatched(puzzle, layout):
    """Inner joins whose sides differ or are grey, counted apart from the solver's and puzzle's code."""
    shown = _shown(puzzle, layout)
    across = (shown[:, :-1, 2] != shown[:, 1:, 0]) | (shown[:, :-1, 2] == 0)
    down = (shown[:-1, :, 3] != shown[1:, :, 1]) | (shown[:-1, :, 3] == 0)
    return int(across.sum() + down.sum())


def _assert_legal(puzzle, layout, hints):
    """Every piece once, the hints where they were, grey exactly on the rim."""
    assert sorted(layout.piece.tolist()) == list(range(puzzle.n * puzzle.m))
    for cell, piece, turn in hints:
        assert (layout.piece[cell], layout.rotation[cell]) == (piece, turn)
    shown = _shown(puzzle, layout)
    rim = np.zeros_like(shown, dtype=bool)
    rim[:, 0, 0] = rim[0, :, 1] = rim[:, -1, 2] = rim[-1, :, 3] = True
    assert ((shown == 0) == rim).all()


@pytest.mark.parametrize("n, m", [(16, 16), (7, 10), (10, 7), (3, 3), (4, 9)])
@pytest.mark.parametrize("order", sorted(ORDERS))
def test_every_order_fills_each_cell_once_after_its_left_and_bottom_neighbours(n, m, order):
    cells = ORDERS[order](n, m, max(1, round(5 * n / 16)))
    assert sorted(cells.tolist()) == list(range(n * m))
    position = np.empty(n * m, int)
    position[cells] = np.arange(n * m)
    for x in range(n * m):
        r, c = divmod(x, m)
        if c > 0:
            assert position[x - 1] < position[x]
        if r < n - 1:
            assert position[x + m] < position[x]


def test_the_default_schedule_is_verhaards_and_more_on_256_cells_and_scales():
    assert default_schedule(256)[:12] == [193, 202, 209, 214, 218, 222, 226, 229, 232, 235, 238, 240]
    assert default_schedule(64, BLACKWOOD) == [50, 52, 53, 54, 55, 56, 57, 58, 59, 60]


@pytest.mark.parametrize(
    "puzzle, hints",
    [
        (_like(8, hints=([3, 4],)), None),
        (_like(6, 9, seed=2), None),
        (Eternity2(), None),
    ],
    ids=["8x8 hint", "6x9", "eternity2"],
)
def test_the_board_is_legal_and_scored_as_the_puzzle_scores_it(puzzle, hints):
    built = Breaks(seed=1, max_nodes=300_000, restart_nodes=100_000, finish_width=50).construct(puzzle)
    _assert_legal(puzzle, built.layout, puzzle.preplaced.tolist())
    unmatched = _unmatched(puzzle, built.layout)
    assert built.unmatched == unmatched == puzzle.score_layout(built.layout)["unmatched_edges"]
    assert built.work == int(built.depth_nodes.sum()) <= 300_000
    assert built.stop_reason in ("max_nodes", "finished")


@pytest.mark.parametrize("n, m, seed", [(5, 5, 0), (6, 6, 1), (5, 7, 3)])
def test_with_no_breaks_it_finds_a_perfect_board(n, m, seed):
    puzzle = _like(n, m, seed=seed)
    built = Breaks(schedule=[], restart_nodes=5_000_000, max_nodes=20_000_000).construct(puzzle)
    assert built.unmatched == _unmatched(puzzle, built.layout) == 0
    assert built.stop_reason == "finished"


@pytest.mark.parametrize("schedule", [[20, 28, 30], [10, 30], [0, 33, 34, 35]])
def test_the_searchs_complete_boards_keep_the_schedule(schedule):
    """Count the breaks of every complete board the depth-first search reached (its deepest board)
    by depth: at most the schedule's allowance, at most one per cell, none along the rim."""
    puzzle = _like(6, seed=4, inner=5)
    tables = Tables(puzzle, "staircase", None, schedule)
    allowed = np.searchsorted(schedule, np.arange(36), "right")
    reached = 0
    for k in range(6):
        run = tables.restart(200_000, k, np.zeros(1, np.int64))
        if run.deepest < 36:
            continue
        reached += 1
        board, order = run.deep_board, tables.geometry[0]
        shown = tables.table.reshape(-1, 4)[board]
        placed, total = set(), 0
        for depth, x in enumerate(order):
            r, c = divmod(int(x), 6)
            here = 0
            for s, (dr, dc) in enumerate([(0, -1), (-1, 0), (0, 1), (1, 0)]):
                y = (r + dr) * 6 + c + dc
                if not (0 <= r + dr < 6 and 0 <= c + dc < 6) or y not in placed:
                    continue
                bad = shown[x, s] != shown[y, (s + 2) % 4]
                along_rim = (s in (0, 2) and r in (0, 5)) or (s in (1, 3) and c in (0, 5))
                assert not (bad and along_rim)
                here += bad
            assert here <= 1
            total += here
            assert total <= allowed[depth]
            placed.add(int(x))
        assert total == run.deepest_breaks
    assert reached


def test_a_restart_told_the_runs_best_looks_only_for_boards_with_fewer_breaks():
    """Each restart that completes the board gets the same seed again, told its best so far: the
    search then completes no board with as many breaks."""
    puzzle = _like(6, seed=4, inner=5)
    tables = Tables(puzzle, "staircase", None, [20, 28, 30])
    bounded_runs = 0
    for k in range(8):
        run = tables.restart(200_000, k, np.zeros(1, np.int64))
        if run.deepest < 36 or run.deepest_breaks == 0:
            continue
        bounded_runs += 1
        again = tables.restart(200_000, k, np.zeros(1, np.int64), fewer=run.deepest_breaks)
        assert again.deepest < 36 or again.deepest_breaks < run.deepest_breaks
    assert bounded_runs


def test_a_schedule_with_breaks_lets_the_search_go_deeper_than_none():
    puzzle = _like(7, seed=5, inner=6)
    none = Tables(puzzle, "staircase", None, []).restart(100_000, 0, np.zeros(1, np.int64))
    some = Tables(puzzle, "staircase", None, [20, 25, 30, 35, 40]).restart(100_000, 0, np.zeros(1, np.int64))
    assert some.deepest >= none.deepest


def test_rim_breaks_let_a_join_between_frame_pieces_break_and_only_then():
    """Every complete board the walk finds has its breaks where they may be: without rim_breaks every
    join between two frame pieces matches; with them some break (on a board whose last cells are on
    the rim, the walk then completes boards it could not)."""
    puzzle = _like(6, seed=2, frame=3, inner=4)
    for rim in (False, True):
        tables = Tables(puzzle, "staircase", None, [5, 10, 15, 20, 25, 30], rim)
        rim_broken = 0
        for k in range(6):
            run = tables.restart(100_000, k, np.zeros(1, np.int64), ladder=(40, 40))
            for board in run.kept[np.array(run.kept_by) == "walk"]:  # completions may break any join
                shown = _shown(puzzle, puzzle.layout(board // 4, board % 4))
                rows, cols = shown[[0, -1], :, :], shown[:, [0, -1], :]  # the top and bottom rims, the sides
                rim_broken += int(
                    (rows[:, :-1, 2] != rows[:, 1:, 0]).sum() + (cols[:-1, :, 3] != cols[1:, :, 1]).sum()
                )
        assert (rim_broken > 0) == rim, rim_broken


def test_the_colour_quota_ramp_is_blackwoods_on_256_cells_and_scales():
    need = quota_need(256, 124)
    assert [need[d] for d in (26, 56, 76, 102, 160)] == [28, 71, 89, 106, 119]
    assert need[161:].sum() == 0 and (np.diff(need[:161]) >= 0).all()
    assert quota_need(64, 62)[40] == 59  # 160 of 256 cells is 40 of 64; 119 of 124 sides is 59.5 of 62


def test_the_official_sets_frame_colours_are_the_five_beside_grey():
    tables = Tables(Eternity2(), "staircase", None, None)
    assert tables.frame_colours == [1, 2, 3, 4, 5] and tables.inner_colours == list(range(6, 23))


@pytest.mark.parametrize("seed", [1, 4, 5])
def test_every_partial_board_the_search_reached_keeps_the_quota(seed):
    """The deepest partial of a restart under a quota: each prefix of the fill order holds at least
    the ramp's sides of the quota colours, counted from the board's colours."""
    tables = Tables(Eternity2(), "staircase", None, None)
    colours = tables.draw_quota(seed)
    sides, need = tables.quota(colours)
    assert need.max() > 0
    run = tables.restart(2_000_000, seed, np.zeros(1, np.int64), colours)
    shown = tables.table.reshape(-1, 4)
    placed = 0
    for depth, x in enumerate(tables.geometry[0][: max(run.deepest, 0)]):
        placed += int(np.isin(shown[run.deep_board[x]], colours).sum())
        assert placed >= need[depth + 1]
    assert run.deepest >= 40  # these seeds' triples reach past the first rows: real boards checked


@pytest.mark.slow
def test_small_boards_get_no_quota_and_big_ones_the_probes_choice():
    assert QUOTA_CELLS > 36
    small = Breaks(schedule=[], max_nodes=2_000_000).construct(_like(6, seed=1))
    assert small.quota == () and "probe" not in small.note
    tables = Tables(Eternity2(), "staircase", None, None)
    stop = np.zeros(1, np.int64)
    # seed 1's first 48 triples take no probe to depth 160: alone, they left the run without a quota
    probe = Breaks(seed=1, threads=2, probe_batches=1).choose_quota
    first, probes = probe(tables, stop, (3_000_000, 160), None)
    assert first == [] and len(probes) == 48 + 6 * 4 and max(run.deepest for run in probes) < 160
    chosen, probes = Breaks(seed=1, threads=2).choose_quota(tables, stop, (3_000_000, 160), None)
    assert len(chosen) == 3 and chosen[0] in range(1, 6) and set(chosen[1:]) <= set(range(6, 23))
    assert len(probes) == 2 * 48 + 6 * 4  # a second batch, and a triple of it passed
    assert max(run.deepest for run in probes[:48]) < 160 <= max(run.deepest for run in probes[48:96])


@pytest.mark.slow
def test_no_quota_when_no_probed_triple_gets_past_the_first_rows():
    """The seed's pseudo Eternity II (13 x 13, 8 colours, pieces unturned): every colour runs along
    the frame and no triple's probes reach the abandon depth, so the search runs without a quota."""
    from puzzles.edge_matching.puzzle import EdgeMatching

    puzzle = EdgeMatching(n=13, colours=8, instance_seed=0)
    built = Breaks(max_nodes=20_000_000, restart_nodes=5_000_000, finish_width=0).construct(puzzle)
    assert built.quota == () and "none of 240 probed passed" in built.note and built.deepest > 60


@pytest.mark.slow
@pytest.mark.parametrize("threads", [1, 2])
def test_the_same_seed_and_node_budget_give_the_same_board(threads):
    puzzle = Eternity2()
    settings = dict(max_nodes=400_000, restart_nodes=100_000, finish_width=20)
    first = Breaks(seed=3, **settings).construct(puzzle)
    again = Breaks(seed=3, threads=threads, **settings).construct(puzzle)
    assert np.array_equal(first.layout.piece, again.layout.piece)
    assert np.array_equal(first.layout.rotation, again.layout.rotation)
    assert first.work == again.work and np.array_equal(first.depth_nodes, again.depth_nodes)
    other = Breaks(seed=4, **settings).construct(puzzle)
    assert not np.array_equal(first.layout.piece, other.layout.piece)


def test_a_time_limit_stops_it_and_the_board_is_complete():
    puzzle = Eternity2()
    Breaks().warm_up(puzzle)
    built = Breaks(seed=0, finish_width=20).construct(puzzle, seconds=1.0)
    assert built.stop_reason == "seconds"
    _assert_legal(puzzle, built.layout, puzzle.preplaced.tolist())
    assert built.history and built.history[-1][2] == built.unmatched
    assert built.work == int(built.depth_nodes.sum())


@pytest.mark.parametrize(
    "settings",
    [
        {"schedule": "201,206"},
        {"schedule": [201, -1]},
        {"schedule": [201.5]},
        {"schedule": 7},
        {"order": "zigzag"},
        {"tail": 0},
        {"restart_nodes": 0},
        {"threads": 0},
        {"finish_width": -1},
        {"quota": [0]},
        {"quota": "3,8,9"},
        {"abandon_nodes": -1},
        {"abandon_depth": 2.5},
        {"ladder": -1},
        {"rim_breaks": "yes"},
        {"extend_depth": 0},
        {"extend_nodes": -5},
        {"value_order": "random"},
        {"tail_cells": 1.5},
    ],
)
def test_a_bad_setting_is_refused_in_one_line(settings):
    with pytest.raises(InputError) as err:
        Breaks(**settings)
    assert "\n" not in str(err.value) and "optimizer." in str(err.value)


def _run_app(overrides, tmp_path):
    setup()
    GlobalHydra.instance().clear()
    with initialize_config_dir(str(CONFIG_DIR), version_base="1.3"):
        cfg = compose("config", overrides=list(overrides))
    cfg.choices = {"puzzle": "eternity2_like", "optimizer": "breaks", "task": "optimise"}
    return run_task(cfg, tmp_path)


@pytest.mark.slow
def test_the_app_runs_it_and_refuses_a_bad_schedule_in_one_line(tmp_path):
    base = ["optimizer=breaks", "puzzle=eternity2_like", "puzzle.n=8", "budget.seconds=1", "progress=false"]
    row = _run_app(base, tmp_path / "ok")
    assert row["best"] >= 0 and row["evaluation_kind"] == "construction"
    with pytest.raises(InputError) as err:
        _run_app([*base, "optimizer.schedule=[3,-4]"], tmp_path / "bad")
    assert "\n" not in str(err.value)


@pytest.mark.slow
def test_the_runs_trace_is_the_searchs_anytime_curve(tmp_path):
    """Through the app on the official set: one trace row per better board the search held, in time
    order, each better than the last, ending at the re-scored board of the record."""
    import pandas as pd

    overrides = ["optimizer=breaks", "puzzle=eternity2", "budget.seconds=5", "progress=false"]
    overrides += [
        "optimizer.restart_nodes=200000",
        "optimizer.finish_width=20",
    ]  # many restarts, even under load
    row = _run_app(overrides, tmp_path)
    trace = pd.read_parquet(tmp_path / "trace.parquet")
    assert len(trace) > 1, trace
    assert trace["best"].is_monotonic_decreasing and trace["best"].is_unique
    assert trace["seconds"].is_monotonic_increasing
    assert trace["best"].iloc[-1] == row["best"]


def test_the_ladder_counts_distinct_boards_through_the_app(tmp_path, capsys):
    """optimizer.ladder through the app: the note it prints gives the distinct complete boards per unmatched
    joins, at or below the ladder's level, and the recorded best is the lowest of them."""
    import re

    base = [
        "optimizer=breaks",
        "puzzle=eternity2_like",
        "puzzle.n=6",
        "puzzle.inner_colours=5",
        "progress=false",
    ]
    row = _run_app([*base, "optimizer.ladder=3", "optimizer.max_nodes=300000"], tmp_path)
    counts = dict(
        map(int, pair.split(": "))
        for pair in re.findall(r"\d+: \d+", capsys.readouterr().err.split("ladder (")[1])
    )
    assert counts and max(counts) <= 3 and sum(counts.values()) > 1
    assert min(counts) >= row["best"]  # the best may be a greedy completion, which the ladder does not count


def test_a_seeded_copy_changes_the_seed_alone():
    solver = Breaks(seed=1, schedule=[200, 210], quota=[3, 4, 5], extend_depth=240, value_order="quota")
    copy = solver.seeded(9)
    assert copy.seed == 9 and replace(copy, seed=1) == solver
    with pytest.raises(FrozenInstanceError):
        solver.seed = 2  # type: ignore[misc]


@examples(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 5), min_size=1, max_size=40), st.integers(0, 2**31 - 1))
def test_quota_first_orders_each_keys_lists_by_quota_sides_and_keeps_the_shuffle_among_ties(sides, seed):
    """Every key's exact part and break part: the same entries, quota sides never rising, and entries of
    equal sides in the shuffled order."""
    rng = np.random.default_rng(seed)
    orients = len(sides)
    cuts = np.sort(rng.integers(0, orients + 1, 5))
    kstart, kmid, kend = np.array([0, cuts[1], cuts[3]]), np.array([cuts[0], cuts[2], cuts[4]]), None
    kend = np.array([cuts[1], cuts[3], orients])
    kmid = np.minimum(np.maximum(kmid, kstart), kend)
    shuffled = rng.permutation(orients).astype(np.int64)
    entries = shuffled.copy()
    side_of = np.array(sides, np.int64)
    _quota_first(entries, side_of, kstart, kmid, kend)
    for a, b in [(s, m) for s, m in zip(kstart, kmid)] + [(m, e) for m, e in zip(kmid, kend)]:
        part, before = entries[a:b], shuffled[a:b]
        assert sorted(part) == sorted(before)
        assert all(side_of[x] >= side_of[y] for x, y in zip(part, part[1:]))
        for value in set(side_of[before]):
            assert [x for x in part if side_of[x] == value] == [x for x in before if side_of[x] == value]


def test_a_restart_that_keeps_going_deeper_is_extended_and_only_under_a_time_limit():
    """A restart capped at 2,000 placements runs past its cap while it sets new deepest depths past
    extend_depth (there, every depth); under a node budget the cap holds and the board is the same as
    without the setting."""
    puzzle = _like(8, seed=3)
    tables = Tables(puzzle, "staircase", None, [])
    stop = np.zeros(1, np.int64)
    plain = tables.restart(2_000, 5, stop)
    extended = tables.restart(2_000, 5, stop, extend=(1, 3_000))
    assert plain.nodes <= 2_000 < extended.nodes and extended.deepest >= plain.deepest
    settings = dict(seed=2, max_nodes=20_000, restart_nodes=2_000, finish_width=0, schedule=[])
    budgeted = Breaks(**settings, extend_depth=1, extend_nodes=3_000).construct(puzzle)
    assert budgeted.work <= 20_000
    unextended = Breaks(**settings).construct(puzzle).layout
    assert (budgeted.layout.piece == unextended.piece).all() and (
        budgeted.layout.rotation == unextended.rotation
    ).all()


def test_the_ladder_reports_each_boards_prefix_the_fill_order_bar_its_last_cells(tmp_path):
    puzzle = _like(6, seed=0, inner=5)
    built = Breaks(seed=0, ladder=3, max_nodes=300_000, finish_width=0).construct(puzzle)
    assert built.ladder_boards and set(built.ladder_prefixes) == set(built.ladder_boards)
    cells = Tables(puzzle, "staircase", None, None).geometry[0][: 36 - OPEN_CELLS]
    for board, prefix in built.ladder_prefixes.items():
        assert prefix == np.frombuffer(board, np.int64)[cells].tobytes()
    assert len(set(built.ladder_prefixes.values())) <= len(built.ladder_boards)


def test_restarts_are_longer_in_longer_runs_unless_their_length_is_given():
    from puzzles.edge_matching.solvers.breaks import RESTART_NODES, RESTART_PER_SECOND

    assert Breaks().restart_length(None) == RESTART_NODES  # a node budget: issue 46's restarts
    assert Breaks().restart_length(RESTART_NODES / RESTART_PER_SECOND / 2) == RESTART_NODES  # never shorter
    assert Breaks().restart_length(480.0) == 480 * RESTART_PER_SECOND > 5 * RESTART_NODES
    assert Breaks(restart_nodes=1234).restart_length(480.0) == 1234
