"""The generated break dive (breaks_llvm.py, breaks_llvm_walk.py) walks `_dive`'s tree: driven from the
same prepared restart by the same calls (events, looks at varied node counts, caps lowered and raised),
it returns the same (depth, nodes) and leaves the same board, walked, shown, blocked, odd and hist after
every call; and `_walk` given it ends a restart as `_walk` with numba's dive does."""

from __future__ import annotations

import numpy as np
import pytest

from puzzles.edge_matching.eternity2 import Eternity2, Eternity2Like
from puzzles.edge_matching.solvers import breaks_walk as bw
from puzzles.edge_matching.solvers.breaks import Breaks
from puzzles.edge_matching.solvers.breaks_llvm_walk import GeneratedDive
from puzzles.edge_matching.solvers.breaks_tables import REGS, Tables

SMALL = [  # as test_breaks_walk's: many complete boards, a pre-placed cell mid-walk, rectangles
    (Eternity2Like(n=6, frame_colours=2, inner_colours=4, instance_seed=1), "rows"),
    (Eternity2Like(n=7, frame_colours=2, inner_colours=5, instance_seed=3), "teeth"),
    (Eternity2Like(n=6, m=9, frame_colours=3, inner_colours=6, instance_seed=2), "staircase"),
    (
        Eternity2Like(n=8, frame_colours=3, inner_colours=7, instance_seed=0, hints=([2, 5, 3, 1],)),
        "staircase",
    ),
]


def prepared(tables: Tables, quota, seed: int, folder=None):
    """A restart set up (`_prepare`) twice: for `_dive`, and bound to a generated dive."""
    state, lists2 = tables.prepare(quota, False, seed)
    hist = np.zeros((2, tables.cells_count), np.int64)
    extra = tables.extra
    dive = GeneratedDive(state, lists2, hist, extra, folder)
    block, gstate, glists2, ghist = dive.bind(state, lists2, hist)
    return (state, lists2, hist), (gstate, glists2, ghist), extra, dive, block


def _changed(state, lists2, hist) -> list[np.ndarray]:
    return [state[1], state[2], state[3], lists2[3], lists2[6], hist]


def _lift(i: int, state, lists2, piece_of, fixed) -> None:
    """Back up from a complete board, as `_walk` does (`_back_up`)."""
    if fixed[i] < 0:
        cell = state[0][i, bw.CELL]
        lists2[3][piece_of[state[3][cell]]] = 0
        state[3][cell] = -1


def same_tree(
    tables: Tables, quota, seed: int, placements: int, shake: bool, rng, folder=None
) -> tuple[int, int, int]:
    """Both dives driven by the same calls until `placements` (or the tree's end), compared after
    every call: (placements, calls, complete boards). `shake`: caps drawn at random too (any cap is
    an input both must treat alike), not only lowered at complete boards."""
    ours, theirs, extra, dive, block = prepared(tables, quota, seed, folder)
    depth, radix, split = tables.cells_count, tables.radix, ours[0][4]
    allow_last, fixed, piece_of = int(tables.allow[-1]), tables.geometry[4], tables.piece_of
    i, fresh, nodes, deep, cap, calls, boards = 0, True, 0, -1, 1 << 30, 0, 0
    while nodes < placements:
        watch = int(rng.choice([deep, deep, depth, rng.integers(0, depth + 1)]))
        check_at = nodes + int(
            rng.choice([bw.STOP_EVERY, rng.integers(1, 16), rng.integers(1, 2 * bw.STOP_EVERY)])
        )
        if shake and rng.random() < 0.05:
            cap = int(rng.integers(0, allow_last + 2))
        until = (watch, check_at, cap, radix, split, min(allow_last, cap))
        expected = bw._dive(ours[0], ours[1], i, fresh, nodes, until, ours[2], extra)
        got = dive(block, i, fresh, nodes, until)
        calls += 1
        assert got == tuple(expected), (calls, until, i, fresh, nodes)
        for a, b in zip(_changed(*ours), _changed(*theirs), strict=True):
            assert (a == b).all(), calls
        i, nodes = got
        if i < 0:
            break
        deep, fresh = max(deep, i), i < depth
        if i == depth:  # a complete board: later ones with fewer breaks, and a step back
            boards += 1
            cap = int(ours[0][1][i, bw.BREAKS]) - 1
            i -= 1
            _lift(i, *ours[:2], piece_of, fixed)
            _lift(i, *theirs[:2], piece_of, fixed)
    return nodes, calls, boards


def cases() -> list:
    """Every small board with parity on and off: two of them in the fast tier, the rest slow."""
    quick = {(0, True), (3, True)}  # many complete boards; a pre-placed cell mid-walk
    return [
        pytest.param(*SMALL[k], parity, marks=() if (k, parity) in quick else pytest.mark.slow)
        for k in range(len(SMALL))
        for parity in (False, True)
    ]


@pytest.mark.parametrize("puzzle, order, parity", cases())
def test_small_boards_dive_the_same_tree(puzzle, order, parity):
    rng = np.random.default_rng(7)
    tables = Tables(puzzle, order, None, None, parity=parity)
    walked = calls = boards = 0
    for seed in range(12):  # until a million placements (parity walks some trees whole in fewer)
        for quota, shake in (([], False), ([], True), (tables.draw_quota(seed), True)):
            nodes, n_calls, n_boards = same_tree(tables, quota, seed, 300_000, shake, rng)
            walked, calls, boards = walked + nodes, calls + n_calls, boards + n_boards
        if walked > 1_000_000:
            break
    assert walked > 1_000_000 and calls > 300 and boards > 0


@pytest.mark.slow
@pytest.mark.parametrize("parity", [False, True])
def test_the_official_set_dives_the_same_tree(parity):
    """The starter piece is a pre-placed cell mid-walk (the depths beside it check their joins with
    it); an early schedule lets breaks, their parity and the checks' breaks happen within the run."""
    rng = np.random.default_rng(11)
    for schedule in (None, [60 + 8 * k for k in range(17)]):
        tables = Tables(Eternity2(), "staircase", None, schedule, parity=parity)
        for seed, quota, shake in ((0, [3, 20, 7], False), (1, [], True), (2, [], False)):
            nodes, calls, _ = same_tree(tables, quota, seed, 2_000_000, shake, rng)
            assert nodes >= 2_000_000 and calls > 400


def restart(tables: Tables, quota, seed: int, node_cap: int, generated: bool, pause: int):
    """One restart by `_walk` with numba's dive or the generated one, paused every `pause` placements and continued:
    (the returns of each call, the restart's outputs and walk arrays)."""
    ours, theirs, extra, dive, block = prepared(tables, quota, seed)
    state, lists2, hist = theirs if generated else ours
    cells = tables.cells_count
    outs = (hist, np.full(cells, -1, np.int64), tables.board0.copy(), np.zeros(2 * cells + 1, np.int64),
            np.zeros((0, cells), np.int64), np.zeros(0, np.int64))  # fmt: skip
    caps = (node_cap, 3_000_000, cells * 160 // 256, 1 << 30, False, -1, 12, 1 << 30, 0, False)
    regs, stop, returns = np.zeros(REGS, np.int64), np.zeros(1, np.int64), []
    while regs[bw.STATUS] != bw.ENDED:
        regs[bw.PAUSE_AT] = (regs[bw.NODES] // pause + 1) * pause
        args = (tables.geometry, tables.lists, state, lists2, caps, stop, outs, regs, bw.NO_BOUND)
        returns.append(bw._walk(*args, *((dive.address, block.ctypes.data) if generated else (0, 0))))
    return returns, [*outs[:3], state[1], state[2], state[3], lists2[3], lists2[6]]


@pytest.mark.parametrize(
    "puzzle, order",
    [
        SMALL[0],
        pytest.param(*SMALL[3], marks=pytest.mark.slow),
        pytest.param(Eternity2(), "staircase", marks=pytest.mark.slow),
    ],
)
def test_the_walk_with_the_generated_dive_ends_restarts_as_the_walk(puzzle, order):
    tables = Tables(puzzle, order, None, None, parity=True)
    quota = [3, 20, 7] if puzzle.n == 16 else []
    for seed in range(1 if puzzle.n == 16 else 2):  # the official set: one restart (a dive compiled each)
        before, after = (restart(tables, quota, seed, 1_000_000, g, 3 * bw.STOP_EVERY) for g in (False, True))
        assert before[0] == after[0] and len(before[0]) > 1
        for a, b in zip(before[1], after[1], strict=True):
            assert (a == b).all()


def test_the_machine_code_is_kept_and_loaded(tmp_path):
    """A dive compiled once is kept in the folder by its text's hash and loaded by the next of the same
    board and setup (another seed: the same text), and the code loaded walks the same tree."""
    puzzle, order = SMALL[3]
    tables = Tables(puzzle, order, None, None, parity=True)
    for seed in range(2):
        state, lists2 = tables.prepare([], False, seed)
        hist = np.zeros((2, tables.cells_count), np.int64)
        dive = GeneratedDive(state, lists2, hist, tables.extra, tmp_path)
        assert dive.loaded == (seed == 1) and dive.path is not None and dive.path.exists()
    assert len(list(tmp_path.iterdir())) == 1
    assert same_tree(tables, [], 1, 200_000, True, np.random.default_rng(3), tmp_path)[0] > 0  # loaded


@pytest.mark.parametrize("threads", [1, pytest.param(2, marks=pytest.mark.slow)])
def test_the_optimiser_with_the_generated_dive_builds_the_same_board(threads, monkeypatch):
    """optimizer.generated_dive: the same seed and node budget give the same board, placements and
    depth profile as numba's dive, and its restarts (not the probes) did walk with the dive."""
    bound = []
    original = Tables.dive

    def counted(self, *args):
        bound.append(1)
        return original(self, *args)

    monkeypatch.setattr(Tables, "dive", counted)
    puzzle = Eternity2()
    settings = dict(seed=3, threads=threads, max_nodes=10_000_000, restart_nodes=4_000_000, finish_width=20)
    plain, generated = (Breaks(generated_dive=g, **settings).construct(puzzle) for g in (False, True))
    assert bound, "no restart walked with the generated dive"
    assert np.array_equal(plain.layout.piece, generated.layout.piece)
    assert np.array_equal(plain.layout.rotation, generated.layout.rotation)
    assert plain.work == generated.work and np.array_equal(plain.depth_nodes, generated.depth_nodes)
