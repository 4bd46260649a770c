"""Beam search on rectangular n x m boards (n rows of m cells, row-major): the orders and tables, legal
boards scored as the puzzle scores them, perfect boards where the beam is wide enough, pieces that never
turn from a piece file, and the app's run."""

import numpy as np
import pytest

from core.errors import InputError
from experiments.build import build
from puzzles.edge_matching import EdgeMatching, turn_table
from puzzles.edge_matching.board import grey_patterns, rim
from puzzles.edge_matching.eternity2 import Eternity2Like
from puzzles.edge_matching.solvers.beam import ORDERS, Beam, Prepared, beam_search, frame_first, rows
from puzzles.edge_matching.solvers.beam_tables import ring_slots
from puzzles.edge_matching.solvers.greedy import Greedy

SHAPES = [(3, 5), (5, 3), (4, 6), (6, 4), (3, 8), (8, 3)]
STEPS = ((0, -1), (-1, 0), (0, 1), (1, 0))  # (row, col) to the neighbour across [left, top, right, bottom]


def _like(n, m, seed=0, hints=()):
    """A generated n x m board with a perfect solution, few colours (many ties for the beam)."""
    return Eternity2Like(n=n, m=m, frame_colours=2, inner_colours=4, instance_seed=seed, hints=hints)


def _perfect_prefixes(table, n, m, order, preplaced=()) -> int:
    """The most perfect partial boards after any cell of the order, counted by depth-first search: a
    cell's candidates are the free pieces turned so that their grey sides face exactly off the board,
    and every side facing a placed neighbour shows its colour. A beam that keeps this many boards
    keeps them all (they cost 0), so it ends on a perfect board. An oracle apart from the kernel."""
    fixed = {int(c): (int(p), int(t)) for c, p, t in preplaced}
    taken = {p for p, _ in fixed.values()}
    edge = rim(n, m)
    fitting = [
        [fixed[x]]
        if x in fixed
        else [
            (p, t)
            for p in range(len(table))
            if p not in taken
            for t in range(table.shape[1])
            if np.array_equal(table[p, t] == 0, edge[x])
        ]
        for x in range(n * m)
    ]
    counts = np.zeros(n * m + 1, np.int64)
    shown: dict[int, np.ndarray] = {}
    used: set[int] = set()

    def walk(i: int) -> None:
        counts[i] += 1
        if i == n * m:
            return
        x = int(order[i])
        r, c = divmod(x, m)
        across = [((r + dr) * m + c + dc, s) for s, (dr, dc) in enumerate(STEPS) if not edge[x, s]]
        for p, t in fitting[x]:
            if p in used:
                continue
            colours = table[p, t]
            if all(colours[s] == shown[y][(s + 2) % 4] for y, s in across if y in shown):
                shown[x] = colours
                used.add(p)
                walk(i + 1)
                del shown[x]
                used.discard(p)

    walk(0)
    return int(counts.max())


@pytest.mark.parametrize("n, m", [*SHAPES, (1, 4), (4, 1), (2, 5)])
def test_the_orders_fill_every_cell_of_a_rectangle_once_the_frame_first_clockwise(n, m):
    """rows: row-major. frame_first: the top row left to right, then each next frame cell a neighbour of
    the last, round the frame clockwise, then the inner cells row by row (a board one or two cells thick
    is all frame)."""
    assert rows(n, m).tolist() == list(range(n * m))
    order = frame_first(n, m)
    assert sorted(order.tolist()) == list(range(n * m))
    on_frame = rim(n, m).any(axis=1)[order]
    frame = int(on_frame.sum())
    assert on_frame[:frame].all() and not on_frame[frame:].any()
    assert order[:m].tolist() == list(range(m))
    steps = [np.subtract(divmod(int(b), m), divmod(int(a), m)) for a, b in zip(order[:frame], order[1:frame])]
    assert all(abs(step).sum() == 1 for step in steps)  # each frame cell next to the one before
    inner = order[frame:].tolist()
    assert inner == sorted(inner)


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("n, m", SHAPES)
def test_grey_patterns_ring_slots_and_colour_lists_follow_the_rectangle(n, m, order):
    """Each cell's grey pattern has a bit per side off the board (as the puzzle's rim says); each cell's
    ring slots name exactly its neighbours placed before it (a board carries a row, m placements, when
    filled row by row); a free cell is priced from its colour lists first exactly when its placed
    neighbours are its left, its top or both (a cell with the hint is not free)."""
    puzzle = _like(n, m, hints=([1, 1],))
    cell_pattern = grey_patterns(puzzle.table, n, m)[1]
    assert cell_pattern.tolist() == (rim(n, m) * [1, 2, 4, 8]).sum(axis=1).tolist()
    prepared = Prepared(puzzle.table, n, puzzle.preplaced, order, m)
    cells = ORDERS[order](n, m)
    assert np.array_equal(prepared.cells, cells)
    slots, ring = ring_slots(cells, n, m)
    if order == "rows":
        assert ring == m
    position = np.argsort(cells)
    for i, x in enumerate(cells):
        r, c = divmod(int(x), m)
        placed = []
        for s, (dr, dc) in enumerate(STEPS):
            inside = 0 <= r + dr < n and 0 <= c + dc < m
            before = inside and position[(r + dr) * m + c + dc] < i
            assert slots[i, s] == (position[(r + dr) * m + c + dc] % ring if before else -1)
            placed.append(before)
        free = x != m + 1
        assert prepared.lists.fast[i] == (free and (placed[0] or placed[1]) and not (placed[2] or placed[3]))


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("max_width", [None, 2000])
@pytest.mark.parametrize("n, m", SHAPES)
def test_beam_boards_on_rectangles_are_legal_and_scored_as_the_puzzle_scores_them(n, m, max_width, order):
    """Every shape, order and widening, with a hint: the puzzle takes the board (each piece once, grey
    sides exactly on the rim, the hint kept) and re-scores it to the beam's own count."""
    puzzle = _like(n, m, seed=n * m, hints=([1, 2],))
    piece, turns, unmatched = beam_search(puzzle.table, n, puzzle.preplaced, 50, 1, max_width, order, m)
    layout = puzzle.layout(piece, turns)
    assert layout.m == m and sorted(piece.tolist()) == list(range(n * m))
    cell, hinted, turned = puzzle.preplaced[0]
    assert cell == 1 * m + 2 and piece[cell] == hinted and turns[cell] == turned
    assert puzzle.score_layout(layout)["unmatched_edges"] == unmatched


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize(
    "n, m, colours, hints",
    [
        (3, 5, (2, 4), ()),
        (5, 3, (2, 4), ()),
        (3, 5, (2, 4), ([1, 2],)),
        (7, 3, (3, 5), ()),
        (4, 6, (4, 8), ()),
        (6, 4, (4, 8), ([2, 1],)),
    ],
)
@pytest.mark.parametrize("seed", [0, 1])
def test_a_beam_as_wide_as_the_perfect_partial_boards_finds_a_perfect_rectangle(
    n, m, colours, hints, seed, order
):
    """The generated boards have a perfect solution; a beam keeping at least as many boards as there are
    perfect partial boards after any cell (`_perfect_prefixes`: hundreds to a few thousand here) keeps
    every one, so its board leaves 0 unmatched."""
    puzzle = Eternity2Like(n, m, *colours, instance_seed=seed, hints=hints)
    cells = ORDERS[order](n, m)
    width = _perfect_prefixes(puzzle.table, n, m, cells, puzzle.preplaced)
    solver = Beam(width=width, seed=seed, max_width=None, order=order)
    layout = solver.solve(puzzle)  # checked by the puzzle: legal, the hint kept
    assert puzzle.score_layout(layout)["unmatched_edges"] == 0


def _cut(tmp_path, n, m, seed):
    """A piece file of an n x m board cut from a generated perfect one, its pieces as they lie there
    (so none needs a turn), shuffled: (path, the pieces in file order)."""
    solved = _like(n, m, seed)
    sol = solved.solution()
    pieces = turn_table(solved.sides)[sol.piece, sol.rotation]
    pieces = pieces[np.random.default_rng(seed).permutation(n * m)]
    path = tmp_path / f"cut_{n}x{m}.txt"
    lines = ["# order: left top right bottom", f"# size: {n} x {m}"] + [" ".join(map(str, p)) for p in pieces]
    path.write_text("\n".join(lines) + "\n")
    return path, pieces


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("n, m", [(3, 5), (5, 3)])
@pytest.mark.parametrize("seed", [0, 1])
def test_a_rectangular_piece_file_of_pieces_that_never_turn_is_solved(tmp_path, n, m, seed, order):
    """`# size: 3 x 5`: EdgeMatching reads a rectangle whose pieces never turn; a beam as wide as its
    perfect partial boards puts every piece back into a perfect board, unturned."""
    path, pieces = _cut(tmp_path, n, m, seed)
    puzzle = EdgeMatching(generator="file", pieces_file=str(path), fix_centre=False)
    assert (puzzle.n, puzzle.m, puzzle.rotations) == (n, m, False)
    width = _perfect_prefixes(puzzle.table, n, m, ORDERS[order](n, m))
    layout = Beam(width=width, seed=seed, max_width=None, order=order).solve(puzzle)
    assert not layout.rotation.any() and sorted(layout.piece.tolist()) == list(range(n * m))
    assert puzzle.score_layout(layout)["unmatched_edges"] == 0
    shown = pieces[layout.piece].reshape(n, m, 4)  # the board from the file's pieces, as listed
    assert (shown[:, :-1, 2] == shown[:, 1:, 0]).all() and (shown[:-1, :, 3] == shown[1:, :, 1]).all()


@pytest.mark.slow
def test_the_app_runs_the_beam_on_a_rectangle_and_records_the_board_s_own_score(tmp_path, compose_config):
    """puzzle=eternity2_like puzzle.n=4 puzzle.m=6 ... optimizer=beam, as `python -m experiments.run` runs
    it in this process: one construction whose best is the recorded board re-scored."""
    from experiments.run import run_task

    cfg = compose_config(
        "puzzle=eternity2_like",
        "puzzle.n=4",
        "puzzle.m=6",
        "puzzle.frame_colours=2",
        "puzzle.inner_colours=4",
        "optimizer=beam",
        "progress=false",
    )
    cfg.choices = {"puzzle": "eternity2_like", "optimizer": "beam", "task": "optimise"}
    row = run_task(cfg, tmp_path)
    assert row["evaluations"] == 1 and row["evaluation_kind"] == "construction"
    assert row["stop_reason"] == ("target" if row["best"] == 0 else "finished")  # 0: the known optimum
    puzzle = build(cfg.puzzle, "puzzle")
    assert (puzzle.n, puzzle.m) == (4, 6)
    layout = puzzle.decode(np.array(row["best_genome"].split(), dtype=np.int64))
    scores = puzzle.score_layout(layout)
    assert row["best"] == scores["unmatched_edges"] == row["score.unmatched_edges"]
    assert row["score.matched_edges"] == scores["matched_edges"] == 38 - row["best"]


def test_a_timed_beam_on_a_rectangle_ends_with_the_configured_beam_s_board():
    """Under a time limit the beams widen (`beam_within`) to the configured width, whose board and
    work are the untimed beam's; the widening before it adds work."""
    puzzle = _like(5, 8, seed=3)
    solver = Beam(width=300, seed=2, max_width=3000, order="frame_first")
    untimed, timed = solver.construct(puzzle), solver.construct(puzzle, seconds=60)
    assert untimed.stop_reason == timed.stop_reason == "finished" and timed.work > untimed.work
    assert np.array_equal(timed.layout.piece, untimed.layout.piece)
    assert np.array_equal(timed.layout.rotation, untimed.layout.rotation)
    run = Prepared(puzzle.table, 5, puzzle.preplaced, "frame_first", 8).run(300, 2, 3000)
    assert untimed.work == run.work and np.array_equal(
        untimed.layout.piece * 4 + untimed.layout.rotation, run.board
    )


def test_only_solvers_that_build_rectangles_take_one():
    """Beam declares it; the greedy does not, and refuses in one line."""
    puzzle = _like(4, 6)
    assert Beam.rectangles and not Greedy.rectangles
    assert Beam(width=10).solve(puzzle).m == 6
    with pytest.raises(InputError, match=r"^optimizer=greedy builds square boards only, this one is 4 x 6;"):
        Greedy().solve(puzzle)


@pytest.mark.parametrize("n, m", [(3, 1000), (46, 46)])
def test_boards_with_too_many_joins_for_the_kernel_are_refused_in_one_line(n, m):
    """The kernel counts a board's unmatched joins in a table of 4096: larger boards are refused."""
    with pytest.raises(InputError, match=rf"fewer than 4096 inner joins .* this one is {n} x {m}"):
        Prepared(np.zeros((n * m, 1, 4), np.int64), n, m=m)
