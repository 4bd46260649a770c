"""The break walk walks the tree the walk before it walked (frozen in benchmarks/): the same placements,
boards, deepest partials and placements per depth, restart by restart, under a node cap; and the
ladder's count of complete boards agrees with the perfect search's."""

from __future__ import annotations

import itertools
import math
from collections import Counter

import numpy as np
import pytest

from benchmarks import breaks_walk_before as before
from benchmarks.eternity2_ladder import restart
from puzzles.edge_matching.eternity2 import Eternity2, Eternity2Like
from puzzles.edge_matching.solvers import breaks_walk as after
from puzzles.edge_matching.solvers.breaks_tables import KEEP_BOARDS, Tables
from puzzles.edge_matching.solvers.perfect_search import Board, search


def same(tables: Tables, *args, **kwargs) -> tuple:
    old, old_outs = restart(before, tables, *args, **kwargs)
    new, new_outs = restart(after, tables, *args, **kwargs)
    assert old == new, (old, new)
    for a, b in zip(old_outs, new_outs, strict=True):
        assert (a == b).all()
    return new


SMALL = [
    # boards where restarts complete many boards, with hints (pre-placed cells mid-walk), rectangles
    (Eternity2Like(n=6, frame_colours=2, inner_colours=4, instance_seed=1), "rows"),
    (Eternity2Like(n=7, frame_colours=2, inner_colours=5, instance_seed=3), "teeth"),
    (Eternity2Like(n=6, m=9, frame_colours=3, inner_colours=6, instance_seed=2), "staircase"),
    (
        Eternity2Like(n=8, frame_colours=3, inner_colours=7, instance_seed=0, hints=([2, 5, 3, 1],)),
        "staircase",
    ),
]


@pytest.mark.parametrize("puzzle, order", SMALL)
def test_small_boards_walk_the_same_tree(puzzle, order):
    tables = Tables(puzzle, order, None, None)
    complete = walked = 0
    for seed in range(4):
        for quota in ([], tables.draw_quota(seed)):  # most quotas cut every branch on a small board
            nodes, best, *_ = same(tables, 200_000, seed, quota, (20_000, puzzle.n * puzzle.m // 2))
            walked += nodes
            complete += best < (1 << 30)
            same(tables, 100_000, seed, quota, fewer=3)  # hunting only boards of fewer than 3 breaks
    assert walked > 0 and complete > 0  # complete boards were found, so that path was compared too


@pytest.mark.parametrize("order", ["staircase", "rows"])
def test_the_official_set_walks_the_same_tree(order):
    tables = Tables(Eternity2(), order, None, None)  # the starter piece is a pre-placed cell mid-walk
    for seed in range(2):
        nodes, *_ = same(tables, 1_000_000, seed, [1, 15, 17], (300_000, 160))
        assert nodes > 0
        assert same(tables, 1_000_000, seed)[2] > 150  # deep enough that breaks were allowed


@pytest.mark.parametrize("n, frame, inner, seed", [(5, 3, 4, 1), (6, 3, 5, 2), (6, 3, 7, 0)])
def test_the_ladder_counts_every_perfect_board_the_perfect_search_counts(n, frame, inner, seed):
    """With no break allowed and no quota, the ladder's walk of the whole tree counts every arrangement
    of pieces that is a perfect board: the perfect search's count of distinct boards times the ways
    identical pieces swap and self-similar pieces turn. The boards it keeps are perfect, and those the
    walk completed distinct (completions of its partial boards are kept too, and may repeat them)."""
    puzzle = Eternity2Like(n=n, frame_colours=frame, inner_colours=inner, instance_seed=seed)
    run = Tables(puzzle, "rows", None, []).restart(10**10, seed, np.zeros(1, np.int64), ladder=(1, 0))
    distinct = search(Board(puzzle.table, n, n, puzzle.preplaced, order="rows", symmetry=False))
    groups = Counter(tuple(sorted(map(tuple, pieces))) for pieces in puzzle.table)
    turns_alike = [sum(bool((pieces[k] == pieces[0]).all()) for k in range(4)) for pieces in puzzle.table]
    ways = math.prod(math.factorial(g) for g in groups.values()) * math.prod(turns_alike)
    assert run.exhausted and distinct.stop_reason == "finished"
    assert run.found[0] == distinct.count * ways and run.found[1:].sum() == 0
    walked = [board for board, part in zip(run.kept, run.kept_by, strict=True) if part == "walk"]
    assert len(walked) == min(run.found[0], KEEP_BOARDS - (len(run.kept) - len(walked)))
    assert len({board.tobytes() for board in walked}) == len(walked)
    for board in run.kept:
        puzzle.check(layout := puzzle.layout(board // 4, board % 4))
        assert puzzle.score_layout(layout)["unmatched_edges"] == 0


@pytest.mark.parametrize(
    "n, frame, inner, seed, schedule",
    [
        (4, 2, 3, 0, [6, 9, 12]),
        pytest.param(5, 2, 5, 1, [12, 16, 19, 22], marks=pytest.mark.slow),
        pytest.param(5, 3, 5, 2, [10, 14, 18, 21, 23], marks=pytest.mark.slow),
    ],
)
def test_parity_cuts_only_branches_with_no_board_within_the_schedule(n, frame, inner, seed, schedule):
    """The whole tree walked with parity and without: the same complete boards at every score within
    the schedule (each board counted, the first KEEP_BOARDS kept alike), in fewer placements: every
    branch parity cut held no board the schedule allows."""
    puzzle = Eternity2Like(n=n, frame_colours=frame, inner_colours=inner, instance_seed=seed)
    runs = [
        Tables(puzzle, "rows", None, schedule, parity=parity).restart(
            10**10, seed, np.zeros(1, np.int64), ladder=(len(schedule) + 1, len(schedule))
        )
        for parity in (False, True)
    ]
    off, on = runs
    assert off.exhausted and on.exhausted and off.found[len(schedule) - 1 :].sum() > 0
    assert (on.found == off.found).all()
    # The walk's own boards, in the order found: the same list, or (when greedy completions, which
    # follow the deepest partials, filled one run's rows first) one the start of the other.
    walked = [
        [b.tobytes() for b, part in zip(r.kept, r.kept_by, strict=True) if part == "walk"] for r in runs
    ]
    short, long_ = sorted(walked, key=len)
    assert short and short == long_[: len(short)]
    if all(len(r.kept) < KEEP_BOARDS for r in runs):
        assert walked[0] == walked[1]
    assert on.nodes < off.nodes
    assert off.found[1] == 0  # one break leaves two colours odd: never a complete board


@pytest.mark.parametrize("seed", range(4))
def test_the_exact_completion_is_the_best_of_every_completion(seed):
    """A complete board's last k cells emptied: `_finish` fills them with the fewest unmatched joins
    of every way to place the free pieces there (enumerated), never worse than the greedy completion,
    and finds nothing below a bound it cannot beat."""
    puzzle = Eternity2Like(n=5, frame_colours=2, inner_colours=4, instance_seed=seed)
    tables = Tables(puzzle, "rows", None, [5, 8, 11, 14, 17, 20])
    col, piece_of, *_, pat_orients, pat_start = tables.lists
    cells, nb, cell_pat = tables.geometry[0], tables.geometry[9], tables.geometry[10]
    complete = tables.restart(20_000, seed, np.zeros(1, np.int64)).board
    kinds = (col, piece_of, cells, nb, cell_pat, pat_orients, pat_start)
    for k in (2, 4):
        partial = complete.copy()
        partial[cells[-k:]] = -1
        fits = {x: set(pat_orients[pat_start[cell_pat[x]] : pat_start[cell_pat[x] + 1]]) for x in cells[-k:]}
        free = sorted(set(range(len(puzzle.table))) - set(piece_of[partial[partial >= 0]]))
        every = []
        for pieces in itertools.permutations(free):
            for turns in itertools.product(range(4), repeat=k):
                orients = [p * 4 + t for p, t in zip(pieces, turns, strict=True)]
                if all(o in fits[x] for x, o in zip(cells[-k:], orients, strict=True)):
                    board = partial.copy()
                    board[cells[-k:]] = orients
                    every.append(after._unmatched(board, col, nb))
        exact, greedy = partial.copy(), partial.copy()
        score = after._finish(exact, *kinds, 1 << 30, 1 << 30)
        assert score == min(every) == after._unmatched(exact, col, nb)
        assert score <= after._complete(greedy, *kinds)
        assert after._finish(partial.copy(), *kinds, score, 1 << 30) == -1


def test_the_walks_share_the_runs_best_through_the_bound():
    """The run's threads share its best (`bound`): a walk writes its better boards there and reads it
    as it goes, so a board found by another thread narrows a walk under way at once. Told of a
    perfect board, a walk may place no break: its tree ends within a few placements where the walk
    not told runs to its cap; on the ladder, which counts boards at its level, the bound changes
    nothing."""
    puzzle, order = SMALL[3]  # no perfect board within the cap: the walk runs to it
    tables = Tables(puzzle, order, None, None)
    stop = np.zeros(1, np.int64)
    alone = tables.restart(200_000, 0, stop)
    bound = np.full(1, 1 << 30, np.int64)
    shared = tables.restart(200_000, 0, stop, bound=bound)
    assert alone.board is not None and shared.board is not None
    assert bound[0] == shared.unmatched <= alone.unmatched
    told = tables.restart(200_000, 0, stop, bound=np.zeros(1, np.int64))
    assert alone.unmatched > 0 and not alone.exhausted and alone.nodes == 200_000
    assert told.exhausted and told.nodes < after.STOP_EVERY
    level = (alone.unmatched + 2, alone.unmatched + 1)  # boards of at most one join worse than its best
    ladder = [tables.restart(200_000, 0, stop, ladder=level, bound=b) for b in (None, np.zeros(1, np.int64))]
    assert ladder[0].found.sum() > 0 and (ladder[0].found == ladder[1].found).all()
