"""Edge-matching piece lists as text files, so users can load published instances (e.g. Eternity II).

One piece per line: four integer colours separated by spaces, tabs or commas; colour 0 is the
border. Lines starting with '#' are comments, except these headers:

    # order: top right bottom left     the edge order of the four colours (required here or as an
                                       option; names: left/top/right/bottom, west/north/east/south,
                                       or their first letters l t r b / w n e s)
    # size: 16                         board side n (optional: else sqrt of the piece count);
    # size: 8 x 16                     or rows and columns n x m of a rectangular board
    # hint: 8 7 138 2                  a pre-placed piece: row, col, piece, rotation; rows, cols
                                       and pieces count from 0 (piece = its line among the pieces),
                                       rotation in clockwise quarter turns of the piece as listed

Pieces are returned in the seed's order [left, top, right, bottom].

A framed set (every piece with two adjacent grey sides, one, or none, and some corner) must fill the
frame of its board: 4 corners, 2(n-2) + 2(m-2) edge pieces and (n-2)(m-2) inner ones. Its size is
checked against these counts, so a 2 x 8 board's 16 pieces are not read as a 4 x 4 one (the error
names the `# size:` line to add). Sets with grey elsewhere (three grey sides, two opposite ones, or
none at all) are read as they are: the seed's rules allow them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from core.errors import InputError
from puzzles.edge_matching.board import MAX_COLOUR, check_hints

SEED_ORDER = ("left", "top", "right", "bottom")
_ALIASES = {
    "left": "left",
    "west": "left",
    "w": "left",
    "l": "left",
    "top": "top",
    "north": "top",
    "n": "top",
    "t": "top",
    "up": "top",
    "u": "top",
    "right": "right",
    "east": "right",
    "e": "right",
    "r": "right",
    "bottom": "bottom",
    "south": "bottom",
    "s": "bottom",
    "b": "bottom",
    "down": "bottom",
    "d": "bottom",
}
_SPLIT = re.compile(r"[\s,;]+")


@dataclass(frozen=True)
class PieceList:
    """Pieces' sides as a (pieces, 4) colour array in [left, top, right, bottom] order, the board's rows
    n, and hints; the columns are the pieces over the rows."""

    sides: np.ndarray
    n: int
    hints: tuple[tuple[int, int, int, int], ...] = field(default=())  # (row, col, piece, rotation)

    @property
    def m(self) -> int:
        """Columns of the board."""
        return len(self.sides) // self.n


def parse_order(text: str, where: str = "order") -> tuple[int, ...]:
    """Column positions, in the file, of [left, top, right, bottom]; a clear error if not a permutation."""
    names = [w for w in _SPLIT.split(text.strip().lower()) if w]
    found = [_ALIASES.get(w) for w in names]
    sides = [side for side in found if side is not None]
    if len(sides) < len(found) or sorted(sides) != sorted(SEED_ORDER):
        raise InputError(
            f"{where}: {text.strip()!r} is not an edge order; name the four sides once each, "
            f"e.g. 'left top right bottom' or 'top right bottom left'"
        )
    return tuple(sides.index(side) for side in SEED_ORDER)


def _ints(line: str, count: int, where: str, what: str) -> list[int]:
    """Exactly `count` integers from one line, or a one-line error naming the line."""
    words = [w for w in _SPLIT.split(line.strip()) if w]
    try:
        values = [int(w) for w in words]
    except ValueError:
        values = []
    if len(values) != count or not words:
        raise InputError(f"{where}: expected {count} integers ({what}), got {line.strip()!r}")
    return values


def _header(line: str) -> tuple[str, str] | None:
    """('order' | 'size' | 'hint', value) for a header line, else None."""
    match = re.match(r"#\s*(order|size|hint)\s*:\s*(.*)$", line.strip(), re.IGNORECASE)
    return (match.group(1).lower(), match.group(2)) if match else None


def _size(text: str, where: str) -> tuple[int, int]:
    """(rows, columns) from a size header: 'n' (square) or 'n m' / 'n x m'."""
    words = [w for w in re.split(r"[\s,;x*]+", text.strip().lower()) if w]
    what = "the board side n, or rows and columns n x m"
    rows, cols = _ints(" ".join(words * 2 if len(words) == 1 else words), 2, where, what)
    if rows < 1 or cols < 1:
        raise InputError(f"{where}: a board of {rows} x {cols} has no cells; state {what}, e.g. '# size: 16'")
    return rows, cols


def _rows(count: int, size: tuple[int, int] | None, where: str) -> int:
    """The board's rows: from the stated size, or the square root of the piece count."""
    n = int(round(count**0.5))
    n, m = size if size is not None else (n, n)
    if count == 0 or n * m != count:
        stated = f"size {n} x {m} needs {n * m} pieces" if size else "the piece count is not a square"
        raise InputError(
            f"{where}: {count} pieces do not fill the board ({stated}); list n*m pieces, one per line, "
            "or state the size with a line '# size: n x m'"
        )
    return n


def frame_counts(sides: np.ndarray) -> tuple[int, int, int] | None:
    """(corners, edge pieces, inner pieces) of a framed piece set: two adjacent grey sides, one, none.
    None when the set is not framed: no corner, or a piece with three grey sides or two opposite ones
    (grey inside the board, which the seed's rules allow, or a 1 x m board)."""
    grey = np.asarray(sides) == 0
    count = grey.sum(axis=1)
    opposite = (grey[:, 0] & grey[:, 2]) | (grey[:, 1] & grey[:, 3])
    if (count > 2).any() or opposite.any() or not (count == 2).any():
        return None
    return int((count == 2).sum()), int((count == 1).sum()), int((count == 0).sum())


def frame_sizes(corners: int, edges: int, inner: int) -> list[tuple[int, int]]:
    """The boards n x m (n <= m, both >= 2) whose frame the counts fill: 4 corners, 2(n-2) + 2(m-2) edge
    pieces and (n-2)(m-2) inner ones."""
    total = corners + edges + inner
    return [
        (n, m)
        for n in range(2, total + 1)
        for m in range(n, total // n + 1)
        if (corners, edges, inner) == (4, 2 * (n - 2) + 2 * (m - 2), (n - 2) * (m - 2))
    ]


def _oriented(size: tuple[int, int], sides: np.ndarray) -> tuple[int, int]:
    """n x m or m x n: the one whose rows and columns the pieces' grey left and top sides count, as listed."""
    n, m = size
    grey = np.asarray(sides) == 0
    return (m, n) if (int(grey[:, 0].sum()), int(grey[:, 1].sum())) == (m, n) else (n, m)


def _count(k: int, what: str) -> str:
    return f"{k} {what}" + ("" if k == 1 else "s")


def check_frame(sides: np.ndarray, size: tuple[int, int], stated: bool, where: str) -> None:
    """A framed piece set (see `frame_counts`) must fill its board's frame: corners, edge and inner pieces
    as many as an n x m board has; a one-line error naming the size that fits, if one does."""
    counts = frame_counts(sides)
    if counts is None:
        return
    n, m = size
    fits = frame_sizes(*counts)
    if (min(n, m), max(n, m)) in fits:
        return
    corners, edges, inner = counts
    has = (
        f"{_count(corners, 'corner')} with two grey sides, {_count(edges, 'edge piece')} with one, "
        f"{_count(inner, 'inner piece')} with none"
    )
    if not fits:
        raise InputError(
            f"{where}: these pieces fit no board ({has}; an n x m board has 4 corners, 2(n-2) + 2(m-2) "
            "edge pieces and (n-2)(m-2) inner ones); check the colours, 0 being the grey border"
        )
    a, b = _oriented(fits[0], sides)
    if stated:
        raise InputError(
            f"{where}: these pieces fit a {a} x {b} board, not the stated {n} x {m} ({has}); "
            f"change the line to '# size: {a} x {b}'"
        )
    raise InputError(
        f"{where}: these pieces fit a {a} x {b} board, not the {n} x {m} their count implies ({has}); "
        f"add the line '# size: {a} x {b}'"
    )


def read_text_file(path: Path, what: str, fix: str) -> str:
    """A text file's contents, or a one-line InputError: missing, a folder, unreadable, or not UTF-8 text
    (a binary file: the first byte that is no text, and where)."""
    if path.is_dir():
        raise InputError(f"{what} {str(path)!r} is a folder, not a file; {fix}")
    if not path.is_file():
        raise InputError(f"{what} {str(path)!r} not found; {fix}")
    try:
        data = path.read_bytes()
    except OSError as err:
        raise InputError(f"{what} {str(path)!r} cannot be read ({err.strerror or err}); {fix}") from None
    nul = data.find(b"\0")
    try:
        text = data[: nul if nul >= 0 else len(data)].decode("utf-8-sig")  # a leading BOM is text too
    except UnicodeDecodeError as err:  # the first byte that is no UTF-8 text, before any NUL
        raise InputError(
            f"{path}: not a text {what} (byte 0x{data[err.start]:02x} at offset {err.start}, not UTF-8); {fix}"
        ) from None
    if nul >= 0:
        raise InputError(f"{path}: not a text {what} (byte 0x00 at offset {nul}); {fix}")
    return text


def read_piece_file(path: str | Path, order: str | None = None) -> PieceList:
    """Read a piece file; `order` (e.g. 'top right bottom left') overrides the file's order header."""
    path = Path(path)
    text = read_text_file(path, "piece file", "give puzzle.pieces_file a path to a piece list")
    rows: list[list[int]] = []
    hints: list[tuple[int, int, int, int]] = []
    size: tuple[int, int] | None = None
    stated: tuple[str, str] | None = None
    for k, line in enumerate(text.splitlines(), start=1):
        where = f"{path.name} line {k}"
        head = _header(line)
        if head and head[0] == "order":
            stated = (head[1], where)
        elif head and head[0] == "size":
            size = _size(head[1], where)
        elif head:
            row, col, piece, rotation = _ints(head[1], 4, where, "row col piece rotation")
            hints.append((row, col, piece, rotation))
        elif line.strip() and not line.lstrip().startswith("#"):
            rows.append(_ints(line, 4, where, "four colours of one piece"))
    if not rows:
        raise InputError(
            f"{path.name}: no pieces; list one piece per line, four colours each (0 = the grey border)"
        )
    if order is not None:
        columns = parse_order(order, "order option")
    elif stated is not None:
        columns = parse_order(*stated)
    else:
        raise InputError(
            f"{path.name}: the edge order is not stated; add a line '# order: left top right bottom' "
            "(or the file's order) or pass the order option"
        )
    sides = np.array(rows, dtype=np.int64).reshape(-1, 4)[:, list(columns)]
    if len(sides) and not (sides.min() >= 0 and sides.max() <= MAX_COLOUR):
        raise InputError(
            f"{path.name}: colours must be 0 (the border) to {MAX_COLOUR}, "
            f"found {sides.min()} .. {sides.max()}"
        )
    n = _rows(len(sides), size, path.name)
    check_hints(hints, n, len(sides) // n, len(sides), path.name)
    check_frame(sides, (n, len(sides) // n), size is not None, path.name)
    return PieceList(sides, n, tuple(hints))


def write_piece_file(path: str | Path, pieces: PieceList, order: str = "left top right bottom") -> None:
    """Write a piece file that `read_piece_file` reads back to the same pieces and hints."""
    columns = parse_order(order, "order option")
    file_cols = np.empty(4, dtype=np.int64)
    file_cols[list(columns)] = np.arange(4)  # file column j holds seed side file_cols[j]
    lines = [
        "# puzzlelab edge-matching pieces (colour 0 = border)",
        f"# order: {order}",
        f"# size: {pieces.n} x {pieces.m}",
    ]
    lines += [f"# hint: {r} {c} {p} {rot}" for r, c, p, rot in pieces.hints]
    lines += [" ".join(str(int(v)) for v in piece[file_cols]) for piece in pieces.sides]
    Path(path).write_text("\n".join(lines) + "\n")
