"""The perfect search's static scan orders (`ORDERS`): which cell each depth fills. Where a board's
first perfect board lies, and how large its tree is, varies by large factors with the order."""

from __future__ import annotations

import numpy as np


def rows(n: int, m: int) -> np.ndarray:
    """Row by row from the top-left corner (today's backtracker's scan)."""
    return np.arange(n * m, dtype=np.int64)


def columns(n: int, m: int) -> np.ndarray:
    """Column by column from the top-left corner."""
    return np.arange(n * m, dtype=np.int64).reshape(n, m).T.ravel()


def short(n: int, m: int) -> np.ndarray:
    """Lines along the board's short side (rows unless the board is taller than wide... or wider): the
    open front, the joins a partial board leaves open, is then as short as it can be."""
    return rows(n, m) if m <= n else columns(n, m)


def ring(n: int, m: int, k: int = 0) -> list[int]:
    """The cells of the k-th ring from the rim, clockwise from its top-left corner."""
    top, left, bottom, right = k, k, n - 1 - k, m - 1 - k
    if top > bottom or left > right:
        return []
    if top == bottom or left == right:  # a last line
        return [r * m + c for r in range(top, bottom + 1) for c in range(left, right + 1)]
    cells = [top * m + c for c in range(left, right + 1)]
    cells += [r * m + right for r in range(top + 1, bottom + 1)]
    cells += [bottom * m + c for c in range(right - 1, left - 1, -1)]
    cells += [r * m + left for r in range(bottom - 1, top, -1)]
    return cells


def frame_first(n: int, m: int) -> np.ndarray:
    """The frame clockwise from the top-left corner, then the inner cells row by row."""
    frame = ring(n, m)
    inside = [x for x in range(n * m) if x not in set(frame)]
    return np.array(frame + inside, dtype=np.int64)


def spiral(n: int, m: int) -> np.ndarray:
    """Ring by ring from the rim inwards, each clockwise."""
    return np.array([x for k in range((min(n, m) + 1) // 2) for x in ring(n, m, k)], dtype=np.int64)


def diagonal(n: int, m: int) -> np.ndarray:
    """Anti-diagonals from the top-left corner, each from its top-right end: an inner cell meets its
    frame neighbours' inward colours after a few placements, where rows place a whole frame row first."""
    cells = sorted(range(n * m), key=lambda x: (x // m + x % m, x // m))
    return np.array(cells, dtype=np.int64)


def bands(n: int, m: int, height: int = 2) -> np.ndarray:
    """Bands of `height` rows, each filled column by column: a frame row's loose pieces (one known side)
    meet the inner cells below them after a placement or two, not after a whole row."""
    return np.array(
        [
            r * m + c
            for top in range(0, n, height)
            for c in range(m)
            for r in range(top, min(top + height, n))
        ],
        dtype=np.int64,
    )


def _from_corner(scan, bottom: bool, right: bool):
    """A scan started from another corner: the board reflected (n x m is kept, so a rectangle's
    columns stay columns), the scan taken on it, and its cells mapped back."""

    def order(n: int, m: int) -> np.ndarray:
        r, c = np.divmod(scan(n, m), m)
        return (n - 1 - r if bottom else r) * m + (m - 1 - c if right else c)

    order.__doc__ = (
        f"{scan.__name__} from the {'bottom' if bottom else 'top'}-{'right' if right else 'left'} corner."
    )
    return order


ORDERS = {
    "short": short,
    "diagonal": diagonal,
    "bands": bands,
    "rows": rows,
    "columns": columns,
    "frame_first": frame_first,
    "spiral": spiral,
    **{
        f"{scan.__name__}_{corner}": _from_corner(scan, corner[0] == "b", corner[1] == "r")
        for scan in (rows, columns)
        for corner in ("tr", "bl", "br")
    },
}
AUTO = "auto"  # Board's order chosen by `estimate_orders`: the smallest estimated tree
