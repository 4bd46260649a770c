"""An independent count of calendar solutions, built from the seeds' own text, for test_calendar_oracle.

Nothing here comes from puzzles/ or heuristics/: the boards are rebuilt from the seeds' descriptions,
the pieces are the seeds' own arrays (copied verbatim below, since the seeds are not shipped), their
orientations come from numpy's rot90/fliplr as seed 000 turns them, and the counting is done by the
`exact-cover` PyPI package (the `exact` extra). A date leaves its cells open; every other board cell
must be covered exactly once, each piece used exactly once.
"""

from __future__ import annotations

import functools
import itertools

import numpy as np

# Seed 000 (000_709b0829fc8cef96.txt, "問題定義" section): its BLOCKS list, verbatim.
SEED_000_BLOCKS = [
    [[0, 0, 1], [1, 1, 1], [1, 0, 0]],
    [[0, 0, 1, 1], [1, 1, 1, 0]],
    [[1, 1, 0], [1, 1, 1]],
    [[1, 1, 1], [1, 0, 0], [1, 0, 0]],
    [[1, 0, 1], [1, 1, 1]],
    [[0, 0, 1, 0], [1, 1, 1, 1]],
    [[1, 1, 1, 1], [1, 0, 0, 0]],
    [[1, 1, 1], [1, 1, 1]],
]

# Seed 000, same section: its AREA mask, verbatim (0 = a board cell, 1 = off the board).
SEED_000_AREA = [
    [0, 0, 0, 0, 0, 0, 1, 1],
    [0, 0, 0, 0, 0, 0, 1, 1],
    [0, 0, 0, 0, 0, 0, 0, 1],
    [0, 0, 0, 0, 0, 0, 0, 1],
    [0, 0, 0, 0, 0, 0, 0, 1],
    [0, 0, 0, 0, 0, 0, 0, 1],
    [0, 0, 0, 1, 1, 1, 1, 1],
    [1, 1, 1, 1, 1, 1, 1, 1],
]

# Seed 004 (004_2a8f9e5e2521584d.txt, section "日历拼图的线性规划算法"): its example solution of the
# weekday board, verbatim as the seed prints it. The digits are its 10 pieces (0-9). The seed's text
# lost the blank cells, so each row lists only its covered cells, left to right.
SEED_004_EXAMPLE = """\
888333
83399
440099
7400021
7462221
7462111
766655
555"""
# The three blank (open) cells of that example, (row, col), from the page the seed was taken from
# (github.com/etchnight/calendar_puzzle, readme.md, an HTML table with white empty cells). The text
# alone admits 12 placements of the holes that leave 10 distinct connected pieces.
SEED_004_HOLES = [(1, 1), (2, 0), (6, 5)]

MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
WEEKDAYS = ("Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat")  # seed 004: weekday 0 = Sunday


def classic_board() -> dict[str, tuple[int, int]]:
    """Label -> (row, col) of seed 000's board, decoded as its get_date_from_loc does:
    months 1-12 in rows 0-1 (six a row), days 1-31 from row 2 (seven a row)."""
    labels = {}
    for y, x in zip(*np.nonzero(np.array(SEED_000_AREA) == 0)):
        if y < 2:
            labels[MONTHS[x + 6 * y]] = (int(y), int(x))
        else:
            labels[str((y - 2) * 7 + x + 1)] = (int(y), int(x))
    return labels


def weekday_board() -> dict[str, tuple[int, int]]:
    """The weekday edition (seed 004's puzzle): the classic board, then Sun-Wed after day 31 in
    row 6 and Thu-Sat at the right end of a last row. Seed 004 asks for all 7 weekday cells less
    one covered ("所有表示星期的位置,和为6"); its example grid has exactly this outline."""
    labels = classic_board()
    for w, cell in enumerate([(6, 3), (6, 4), (6, 5), (6, 6), (7, 4), (7, 5), (7, 6)]):
        labels[WEEKDAYS[w]] = cell
    return labels


def _connected(cells: set) -> bool:
    todo, seen = [next(iter(cells))], set()
    while todo:
        r, c = todo.pop()
        if (r, c) not in seen:
            seen.add((r, c))
            todo += [n for n in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)) if n in cells]
    return seen == cells


def seed_004_example() -> tuple[list[str], dict, list[np.ndarray]]:
    """Seed 004's example read onto the weekday board: (the labels it leaves open, the grid as
    {(row, col): digit}, its 10 pieces as 0/1 arrays in the seed's digit order)."""
    board = weekday_board()
    at = {cell: label for label, cell in board.items()}
    rows = SEED_004_EXAMPLE.splitlines()
    covered = sorted(c for c in at if c not in SEED_004_HOLES)
    grid = {}
    for r, text in enumerate(rows):
        cells = [c for c in covered if c[0] == r]
        assert len(cells) == len(text), f"row {r} of seed 004's example does not fit the board"
        grid.update(zip(cells, map(int, text)))
    pieces = []
    for digit in range(10):
        cells = {c for c, d in grid.items() if d == digit}
        assert _connected(cells), f"piece {digit} of seed 004's example is not connected"
        cells = np.array(sorted(cells))
        cells -= cells.min(axis=0)
        array = np.zeros(cells.max(axis=0) + 1, dtype=int)
        array[tuple(cells.T)] = 1
        pieces.append(array)
    return [at[h] for h in SEED_004_HOLES], grid, pieces


def orientations(block) -> list[np.ndarray]:
    """Every distinct turn and flip of a 0/1 array (seed 000's reform_block: rot90, then fliplr)."""
    seen = {}
    for rot, flip in itertools.product(range(4), (False, True)):
        image = np.rot90(np.array(block), rot)
        image = np.fliplr(image) if flip else image
        seen.setdefault((image.shape, image.tobytes()), image)
    return list(seen.values())


@functools.cache
def _placements(board_name: str) -> tuple[list[str], np.ndarray]:
    """(cell labels, one 0/1 row per placement: piece columns, then one column per board cell)."""
    board = classic_board() if board_name == "classic" else weekday_board()
    blocks = SEED_000_BLOCKS if board_name == "classic" else seed_004_example()[2]
    labels = list(board)
    index = {cell: i for i, cell in enumerate(board.values())}
    rows = []
    for p, block in enumerate(blocks):
        for image in orientations(block):
            offsets = np.argwhere(image == 1)
            for r, c in itertools.product(range(9), range(8)):
                cells = [index.get((r + dr, c + dc)) for dr, dc in offsets]
                if None not in cells:
                    row = np.zeros(len(blocks) + len(labels), dtype=np.int32)
                    row[p] = 1
                    row[len(blocks) + np.array(cells)] = 1
                    rows.append(row)
    return labels, np.array(rows)


def count(board_name: str, open_labels) -> int:
    """Solutions of the board with the given cells left open (exact-cover package)."""
    import exact_cover

    labels, matrix = _placements(board_name)
    n_pieces = matrix.shape[1] - len(labels)
    open_cols = [n_pieces + labels.index(t) for t in open_labels]
    keep = ~matrix[:, open_cols].any(axis=1)
    sub = np.ascontiguousarray(np.delete(matrix[keep], open_cols, axis=1), dtype=np.int32)
    return int(exact_cover.get_solution_count(sub))
