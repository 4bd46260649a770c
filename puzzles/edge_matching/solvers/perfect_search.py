"""Exact search for perfect edge-matching boards on any n x m board: the first, all of them, or a proof
that there is none.

A perfect board shows grey (colour 0) on every rim side and nowhere else, and the same colour on both
sides of every inner edge. Why a search of its own beside puzzles/edge_matching/solvers/backtrack.py's deepening search:
small boards are where a research framework can give ground truth (a count, or "none"), and a perfect
board is what the hardest of them ask for. What is in it (figures: benchmarks/bench_exact_edge.py,
README "Exact edge matching"):

  * a static scan order per board (`ORDERS`; `short`, lines along the short side, by default: rows on a
    square, where they beat frame first, spirals and diagonals); every known side of a cell,
    pre-placed neighbours included, keys its candidate list, so a listed candidate fits every neighbour;
  * identical pieces (up to a turn) are used in list order and a piece's look-alike turns are tried
    once: a count is of distinct boards (per cell, the colours it shows), as tests/ check against an
    independent CP-SAT model. On generated boards, whose frame pieces repeat, this is most of the gain
    over the row scan it replaced (median 5.7x fewer nodes to the first board);
  * symmetry (`symmetry`): with turning pieces and no pre-placed piece, turning a solution is a solution,
    so one corner piece is kept in the top-left corner (a rectangle: the top-left or the next corner
    filled) and a count is multiplied back by the 4 (2) turns: a whole tree 4x smaller;
  * colour balance: sides that cannot pair up (along the rim a clockwise with a counter-clockwise side,
    inside an inward side with an inner one) prove "no perfect board" without a node;
  * look-ahead by colour counts (`lookahead`, off by default): every open join needs a side of its
    colour and kind from the pieces left. It cuts a tenth of the nodes for 3x the time a node.

Both cores: the tree is split into JOBS independent jobs (the partial boards at the shallowest depth
with that many, in search order), the same split on any thread count, run by threads on the compiled
walk, which releases the GIL. Jobs are read in order: a count sums them; a first board is the one of
the lowest job that has one, and a job after it is stopped and not counted, so answers, boards and
nodes are the same on any number of threads.
"""

from __future__ import annotations

import os
import threading
import time
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass

import numba
import numpy as np
from tqdm import tqdm

from core import interrupt
from core.bits import popcount, trailing_zeros
from core.errors import InputError
from puzzles.edge_matching.solvers.beam import grey_patterns
from puzzles.edge_matching.solvers.greedy import DC, DR

STOP_EVERY = 1 << 14  # nodes between two looks at the stop flag (and two progress reports)
NONE = -1
KEY_CELLS = 1 << 22  # the most keys a candidate list may have; more known sides are checked per candidate
INNER, CW, CCW, IN = 0, 1, 2, 3  # kinds of side a turning piece offers (see `_side_kind`)


@numba.njit(cache=True, nogil=True)
def _counts_hold(i, cell, nb, piece, shows, side_kind, need, supply, demand, radix, sign):
    """Place (sign 1) or lift (sign -1) candidate i's colours in the look-ahead's books: sides leave (or
    rejoin) the supply, open joins open or close. True when, placing, no colour is now short."""
    ok = True
    for s in range(4):
        c = shows[i, s]
        if c == 0:
            continue
        own = side_kind[i, s] * radix + c
        supply[own] -= sign
        q = nb[cell, s]
        if piece[q] == NONE:  # an open join: the neighbour's facing side must bring c
            other = need[cell, s] * radix + c
            demand[other] += sign
            if sign > 0 and demand[other] > supply[other]:
                ok = False
        else:
            demand[own] -= sign  # the join the neighbour opened is closed
        if sign > 0 and demand[own] > supply[own]:
            ok = False
    return ok


@numba.njit(cache=True, nogil=True)
def _checked(i, d, cell, nb, shows, shown, check_side):
    """Does candidate i match the known sides its list's key leaves out (boards of many colours)?
    Apart from the walk: a loop there, even one that never runs, slows the walk 2x."""
    for j in range(4):
        s = check_side[d, j]
        if s < 0:
            return True
        if shows[i, s] != shown[nb[cell, s], (s + 2) % 4]:
            return False
    return True


@numba.njit(cache=True, nogil=True, inline="always")
def _key(colours, d, base, key_at, key_weight):
    """The key of depth d's candidate list: the colours of its cell's known sides. No loop: a trip
    count varying by depth cost a mispredicted branch a node."""
    key = base[d] + colours[key_at[d, 0]] * key_weight[d, 0] + colours[key_at[d, 1]] * key_weight[d, 1]
    return key + colours[key_at[d, 2]] * key_weight[d, 2] + colours[key_at[d, 3]] * key_weight[d, 3]


@numba.njit(cache=True, nogil=True, inline="always")
def _lift_set(free, p, next_twin):
    """`_lift` for `_walk_sets`' free set: piece p free again, its later twin blocked again."""
    one = np.uint64(1)
    free |= one << np.uint64(p)
    q = next_twin[p]
    if q >= 0:
        free &= ~(one << np.uint64(q))
    return free


@numba.njit(nogil=True, inline="always")
def _walk(
    geometry,
    lists,
    state,
    lookahead,
    tallied,
    first_depth,
    stop_depth,
    limit,
    max_nodes,
    stop,
    progress,
    record,
    tally,
    cursor,
):
    """Depth-first search from `first_depth` (everything before it is placed) to `stop_depth`:
    (status, boards reached at stop_depth (up to `limit`), nodes). Status 1: the subtree is done or the
    limit reached; -1: out of nodes; -2: `stop[0]` was set (read every STOP_EVERY nodes, when the
    nodes walked so far are also written to `progress[0]`). record[k, :stop_depth]: the candidate
    chosen at each depth on the k-th board reached (rows beyond record's length are not kept).

    Why it is fast (issue 34): a list ends in a sentinel entry whose piece is never blocked, so the scan
    is one load and one test per entry (`blocked`: a piece used, or a twin whose earlier twin is not, kept
    up to date on each placement rather than worked out per entry); a candidate's colours are read only
    once its piece is free; one resume cursor per depth; the node cap and the stop flag share one test.
    `tallied` (a constant, compiled apart): tally[0] += entries read, tally[1] += read and blocked."""
    order, nb, need, key_at, key_weight, check_side, check_len, base = geometry
    starts, piece_of, turn_of, shows, side_kind, radix = lists
    next_twin, blocked, shown, piece, chosen, supply, demand = state
    colours = shown.reshape(-1)  # a view: the key reads it flat
    sentinel = blocked.shape[0] - 1
    nxt = cursor[3:]  # the resume cursor per depth
    if cursor[0] == -2:  # the tree was walked to its end
        return 1, cursor[2], 0
    if cursor[0] < 0:
        d, found, fresh = first_depth, 0, True
    else:  # resume where the last call ran out of nodes (`_race`'s slices)
        d, fresh, found = cursor[0], cursor[1] != 0, cursor[2]
    nodes = 0
    check_at = STOP_EVERY if max_nodes >= STOP_EVERY else max_nodes + 1
    while True:
        if d == stop_depth:
            if found < record.shape[0]:
                record[found, :stop_depth] = chosen[:stop_depth]
            found += 1
            if found >= limit or d == first_depth:
                return 1, found, nodes
            fresh = False
            d -= 1
            _lift(order[d], chosen[d], lists, nb, need, state, lookahead)
            continue
        cell = order[d]
        if fresh:
            i = starts[_key(colours, d, base, key_at, key_weight)]
        else:
            i = nxt[d]
        placed, checks = False, check_len[d] > 0
        while True:
            p = piece_of[i]
            i += 1
            if tallied:
                tally[0] += p != sentinel
                tally[1] += blocked[p] != 0
            if blocked[p]:
                continue
            if p == sentinel:
                i -= 1  # stay on the sentinel: a cursor past it would read the next list
                break
            if checks and not _checked(i - 1, d, cell, nb, shows, shown, check_side):
                continue
            blocked[p] = 1
            q = next_twin[p]
            if q >= 0:
                blocked[q] = 0  # its earlier twin is now used
            chosen[d] = i - 1  # the board is read back from `chosen` (`Board.board_of`)
            for s in range(4):
                shown[cell, s] = shows[i - 1, s]
            if lookahead:
                piece[cell] = p  # only the books read which cells are filled
                if not _counts_hold(i - 1, cell, nb, piece, shows, side_kind, need, supply, demand, radix, 1):
                    _lift(cell, i - 1, lists, nb, need, state, lookahead)
                    continue
            placed = True
            break
        nxt[d] = i
        nodes += 1
        fresh = placed
        if placed:
            d += 1
        else:
            if d == first_depth:
                cursor[0], cursor[2] = -2, found
                return (-1 if nodes > max_nodes else 1), found, nodes
            d -= 1
            _lift(order[d], chosen[d], lists, nb, need, state, lookahead)
        if nodes >= check_at:  # the node cap or a look at the stop flag, after the node: a call resumes
            cursor[0], cursor[1], cursor[2] = d, fresh, found
            if nodes > max_nodes:
                return -1, found, nodes
            if nodes % STOP_EVERY == 0:
                progress[0] = nodes
                if stop[0] != 0:
                    return -2, found, nodes
            after = (nodes // STOP_EVERY + 1) * STOP_EVERY
            check_at = after if after <= max_nodes else max_nodes + 1


@numba.njit(cache=True, nogil=True)
def _walk_plain(
    geometry, lists, state, first_depth, stop_depth, limit, max_nodes, stop, progress, record, tally, cursor
):
    """`_walk` without the look-ahead, compiled apart: a flag tested in the walk, even one always off,
    slowed it 2x; here it is a constant the compiler removes."""
    return _walk(
        geometry,
        lists,
        state,
        False,
        False,
        first_depth,
        stop_depth,
        limit,
        max_nodes,
        stop,
        progress,
        record,
        tally,
        cursor,
    )


@numba.njit(cache=True, nogil=True)
def _walk_books(
    geometry, lists, state, first_depth, stop_depth, limit, max_nodes, stop, progress, record, tally, cursor
):
    """`_walk` with the look-ahead's books."""
    return _walk(
        geometry,
        lists,
        state,
        True,
        False,
        first_depth,
        stop_depth,
        limit,
        max_nodes,
        stop,
        progress,
        record,
        tally,
        cursor,
    )


@numba.njit(cache=True, nogil=True)
def _walk_tallied(
    geometry, lists, state, first_depth, stop_depth, limit, max_nodes, stop, progress, record, tally, cursor
):
    """`_walk` without the look-ahead, counting the entries it reads (`Board.tally`)."""
    return _walk(
        geometry,
        lists,
        state,
        False,
        True,
        first_depth,
        stop_depth,
        limit,
        max_nodes,
        stop,
        progress,
        record,
        tally,
        cursor,
    )


@numba.njit(cache=True, nogil=True)
def _free_set(blocked):
    """The pieces `blocked` leaves free, as bits of a uint64 (boards of at most 64 pieces)."""
    free = np.uint64(0)
    for p in range(blocked.shape[0] - 1):  # the last entry is the sentinel's
        if blocked[p] == 0:
            free |= np.uint64(1) << np.uint64(p)
    return free


@numba.njit(cache=True, nogil=True)
def _unpack(free, blocked):
    """Write a free set back into `blocked`, so a caller (or the next call) sees the walk's state."""
    for p in range(blocked.shape[0] - 1):
        blocked[p] = 0 if (free >> np.uint64(p)) & np.uint64(1) else 1


@numba.njit(cache=True, nogil=True)
def _walk_sets(
    geometry, lists, sets, state, first_depth, stop_depth, limit, max_nodes, stop, progress, record, cursor
):
    """`_walk` on a board of at most 64 pieces, without look-ahead or checked sides: the same candidates
    in the same order, so the same nodes and boards, faster. A list is also a set of its pieces
    (`members[key]`, a uint64), the pieces free another; the next candidate is the lowest bit of their
    AND, so no entry of a used piece is read and no unpredictable test per entry is made (issue 34:
    most entries read were of used pieces). A list holds each piece's turns side by side, sorted by
    piece: `first[rank[key] + members below p]` is piece p's first entry, its other turns follow.
    The cursor holds per depth the pieces still to try, the next entry and the list's key."""
    order, nb, need, key_at, key_weight, check_side, check_len, base = geometry
    starts, piece_of, turn_of, shows, side_kind, radix = lists
    members, rank, first = sets
    next_twin, blocked, shown, piece, chosen, supply, demand = state
    colours = shown.reshape(-1)
    shown_at, shows_at = shown.view(np.int64).reshape(-1), shows.view(np.int64).reshape(-1)
    depths = (cursor.shape[0] - 4) // 4
    untried = cursor[4 : 4 + depths].view(np.uint64)
    at = cursor[4 + depths : 4 + 2 * depths]
    keys = cursor[4 + 2 * depths : 4 + 3 * depths]
    one = np.uint64(1)
    if cursor[0] == -2:
        return 1, cursor[2], 0
    if cursor[0] < 0:
        d, found, fresh = first_depth, 0, True
    else:
        d, fresh, found = cursor[0], cursor[1] != 0, cursor[2]
    free = _free_set(blocked)
    nodes = 0
    check_at = STOP_EVERY if max_nodes >= STOP_EVERY else max_nodes + 1
    while True:
        if d == stop_depth:
            if found < record.shape[0]:
                record[found, :stop_depth] = chosen[:stop_depth]
            found += 1
            if found >= limit or d == first_depth:
                _unpack(free, blocked)
                return 1, found, nodes
            fresh = False
            d -= 1
            free = _lift_set(free, piece_of[chosen[d]], next_twin)
            continue
        if fresh:
            key = keys[d] = _key(colours, d, base, key_at, key_weight)
            left = members[key] & free
            i = 0
        else:
            key, left, i = keys[d], untried[d], at[d]
            if piece_of[i] != piece_of[chosen[d]]:  # no other turn of the piece just lifted
                i = 0
        if i == 0 and left != 0:
            p = trailing_zeros(left)
            left &= left - one
            i = first[rank[key] + popcount(members[key] & ((one << np.uint64(p)) - one))]
        nodes += 1
        if i != 0:
            p = piece_of[i]
            free &= ~(one << np.uint64(p))
            q = next_twin[p]
            if q >= 0:
                free |= one << np.uint64(q)
            chosen[d] = i
            shown_at[order[d]] = shows_at[i]  # a cell's four int16 colours as one 8-byte word
            untried[d], at[d] = left, i + 1
            fresh = True
            d += 1
        else:
            fresh = False
            if d == first_depth:
                cursor[0], cursor[2] = -2, found
                _unpack(free, blocked)
                return (-1 if nodes > max_nodes else 1), found, nodes
            d -= 1
            free = _lift_set(free, piece_of[chosen[d]], next_twin)
        if nodes >= check_at:
            cursor[0], cursor[1], cursor[2] = d, fresh, found
            if nodes > max_nodes:
                _unpack(free, blocked)
                return -1, found, nodes
            if nodes % STOP_EVERY == 0:
                progress[0] = nodes
                if stop[0] != 0:
                    _unpack(free, blocked)
                    return -2, found, nodes
            after = (nodes // STOP_EVERY + 1) * STOP_EVERY
            check_at = after if after <= max_nodes else max_nodes + 1


@numba.njit(cache=True, nogil=True, inline="always")
def _lift(cell, i, lists, nb, need, state, lookahead):
    """Take candidate i off `cell`; the look-ahead's books first (they read which neighbours are empty:
    the same as when it was placed, since the walk lifts pieces in the reverse order it placed them)."""
    starts, piece_of, turn_of, shows, side_kind, radix = lists
    next_twin, blocked, shown, piece, chosen, supply, demand = state
    if lookahead:
        piece[cell] = NONE
        _counts_hold(i, cell, nb, piece, shows, side_kind, need, supply, demand, radix, -1)
    p = piece_of[i]
    blocked[p] = 0  # its colours stay in `shown`: only filled cells' colours are read
    q = next_twin[p]
    if q >= 0:
        blocked[q] = 1  # unused, and its earlier twin is free again


@numba.njit(cache=True, nogil=True)
def _replay(prefix, geometry, lists, state, lookahead):
    """Place a job's prefix (a candidate per depth, from `_walk`'s record) on a fresh board."""
    order, nb, need = geometry[0], geometry[1], geometry[2]
    piece_of, turn_of, shows, side_kind, radix = lists[1:]
    next_twin, blocked, shown, piece, chosen, supply, demand = state
    for d in range(prefix.shape[0]):
        i, cell = prefix[d], order[d]
        p = piece_of[i]
        piece[cell], blocked[p], chosen[d] = p, 1, i
        if next_twin[p] >= 0:
            blocked[next_twin[p]] = 0
        shown[cell] = shows[i]
        if lookahead:
            _counts_hold(i, cell, nb, piece, shows, side_kind, need, supply, demand, radix, 1)


def neighbours(n: int, m: int) -> np.ndarray:
    """nb[cell, s]: the cell across side s ([left, top, right, bottom]) of each cell, -1 off the board."""
    rows, cols = np.divmod(np.arange(n * m), m)
    nb = np.full((n * m, 4), NONE, np.int64)
    for s in range(4):
        r, c = rows + DR[s], cols + DC[s]
        inside = (r >= 0) & (r < n) & (c >= 0) & (c < m)
        nb[inside, s] = r[inside] * m + c[inside]
    return nb


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
PROBES = 20000  # random dives per order for `estimate_orders`
REFINE = (1e9, 1e13)  # a best estimate in this range (seconds to hours of walking): again with 10x the dives
PROBE_SEED = 0


@numba.njit(cache=True, nogil=True)
def _probe(geometry, lists, state, dives, seed):
    """Knuth's estimate of the tree `_walk` would walk to its end: `dives` random root-to-leaf paths,
    each a child drawn uniformly at every depth; a path's estimate is the sum, over its depths, of the
    product of the branching factors above times (children + 1), the nodes `_walk` counts at a partial
    board with that many children. Returns the mean (unbiased: the expected value is the tree's nodes)
    and the standard error of the mean. Seeded: the same on every run (numba's generator, per thread)."""
    order, nb, need, key_at, key_weight, check_side, check_len, base = geometry
    starts, piece_of, turn_of, shows, side_kind, radix = lists
    next_twin, blocked0, shown0, piece, chosen, supply, demand = state
    np.random.seed(seed)
    f = order.shape[0]
    fits = np.zeros(piece_of.shape[0], np.int64)
    total, squares = 0.0, 0.0
    for _ in range(dives):
        blocked, shown = blocked0.copy(), shown0.copy()
        colours = shown.reshape(-1)
        estimate, weight = 0.0, 1.0
        for d in range(f):
            cell = order[d]
            k, i = 0, starts[_key(colours, d, base, key_at, key_weight)]
            while piece_of[i] != blocked.shape[0] - 1:  # up to the sentinel
                p = piece_of[i]
                if not blocked[p] and (
                    check_len[d] == 0 or _checked(i, d, cell, nb, shows, shown, check_side)
                ):
                    fits[k] = i
                    k += 1
                i += 1
            estimate += weight * (k + 1)
            if k == 0:
                break
            weight *= k
            i = fits[np.random.randint(k)]
            p = piece_of[i]
            blocked[p] = 1
            if next_twin[p] >= 0:
                blocked[next_twin[p]] = 0
            for s in range(4):
                shown[cell, s] = shows[i, s]
        total += estimate
        squares += estimate * estimate
    mean = total / dives
    spread = max(squares / dives - mean * mean, 0.0)
    return mean, np.sqrt(spread / dives)


def estimate_orders(
    table,
    n: int,
    m: int,
    preplaced=None,
    names=None,
    dives: int | None = None,
    seed: int = PROBE_SEED,
    **settings,
) -> dict[str, tuple[float, float]]:
    """{order: (estimated nodes of its whole tree, standard error)} for each order in `names` (all of
    ORDERS but `short`, which is rows or columns) by `dives` of `_probe` (None: PROBES, read at the
    call); `settings` go to Board (the look-ahead is left out of the dives). Why: on a given board
    orders differ by large factors, and a few thousand dives per order, a fraction of a second, tell
    them apart (`bench_exact_edge order`)."""
    names = [x for x in ORDERS if x != "short"] if names is None else names
    dives = PROBES if dives is None else dives
    estimates: dict[str, tuple[float, float]] = {}
    seen: dict[bytes, str] = {}
    for name in names:
        board = Board(table, n, m, preplaced, order=name, **settings)
        cells = board.order.tobytes()
        if cells in seen:  # the same cells in the same order (a square's rows and a band, say)
            estimates[name] = estimates[seen[cells]]
            continue
        seen[cells] = name
        if not board.consistent or len(board.order) == 0:
            estimates[name] = (0.0, 0.0)
            continue
        mean, error = _probe(board.geometry(), board.lists(), board.fresh_state(), dives, seed)
        estimates[name] = (float(mean), float(error))
    return estimates


def _side_kind(pattern: int, s: int, turns: int) -> int:
    """What kind of side a piece in a cell of this pattern shows on side s, for the look-ahead's
    books: turning pieces offer inner sides, or along the rim clockwise / counter-clockwise sides and
    inward sides (the same sides of a piece in any cell it fits); unturned pieces, a side per
    pattern and direction. -1: a thin board's cell, where the books are not kept."""
    if turns == 1:
        return 4 + pattern * 4 + s
    grey = [g for g in range(4) if pattern >> g & 1]
    if not grey:
        return INNER
    if len(grey) == 1:
        g = grey[0]
        return {(g + 1) % 4: CW, (g + 3) % 4: CCW, (g + 2) % 4: IN}.get(s, -1)
    if len(grey) == 2 and (grey[1] - grey[0]) in (1, 3):
        a = grey[0] if (grey[0] + 1) % 4 == grey[1] else grey[1]  # greys on a and a + 1
        return {(a + 2) % 4: CW, (a + 3) % 4: CCW}.get(s, -1)
    return -1


def _sentinel_lists(counts: list[np.ndarray], entries: list[np.ndarray], pieces: int):
    """(starts, entries) laid out for the walk: each group's lists (`counts` entries per key, `entries` in
    key order) one after another, each ended by a sentinel entry (piece `pieces`, never blocked); an
    empty list starts at the shared sentinel, entry 0. starts[group base + key]: where a list starts."""
    sentinel = np.array([[pieces, 0]], np.int64)
    starts, laid, at = [], [sentinel], 1
    for count, entry in zip(counts, entries, strict=True):
        ends = np.cumsum(count)
        first = ends - count
        listed = count > 0
        group_starts = np.zeros(len(count), np.int64)
        group_starts[listed] = (
            at + first[listed] + np.cumsum(listed)[listed] - 1
        )  # a sentinel per list before
        starts.append(group_starts)
        for k in np.flatnonzero(listed):
            laid += [entry[first[k] : ends[k]], sentinel]
        at += len(entry) + int(listed.sum())
    pairs = np.concatenate(laid).astype(np.int64)
    return (np.concatenate(starts) if starts else np.zeros(0, np.int64)), pairs


def _piece_sets(starts: np.ndarray, piece_of: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(members, rank, first) for `_walk_sets`: each list's pieces as bits, where its pieces' first entries
    begin in `first`, and those entries (the sentinel entry 0 stands at first[0], never read)."""
    sentinel = int(piece_of[0])
    members = np.zeros(len(starts), np.uint64)
    rank = np.zeros(len(starts), np.int64)
    first = [0]
    for key, i in enumerate(starts):
        rank[key] = len(first)
        last = -1
        while piece_of[i] != sentinel:
            p = int(piece_of[i])
            if p != last:
                members[key] |= np.uint64(1) << np.uint64(p)
                first.append(int(i))
                last = p
            i += 1
    return members, rank, np.array(first, np.int64)


def _classes(table: np.ndarray, free: np.ndarray) -> np.ndarray:
    """twin[p]: the free piece before p that is the same piece (up to a turn it may take), else -1."""
    twin = np.full(len(table), NONE, np.int64)
    last: dict[tuple, int] = {}
    for p in map(int, np.flatnonzero(free)):
        key = min(tuple(row) for row in table[p])
        twin[p] = last.get(key, NONE)
        last[key] = p
    return twin


@dataclass(frozen=True)
class Answer:
    """What a search proved: `count` distinct perfect boards (all of them when `complete`; at least
    that many otherwise), the first `boards` in search order as (piece, turns) per cell, the nodes
    walked and the time; `stop_reason` "finished" (the whole tree), "limit" (enough boards),
    "max_nodes" or "seconds". `symmetry`: the boards each one found stands for (its turns)."""

    count: int
    boards: list[tuple[np.ndarray, np.ndarray]]
    nodes: int
    seconds: float
    stop_reason: str
    symmetry: int = 1
    jobs: int = 1
    order: str = ""  # the scan order whose walk found the first board (or proved there is none)

    @property
    def complete(self) -> bool:
        return self.stop_reason == "finished"

    @property
    def none(self) -> bool:
        """Proved: no perfect board."""
        return self.complete and self.count == 0


class Board:
    """A board's search tables, built once: scan order, candidate lists keyed by every known side, the
    look-ahead's books and the symmetry kept out (see the module docstring).

    Args:
        table: table[p, r, s], the colour side s of piece p shows in its r-th allowed turn (1 or 4 turns).
        n, m: rows and columns; cells are row-major.
        preplaced: rows (cell, piece, turn) that stay.
        order: a name in ORDERS, or "auto": the one of the smallest estimated tree (`estimate_orders`,
            kept in `estimates`; a tenth of a second on an 8 x 8). Where the best tree is long to walk
            but within reach (REFINE), it is estimated again with 10x the dives (about 1.5 s on an
            8 x 8): at 20,000 dives heavy tails mis-ranked 8 x 8 orders. Out of reach (a 6 x 12 clue
            puzzle: 1e28 nodes), more dives only reshuffle the noise.
        lookahead: keep the colour books (never on thin boards, where sides have no kind). Off by
            default: on the graded set it cuts nodes by about a tenth and costs 3x the time a node
            (`python -m benchmarks.bench_exact_edge tree`).
        symmetry: keep one turn of each solution (turning pieces, nothing pre-placed).
    """

    def __init__(
        self,
        table,
        n: int,
        m: int,
        preplaced=None,
        order: str = "short",
        lookahead: bool = False,
        symmetry: bool = True,
    ):
        table = np.ascontiguousarray(table, dtype=np.int64)
        if table.ndim != 3 or table.shape[0] != n * m or table.shape[2] != 4 or table.shape[1] not in (1, 4):
            raise InputError(
                f"need an ({n * m}, 1 or 4, 4) turn table for a {n} x {m} board, got {table.shape}"
            )
        self.preplaced, self.lookahead_wanted, self.symmetry_wanted = preplaced, lookahead, symmetry
        self.estimates: dict[str, tuple[float, float]] = {}
        if order == AUTO:
            settings = {"lookahead": lookahead, "symmetry": symmetry}
            self.estimates = estimate_orders(table, n, m, preplaced, **settings)
            if REFINE[0] < min(e[0] for e in self.estimates.values()) < REFINE[1]:  # heavy tails mis-rank
                self.estimates = estimate_orders(table, n, m, preplaced, dives=10 * PROBES, **settings)
            order = min(self.estimates, key=lambda x: self.estimates[x][0])
        if order not in ORDERS:
            raise InputError(f"unknown scan order {order!r}; choose one of: {', '.join(ORDERS)}")
        self.table, self.n, self.m, self.turns = table, n, m, table.shape[1]
        self.nb = neighbours(n, m)
        given = np.asarray(preplaced if preplaced is not None else [], np.int64).reshape(-1, 3)
        self.piece = np.full(n * m, NONE, np.int64)
        self.turn = np.zeros(n * m, np.int64)
        self.piece[given[:, 0]], self.turn[given[:, 0]] = given[:, 1], given[:, 2]
        self.used = np.zeros(len(table), np.bool_)
        self.used[given[:, 1]] = True
        self.shown = np.full((n * m, 4), NONE, np.int16)  # colours, small: the walk's reads stay in cache
        self.shown[given[:, 0]] = table[given[:, 1], given[:, 2]]
        self.order_name = order
        self.order = np.array([x for x in ORDERS[order](n, m) if self.piece[x] == NONE], np.int64)
        self.twin = _classes(table, ~self.used)
        self.next_twin = np.full(len(table), NONE, np.int64)  # the twin after each piece
        self.next_twin[self.twin[self.twin >= 0]] = np.flatnonzero(self.twin >= 0)
        self.blocked = np.zeros(len(table) + 1, np.uint8)  # used, or a twin whose earlier twin is free;
        self.blocked[:-1] = self.used | (
            (self.twin >= 0) & ~self.used[np.maximum(self.twin, 0)]
        )  # + sentinel
        self.symmetry, self.banned = self._symmetry(symmetry and len(given) == 0)
        self.radix = int(table.max()) + 1
        orients, self.cell_pattern = grey_patterns(table, n, m)
        self.orient_pattern = orients.reshape(table.shape[:2])
        kinds = [[_side_kind(int(k), s, self.turns) for s in range(4)] for k in range(16)]
        thin = any(
            kinds[int(k)][s] < 0 for k in np.unique(self.cell_pattern) for s in range(4) if not k >> s & 1
        )
        self.lookahead = lookahead and not thin
        self.side_kinds = np.array(kinds, np.int64)  # [pattern, side]
        self.need = np.full((n * m, 4), 0, np.int64)  # the kind of side the neighbour across s must show
        for x in range(n * m):
            for s in range(4):
                q = self.nb[x, s]
                if q >= 0:
                    self.need[x, s] = max(self.side_kinds[self.cell_pattern[q], (s + 2) % 4], 0)
        self._lists(self.orient_pattern, self.banned)
        self._books()
        self.consistent = self._given_fit() and (thin or self._balanced())

    def _symmetry(self, wanted: bool) -> tuple[int, dict[int, list[int]]]:
        """(boards each found board stands for, {cell pattern: pieces kept out of its cells}): a corner
        piece c0 with no twin is kept where one turn of each solution has it (the top-left corner on a
        square board; a top-left and the next corner filled on a rectangle)."""
        table, n, m = self.table, self.n, self.m
        if not wanted or self.turns != 4 or n < 2 or m < 2:
            return 1, {}
        grey = table[:, 0] == 0
        corners = [p for p in range(len(table)) if grey[p].sum() == 2 and not (grey[p, 0] and grey[p, 2])]
        single = [p for p in corners if self.twin[p] < 0 and not (self.twin == p).any()]
        if not single:
            return 1, {}
        c0, tl, tr, br, bl = single[0], 0b0011, 0b0110, 0b1100, 0b1001  # corners' off-board sides
        if n == m:  # c0 in the top-left corner, which the scan fills first
            return 4, {tl: [p for p in corners if p != c0], tr: [c0], br: [c0], bl: [c0]}
        position = {
            int(x): k for k, x in enumerate(self.order)
        }  # c0 in the top-left or the next corner filled
        second = tr if position[m - 1] < position[(n - 1) * m] else bl
        return 2, {k: [c0] for k in (tr, br, bl) if k != second}

    def _given_fit(self) -> bool:
        """Do the pre-placed pieces allow a perfect board: grey exactly on their rim sides, matched
        joins between them?"""
        for x in np.flatnonzero(self.piece != NONE):
            for s in range(4):
                q, c = self.nb[x, s], self.shown[x, s]
                if (q < 0) != (c == 0):
                    return False
                if q >= 0 and self.piece[q] != NONE and self.shown[q, (s + 2) % 4] != c:
                    return False
        return True

    def _lists(self, orient_pattern: np.ndarray, banned: dict[int, list[int]]) -> None:
        """Candidate lists per depth, keyed by the colours of the cell's known sides (neighbours placed
        earlier in the order or pre-placed); sides beyond KEY_CELLS keys are checked per candidate."""
        table, f = self.table, len(self.order)
        position = np.full(self.n * self.m, -1, np.int64)
        position[self.order] = np.arange(f)
        self.key_at = np.zeros((f, 4), np.int64)  # the neighbours' sides whose colours key the list
        self.key_len = np.zeros(f, np.int64)
        self.key_weight = np.zeros((f, 4), np.int64)  # the key: the sum of those colours times these
        self.check_side = np.full((f, 4), -1, np.int64)
        self.check_len = np.zeros(f, np.int64)
        self.base = np.zeros(f, np.int64)
        groups: dict[tuple, int] = {}
        starts: list[np.ndarray] = []
        entries: list[np.ndarray] = []
        size = 0
        for d, x in enumerate(self.order):
            known = [
                s
                for s in range(4)
                if self.nb[x, s] >= 0 and (self.piece[self.nb[x, s]] != NONE or position[self.nb[x, s]] < d)
            ]
            keyed = [s for j, s in enumerate(known) if self.radix ** (j + 1) <= KEY_CELLS]
            checked = known[len(keyed) :]
            self.key_len[d] = len(keyed)
            self.key_at[d, : len(keyed)] = 4 * self.nb[x, keyed] + (np.array(keyed, np.int64) + 2) % 4
            self.key_weight[d, : len(keyed)] = self.radix ** np.arange(len(keyed) - 1, -1, -1)
            self.check_len[d], self.check_side[d, : len(checked)] = len(checked), checked
            group = (int(self.cell_pattern[x]), tuple(keyed))
            if group not in groups:
                groups[group] = size
                pattern = group[0]
                fits = (orient_pattern == pattern) & ~self.used[:, None]
                fits[banned.get(pattern, [])] = False
                p, r = np.nonzero(fits)
                p, r = self._distinct(p, r)
                key = np.zeros(len(p), np.int64)
                for s in keyed:
                    key = key * self.radix + table[p, r, s]
                keys = self.radix ** len(keyed)
                order = np.argsort(key, kind="stable")
                counts = np.bincount(key, minlength=keys)
                starts.append(counts)
                entries.append(np.stack([p[order], r[order]], axis=1))
                size += keys
            self.base[d] = groups[group]
        self.starts, pairs = _sentinel_lists(starts, entries, len(table))
        self.piece_of, self.turn_of = pairs[:, 0].copy(), pairs[:, 1].copy()
        fits_sets = len(table) <= 64 and not self.check_len.any()
        self.sets = _piece_sets(self.starts, self.piece_of) if fits_sets else None
        self.shows = table[self.piece_of % len(table), self.turn_of].astype(np.int16)
        self.shows[self.piece_of == len(table)] = 0  # a sentinel shows nothing
        kinds = self.side_kinds[orient_pattern[self.piece_of % len(table), self.turn_of]]
        self.entry_kind = np.maximum(kinds, 0)

    def _distinct(self, p: np.ndarray, r: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The (piece, turn) pairs given, without a turn that shows the same colours as an earlier one."""
        keep = [
            k
            for k in range(len(p))
            if not any((self.table[p[k], t] == self.table[p[k], r[k]]).all() for t in range(r[k]))
        ]
        return p[keep], r[keep]

    def _books(self) -> None:
        """The look-ahead's starting books: sides of the free pieces by kind and colour, and the joins
        the pre-placed pieces open."""
        kinds = 4 + 16 * 4
        self.supply = np.zeros(kinds * self.radix, np.int64)
        self.demand = np.zeros(kinds * self.radix, np.int64)
        first: dict[int, int] = {}
        for i, p in enumerate(self.piece_of):
            if p < len(self.table):  # not a sentinel
                first.setdefault(int(p), i)
        for i in first.values():
            for s in range(4):
                if self.shows[i, s]:
                    self.supply[self.entry_kind[i, s] * self.radix + self.shows[i, s]] += 1
        for x in np.flatnonzero(self.piece != NONE):
            for s in range(4):
                q = self.nb[x, s]
                if q >= 0 and self.piece[q] == NONE and self.shown[x, s] > 0:
                    self.demand[self.need[x, s] * self.radix + self.shown[x, s]] += 1

    def _balanced(self) -> bool:
        """Can the sides left pair up, colour by colour? Along the rim every join takes a clockwise and a
        counter-clockwise side; inside, an edge piece's inward side and an inner side, or two inner sides
        (on a board two cells thick there are no inner cells: the two frame lines meet, inward side to
        inward side); unturned pieces, a left and a right side or a top and a bottom one. (Pre-placed pieces' open joins
        are taken first.) A board that fails is proved to have no perfect board without a node."""
        rest = (self.supply - self.demand).reshape(-1, self.radix)[:, 1:]
        if (rest < 0).any():
            return False
        if self.turns == 4:
            inner, into = rest[INNER], rest[IN]
            if min(self.n, self.m) <= 2:  # two frame lines meet: inward sides pair with inward sides
                return bool((rest[CW] == rest[CCW]).all() and (inner == 0).all() and (into % 2 == 0).all())
            return bool(
                (rest[CW] == rest[CCW]).all() and (inner >= into).all() and ((inner - into) % 2 == 0).all()
            )
        by_side = rest[4:].reshape(16, 4, -1).sum(axis=0)  # [side, colour] over every pattern
        return bool((by_side[0] == by_side[2]).all() and (by_side[1] == by_side[3]).all())

    def geometry(self) -> tuple:
        return (
            self.order,
            self.nb,
            self.need,
            self.key_at,
            self.key_weight,
            self.check_side,
            self.check_len,
            self.base,
        )

    def lists(self) -> tuple:
        return (
            self.starts,
            self.piece_of,
            self.turn_of,
            self.shows,
            self.entry_kind,
            self.radix,
        )

    def fresh_state(self) -> tuple:
        """A job's own copy of everything the walk changes."""
        f = len(self.order)
        return (
            self.next_twin,
            self.blocked.copy(),
            self.shown.copy(),
            self.piece.copy(),
            np.zeros(max(f, 1), np.int64),
            self.supply.copy(),
            self.demand.copy(),
        )

    @staticmethod
    def new_cursor(depth: int) -> np.ndarray:
        """A walk's place, to resume it: [depth (-1: not started), fresh, boards found, then per depth a
        cursor (`_walk`) or three (`_walk_sets`)]."""
        cursor = np.zeros(4 * depth + 4, np.int64)
        cursor[0] = -1
        return cursor

    def sibling(self, order: str) -> Board:
        """The same board and settings, scanned in another order (for `search`'s race)."""
        return Board(
            self.table, self.n, self.m, self.preplaced, order, self.lookahead_wanted, self.symmetry_wanted
        )

    def board_of(self, chosen: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The full board (piece, turn per cell) of a candidate per depth."""
        piece, turn = self.piece.copy(), self.turn.copy()
        piece[self.order], turn[self.order] = self.piece_of[chosen], self.turn_of[chosen]
        return piece, turn

    def walk(
        self,
        state,
        first: int,
        depth: int,
        limit: int,
        max_nodes: int,
        stop,
        progress,
        keep: int,
        tally=None,
        cursor=None,
    ):
        """`_walk` on this board; returns (status, boards reached, nodes, record). `tally` (2 int64s, no
        look-ahead): the entries read and those blocked are added to it (a slower walk, to measure).
        `cursor` (`new_cursor`): where the walk stopped, so that the next call with it (and the same
        state) resumes there."""
        cursor = self.new_cursor(depth) if cursor is None else cursor
        record = np.zeros((keep, max(depth, 1)), np.int64)
        args = (first, depth, limit, max_nodes, stop, progress, record)
        if self.sets is not None and not self.lookahead and tally is None:
            status, found, nodes = _walk_sets(self.geometry(), self.lists(), self.sets, state, *args, cursor)
        else:
            walk = _walk_books if self.lookahead else _walk_plain if tally is None else _walk_tallied
            tally = tally if tally is not None else np.zeros(2, np.int64)
            status, found, nodes = walk(self.geometry(), self.lists(), state, *args, tally, cursor)
        return status, found, nodes, record[: min(found, keep)]


JOBS = 256  # jobs the tree is split into: enough that the threads of a large machine finish together


def threads_available() -> int:
    """The cores this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def search(
    board: Board,
    limit: int | None = None,
    keep: int = 1,
    threads: int | None = None,
    max_nodes: int | None = None,
    seconds: float | None = None,
    show_progress: bool = False,
    portfolio: bool = False,
) -> Answer:
    """Every perfect board (or at least `limit`), keeping the first `keep`; see the module docstring.
    `show_progress`: a bar of the jobs done (a count can take minutes). `portfolio`: for a first board
    (limit 1) on a board whose order was chosen by estimate (order "auto"), first race the two best
    orders for HEDGE_ROUNDS slices each (`_race`), then, if neither finished, split the best order's
    tree; a count or a proof asked for splits one tree at once.

    The tree is split into JOBS jobs (`_split`) on any number of threads, so the answer and its nodes
    are the same on any number: a job after the one that reaches `limit` is stopped, and its nodes are
    not counted (on one thread it never starts). `max_nodes` and `seconds` stop the search early (an
    incomplete answer); on more than one thread the node cap is read every few milliseconds.
    """
    started = time.perf_counter()
    threads = threads or threads_available()
    limit = (
        -(-limit // board.symmetry) if limit is not None else np.iinfo(np.int64).max
    )  # each stands for its turns
    max_nodes = max_nodes if max_nodes is not None else np.iinfo(np.int64).max
    f, hedge = len(board.order), 0
    if portfolio and limit == 1 and board.consistent and f > 0:
        second = _runner_up(board)
        if second is not None:
            raced, hedge = _race([board, second], threads, max_nodes, seconds, started, HEDGE_ROUNDS)
            if raced is not None:
                return raced
    if not board.consistent:
        return Answer(
            0, [], 0, time.perf_counter() - started, "finished", board.symmetry, order=board.order_name
        )
    depth, prefixes, spent = _split(board, f)
    spent += hedge  # the race's nodes, before
    flags = np.zeros(max(len(prefixes), 1), np.int64)  # per job: 1 time is up, 2 not needed, 3 node cap
    progress = np.zeros(max(len(prefixes), 1), np.int64)
    left = None if seconds is None else max(seconds - (time.perf_counter() - started), 0.0)
    timer = threading.Timer(left, flags.fill, (1,)) if left is not None else None
    if timer is not None:
        timer.daemon = True
        timer.start()

    def job(k: int, budget: int):
        if flags[k]:
            return -2, 0, 0, np.zeros((0, f), np.int64)
        state = board.fresh_state()
        _replay(prefixes[k], board.geometry(), board.lists(), state, board.lookahead)
        return board.walk(state, depth, f, limit, budget, flags[k : k + 1], progress[k : k + 1], keep)

    results: dict[int, tuple] = {}
    bar = tqdm(total=len(prefixes), unit="job", desc="perfect boards", disable=not show_progress, leave=False)
    with interrupt.listen(lambda: flags.fill(1)):  # Ctrl-C stops it as the time limit does
        try:
            if threads == 1:
                for k in range(len(prefixes)):
                    walked = spent + sum(r[2] for r in results.values())
                    results[k] = job(k, max_nodes - walked)
                    bar.update()
                    if results[k][0] != 1 or _found_before(results, k + 1) >= limit:
                        break
            else:
                _run_jobs(
                    job, results, len(prefixes), threads, limit, max_nodes - spent, flags, progress, bar
                )
        finally:
            bar.close()
            if timer is not None:
                timer.cancel()
    return _answer(board, results, prefixes, depth, spent, limit, flags, started)


SLICE = 1 << 22  # nodes an order walks in `_race` before the other's turn (about 50 ms)
HEDGE_ROUNDS = 32  # `search`'s portfolio races the two best orders this long (about 1.5 s), then splits


def _runner_up(board: Board) -> Board | None:
    """The order of the second smallest estimate whose cells differ from `board`'s, or None."""
    for name in sorted(board.estimates, key=lambda x: board.estimates[x][0]):
        if name != board.order_name:
            other = board.sibling(name)
            if not np.array_equal(other.order, board.order):
                return other
    return None


def _race(
    boards: list[Board], threads: int, max_nodes: int, seconds: float | None, started: float, rounds: int
) -> tuple[Answer | None, int]:
    """(the first board by whichever order finds it first, or None if none finished within `rounds`;
    the nodes walked): each order's tree walked in slices of SLICE nodes, taking turns (round 1: order
    0, order 1; round 2: ...); the winner is the first in that schedule to find a board or to walk its
    tree to the end (a proof that there is none). On one thread the schedule is run as it is; on two
    each order has a thread and walks on until a rival's finish comes earlier in the schedule, so the
    winner, its board and the nodes reported (those the schedule walks up to the winner's finish) are
    the same on any thread count. Why a race first: where an order's first board lies varies by order
    (the 6 x 12 clue 2's first board: 6 k nodes into `rows`, 211 k into `columns`, 155 M into
    `spiral`). Why only a few rounds: a race gives each order one core where a split gives the best
    order both, and on the hardest 8 x 8 boards the split found boards sooner (issue 34;
    docs/studies/exact-edge-matching.md)."""
    k = len(boards)
    states = [b.fresh_state() for b in boards]
    cursors = [b.new_cursor(len(b.order)) for b in boards]
    flags, progress = np.zeros(k, np.int64), np.zeros(k, np.int64)
    walked = [0] * k
    finish: list[tuple[int, int, np.ndarray] | None] = [None] * k  # (round, found, record)
    best: list[tuple[int, int] | None] = [None]
    lock = threading.Lock()

    def turn(r: int, round_: int) -> bool:
        """Order r's slice of this round; False when it is done (finished, beaten, stopped)."""
        with lock:
            beaten = best[0] is not None and (round_, r) > best[0]
            if beaten or round_ > rounds or sum(walked) > max_nodes or flags[r]:
                return False
            budget = min(SLICE - 1, max_nodes - sum(walked))  # the walk stops after budget + 1 nodes
        b = boards[r]
        status, found, nodes, record = b.walk(
            states[r],
            0,
            len(b.order),
            1,
            budget,
            flags[r : r + 1],
            progress[r : r + 1],
            1,
            cursor=cursors[r],
        )
        with lock:
            walked[r] += nodes
            if status == 1:
                finish[r] = (round_, found, record)
                best[0] = min(best[0] or (round_, r), (round_, r))
            return status == -1

    def run(r: int) -> None:
        round_ = 1
        while turn(r, round_):
            round_ += 1

    timer = threading.Timer(seconds, flags.fill, (1,)) if seconds is not None else None
    if timer is not None:
        timer.daemon = True
        timer.start()
    with interrupt.listen(lambda: flags.fill(1)):
        try:
            if min(threads, k) == 1:
                live, round_ = list(range(k)), 1
                while live:
                    live = [r for r in live if turn(r, round_)]
                    round_ += 1
            else:
                with ThreadPoolExecutor(max_workers=k) as pool:
                    list(pool.map(run, range(k)))
        finally:
            if timer is not None:
                timer.cancel()
    elapsed = time.perf_counter() - started
    if best[0] is None:
        if not flags.any() and sum(walked) <= max_nodes:  # the rounds are over
            return None, sum(walked)
        reason = "seconds" if flags.any() else "max_nodes"
        answer = Answer(0, [], sum(walked), elapsed, reason, boards[0].symmetry, 1, boards[0].order_name)
        return answer, sum(walked)
    round_, w = best[0]
    nodes = sum(walked[w] if r == w else SLICE * (round_ if r < w else round_ - 1) for r in range(k))
    _, found, record = finish[w]  # type: ignore[misc]
    b = boards[w]
    if not found:
        return Answer(0, [], nodes, elapsed, "finished", b.symmetry, 1, b.order_name), nodes
    boards_found = [b.board_of(record[0])]
    return Answer(b.symmetry, boards_found, nodes, elapsed, "limit", b.symmetry, 1, b.order_name), nodes


def _run_jobs(
    job, results: dict, jobs: int, threads: int, limit: int, budget: int, flags, progress, bar
) -> None:
    """Run the jobs on a pool of threads, in order; stop later jobs once earlier ones reach `limit`."""
    with ThreadPoolExecutor(max_workers=threads) as pool:
        pending = {pool.submit(job, k, budget): k for k in range(jobs)}
        while pending:
            done, _ = wait(pending, timeout=0.02, return_when=FIRST_COMPLETED)
            for future in done:
                results[pending.pop(future)] = future.result()
            bar.update(len(done))
            reached = _reached(results, jobs)
            if reached is not None and _found_before(results, reached + 1) >= limit:
                flags[reached + 1 :] = np.maximum(flags[reached + 1 :], 2)  # they cannot change the answer
            walked = sum(r[2] for r in results.values()) + progress.sum()
            if walked > budget:
                flags[flags == 0] = 3


def _answer(
    board: Board, results: dict, prefixes: list, depth: int, spent: int, limit: int, flags, started
) -> Answer:
    """The jobs' results read in search order, up to the job that reaches `limit` or stopped early."""
    count, boards, nodes, reason = 0, [], spent, "finished"
    for k in range(len(prefixes)):
        status, found, walked, record = results[k]
        count, nodes = count + found, nodes + walked
        boards += [board.board_of(np.concatenate([prefixes[k], row[depth:]])) for row in record]
        if count >= limit:
            count, reason = limit, "limit"
            break
        if status != 1:
            reason = "seconds" if flags[k] == 1 else "max_nodes"
            break
    elapsed = time.perf_counter() - started
    return Answer(
        count * board.symmetry,
        boards,
        int(nodes),
        elapsed,
        reason,
        board.symmetry,
        len(prefixes),
        board.order_name,
    )


def _reached(results: dict[int, tuple], jobs: int) -> int | None:
    """The last job k such that jobs 0..k have all finished, or None."""
    k = -1
    while k + 1 < jobs and k + 1 in results:
        k += 1
    return k if k >= 0 else None


def _found_before(results: dict[int, tuple], k: int) -> int:
    """Boards found by jobs 0..k-1 (all finished)."""
    return sum(results[j][1] for j in range(k))


def _split(board: Board, f: int) -> tuple[int, list[np.ndarray], int]:
    """(depth, the partial boards there as candidates per depth, nodes walked to list them): the
    shallowest depth with JOBS partial boards (or the last), whatever the threads, so that the nodes
    walked are the same on any number. Listed a level at a time, each level from the one before, so the
    listing walks each partial board above that depth once (a narrow tree is not walked again per level)."""
    never, progress = np.zeros(1, np.int64), np.zeros(1, np.int64)
    prefixes, depth, spent = [np.zeros(0, np.int64)], 0, 0
    width = len(board.piece_of) + 1  # the most children a partial board can have
    while 0 < len(prefixes) < JOBS and depth < f:
        deeper = []
        for prefix in prefixes:
            state = board.fresh_state()
            _replay(prefix, board.geometry(), board.lists(), state, board.lookahead)
            _, found, nodes, record = board.walk(
                state, depth, depth + 1, 1 << 62, 1 << 62, never, progress, width
            )
            spent += nodes
            deeper += list(record)
        prefixes, depth = deeper, depth + 1
    return depth, prefixes, spent  # at depth f, each job is a board with nothing left to walk
