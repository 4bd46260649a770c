"""Both exact searches against a referee written here, on thousands of random small boards (issue 31).

The perfect search (puzzles/edge_matching/solvers/perfect_search/: a count of distinct perfect boards, or "none") and the
deepening search (puzzles/edge_matching/solvers/backtrack.py: the optimum, the fewest unmatched joins) are compared with a
plain depth-first search over cells, row by row, that knows nothing of either: no colour balance, no
symmetry, no candidate lists beyond a dict by (left, top) colours. Every n x m board with 2 <= n <= 4
and 2 <= m <= 8 (thin boards included, where issue 31's wrong proof lived), pieces turning or not, with
and without pre-placed pieces, with and without a perfect board: planted boards (a perfect board of
random colours cut into pieces, shuffled and turned), and the same with one or two sides recoloured or a
piece mirrored, so that usually none exists.

Counts are of distinct boards, as the searches define them: per cell the colours it shows (identical
pieces, up to a turn, are one piece), as in tests/puzzles/edge_matching/test_edge_cpsat.py's brute-force
enumerator. The referee branches on (class of identical pieces, distinct orientation), so every leaf is a
distinct board. An optimum k is checked three ways: the board returned re-scores to k (counted afresh here),
it is at most the planted board's score, and the referee finds no board with fewer than k (for k = 1 that
is its count of perfect boards being 0; above 1 a branch-and-bound search, on boards of up to 12 cells).
"""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from puzzles.edge_matching.board import turn_table
from puzzles.edge_matching.eternity2 import Eternity2
from puzzles.edge_matching.solvers.backtrack import solve_exact
from puzzles.edge_matching.solvers.perfect_search import ORDERS, Board, search
from tests.experiments.test_experiment_run import run_app

# Issue 31: a 2 x 8 board with 12 perfect boards that task=exact said had none (optimum 1).
ISSUE_31 = """# order: left top right bottom
# size: 2 x 8
0 0 2 1
2 0 2 2
2 0 3 2
3 0 3 2
3 0 1 1
1 0 1 1
1 0 3 3
3 0 0 3
0 1 3 0
3 2 1 0
1 2 1 0
1 2 3 0
3 1 2 0
2 1 1 0
1 3 3 0
3 3 0 0
"""
SIDES = ("left", "top", "right", "bottom")
MAX_NODES = 500_000  # the deepening search's cap a board: a give-up is tallied, not a disagreement
COLOURS = {8: (1, 4), 12: (2, 5), 20: (3, 7), 32: (5, 9)}  # colours drawn from, by the most cells
SMALL = 12  # boards of up to this many cells get the referee's branch-and-bound for optima above 1


# ----------------------------------------------------------------------------------------- the referee


def unmatched(shown: np.ndarray, n: int, m: int) -> int:
    """Unmatched inner joins of a colour board (n*m, 4): sides differ, or carry grey (0)."""
    grid = shown.reshape(n, m, 4)
    a, b = grid[:, :-1, 2], grid[:, 1:, 0]
    c, d = grid[:-1, :, 3], grid[1:, :, 1]
    return int(((a != b) | (a == 0)).sum() + ((c != d) | (c == 0)).sum())


def is_perfect(shown: np.ndarray, n: int, m: int) -> bool:
    """Grey exactly on the rim and every inner join matched."""
    grid = shown.reshape(n, m, 4)
    rim = np.zeros((n, m, 4), bool)
    rim[:, 0, 0] = rim[0, :, 1] = rim[:, -1, 2] = rim[-1, :, 3] = True
    return bool(np.array_equal(grid == 0, rim)) and unmatched(shown, n, m) == 0


def uses_each_piece_once(piece, turn, table, preplaced) -> bool:
    return sorted(map(int, piece)) == list(range(len(table))) and all(
        piece[c] == p and turn[c] == t for c, p, t in preplaced
    )


class Referee:
    """A plain depth-first search over cells in row-major order: pieces grouped into classes of
    identical pieces (up to the turns they may take), each class tried in each of its distinct
    orientations, pre-placed cells fixed."""

    def __init__(self, table: np.ndarray, n: int, m: int, preplaced):
        self.n, self.m = n, m
        self.fixed = {int(c): tuple(int(x) for x in table[p, t]) for c, p, t in preplaced}
        taken = {int(p) for _, p, _ in preplaced}
        classes: dict[tuple, list] = {}
        for p in range(len(table)):
            if p in taken:
                continue
            turns = sorted({tuple(int(x) for x in row) for row in table[p]})
            key = turns[0] if len(table[p]) > 1 else tuple(int(x) for x in table[p, 0])
            classes.setdefault(key, [0, turns])[0] += 1
        self.left = [v[0] for v in classes.values()]  # pieces left per class
        self.turns = [v[1] for v in classes.values()]

    def count(self) -> int:
        """Distinct perfect boards: grey exactly on the rim, every inner join matched."""
        m, cells = self.m, self.n * self.m
        shown: list = [None] * cells
        options = [self._options(c) for c in range(cells)]  # per cell: (left, top) -> [(class, sides)]

        def walk(c: int) -> int:
            if c == cells:
                return 1
            left = shown[c - 1][2] if c % m else 0
            top = shown[c - m][3] if c >= m else 0
            total = 0
            for k, o in options[c].get((left, top), ()):
                if k >= 0:  # a class's piece (a fixed one has class -1)
                    if not self.left[k]:
                        continue
                    self.left[k] -= 1
                shown[c] = o
                total += walk(c + 1)
                if k >= 0:
                    self.left[k] += 1
            return total

        return walk(0)

    def _options(self, c: int) -> dict[tuple, list]:
        """What cell c may show, by its left and top colours: a fixed piece (class -1) or every class's
        orientations, with grey exactly on the cell's right and bottom rim sides and the sides a fixed
        right or lower neighbour shows matched."""
        n, m, fixed = self.n, self.m, self.fixed
        row, col = divmod(c, m)

        def fits_later(o: tuple) -> bool:
            if (o[2] == 0) != (col == m - 1) or (o[3] == 0) != (row == n - 1):
                return False
            if col < m - 1 and c + 1 in fixed and fixed[c + 1][0] != o[2]:
                return False
            return not (row < n - 1 and c + m in fixed and fixed[c + m][1] != o[3])

        found: dict[tuple, list] = {}
        every = (
            [(-1, fixed[c])] if c in fixed else [(k, o) for k, turns in enumerate(self.turns) for o in turns]
        )
        for k, o in every:
            if fits_later(o):
                found.setdefault((o[0], o[1]), []).append((k, o))
        return found

    def any_within(self, most: int, grey_rule: bool) -> bool:
        """Is there a board with at most `most` unmatched joins (under `grey_rule`, grey exactly on the
        rim)? Branch and bound: a join is priced when its later cell (row-major) is placed."""
        n, m, fixed = self.n, self.m, self.fixed
        shown: list = [None] * (n * m)
        every = [(k, o) for k in range(len(self.turns)) for o in self.turns[k]]

        def legal(c: int, o: tuple) -> bool:
            row, col = divmod(c, m)
            rim = (col == 0, row == 0, col == m - 1, row == n - 1)
            return all((o[s] == 0) == rim[s] for s in range(4))

        def walk(c: int, cost: int) -> bool:
            if c == n * m:
                return True
            row, col = divmod(c, m)
            for k, o in [(-1, fixed[c])] if c in fixed else every:
                if k >= 0 and not self.left[k] or grey_rule and not legal(c, o):
                    continue
                price = cost
                if col:
                    a = shown[c - 1][2]
                    price += a != o[0] or a == 0
                if row:
                    a = shown[c - m][3]
                    price += a != o[1] or a == 0
                if price > most:
                    continue
                if k >= 0:
                    self.left[k] -= 1
                shown[c] = o
                found = walk(c + 1, price)
                if k >= 0:
                    self.left[k] += 1
                if found:
                    return True
            return False

        return walk(0, 0)


# ------------------------------------------------------------------------------------------ the boards


def planted(rng, n: int, m: int, colours: int, turns: bool):
    """Pieces cut from a perfect n x m board of random colours (grey on the rim), shuffled and, with
    `turns`, turned: (sides, where each piece came from as (cell, piece, turn))."""
    across = np.zeros((n, m + 1), np.int64)
    down = np.zeros((n + 1, m), np.int64)
    across[:, 1:m] = rng.integers(1, colours + 1, (n, m - 1))
    down[1:n, :] = rng.integers(1, colours + 1, (n - 1, m))
    shown = [[across[r, c], down[r, c], across[r, c + 1], down[r + 1, c]] for r in range(n) for c in range(m)]
    cell_of = rng.permutation(n * m)  # piece p came from cell cell_of[p]
    spin = rng.integers(4, size=n * m) if turns else np.zeros(n * m, np.int64)
    sides = np.array([[shown[c][(k + t) % 4] for k in range(4)] for c, t in zip(cell_of, spin)], np.int64)
    return sides, [(int(c), p, int(t)) for p, (c, t) in enumerate(zip(cell_of, spin))]


def spoil(rng, sides: np.ndarray, colours: int, how: str) -> np.ndarray:
    """One or two coloured sides recoloured (to another colour, now and then one no piece has), or a
    piece that is no corner mirrored across its grey side's axis (its grey stays where it was)."""
    sides = sides.copy()
    if how == "mirrored":
        grey = (sides == 0).sum(axis=1)
        pieces = np.flatnonzero(grey <= 1)
        if len(pieces):
            p = rng.choice(pieces)
            axis = [1, 3] if (sides[p, 0] == 0 or sides[p, 2] == 0) else [0, 2]
            sides[p, axis] = sides[p, axis[::-1]]
            return sides
        how = "recoloured"
    for _ in range(2 if how == "recoloured twice" else 1):
        p, s = (int(x) for x in rng.choice(np.argwhere(sides > 0)))
        choices = [c for c in range(1, colours + 2) if c != sides[p, s]]
        sides[p, s] = rng.choice(choices) if rng.random() < 0.85 else colours + 1
    return sides


def boards(count_per_size: dict[tuple[int, int], int], seed: int = 31):
    """(name, table, n, m, pre-placed rows, the planted board's (piece, turn)) for random boards of
    every size asked."""
    rng = np.random.default_rng(seed)
    for (n, m), cases in count_per_size.items():
        cells = n * m
        for k in range(cases):
            turns = bool(k % 2)
            colours = int(rng.integers(*COLOURS[next(k for k in COLOURS if cells <= k)]))
            sides, origin = planted(rng, n, m, colours, turns)
            kinds = ["planted", "recoloured"] + (["mirrored", "recoloured twice"] if cells <= SMALL else [])
            how = kinds[k // 2 % len(kinds)]
            if how != "planted":
                sides = spoil(rng, sides, colours, how)
            given = int(rng.choice([0, 0, 1, 2]))
            pre = [origin[p] for p in rng.choice(cells, size=given, replace=False)]
            piece = np.empty(cells, np.int64)
            turn = np.empty(cells, np.int64)
            for c, p, t in origin:
                piece[c], turn[c] = p, t
            name = (
                f"{n}x{m} {'turning' if turns else 'unturned'} {colours} colours {how}, {given} given (#{k})"
            )
            yield name, turn_table(sides, turns), n, m, pre, (piece, turn)


# ------------------------------------------------------------------------------------------ the checks


def check(name, table, n, m, pre, witness, rng, tally: dict) -> list[str]:
    """Both searches on one board against the referee: the disagreements found (none, to pass)."""
    wrong = []
    referee = Referee(table, n, m, pre)
    expected = referee.count()
    order = str(rng.choice(list(ORDERS)))
    lookahead, symmetry = bool(rng.random() < 0.3), bool(rng.random() < 0.8)
    answer = search(Board(table, n, m, pre, order, lookahead, symmetry), keep=3, threads=1)
    if not answer.complete or answer.count != expected or answer.none != (expected == 0):
        wrong.append(
            f"{name}: perfect search ({order}, look-ahead {lookahead}, symmetry {symmetry}) counted "
            f"{answer.count} ({answer.stop_reason}), the referee {expected}"
        )
    for piece, turn in answer.boards:
        if not (uses_each_piece_once(piece, turn, table, pre) and is_perfect(table[piece, turn], n, m)):
            wrong.append(f"{name}: the perfect search returned a board that is not perfect")
    grey_rule = bool(rng.random() < 0.5)
    piece, turn = witness  # the planted board (a piece recoloured or mirrored): an upper bound
    planted = unmatched(table[piece, turn], n, m)
    if grey_rule and not np.array_equal(table[piece, turn] == 0, _rim(n, m)):
        planted = 2 * n * m  # not a legal board: no bound
    try:
        best = solve_exact(table, n, pre, max_nodes=MAX_NODES, grey_rule=grey_rule, m=m, threads=1)
    except RuntimeError as err:  # its own re-score check
        return [*wrong, f"{name}: the deepening search raised: {err}"]
    if best.optimal and best.piece is not None and best.rotation is not None:
        wrong += check_optimum(name, table, n, m, pre, best, grey_rule, expected, planted, referee, tally)
    elif best.optimal:
        wrong.append(f"{name}: the deepening search claims an optimum without a board")
    else:  # capped: no board, and no bound beyond what is true
        tally["optima not decided within the node cap"] += 1
        if best.piece is not None or best.lower_bound > (0 if expected else planted):
            wrong.append(f"{name}: the capped deepening search claims a bound {best.lower_bound} or a board")
    tally["boards"] += 1
    tally["with a perfect board" if expected else "with none"] += 1
    tally["pre-placed pieces" if pre else "nothing pre-placed"] += 1
    return wrong


def check_optimum(name, table, n, m, pre, best, grey_rule, expected, planted, referee, tally) -> list[str]:
    """The deepening search's optimum: its board re-scored here, at most the planted board's score,
    0 exactly when the referee counts a perfect board, and no board with fewer (the referee's
    branch and bound, on small boards)."""
    wrong = []
    shown = table[best.piece, best.rotation]
    score = unmatched(shown, n, m)
    if not uses_each_piece_once(best.piece, best.rotation, table, pre) or score != best.unmatched:
        wrong.append(f"{name}: the deepening search claims {best.unmatched}, its board re-scores {score}")
    if grey_rule and not np.array_equal(shown == 0, _rim(n, m)):
        wrong.append(f"{name}: the deepening search's board breaks the grey rule")
    if (best.unmatched == 0) != (expected > 0):
        wrong.append(
            f"{name}: optimum {best.unmatched} (grey rule {grey_rule}), the referee {expected} perfect"
        )
    if best.unmatched > planted:
        wrong.append(f"{name}: optimum {best.unmatched}, but the planted board scores {planted}")
    if best.unmatched >= 2:
        if n * m <= 8 or n * m <= SMALL and grey_rule:
            tally["refereed optima above 1"] += 1
            if referee.any_within(best.unmatched - 1, grey_rule):
                wrong.append(f"{name}: optimum {best.unmatched}, the referee finds a board with fewer")
        else:
            tally["optima above 1 not refereed"] += 1
    tally[f"optimum {min(best.unmatched, 2)}{'+' if best.unmatched >= 2 else ''}"] += 1
    return wrong


def _rim(n: int, m: int) -> np.ndarray:
    rim = np.zeros((n, m, 4), bool)
    rim[:, 0, 0] = rim[0, :, 1] = rim[:, -1, 2] = rim[-1, :, 3] = True
    return rim.reshape(n * m, 4)


PER_SIZE = {  # the larger boards fewer: their trees are larger, for both searches and the referee
    (n, m): 200 if n * m <= SMALL else 120 if n * m <= 20 else 60 for n in range(2, 5) for m in range(2, 9)
}


PARTS = 4  # tests that pytest-xdist runs side by side (as one test it took 164 s)
KINDS = 8  # `boards` cycles turning or not and its 4 kinds every 8 boards: parts take blocks of 8


SAMPLE = 48  # the fast tier's share: one block of KINDS boards in SAMPLE, every kind and size still met


def cross_check(part: int, parts: int) -> tuple[Counter, list[str], float]:
    """Check every `parts`-th block of boards from block `part`: the tally, the disagreements, the time."""
    started = time.perf_counter()
    rng = np.random.default_rng([7, part])
    tally: Counter = Counter()
    wrong: list[str] = []
    for k, (name, table, n, m, pre, witness) in enumerate(boards(PER_SIZE)):
        if k // KINDS % parts == part:
            wrong += check(name, table, n, m, pre, witness, rng, tally)
    return tally, wrong, time.perf_counter() - started


def test_both_exact_searches_agree_with_the_referee_on_a_sample_of_boards():
    """The fast tier's share of the cross-check below: about a hundred boards of every size and kind."""
    tally, wrong, _ = cross_check(0, SAMPLE)
    assert not wrong, "\n".join(wrong[:20])
    assert tally["boards"] >= 2000 // SAMPLE
    assert tally["with a perfect board"] >= 5 and tally["with none"] >= 5
    assert tally["refereed optima above 1"] >= 200 // SAMPLE


@pytest.mark.slow
@pytest.mark.parametrize("part", range(PARTS))
def test_both_exact_searches_agree_with_the_referee_on_thousands_of_boards(part):
    tally, wrong, seconds = cross_check(part, PARTS)
    print(
        f"\nexact cross-check, part {part} of {PARTS}: {tally['boards']} boards checked in {seconds:.1f} s, "
        f"{len(wrong)} disagreements; "
        + ", ".join(f"{k} {v}" for k, v in sorted(tally.items()) if k != "boards")
    )
    assert not wrong, "\n".join(wrong[:20])
    assert tally["boards"] >= 2000 // PARTS
    assert tally["with a perfect board"] >= 500 // PARTS and tally["with none"] >= 500 // PARTS
    assert tally["refereed optima above 1"] >= 200 // PARTS
    assert tally["optima above 1 not refereed"] < tally["boards"] // 10
    assert tally["optima not decided within the node cap"] < tally["boards"] // 20


# ------------------------------------------------------------------------------------ issue 31's board


def issue_31(tmp_path: Path) -> tuple[str, Eternity2]:
    path = tmp_path / "issue_31.txt"
    path.write_text(ISSUE_31)
    return str(path), Eternity2(starter=False, pieces_file=str(path))


def test_issue_31_board_through_the_functions(tmp_path):
    """12 distinct perfect boards (the referee's count); the deepening search's optimum 0 with a board
    that re-scores 0; and the thin boards 2 x 3 and 3 x 2 that failed the same way."""
    _, puzzle = issue_31(tmp_path)
    table, n, m = puzzle.table, puzzle.n, puzzle.m
    assert (n, m) == (2, 8)
    expected = Referee(table, n, m, puzzle.preplaced).count()
    assert expected == 12
    answer = search(Board(table, n, m, puzzle.preplaced), keep=20, threads=1)
    assert answer.complete and answer.count == expected and not answer.none
    assert all(puzzle.score_layout(puzzle.layout(*b))["unmatched_edges"] == 0 for b in answer.boards)
    best = solve_exact(table, n, puzzle.preplaced, grey_rule=True, m=m, threads=1)
    assert best.optimal and best.unmatched == 0
    assert puzzle.score_layout(puzzle.layout(best.piece, best.rotation))["unmatched_edges"] == 0
    for n, m in ((2, 3), (3, 2), (2, 8)):
        sides, _ = planted(np.random.default_rng(n * m), n, m, 2, True)
        table = turn_table(sides, True)
        answer = search(Board(table, n, m), threads=1)
        assert answer.count == Referee(table, n, m, []).count() >= 1, (n, m)
        assert solve_exact(table, n, m=m, grey_rule=True).unmatched == 0


def test_a_wrong_proof_of_none_fails_loudly(tmp_path):
    """A deepening search told (wrongly) that no perfect board exists finds one with fewer unmatched
    joins than the bound it started from: it raises, naming both, instead of reporting its tally."""
    _, puzzle = issue_31(tmp_path)
    with pytest.raises(RuntimeError, match=r"re-scores to 0 unmatched edges, but the search claimed 1"):
        solve_exact(puzzle.table, puzzle.n, grey_rule=True, m=puzzle.m, proved=1)


@pytest.mark.slow
def test_issue_31_board_through_the_app(tmp_path):
    """task=exact counts its perfect boards (optimum 0); optimizer=backtrack records best 0."""
    path, _ = issue_31(tmp_path)
    puzzle = ["puzzle=eternity2", f"puzzle.pieces_file={path}", "puzzle.starter=false", "progress=false"]
    proc = run_app(*puzzle, "task=exact", f"hydra.run.dir={tmp_path / 'exact'}")
    assert proc.returncode == 0, proc.stderr
    row = pd.read_parquet(tmp_path / "exact" / "exact.parquet").iloc[0]
    assert row["perfect_boards"] == 12 and row["all_counted"] and row["optimum"] == 0 == row["lower_bound"]
    assert "all 12 perfect boards" in proc.stdout and "no perfect board" not in proc.stdout
    proc = run_app(*puzzle, "optimizer=backtrack", f"hydra.run.dir={tmp_path / 'backtrack'}")
    assert proc.returncode == 0, proc.stderr
    record = pd.read_parquet(tmp_path / "backtrack" / "run.parquet").iloc[0]
    assert record["best"] == 0 and record["stop_reason"] == "finished"
