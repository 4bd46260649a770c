"""A backtracker with scheduled breaks for edge-matching boards with a grey frame (issue 33, item 1).

Why: the strongest public Eternity II boards (Verhaard 2008, Blackwood 2021: 470 of 480 joins) came
from depth-first search that must match every join early and may leave a few joins unmatched
("breaks") only late in the fill, a cumulative allowance that grows with the depth. A beam keeps the
boards that are cheapest so far; this search keeps the early board perfect, which leaves more of the
pieces that fit each other for the hard last rows.

What is in it (the project's own code, after the public descriptions in issue 33):

  * fill order (`ORDERS`): rows from the bottom up, each left to right, then the top `tail` rows as a
    block (the first `tail` columns row by row), vertical teeth (a column of `tail` cells at a time)
    and, for `staircase`, the last `tail` columns by anti-diagonals. Every cell's left and bottom
    neighbours come before it (or are off the board), so those two sides key its candidates;
  * candidate tables keyed by (cell kind, left colour, bottom colour): the exact fits first, then the
    fits with one break; never a break on a join along the rim (a frame colour); a join with a
    pre-placed piece above or to the right is checked per candidate; at most one break per cell;
  * a break schedule by depth: the depths at which the next break unlocks (default SCHEDULE,
    Verhaard's 12 and four more, for 256 cells, scaled by the board's cells; Blackwood's 10 left the
    search too shallow for 60 s); once the run holds a board of b unmatched joins, every restart looks
    only for boards of fewer breaks (Verhaard's solver hunted only better boards);
  * restarts: each reshuffles the candidate lists (the opening included) from its own seed and stops
    after `restart_nodes` placements; a partial board at the restart's deepest depth is completed
    greedily (every free cell, in order, takes the free piece matching most of its neighbours), so the
    best board is always complete and legal (anytime);
  * a colour quota (Blackwood's forward pruning): until depth 160 of 256 a branch is cut when the
    sides placed in three colours (a frame colour, two inner ones) fall below a ramp (QUOTA_RAMP), so
    they are spent early and the last rows meet fewer colours. The triple matters (most leave no
    branch past the first rows), so probe restarts choose it (`Breaks.choose_quota`), and a restart
    short of depth 160 of 256 after ABANDON_NODES placements stops (Verhaard's restarts). On the
    official set: the nodes' peak moves from depth 194 to 235, the one-core minute from 459 to 463;
  * threads run independent restarts (the kernel releases the GIL); work counts nodes (placements).
    Restart k's seed and node cap depend on k alone, so a node budget gives the same board on any
    number of threads.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numba
import numpy as np

from core import progress
from core.errors import InputError
from core.faces import Construction, ConstructivePuzzle
from puzzles.edge_matching.solvers.beam import Prepared, alarm, grey_patterns
from puzzles.edge_matching.solvers.greedy import DC, DR, BoardBuilder

BLACKWOOD = (201, 206, 211, 216, 221, 225, 229, 233, 237, 239)  # his unlock depths on 256 cells (470)
# The default: Verhaard's 468 array (12 breaks by depth 240) and one more every 3 cells to the end. On
# the official set, 60 s on one core, seed 0: 459 matched joins, nodes peaking at depth 194; Blackwood's
# 10 breaks gave 457 and a peak at depth 160 (too few breaks for 60 s: the search stays shallow).
SCHEDULE = (193, 202, 209, 214, 218, 222, 226, 229, 232, 235, 238, 240, 243, 246, 249, 252)
RESTART_NODES = 50_000_000  # placements per restart, by default
DEFAULT_MAX_NODES = 200_000_000  # the node budget when no time limit is given
COMPLETE_EVERY = 1 << 17  # placements between two greedy completions at a restart's deepest depth
STOP_EVERY = 1 << 12  # placements between two looks at the stop flag
FINISH_WIDTH = 1000  # the beam that completes each restart's deepest partial board
FINISH_LOCK = threading.Lock()
# Blackwood's colour quota: by depth d (of 256) at least c of the sides of his three colours (one frame,
# two inner: 124 sides, if of 24, 50 and 50) are placed; scaled to the board's cells and the chosen
# colours' sides. It spends the chosen colours early, so the last rows meet fewer colours.
QUOTA_RAMP = ((26, 28), (56, 71), (76, 89), (102, 106), (160, 119))
QUOTA_SIDES = 124
ABANDON_NODES = 3_000_000  # a restart short of ABANDON_DEPTH of the cells after these placements stops
ABANDON_DEPTH = 160 / 256
QUOTA_CELLS = 100  # boards of fewer cells get no quota by default: their trees are walked whole
PROBE_COLOURS = 48  # quota triples probed when optimizer.quota is null
PROBE_ROUNDS = (1, 4)  # restarts per candidate in the first round, and for the PROBE_KEEP kept
PROBE_KEEP = 6
PROBE_NODES = 4_000_000  # placements per probe restart
PROBE_SHARE = 0.25  # the probes' share of a time limit, at most
TAIL = 5 / 16  # the share of rows filled as block, teeth and staircase (Blackwood: 5 of 16)


def default_schedule(cells: int, unlock: Sequence[int] = SCHEDULE) -> list[int]:
    """Unlock depths for 256 cells (SCHEDULE by default) scaled to `cells`."""
    return [int(round(d * cells / 256)) for d in unlock]


def default_tail(n: int) -> int:
    """Rows filled by teeth on n rows: 5 on 16, scaled, at least 1."""
    return max(1, min(n, int(round(TAIL * n))))


def _top_block(n: int, m: int, tail: int, stair: int) -> list[int]:
    """The top `tail` rows: a block of the first `tail` columns row by row bottom-up, then a column
    (tooth) at a time bottom-up, then the last `stair` columns by anti-diagonals."""
    block = [r * m + c for r in range(tail - 1, -1, -1) for c in range(min(tail, m))]
    teeth = [r * m + c for c in range(min(tail, m), m - stair) for r in range(tail - 1, -1, -1)]
    first = max(m - stair, min(tail, m))
    cells = [(r, c) for r in range(tail) for c in range(first, m)]
    cells.sort(key=lambda rc: ((rc[1] - first) + (tail - 1 - rc[0]), rc[1]))
    return block + teeth + [r * m + c for r, c in cells]


def rows(n: int, m: int, tail: int) -> np.ndarray:
    """Rows from the bottom up, each left to right."""
    return np.array([r * m + c for r in range(n - 1, -1, -1) for c in range(m)], np.int64)


def teeth(n: int, m: int, tail: int) -> np.ndarray:
    """Rows bottom-up up to the top `tail` rows, then a block and vertical teeth (`_top_block`)."""
    body = [r * m + c for r in range(n - 1, tail - 1, -1) for c in range(m)]
    return np.array(body + _top_block(n, m, tail, 0), np.int64)


def staircase(n: int, m: int, tail: int) -> np.ndarray:
    """As `teeth`, the last `tail` columns of the top rows by anti-diagonals (Blackwood's shape)."""
    body = [r * m + c for r in range(n - 1, tail - 1, -1) for c in range(m)]
    return np.array(body + _top_block(n, m, tail, min(tail, max(m - tail, 0))), np.int64)


ORDERS = {"rows": rows, "teeth": teeth, "staircase": staircase}


def quota_need(cells: int, total: int, ramp: Sequence[Sequence[float]] = QUOTA_RAMP) -> np.ndarray:
    """need[d]: the quota colours' sides that d placed cells must hold; the ramp (depth of 256, sides
    of QUOTA_SIDES) scaled to `cells` and `total` sides, linear between its points, 0 past its end."""
    depths = [0.0] + [d * cells / 256 for d, _ in ramp]
    counts = [0.0] + [c * total / QUOTA_SIDES for _, c in ramp]
    need = np.floor(np.interp(np.arange(cells + 1), depths, counts)).astype(np.int64)
    need[np.arange(cells + 1) > depths[-1]] = 0
    return need


def whole_numbers(name: str, value: object, minimum: int, meaning: str) -> list[int]:
    """`value` as a list of ints >= minimum, or a one-line InputError naming optimizer.`name`."""
    what = f"optimizer.{name} must be a list of {meaning} (whole numbers >= {minimum})"
    if not isinstance(value, Sequence) or isinstance(value, str):
        raise InputError(f"{what}, got {value!r}")
    for v in value:
        if isinstance(v, bool) or not isinstance(v, int | np.integer) or v < minimum:
            raise InputError(f"{what}; {v!r} is not one")
    return [int(v) for v in value]


def check_quota(quota: object) -> list[int]:
    """The quota colours as a list of ints >= 1, or a one-line InputError."""
    return whole_numbers("quota", quota, 1, "colours")


def check_quota_colours(quota: Sequence[int], frame: Sequence[int], inner: Sequence[int]) -> None:
    """Refuse quota colours no piece carries: they would cut nothing, yet the run would report the
    quota as in force."""
    absent = sorted(set(quota) - set(frame) - set(inner))
    if absent:
        raise InputError(
            f"optimizer.quota: {'colour' if len(absent) == 1 else 'colours'} {', '.join(map(str, absent))} "
            f"{'is' if len(absent) == 1 else 'are'} "
            f"not on this board, whose colours are {_spans(frame) or 'none'} on the frame and "
            f"{_spans(inner) or 'none'} inside; give colours from these ([] for no quota, null to let probes choose)"
        )


def _spans(colours: Sequence[int]) -> str:
    """Colours as runs, "1-5, 7"."""
    runs: list[list[int]] = []
    for c in sorted(colours):
        if runs and c == runs[-1][1] + 1:
            runs[-1][1] = c
        else:
            runs.append([c, c])
    return ", ".join(f"{a}-{b}" if b > a else f"{a}" for a, b in runs)


def check_schedule(schedule: object) -> list[int]:
    """The schedule as a sorted list of ints, or a one-line InputError."""
    return sorted(whole_numbers("schedule", schedule, 0, "depths at which a break unlocks"))


@numba.njit(cache=True, nogil=True)
def _complete(board, col, piece_of, cells, nb, cell_pat, pat_orients, pat_start):
    """Fill every empty cell of `board` (orient per cell, -1: empty), in the order `cells`, with the
    free orient of its kind matching most placed neighbours; return its unmatched inner joins (-1 when
    some cell had no piece of its kind left)."""
    used = np.zeros(piece_of.max() + 1, np.bool_)
    for x in range(board.shape[0]):
        if board[x] >= 0:
            used[piece_of[board[x]]] = True
    for x in cells:
        if board[x] >= 0:
            continue
        best, best_cost = -1, 5
        p = cell_pat[x]
        for j in range(pat_start[p], pat_start[p + 1]):
            o = pat_orients[j]
            if used[piece_of[o]]:
                continue
            cost = 0
            for s in range(4):
                y = nb[x, s]
                if y >= 0 and board[y] >= 0:
                    a, b = col[o, s], col[board[y], (s + 2) % 4]
                    cost += (a != b) | (a == 0)
            if cost < best_cost:
                best, best_cost = o, cost
                if cost == 0:
                    break
        if best < 0:
            return -1
        board[x] = best
        used[piece_of[best]] = True
    return _unmatched(board, col, nb)


@numba.njit(cache=True, nogil=True)
def _unmatched(board, col, nb):
    """Unmatched inner joins of a full board (each join read from its left or top cell)."""
    bad = 0
    for x in range(board.shape[0]):
        for s in (2, 3):
            y = nb[x, s]
            if y >= 0:
                a, b = col[board[x], s], col[board[y], s - 2]
                bad += (a != b) | (a == 0)
    return bad


@numba.njit(cache=True, nogil=True)
def _restart(geometry, lists, allow, quota, board0, caps, seed, stop, hist, out_best, out_deep):
    """One restart of the depth-first search; (nodes, best unmatched, deepest depth, its breaks,
    exhausted). out_best gets the best complete board found (complete or completed greedily),
    out_deep the deepest partial; hist[d] counts the placements at depth d.

    At depth i the board has cells order[:i] filled (and the pre-placed ones); the cell's candidates
    are the list of its (kind, left, bottom) key, exact fits in [start, mid), one-break fits in
    [mid, end), reshuffled from `seed`; breaks so far may not pass allow[i], nor the best complete
    board's breaks minus one. quota = (sides, need): a placement at depth i is cut when the quota
    colours' sides placed so far (sides[o] per orient) stay below need[i + 1]. caps = (placements,
    abandon nodes, abandon depth, fewer): the restart stops after its placements, or after abandon
    nodes if it has not yet reached the abandon depth (Verhaard's restarts); it looks only for boards
    of fewer than `fewer` breaks (the run's best so far)."""
    node_cap, abandon_nodes, abandon_depth, fewer = caps
    cells, left, bottom, pat, fixed, req_top, req_right, top_brk, right_brk, nb, cell_pat = geometry
    q_sides, q_need = quota
    col, piece_of, entries0, kstart, kmid, kend, radix, pat_orients, pat_start = lists
    np.random.seed(seed)
    entries = entries0.copy()
    for k in range(kstart.shape[0]):  # shuffle each key's exact part and break part
        for a, b in ((kstart[k], kmid[k]), (kmid[k], kend[k])):
            for t in range(b - a - 1, 0, -1):
                r = a + np.random.randint(t + 1)
                entries[a + t], entries[r] = entries[r], entries[a + t]
    depth = cells.shape[0]
    board = board0.copy()
    used = np.zeros(piece_of.max() + 1, np.bool_)
    for x in range(board.shape[0]):
        if board[x] >= 0:
            used[piece_of[board[x]]] = True
    j, mid, end = np.zeros(depth, np.int64), np.zeros(depth, np.int64), np.zeros(depth, np.int64)
    brk = np.zeros(depth + 1, np.int64)
    qc = np.zeros(depth + 1, np.int64)
    scratch = np.empty_like(board)
    nodes, since, cap = 0, 0, fewer - 1
    best, deep, deep_brk, deep_seen = 1 << 30, -1, 0, -1
    exhausted = False
    i = 0
    # enter depth 0
    if fixed[0] >= 0:
        j[0], mid[0], end[0] = 0, 1, 1
    else:
        lc = col[board[left[0]], 2] if left[0] >= 0 else 0
        bc = col[board[bottom[0]], 1] if bottom[0] >= 0 else 0
        k = (pat[0] * radix + lc) * radix + bc
        j[0], mid[0], end[0] = kstart[k], kmid[k], kend[k]
    while True:
        x = cells[i]
        placed = False
        limit = min(allow[i], cap)
        base = brk[i]
        if fixed[i] >= 0:
            if j[i] == 0:
                j[i] = 1
                brk[i + 1] = base
                qc[i + 1] = qc[i] + q_sides[fixed[i]]
                placed = qc[i + 1] >= q_need[i + 1]
        else:
            stop_at = end[i] if base < limit else mid[i]
            while j[i] < stop_at:
                o = entries[j[i]]
                cost = 1 if j[i] >= mid[i] else 0
                j[i] += 1
                p = piece_of[o]
                if used[p]:
                    continue
                if req_top[i] >= 0 and col[o, 1] != req_top[i]:
                    if not top_brk[i]:
                        continue
                    cost += 1
                if req_right[i] >= 0 and col[o, 2] != req_right[i]:
                    if not right_brk[i]:
                        continue
                    cost += 1
                if cost > 1 or base + cost > limit:
                    continue
                if qc[i] + q_sides[o] < q_need[i + 1]:
                    continue
                qc[i + 1] = qc[i] + q_sides[o]
                board[x] = o
                used[p] = True
                brk[i + 1] = base + cost
                nodes += 1
                since += 1
                hist[i] += 1
                placed = True
                break
        if placed:
            i += 1
            if i > deep or (i == deep and brk[i] < deep_brk):
                deep, deep_brk = i, brk[i]
                out_deep[:] = board
            if i == depth:
                score = _unmatched(board, col, nb)
                if score < best:
                    best = score
                    out_best[:] = board
                cap = brk[i] - 1
                i -= 1
                if fixed[i] < 0:
                    used[piece_of[board[cells[i]]]] = False
                    board[cells[i]] = -1
                if best == 0:
                    break
            else:
                if i >= deep_seen and (i > deep_seen or since >= COMPLETE_EVERY):
                    deep_seen, since = i, 0
                    scratch[:] = board
                    score = _complete(scratch, col, piece_of, cells, nb, cell_pat, pat_orients, pat_start)
                    if 0 <= score < best:
                        best = score
                        out_best[:] = scratch
                if fixed[i] >= 0:
                    j[i], mid[i], end[i] = 0, 1, 1
                else:
                    lc = col[board[left[i]], 2] if left[i] >= 0 else 0
                    bc = col[board[bottom[i]], 1] if bottom[i] >= 0 else 0
                    k = (pat[i] * radix + lc) * radix + bc
                    j[i], mid[i], end[i] = kstart[k], kmid[k], kend[k]
            if nodes >= node_cap or (nodes >= abandon_nodes and deep < abandon_depth):
                break
            if nodes % STOP_EVERY == 0 and stop[0] != 0:
                break
        else:
            i -= 1
            if i < 0:
                exhausted = True
                break
            if fixed[i] < 0:
                used[piece_of[board[cells[i]]]] = False
                board[cells[i]] = -1
    return nodes, best, deep, deep_brk, exhausted


def neighbours(n: int, m: int) -> np.ndarray:
    """nb[x, s]: the cell across side s (left, top, right, bottom) of cell x, -1 off the board."""
    nb = np.full((n * m, 4), -1, np.int64)
    for x in range(n * m):
        r, c = divmod(x, m)
        for s in range(4):
            rr, cc = r + DR[s], c + DC[s]
            if 0 <= rr < n and 0 <= cc < m:
                nb[x, s] = rr * m + cc
    return nb


class Tables:
    """A board's kernel tables, built once for every restart: the order's geometry per depth, the
    candidate lists and the schedule (allowed breaks per depth)."""

    def __init__(self, puzzle: ConstructivePuzzle, order: str, tail: int | None, schedule: list[int] | None):
        table = np.ascontiguousarray(puzzle.table, dtype=np.int64)
        n, m = puzzle.n, puzzle.m
        pieces, turns = table.shape[0], table.shape[1]
        self.n, self.m, self.turns, self.cells_count = n, m, turns, n * m
        col = table.reshape(pieces * turns, 4)
        piece_of = np.repeat(np.arange(pieces), turns)
        orient_pat, cell_pattern = grey_patterns(table, n, m)
        given = np.asarray(puzzle.preplaced if puzzle.preplaced is not None else [], np.int64).reshape(-1, 3)
        board0 = np.full(n * m, -1, np.int64)
        board0[given[:, 0]] = given[:, 1] * turns + given[:, 2]
        free = np.ones(pieces, np.bool_)
        free[given[:, 1]] = False
        patterns, cell_pat = np.unique(cell_pattern, return_inverse=True)
        open_cells = board0 < 0
        for k, pattern in enumerate(patterns):  # every kind of cell needs as many pieces of its kind
            fit = len(np.unique(piece_of[(orient_pat == pattern) & free[piece_of]]))
            need = int(((cell_pat == k) & open_cells).sum())
            if fit < need:
                raise InputError(
                    f"optimizer=breaks needs a piece whose grey sides face out for every border cell; only "
                    f"{fit} pieces fit the {need} cells of one kind: use optimizer=sa_compiled"
                )
        tail = default_tail(n) if tail is None else min(tail, n)
        cells = ORDERS[order](n, m, tail)
        nb = neighbours(n, m)
        position = np.empty(n * m, np.int64)
        position[cells] = np.arange(n * m)
        radix = int(table.max()) + 1
        # geometry per depth
        depth = n * m
        left, bottom = nb[cells, 0], nb[cells, 3]
        assert ((left < 0) | (position[np.maximum(left, 0)] < np.arange(depth))).all()
        assert ((bottom < 0) | (position[np.maximum(bottom, 0)] < np.arange(depth))).all()
        rr, cc = np.divmod(cells, m)
        fixed = board0[cells]
        req_top, req_right = np.full(depth, -1, np.int64), np.full(depth, -1, np.int64)
        for i, x in enumerate(cells):
            if fixed[i] >= 0:
                continue
            top, right = nb[x, 1], nb[x, 2]
            if top >= 0 and board0[top] >= 0:
                req_top[i] = col[board0[top], 3]
            if right >= 0 and board0[right] >= 0:
                req_right[i] = col[board0[right], 0]
        top_brk = (cc > 0) & (cc < m - 1)  # a vertical join along the left or right rim never breaks
        right_brk = (rr > 0) & (rr < n - 1)  # nor a horizontal one along the top or bottom rim
        self.geometry = (
            cells,
            left,
            bottom,
            cell_pat[cells].astype(np.int64),
            fixed,
            req_top,
            req_right,
            top_brk,
            right_brk,
            nb,
            cell_pat.astype(np.int64),
        )
        # candidate lists: key (kind, left colour, bottom colour); exact fits, then one-break fits
        keys, breaks, members = [], [], []
        for k, pattern in enumerate(patterns):
            left_may = not (pattern & 0b1010)  # no break on a horizontal join of the top or bottom rim
            bottom_may = not (pattern & 0b0101)  # nor a vertical one of the left or right rim
            for o in np.flatnonzero((orient_pat == pattern) & free[piece_of]):
                lc, bc = int(col[o, 0]), int(col[o, 3])
                keys.append((k * radix + lc) * radix + bc)
                breaks.append(0)
                members.append(o)
                for other in range(1, radix):
                    if left_may and lc != 0 and other != lc:
                        keys.append((k * radix + other) * radix + bc)
                        breaks.append(1)
                        members.append(o)
                    if bottom_may and bc != 0 and other != bc:
                        keys.append((k * radix + lc) * radix + other)
                        breaks.append(1)
                        members.append(o)
        key_a, brk_a, mem_a = (
            np.array(keys, np.int64),
            np.array(breaks, np.int64),
            np.array(members, np.int64),
        )
        sort = np.lexsort((mem_a, brk_a, key_a))
        key_a, brk_a, mem_a = key_a[sort], brk_a[sort], mem_a[sort]
        n_keys = len(patterns) * radix * radix
        kstart = np.searchsorted(key_a, np.arange(n_keys), "left").astype(np.int64)
        kend = np.searchsorted(key_a, np.arange(n_keys), "right").astype(np.int64)
        kmid = np.searchsorted(key_a * 2 + brk_a, np.arange(n_keys) * 2 + 1, "left").astype(np.int64)
        by_pat = np.argsort(orient_pat, kind="stable")
        pat_orients, pat_start = [], [0]
        for pattern in patterns:
            chosen = [o for o in by_pat if orient_pat[o] == pattern and free[piece_of[o]]]
            pat_orients += chosen
            pat_start.append(len(pat_orients))
        self.lists = (
            col.astype(np.int64),
            piece_of.astype(np.int64),
            mem_a,
            kstart,
            kmid,
            kend,
            radix,
            np.array(pat_orients, np.int64),
            np.array(pat_start, np.int64),
        )
        unlock = default_schedule(depth) if schedule is None else schedule
        self.allow = np.searchsorted(np.array(unlock, np.int64), np.arange(depth), "right").astype(np.int64)
        grey = col == 0  # a side beside a grey side runs along the rim: a frame colour
        beside = np.roll(grey, 1, axis=1) | np.roll(grey, -1, axis=1)
        self.frame_colours = sorted(set(col[beside & ~grey].tolist()))
        self.inner_colours = sorted(set(col[~grey].tolist()) - set(self.frame_colours))
        self.board0, self.table = board0, table

    def finish(self, partial: np.ndarray, width: int, seed: int) -> tuple[np.ndarray, int] | None:
        """(board, unmatched joins) of a beam of `width` over the empty cells of `partial` (its
        placed pieces pre-placed), or None when the beam refuses the board. One beam at a time: the
        beam's kernel runs numba's parallel layer, which threads may not enter together."""
        cells = np.flatnonzero(partial >= 0)
        given = np.stack([cells, partial[cells] // self.turns, partial[cells] % self.turns], axis=1)
        with FINISH_LOCK:
            try:
                run = Prepared(self.table, self.n, given, "rows", self.m).run(width, seed, None)
            except InputError:
                return None
        return run.board, run.unmatched

    def quota(self, colours: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
        """(sides of `colours` per orient, sides needed by depth) for the kernel: QUOTA_RAMP scaled."""
        col = self.lists[0]
        sides = np.isin(col, np.asarray(list(colours), np.int64)).sum(axis=1).astype(np.int64)
        total = int(sides[:: self.turns].sum())
        return sides, quota_need(self.cells_count, total) if total else np.zeros(
            self.cells_count + 1, np.int64
        )

    def draw_quota(self, seed: int) -> list[int]:
        """A frame colour and two inner colours drawn from `seed` (three inner ones on a board with
        fewer than one frame colour or two inner ones)."""
        rng = np.random.default_rng(seed)
        if self.frame_colours and len(self.inner_colours) >= 2:
            return [int(rng.choice(self.frame_colours)), *map(int, rng.choice(self.inner_colours, 2, False))]
        colours = self.frame_colours + self.inner_colours
        return [int(c) for c in rng.choice(colours, min(3, len(colours)), False)]

    def restart(
        self,
        node_cap: int,
        seed: int,
        stop: np.ndarray,
        quota: Sequence[int] = (),
        abandon: tuple[int, int] = (0, 0),
        fewer: int = 1 << 30,
    ) -> RestartRun:
        """One restart (see `_restart`): `quota` colours, abandoned after abandon[0] placements short of
        depth abandon[1], looking only for boards of fewer than `fewer` breaks."""
        hist = np.zeros(self.cells_count, np.int64)
        best_board, deep_board = np.full(self.cells_count, -1, np.int64), self.board0.copy()
        nodes, best, deep, deep_brk, exhausted = _restart(
            self.geometry,
            self.lists,
            self.allow,
            self.quota(quota),
            self.board0,
            (node_cap, abandon[0], abandon[1], fewer),
            seed,
            stop,
            hist,
            best_board,
            deep_board,
        )
        found = best < (1 << 30)
        return RestartRun(
            best_board if found else None,
            int(best),
            int(nodes),
            int(deep),
            int(deep_brk),
            bool(exhausted),
            hist,
            deep_board,
        )


@dataclass
class RestartRun:
    """A restart's outcome: its best complete board (orients per cell; None: none) and unmatched joins,
    the placements it made, its deepest depth and that partial's breaks, whether it walked its whole
    tree, and its placements by depth."""

    board: np.ndarray | None
    unmatched: int
    nodes: int
    deepest: int
    deepest_breaks: int
    exhausted: bool
    hist: np.ndarray
    deep_board: np.ndarray


@dataclass(frozen=True)
class BreaksConstruction(Construction):
    """A `Construction` with the search's own count of its board's unmatched joins (`unmatched`) and
    its profile: the quota colours used, placements by depth (`depth_nodes`, the benchmark's
    "where the nodes go"), the deepest depth reached and the restarts run; its `history` is the
    anytime curve (seconds, nodes, unmatched joins at each new best board)."""

    unmatched: int = 0
    depth_nodes: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    deepest: int = 0
    restarts: int = 0
    quota: tuple[int, ...] = ()


def warm_up() -> None:
    """Compile the kernels (or load numba's cache) on a 2 x 2 board, off the run's clock."""
    if _restart.signatures:
        return

    class Tiny:
        n = m = 2
        table = np.array([[[0, 0, 1, 1]], [[1, 0, 0, 1]], [[0, 1, 1, 0]], [[1, 1, 0, 0]]], np.int64)
        preplaced = np.zeros((0, 3), np.int64)

    Tables(Tiny(), "rows", None, []).restart(100, 0, np.zeros(1, np.int64))  # type: ignore[arg-type]


class Breaks(BoardBuilder):
    """The scheduled-break backtracker as a constructive solver (see the module).

    Args:
        seed: seeds restart k with seed * 1_000_003 + k (its list shuffle).
        order: rows, teeth or staircase (see ORDERS).
        tail: the top rows filled as block and teeth (null: 5 of 16 rows, scaled).
        schedule: depths at which the next break unlocks (null: SCHEDULE, scaled to the board);
            [] allows none.
        restart_nodes: placements per restart.
        finish_width: the width of the beam that completes each restart's deepest partial board (0:
            only the greedy completion); its placements are not counted as nodes.
        max_nodes: the run's placements; null: none under a time limit (the time is the budget), else
            DEFAULT_MAX_NODES.
        threads: restarts run at once.
        quota: colours whose sides must be placed early (QUOTA_RAMP, Blackwood's colour quota);
            null: on boards of QUOTA_CELLS or more, the triple (a frame colour, two inner ones) that
            takes probe restarts deepest (`choose_quota`); []: no quota.
        abandon_nodes, abandon_depth: a restart that has not reached abandon_depth (null: 160 of 256
            cells, scaled) after abandon_nodes placements stops (Verhaard's restarts).

    Its work counts placements (nodes).
    """

    work_unit = "node"
    rectangles = True
    default_seconds = 60.0  # the figure the docs quote: a median 463 on Eternity II in 60 s on one core

    def __init__(
        self,
        seed: int = 0,
        order: str = "staircase",
        tail: int | None = None,
        schedule: list[int] | None = None,
        restart_nodes: int = RESTART_NODES,
        finish_width: int = FINISH_WIDTH,
        max_nodes: int | None = None,
        threads: int = 1,
        quota: Sequence[int] | None = None,
        abandon_nodes: int = ABANDON_NODES,
        abandon_depth: int | None = None,
    ):
        if order not in ORDERS:
            raise InputError(f"optimizer.order must be one of {', '.join(ORDERS)}, got {order!r}")
        if tail is not None and (isinstance(tail, bool) or not isinstance(tail, int) or tail < 1):
            raise InputError(f"optimizer.tail must be a whole number >= 1 (or null), got {tail!r}")
        self.schedule = None if schedule is None else check_schedule(schedule)
        for name, value in (("restart_nodes", restart_nodes), ("max_nodes", max_nodes), ("threads", threads)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
                raise InputError(f"optimizer.{name} must be a whole number >= 1, got {value!r}")
        if isinstance(finish_width, bool) or not isinstance(finish_width, int) or finish_width < 0:
            raise InputError(f"optimizer.finish_width must be a whole number >= 0, got {finish_width!r}")
        self.seed, self.order, self.tail, self.finish_width = seed, order, tail, finish_width
        self.restart_nodes, self.max_nodes, self.threads = restart_nodes, max_nodes, threads
        self.quota = None if quota is None else check_quota(quota)
        for name, value in (("abandon_nodes", abandon_nodes), ("abandon_depth", abandon_depth)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
                raise InputError(f"optimizer.{name} must be a whole number >= 0, got {value!r}")
        self.abandon_nodes, self.abandon_depth = abandon_nodes, abandon_depth
        self.name = "breaks"

    def seeded(self, seed: int) -> Breaks:
        return Breaks(
            seed,
            self.order,
            self.tail,
            self.schedule,
            self.restart_nodes,
            self.finish_width,
            self.max_nodes,
            self.threads,
            self.quota,
            self.abandon_nodes,
            self.abandon_depth,
        )

    def warm_up(self, puzzle: ConstructivePuzzle) -> None:
        warm_up()

    def choose_quota(
        self, tables: Tables, stop: np.ndarray, abandon: tuple[int, int], budget: int | None
    ) -> tuple[list[int], list[RestartRun]]:
        """The quota colours that take short restarts deepest: PROBE_COLOURS triples drawn from the
        seed get PROBE_ROUNDS[0] restarts each, the best PROBE_KEEP of them PROBE_ROUNDS[1] more; each
        restart ends after PROBE_NODES placements (or at abandon). Ranked by the summed deepest depth
        (most colour triples leave no restart past a few rows: the ramp asks too much of them). No
        quota when the chosen triple took no probe restart to the abandon depth (boards whose colours
        all run along the frame, such as the seed's pseudo Eternity II). Every probe's seed and cap
        are fixed, so the choice does not depend on threads (under a time limit, unless it runs out).
        Under a node budget the probes take at most a quarter of it."""
        restarts = PROBE_COLOURS * PROBE_ROUNDS[0] + PROBE_KEEP * PROBE_ROUNDS[1]
        cap = PROBE_NODES if budget is None else max(1, min(PROBE_NODES, budget // (4 * restarts)))
        abandon = (min(abandon[0], cap), abandon[1])
        rng = np.random.default_rng(self.seed)
        candidates = [tables.draw_quota(int(rng.integers(1 << 62))) for _ in range(PROBE_COLOURS)]
        runs: list[RestartRun] = []
        depth_sum = dict.fromkeys(range(len(candidates)), 0)
        alive = list(depth_sum)
        passed = dict.fromkeys(alive, False)

        def probe(job: tuple[int, int], seed: int) -> RestartRun | None:
            if stop[0]:  # stopped: the probes left are not started (each costs its set-up)
                return None
            run = tables.restart(cap, seed, stop, candidates[job[0]], abandon)
            progress.report(run.nodes, None if run.board is None else run.unmatched, "node")  # the live line
            return run

        with ThreadPoolExecutor(max_workers=max(1, self.threads)) as pool:
            for round_, (restarts, keep) in enumerate(zip(PROBE_ROUNDS, (PROBE_KEEP, 1), strict=True)):
                jobs = [(c, r) for c in alive for r in range(restarts)]
                seeds = [self.seed * 1_000_003 - 1 - (round_ * 1_000 + r) * 1_000 - c for c, r in jobs]
                done = list(pool.map(probe, jobs, seeds))
                runs += [run for run in done if run is not None]
                for (c, _), run in zip(jobs, done, strict=True):
                    if run is None:
                        continue
                    depth_sum[c] += run.deepest
                    passed[c] |= run.deepest >= abandon[1]
                alive = sorted(alive, key=lambda c: (-depth_sum[c], c))[:keep]
        return (candidates[alive[0]] if passed[alive[0]] else []), runs

    def construct(self, puzzle: ConstructivePuzzle, seconds: float | None = None) -> BreaksConstruction:
        """The best complete board of the restarts within `seconds` (or the node budget), checked."""
        started = time.perf_counter()
        puzzle = self._require(puzzle)
        tables = Tables(puzzle, self.order, self.tail, self.schedule)
        check_quota_colours(self.quota or [], tables.frame_colours, tables.inner_colours)
        if seconds is not None:
            warm_up()
        depth = self.abandon_depth
        abandon = (self.abandon_nodes, round(ABANDON_DEPTH * tables.cells_count) if depth is None else depth)
        budget = self.max_nodes or (DEFAULT_MAX_NODES if seconds is None else None)
        lock = threading.Lock()
        state: dict = {
            "next": 0,
            "best": None,
            "score": 1 << 30,
            "key": (1 << 30, 0),
            "nodes": 0,
            "deepest": 0,
            "done": False,
            "history": [],
        }
        hist = np.zeros(tables.cells_count, np.int64)

        def cap_of(k: int) -> int:
            if budget is None:
                return self.restart_nodes
            return max(0, min(self.restart_nodes, budget - probed - k * self.restart_nodes))

        def record(run: RestartRun, k: int) -> None:
            """Count a restart's work and keep its board if the best (ties: the lower k), under lock."""
            state["nodes"] += run.nodes
            if k >= 0:  # a probe reported itself as it ended
                progress.report(run.nodes, None if run.board is None else run.unmatched, "node")
            hist[:] += run.hist
            state["deepest"] = max(state["deepest"], run.deepest)
            if run.board is not None and (run.unmatched, k) < state["key"]:
                state["key"] = (run.unmatched, k)
                improved = run.unmatched < state["score"]
                state["best"], state["score"] = run.board, run.unmatched
                if improved:
                    elapsed = time.perf_counter() - started
                    state["history"].append((elapsed, state["nodes"], run.unmatched))

        with alarm(None if seconds is None else seconds - (time.perf_counter() - started)) as stop:
            quota: list[int] = self.quota or []
            probes: list[RestartRun] = []
            if self.quota is None and tables.cells_count >= QUOTA_CELLS:
                with alarm(None if seconds is None else PROBE_SHARE * seconds) as probe_stop:
                    quota, probes = self.choose_quota(tables, probe_stop, abandon, budget)
            for index, run in enumerate(probes):  # probes first: their k are below every restart's
                record(run, index - len(probes))
            probed = state["nodes"]
            threads = max(1, self.threads)
            # A restart looks only for boards better than the run's best so far, unless threads racing
            # under a node budget would make that best, and so the board, depend on their timing.
            share_best = seconds is not None or threads == 1

            def worker() -> None:
                while stop[0] == 0:
                    with lock:
                        if state["done"]:
                            return
                        k = state["next"]
                        state["next"] += 1
                        fewer = state["score"] if share_best else 1 << 30
                    cap = cap_of(k)
                    if cap <= 0:
                        return
                    run = tables.restart(cap, self.seed * 1_000_003 + k, stop, quota, abandon, fewer)
                    shallow = run.deepest < abandon[1] and k > 0  # abandoned: not worth a beam
                    if self.finish_width and run.deepest < tables.cells_count and not shallow:
                        finished = tables.finish(run.deep_board, self.finish_width, self.seed)
                        if finished is not None and finished[1] < run.unmatched:
                            run.board, run.unmatched = finished
                    with lock:
                        record(run, k)
                        if (run.exhausted and not quota) or run.unmatched == 0:
                            state["done"] = True  # the whole tree walked, no quota cut (or a perfect board)

            if threads == 1:
                worker()
            else:
                with ThreadPoolExecutor(max_workers=threads) as pool:
                    for future in [pool.submit(worker) for _ in range(threads)]:
                        future.result()
            timed_out = stop[0] != 0
        board = state["best"]
        if board is None:  # no restart ran long enough to place a piece: complete the empty board
            board = tables.board0.copy()
            col, piece_of, *_, pat_orients, pat_start = tables.lists
            cells, nb, cell_pat = tables.geometry[0], tables.geometry[9], tables.geometry[10]
            state["score"] = _complete(board, col, piece_of, cells, nb, cell_pat, pat_orients, pat_start)
        reason = "finished" if state["done"] else ("seconds" if timed_out else "max_nodes")
        layout = puzzle.layout(board // tables.turns, board % tables.turns)
        peak = int(np.argmax(hist)) if hist.any() else 0
        note = (
            f"breaks: {state['next']} restarts, {state['nodes']:,} nodes, deepest {state['deepest']} of "
            f"{tables.cells_count}, nodes peak at depth {peak}; colour quota {quota or 'none'}"
            f"{f' (chosen of {PROBE_COLOURS} by probes)' if probes else ''}; "
            f"best {state['score']} unmatched joins"
        )
        return BreaksConstruction(
            layout,
            state["nodes"],
            reason,
            None,
            note,
            unmatched=int(state["score"]),
            depth_nodes=hist,
            deepest=state["deepest"],
            restarts=state["next"],
            quota=tuple(quota),
            history=tuple(state["history"]),
        )
