"""Eternity II: the official set and Eternity-II-like generated boards.

Why here and not in the face: the face knows any n x m edge-matching puzzle; this module knows where
the official pieces live, the starter and clue positions, and how the META 2010-style benchmark boards
are made (separate frame and inner colours, a known perfect solution).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from core.errors import InputError
from puzzles.edge_matching.board import Layout
from puzzles.edge_matching.face_instance import build_instance
from puzzles.edge_matching.face_states import state_from_orients
from puzzles.edge_matching.instances import Instance, check_board
from puzzles.edge_matching.piece_files import read_piece_file
from puzzles.edge_matching.puzzle import EdgeMatching

DATA = Path(__file__).resolve().parents[1] / "data" / "eternity2" / "e2pieces.txt"
ORDER = "bottom left top right"  # the bundled file's edge order (see data/eternity2/README.md)

# (row, col, piece, turns), 1-based rows/cols from the top-left and 1-based pieces, turns clockwise,
# as jwortmann/Eternity2Puzzles.jl stores them.
STARTER = (9, 8, 139, 2)
CLUES = ((14, 3, 181, 3), (3, 14, 255, 3), (14, 14, 249, 0), (3, 3, 208, 3))


def official_hints(starter: bool = True, clues: bool = False) -> list[list[int]]:
    """The official pre-placed pieces as 0-based [row, col, piece, turns] hints."""
    placed = ([STARTER] if starter else []) + (list(CLUES) if clues else [])
    return [[r - 1, c - 1, p - 1, t] for r, c, p, t in placed]


class Eternity2(EdgeMatching):
    """The official Eternity II puzzle: 256 pieces on 16 x 16, pieces turn, grey sides outward.

    Args:
        starter: pre-place the mandatory starter piece 139 (on by default, as the puzzle's rules say).
        clues: also pre-place the four clue pieces revealed by the official clue puzzles.
        pieces_file: another piece list to load under the same rules (default: the bundled set).
        order: the edge order of the file's columns, by name; null: the file's `# order:` header (the
            bundled set's order for the bundled set). A file whose header states another order is read
            by its header unless an order is given here.
    """

    name = "eternity2"
    instance_keys: tuple[str, ...] = ()

    def __init__(
        self,
        starter: bool = True,
        clues: bool = False,
        pieces_file: str | None = None,
        order: str | None = None,
    ):
        bundled = (
            not pieces_file or Path(pieces_file).resolve() == DATA
        )  # its order is known without a header
        if starter and not bundled:
            _check_starter(str(pieces_file), order)
        super().__init__(
            generator="file",
            pieces_file=pieces_file or str(DATA),
            order=order if order is not None or not bundled else ORDER,
            rotations=True,
            fix_centre=False,
            hints=tuple(official_hints(starter, clues)),
        )
        self.viewer_letters = bundled and order in (None, ORDER)  # the official set: see board_files.py


def _check_starter(pieces_file: str, order: str | None) -> None:
    """The official starter piece (row 9, column 8, piece 139) must fit another piece list's board, or
    the user is told to switch it off (a clue puzzle's 6 x 6 board has no cell for it)."""
    row, col, piece, _ = STARTER
    pieces = read_piece_file(pieces_file, order)
    if pieces.n < row or pieces.m < col or len(pieces.sides) < piece:
        raise InputError(
            f"puzzle.starter=true pre-places the official starter piece {piece} at row {row}, column {col}, "
            f"which the {pieces.n} x {pieces.m} board of {Path(pieces_file).name} cannot hold; "
            "set puzzle.starter=false"
        )


# ----------------------------------------------------------------------------- generated instances

# (frame, inner) colour counts of the hardest square boards by Owen's estimate, as tabulated in
# jwortmann/Eternity2Puzzles.jl (src/core.jl); 16: the official set's 5 and 17. The estimate itself, for
# any size and frame count: owen.py (its crossing rounds to these inner counts at every size but 9).
HARDEST_COLOURS = {
    4: (2, 3),
    5: (3, 4),
    6: (3, 5),
    7: (3, 6),
    8: (3, 8),
    9: (4, 9),
    10: (4, 10),
    12: (4, 12),
    14: (5, 15),
    16: (5, 17),
}


def _canonical_turn(colours) -> int:
    """The rotation of a piece that makes its colour tuple smallest (to store pieces canonically)."""
    turns = [tuple(colours[(k + r) % 4] for k in range(4)) for r in range(4)]
    return min(range(4), key=lambda r: turns[r])


def _join_colours(n: int, m: int, frame_colours: int, inner_colours: int, rng) -> np.ndarray:
    """The solved board's pieces: frame colours on joins between border cells, inner colours elsewhere."""
    hj = np.zeros((n, m + 1), np.int32)  # colour of the join left of cell (r, c)
    vj = np.zeros((n + 1, m), np.int32)  # colour of the join above cell (r, c)
    frame = [(0, c, "h") for c in range(1, m)] + [(n - 1, c, "h") for c in range(1, m)]
    frame += [(r, 0, "v") for r in range(1, n)] + [(r, m - 1, "v") for r in range(1, n)]
    inner = [(r, c, "h") for r in range(1, n - 1) for c in range(1, m)]
    inner += [(r, c, "v") for r in range(1, n) for c in range(1, m - 1)]
    for joins, base, k in ((frame, 0, frame_colours), (inner, frame_colours, inner_colours)):
        colours = base + 1 + rng.permutation(np.arange(len(joins)) % k)
        for (r, c, d), col in zip(joins, colours, strict=True):
            (hj if d == "h" else vj)[r, c] = col
    return np.array(
        [[hj[r, c], vj[r, c], hj[r, c + 1], vj[r + 1, c]] for r in range(n) for c in range(m)], np.int32
    )


def generate_e2_like(
    n: int,
    m: int,
    frame_colours: int,
    inner_colours: int,
    seed: int,
    unique: bool = True,
    max_tries: int = 1000,
) -> tuple[np.ndarray, np.ndarray]:
    """An Eternity-II-like n x m puzzle with a known perfect solution (as the META 2010 boards were made).

    Each colour is used equally often (shuffled). With `unique` the pieces are all distinct up to
    rotation and none is rotationally symmetric (tries again otherwise). Pieces are shuffled and
    turned, so the solution is not the identity.
    Returns (pieces [left, top, right, bottom], the solution's orient per cell).
    """
    rng = np.random.default_rng(seed)
    for _ in range(max_tries):
        solved = _join_colours(n, m, frame_colours, inner_colours, rng)
        if unique and not _all_distinct(solved):
            continue
        order = rng.permutation(n * m)  # cell order[i] holds piece i
        pieces = np.empty_like(solved)
        orients = np.empty(n * m, np.int32)
        for p, cell in enumerate(order):
            t = int(rng.integers(4)) if not unique else _canonical_turn(solved[cell])
            pieces[p] = [solved[cell][(k + t) % 4] for k in range(4)]  # the piece turned back by t
            orients[cell] = 4 * p + t
        return pieces, orients
    raise ValueError(f"no instance with distinct asymmetric pieces after {max_tries} tries")


def _all_distinct(pieces) -> bool:
    """True when no piece is rotationally symmetric and no two pieces are equal up to rotation."""
    seen = set()
    for p in pieces:
        if p[0] == p[2] and p[1] == p[3]:
            return False
        key = min(tuple(p[(k + r) % 4] for k in range(4)) for r in range(4))
        if key in seen:
            return False
        seen.add(key)
    return True


class Eternity2Like(EdgeMatching):
    """A generated Eternity-II-like puzzle of n x m pieces with a known perfect solution.

    Made as the META 2010 benchmark boards were: frame joins and inner joins take colours from two
    separate palettes, each colour used equally often. Pieces may repeat (with 3 frame colours an 8 x 8
    board's 24 frame pieces rarely come out distinct). Pieces turn and sit under Eternity II's rules;
    the optimum is 0 unmatched joins.

    Args:
        n, m: rows and columns (m = n when not given).
        frame_colours, inner_colours: the two palettes' sizes; by default the hardest square board's
            by Owen's estimate (HARDEST_COLOURS), for boards of a size listed there.
        instance_seed: fixes the instance.
        hints: pieces to pre-place, [row, col] (taken from the known solution) or [row, col, piece, turns].
    """

    name = "eternity2_like"

    def __init__(
        self,
        n: int = 8,
        m: int | None = None,
        frame_colours: int | None = None,
        inner_colours: int | None = None,
        instance_seed: int = 0,
        hints: tuple[list[int], ...] = (),
    ):
        m = n if m is None else m
        if instance_seed < 0:
            raise InputError(f"puzzle.instance_seed must be a whole number >= 0, got {instance_seed}")
        if n < 3 or m < 3:
            raise InputError(
                f"puzzle.n and puzzle.m must be at least 3 (a frame round an inside), got {n} x {m}"
            )
        check_board(n, m, "puzzle.n, puzzle.m")
        frame_colours, inner_colours = _palettes(n, m, frame_colours, inner_colours)
        pieces, orients = generate_e2_like(n, m, frame_colours, inner_colours, instance_seed, unique=False)
        self.frame_colours, self.inner_colours = frame_colours, inner_colours
        self.instance = Instance(pieces.astype(np.int64), n, Layout(n, orients >> 2, orients & 3))
        self.instance_seed = instance_seed
        self._set_up(rotations=True, fix_centre=False, hints=hints, colours=frame_colours + inner_colours)

    @classmethod
    def check_hardness(cls, n: int, m: int | None, colours: list[int], order: str) -> None:
        """Settings of task=hardness_peak a planted n x m board can take (inner colour counts it can
        deal, a scan order its search knows), or one line saying which is wrong."""
        from puzzles.edge_matching.hardness import check_order
        from puzzles.edge_matching.owen import joins

        check_order(order)
        m = n if m is None else m
        _, inner = joins(n, m)
        too_many = [c for c in colours if c > inner]
        if too_many:
            raise InputError(
                f"task.colours: {', '.join(map(str, too_many))} inner colours cannot all be dealt on a "
                f"{n} x {m} board's {inner} inner joins; list counts from 2 to {inner}"
            )

    hardness_search = "perfect_search"  # the search `hardness` measures a board by (a record's optimizer)

    def hardness(self, max_nodes: int, count_nodes: int | None, order: str = "auto") -> dict[str, Any]:
        """This planted board's row of the hardness study: its palettes, Owen's estimate for them, and
        the perfect search's figures under node caps (puzzles/edge_matching/hardness.py)."""
        from puzzles.edge_matching.hardness import hardness_row

        return hardness_row(self, max_nodes, count_nodes, order)


def _palettes(n: int, m: int, frame: int | None, inner: int | None) -> tuple[int, int]:
    """The two palettes' sizes: as given, or the hardest square board's; a one-line error otherwise."""
    if frame is None or inner is None:
        if n != m or n not in HARDEST_COLOURS:
            raise InputError(
                f"puzzle: no default colour counts for a {n} x {m} board; give puzzle.frame_colours and "
                f"puzzle.inner_colours (defaults exist for square boards of side {sorted(HARDEST_COLOURS)})"
            )
        frame = HARDEST_COLOURS[n][0] if frame is None else frame
        inner = HARDEST_COLOURS[n][1] if inner is None else inner
    if frame < 1 or inner < 1:
        raise InputError(
            f"puzzle.frame_colours and puzzle.inner_colours must be at least 1, got {frame}, {inner}"
        )
    return frame, inner


def e2_like_instance(n: int, m: int, frame_colours: int, inner_colours: int, seed: int, **mix):
    """A generated instance ready for the face, and its known perfect solution as a state."""
    pieces, solution = generate_e2_like(n, m, frame_colours, inner_colours, seed)
    inst = build_instance(pieces, n, m, **mix)
    return inst, state_from_orients(inst, solution)
