"""The walk generated per board (puzzles/edge_matching/solvers/perfect_search/generated.py, issue 56):
the same boards, counts, nodes and placements as the general walk on one or two threads, with and
without symmetry, in one walk or resumed in slices; its machine code kept in the cache folder for the
next run; and chosen only where it pays."""

import os
import re
import subprocess
import sys
from collections import Counter

import numpy as np
import pytest

from puzzles.edge_matching.eternity2 import Eternity2Like
from puzzles.edge_matching.solvers.perfect_search import Board, generated, llvm_walk, search
from tests.puzzles.edge_matching.test_exact_crosscheck import Referee, boards
from tests.puzzles.edge_matching.test_perfect_search import BOARDS


def cases():
    yield "6x6 peak #0", Eternity2Like(n=6, instance_seed=0), "auto"
    yield "4x6 turning", BOARDS["4x6 turning"], "columns"
    yield "5x5 unturned, centre", BOARDS["5x5 unturned, centre"], "rows"


def _answer(answer):
    return answer.count, answer.nodes, answer.placements, [(p.tolist(), t.tolist()) for p, t in answer.boards]


@pytest.mark.parametrize("name, puzzle, order", list(cases()))
@pytest.mark.parametrize("symmetry", [False, pytest.param(True, marks=pytest.mark.slow)])
def test_the_generated_walk_finds_what_the_general_walk_finds(name, puzzle, order, symmetry):
    args = (puzzle.table, puzzle.n, puzzle.m, puzzle.preplaced)
    general = Board(*args, order=order, symmetry=symmetry, generated=False)
    fused = Board(*args, order=general.order_name, symmetry=symmetry, generated=True)
    assert fused.generated_walk() is not None and general.generated_walk() is None
    for threads in (1, 2):
        expected = _answer(search(general, keep=5, threads=threads))
        assert _answer(search(fused, keep=5, threads=threads)) == expected, (name, threads)
        assert expected[0] > 0
        first = search(fused, limit=1, threads=threads)  # a first board: the same board, nodes, placements
        assert _answer(first) == _answer(search(general, limit=1, threads=threads))


def test_a_generated_walk_resumed_in_slices_walks_the_same_tree():
    puzzle = Eternity2Like(n=6, instance_seed=1)
    board = Board(puzzle.table, puzzle.n, puzzle.m, puzzle.preplaced, order="rows", generated=True)
    f, never = len(board.order), np.zeros(1, np.int64)
    whole = board.walk(board.fresh_state(), 0, f, 1 << 40, 1 << 40, never, never.copy(), 5)
    state, cursor, nodes, placements, status = board.fresh_state(), board.new_cursor(f), 0, 0, -1
    while status == -1:
        status, found, walked, placed, record = board.walk(
            state, 0, f, 1 << 40, 99_999, never, never.copy(), 5, cursor=cursor
        )
        nodes, placements = nodes + walked, placements + placed
    assert (found, nodes, placements) == whole[1:4] and found > 0
    capped = board.walk(board.fresh_state(), 0, f, 1 << 40, 123_456, never, never.copy(), 1)
    general = Board(puzzle.table, puzzle.n, puzzle.m, puzzle.preplaced, order="rows", generated=False)
    assert (
        capped[:4] == general.walk(general.fresh_state(), 0, f, 1 << 40, 123_456, never, never.copy(), 1)[:4]
    )


def _loaded(board) -> list[bool]:
    """Per walk the board compiled or loaded: was it loaded from the cache folder?"""
    return [walk.loaded for walk in board.generated_walk().by_first.values()]


def test_a_generated_walk_is_kept_for_the_next_run(tmp_path, monkeypatch):
    monkeypatch.setenv(generated.CACHE_ENV, str(tmp_path))  # empty: nothing compiled before
    puzzle = BOARDS["4x4 turning, 12 boards"]
    board = Board(puzzle.table, puzzle.n, puzzle.m, puzzle.preplaced, generated=True)
    answer = search(board, threads=1)
    assert answer.compile_seconds > 0 and _loaded(board) == [False]  # compiled here
    assert len(list(tmp_path.glob("walk_*.o"))) == 1
    again = Board(puzzle.table, puzzle.n, puzzle.m, puzzle.preplaced, generated=True)
    assert _answer(search(again, threads=1)) == _answer(answer) and _loaded(again) == [True]
    code = (  # the next run: the machine code is loaded, not compiled
        "from puzzles.edge_matching.solvers.perfect_search import Board, search\n"
        "from tests.puzzles.edge_matching.test_perfect_search import BOARDS\n"
        "from tests.puzzles.edge_matching.test_generated_walk import _loaded\n"
        "p = BOARDS['4x4 turning, 12 boards']\n"
        "b = Board(p.table, p.n, p.m, p.preplaced, generated=True)\n"
        "a = search(b, threads=1)\n"
        "print(_loaded(b), a.count, a.nodes, a.placements)"
    )
    env = {**os.environ, generated.CACHE_ENV: str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert done.stdout.split() == ["[True]", str(answer.count), str(answer.nodes), str(answer.placements)]


def test_the_general_walk_stays_where_a_generated_one_does_not_pay_or_cannot_run():
    puzzle = BOARDS["3x5 turning"]
    args = (puzzle.table, puzzle.n, puzzle.m, puzzle.preplaced)
    assert Board(*args).generated_walk() is None  # a small tree: no compile
    peak = Eternity2Like(n=6, instance_seed=0)  # estimated far below GENERATE_ABOVE nodes
    assert Board(peak.table, peak.n, peak.m, peak.preplaced, order="auto").generated_walk() is None
    assert Board(*args, lookahead=True, generated=True).generated_walk() is None  # the books
    big = Eternity2Like(n=9, instance_seed=0)  # 81 pieces: no sets of 64
    assert Board(big.table, big.n, big.m, big.preplaced, generated=True).generated_walk() is None


@pytest.mark.slow  # compiles a walk for each of ten boards
def test_the_generated_walk_agrees_with_the_cross_checks_referee():
    """Boards of tests/puzzles/edge_matching/test_exact_crosscheck.py (thin, rectangular, turning or not,
    pre-placed pieces, with and without a perfect board), counted by the generated walk against its
    referee."""
    wanted = {(2, 8): 1, (3, 5): 4, (4, 4): 3, (4, 6): 2}  # the first few of a size, of every kind
    checked = Counter()
    for k, (name, table, n, m, pre, _) in enumerate(boards(wanted, seed=56)):
        board = Board(
            table, n, m, pre, order="rows" if k % 2 else "spiral", symmetry=k % 3 > 0, generated=True
        )
        answer = search(board, keep=3, threads=1 + k % 2)
        assert answer.complete and answer.count == Referee(table, n, m, pre).count(), name
        checked["generated"] += board.generated_walk() is not None
        checked["with a perfect board" if answer.count else "with none"] += 1
    assert checked["generated"] >= 6 and checked["with a perfect board"] >= 3 and checked["with none"] >= 2


def test_without_a_cache_folder_to_write_the_walk_is_compiled_and_not_kept(tmp_path, monkeypatch):
    blocked = tmp_path / "a file"
    blocked.write_text("not a folder")
    monkeypatch.setenv(generated.CACHE_ENV, str(blocked / "walks"))
    puzzle = BOARDS["4x6 turning"]
    board = Board(puzzle.table, puzzle.n, puzzle.m, puzzle.preplaced, order="rows", generated=True)
    answer = search(board, threads=1)
    general = search(Board(puzzle.table, puzzle.n, puzzle.m, puzzle.preplaced, order="rows", generated=False))
    assert _loaded(board) == [False] and _answer(answer) == _answer(general)
    assert list(tmp_path.iterdir()) == [blocked]


@pytest.mark.parametrize(
    "name, puzzle, order", [*cases(), ("8x8 peak #0", Eternity2Like(n=8, instance_seed=0), "rows")]
)
def test_a_walk_reads_its_tables_at_absolute_addresses_and_calls_only_its_look(name, puzzle, order):
    """The JIT puts the code anywhere, the tables below 2 GB: a table read relative to the code (at a
    constant address), or a call out of the code's section (memcpy, a cold look), would not reach and
    would abort the process as the walk is linked."""
    board = Board(puzzle.table, puzzle.n, puzzle.m, puzzle.preplaced, order=order, generated=True)
    board.generated_walk()
    llvm = generated._binding()
    machine = llvm.Target.from_default_triple().create_target_machine(
        opt=3, codemodel="small", reloc="static"
    )
    for first in (0, 3):
        layout = llvm_walk.Layout(board.shown.shape[0], len(board.order))
        asm = machine.emit_assembly(llvm.parse_assembly(llvm_walk.source(board, first, layout)))
        assert not re.search(rf"{llvm_walk.SYMBOL}\w*[^\n]*\(%rip\)", asm), name
        assert set(re.findall(r"call\w*\s+(\S+)", asm)) == {"look"}, name
        assert ".text.unlikely" not in asm
