"""The scheduled-break backtracker's tables: its fill orders (`ORDERS`), break schedule and colour quota
ramp, and a board's kernel tables (`Tables`), built once for every restart."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from core.errors import InputError
from core.faces import ConstructivePuzzle
from puzzles.edge_matching.board import grey_patterns, neighbours
from puzzles.edge_matching.solvers.beam import Prepared
from puzzles.edge_matching.solvers.breaks_llvm_walk import GeneratedDive
from puzzles.edge_matching.solvers.breaks_walk import (
    KEPT,
    NEVER,
    NO_BOUND,
    NODES,
    PAUSE_AT,
    PAUSED,
    REGS,
    STATUS,
    _prepare,
    _walk,
)
from puzzles.edge_matching.solvers.perfect_search.generated import cache_folder

BLACKWOOD = (201, 206, 211, 216, 221, 225, 229, 233, 237, 239)  # his unlock depths on 256 cells (470)
# The default: Verhaard's 468 array (12 breaks by depth 240) and five more to depth 252. On the official
# set, 60 s on one core, seed 0: 459 matched joins, nodes peaking at depth 194; Blackwood's 10 breaks
# gave 457 and a peak at depth 160 (too few breaks for 60 s: the search stays shallow). The 17th (at
# 244) lets the walk itself complete boards of 463 (480 - 17), as eii counted them: on the ladder
# (bench_eternity2 ladder, seed 0, 180 s) 1,440 boards an hour at 463 or better against the 16's 140,
# with the 17th unlocked at 241-247; at 230 or 254, or with an 18th, fewer.
SCHEDULE = (193, 202, 209, 214, 218, 222, 226, 229, 232, 235, 238, 240, 243, 244, 246, 249, 252)
FINISH_LOCK = threading.Lock()
# Blackwood's colour quota: by depth d (of 256) at least c of the sides of his three colours (one frame,
# two inner: 124 sides, if of 24, 50 and 50) are placed; scaled to the board's cells and the chosen
# colours' sides. It spends the chosen colours early, so the last rows meet fewer colours.
QUOTA_RAMP = ((26, 28), (56, 71), (76, 89), (102, 106), (160, 119))
QUOTA_SIDES = 124
MAX_ORIENTS = (1 << 15) - 1
KEEP_BOARDS = 4096  # boards a restart keeps on the ladder
PARTS = ("walk", "greedy", "exact")  # breaks_walk WALK, GREEDY, EXACT: the part that completed a board
TAIL = 5 / 16  # the share of rows filled as block, teeth and staircase (Blackwood: 5 of 16)
PAUSE_NODES = 1 << 24  # placements between two pauses of a walk whose state is kept (1-3 s on Eternity II)


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


class Tables:
    """A board's kernel tables, built once for every restart: the order's geometry per depth, the
    candidate lists and the schedule (allowed breaks per depth)."""

    def __init__(
        self,
        puzzle: ConstructivePuzzle,
        order: str,
        tail: int | None,
        schedule: list[int] | None,
        rim_breaks: bool = False,
        parity: bool = False,
    ):
        table = np.ascontiguousarray(puzzle.table, dtype=np.int64)
        n, m = puzzle.n, puzzle.m
        pieces, turns = table.shape[0], table.shape[1]
        if pieces * turns > MAX_ORIENTS:  # the walk packs an orient in 15 bits
            raise InputError(
                f"optimizer=breaks takes boards of at most {MAX_ORIENTS // turns:,} pieces, this one has "
                f"{pieces:,}: use optimizer=beam or sa_compiled"
            )
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
        _check_kinds(patterns, orient_pat, cell_pat, piece_of, free, board0 < 0)
        tail = default_tail(n) if tail is None else min(tail, n)
        cells = ORDERS[order](n, m, tail)
        radix = int(table.max()) + 1
        nb = neighbours(n, m)
        self.geometry = _geometry(cells, nb, board0, col, n, m, cell_pat, rim_breaks)
        # the kernel reads its tuples by position; Python reads these by name
        self.order, self.neighbours, self.cell_kinds, self.radix = cells, nb, cell_pat.astype(np.int64), radix
        members, kstart, kmid, kend = _candidates(
            patterns, orient_pat, free, piece_of, col, radix, rim_breaks
        )
        pat_orients, pat_start = _pattern_orients(patterns, orient_pat, free, piece_of)
        col64, piece64 = col.astype(np.int64), piece_of.astype(np.int64)
        self.lists = (col64, piece64, members, kstart, kmid, kend, radix, pat_orients, pat_start)
        self.colours, self.piece_of = col64, piece64
        unlock = default_schedule(n * m) if schedule is None else schedule
        self.allow = np.searchsorted(np.array(unlock, np.int64), np.arange(n * m), "right").astype(np.int64)
        grey = col == 0  # a side beside a grey side runs along the rim: a frame colour
        beside = np.roll(grey, 1, axis=1) | np.roll(grey, -1, axis=1)
        self.frame_colours = sorted(set(col[beside & ~grey].tolist()))
        self.inner_colours = sorted(set(col[~grey].tolist()) - set(self.frame_colours))
        self.board0, self.table = board0, table
        self.parity = odd_colours(table, board0, nb, radix) if parity else no_parity(radix)
        self._dives: dict[bytes, GeneratedDive] = {}  # by quota need: a dive compiled once a run
        self._dive_lock = threading.Lock()

    @property
    def extra(self) -> tuple:
        """What the walk's break check reads beside a cell's candidates (breaks_walk `_extra_breaks`):
        the pieces' colours, the joins pre-placed pieces above and to the right ask for, and whether
        each of those may break; the generated dive writes them into its code."""
        return (self.lists[0], *self.geometry[5:9])

    def prepare(self, quota: Sequence[int], quota_first: bool, seed: int) -> tuple[tuple, tuple]:
        """A restart's walk state and reshuffled lists (breaks_walk `_prepare`), before its first step."""
        tables = (self.geometry, self.lists, self.allow, self.board0)
        return _prepare(tables, self.quota(quota), quota_first, seed, self.parity)

    def dive(self, state: tuple, lists2: tuple, hist: np.ndarray) -> GeneratedDive:
        """The board's generated dive for this restart's setup (its quota need and schedule are
        written in), compiled or loaded from the cache folder once and shared by every thread."""
        key = state[0].tobytes()
        with self._dive_lock:
            if key not in self._dives:
                self._dives[key] = GeneratedDive(state, lists2, hist, self.extra, cache_folder())
            return self._dives[key]

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
        sides = np.isin(self.colours, np.asarray(list(colours), np.int64)).sum(axis=1).astype(np.int64)
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
        ladder: tuple[int, int] | None = None,
        tail: int = 0,
        extend: tuple[int, int] = (1 << 30, 0),
        quota_first: bool = False,
        walk: dict[str, Any] | None = None,
        paused: Callable[[dict[str, Any]], None] | None = None,
        bound: np.ndarray | None = None,
        generated: bool = False,
    ) -> RestartRun:
        """One restart (see `_restart`): `quota` colours, abandoned after abandon[0] placements short of
        depth abandon[1], looking only for boards of fewer than `fewer` breaks. `ladder` = (fewer,
        keep): count every complete board of fewer than `fewer` unmatched joins instead, keeping those
        of at most `keep` (up to KEEP_BOARDS). `tail`: deepest partials with at most this many empty
        cells are also completed exactly. `extend` = (depth, placements): each new deepest depth at or
        past `depth` lets the restart run at least `placements` more. `quota_first`: candidates with
        the most quota sides first.

        A restart stopped mid-walk leaves its walk's state in `RestartRun.walk`; given back as `walk`
        (with the other arguments as when it began) the restart goes on as if never stopped. With
        `paused`, the walk pauses every PAUSE_NODES placements, hands `paused` its state (a copy) and
        goes on: what a checkpoint keeps of a restart under way. `bound`: the run's best unmatched joins,
        written and read by the walk (breaks_walk `_shared_cap`), shared by the run's threads; None: the
        walk tightens its search only at its own complete boards (the probes, the frozen walk's trees).
        `generated`: the walk's inner loop is the board's generated dive (`dive`): the same tree, faster."""
        hist = np.zeros((2, self.cells_count), np.int64)  # placements by depth, and those with a break
        best_board, deep_board = np.full(self.cells_count, -1, np.int64), self.board0.copy()
        found = np.zeros(2 * self.cells_count + 1, np.int64)
        kept = np.zeros((KEEP_BOARDS if ladder else 0, self.cells_count), np.int64)
        kept_by = np.zeros(kept.shape[0], np.int64)
        if ladder is not None:
            fewer = ladder[0]
        caps = (
            node_cap,
            abandon[0],
            abandon[1],
            fewer,
            ladder is not None,
            -1 if ladder is None else ladder[1],
            tail,
            extend[0],
            extend[1],
            quota_first,
        )
        outs = (hist, best_board, deep_board, found, kept, kept_by)
        state, lists2 = self.prepare(quota, quota_first, seed)
        regs = np.zeros(REGS, np.int64)
        if walk is not None:
            _give_back(walk, state, lists2, outs, regs)
        dive = block = None
        if generated:  # the walk's arrays moved into the dive's block: views the walk reads and writes
            dive = self.dive(state, lists2, hist)
            block, state, lists2, hist = dive.bind(state, lists2, hist)
            outs = (hist, *outs[1:])
        while True:
            regs[PAUSE_AT] = NEVER if paused is None else (regs[NODES] // PAUSE_NODES + 1) * PAUSE_NODES
            nodes, best, deep, deep_brk, exhausted, n_kept = _walk(
                self.geometry,
                self.lists,
                state,
                lists2,
                caps,
                stop,
                outs,
                regs,
                NO_BOUND if bound is None else bound,
                0 if dive is None else dive.address,
                0 if block is None else block.ctypes.data,
            )
            if paused is None or regs[STATUS] != PAUSED or stop[0] != 0:
                break
            paused(_taken(state, lists2, outs, regs))
        return RestartRun(
            best_board if best < (1 << 30) else None,
            int(best),
            int(nodes),
            int(deep),
            int(deep_brk),
            bool(exhausted),
            hist[0],
            deep_board,
            found,
            kept[:n_kept],
            [PARTS[part] for part in kept_by[:n_kept]],
            hist[1],
            _taken(state, lists2, outs, regs) if regs[STATUS] == PAUSED else None,
        )


WALK_STATE = ("board", "walked", "shown", "blocked", "odd")  # what a walk changes, beside its outs
OUTS = ("hist", "best_board", "deep_board", "found", "kept", "kept_by")


def _walk_arrays(state: tuple, lists2: tuple) -> tuple[np.ndarray, ...]:
    """The arrays of `_prepare`'s (state, lists2) that a walk changes, in WALK_STATE's order."""
    return state[3], state[1], state[2], lists2[3], lists2[6]


def _taken(state: tuple, lists2: tuple, outs: tuple, regs: np.ndarray) -> dict[str, Any]:
    """A paused walk's state, copied: its registers, the arrays it changes and its outputs so far (the
    ladder's kept boards up to those it kept)."""
    kept = int(regs[KEPT])
    taken = {name: array.copy() for name, array in zip(WALK_STATE, _walk_arrays(state, lists2), strict=True)}
    taken.update({name: array.copy() for name, array in zip(OUTS[:4], outs[:4], strict=True)})
    taken.update(kept=outs[4][:kept].copy(), kept_by=outs[5][:kept].copy(), regs=regs.copy())
    return taken


def _give_back(taken: dict[str, Any], state: tuple, lists2: tuple, outs: tuple, regs: np.ndarray) -> None:
    """Put a paused walk's state (`_taken`) back into the arrays of a walk set up afresh from its seed."""
    for name, array in zip(WALK_STATE, _walk_arrays(state, lists2), strict=True):
        array[...] = taken[name]
    for name, array in zip(OUTS[:4], outs[:4], strict=True):
        array[...] = taken[name]
    kept = len(taken["kept"])
    outs[4][:kept], outs[5][:kept] = taken["kept"], taken["kept_by"]
    regs[:] = taken["regs"]


@dataclass
class RestartRun:
    """A restart's outcome: its best complete board (orients per cell; None: none) and unmatched joins,
    the placements it made, its deepest depth and that partial's breaks, whether it walked its whole
    tree, its placements by depth and its deepest partial board; stopped mid-walk, the walk's state."""

    board: np.ndarray | None
    unmatched: int
    nodes: int
    deepest: int
    deepest_breaks: int
    exhausted: bool
    hist: np.ndarray
    deep_board: np.ndarray
    found: np.ndarray  # on the ladder: complete boards per unmatched joins
    kept: np.ndarray  # on the ladder: the boards kept, one per row
    kept_by: list[str]  # which part completed each: "walk", "greedy", "exact" (or "beam", breaks.py)
    break_hist: np.ndarray  # placements by depth that spent a break
    walk: dict[str, Any] | None = None  # stopped mid-walk: the walk's state, to go on from (`restart`)


def odd_colours(table: np.ndarray, board0: np.ndarray, nb: np.ndarray, radix: int) -> tuple:
    """(bits, odd): a bit per colour (none for grey, nor past 62: a colour without one is not
    counted, which only weakens the cut) and the colours the broken joins of a complete board must
    hold an odd number of times: those the pieces hold an odd number of times, turned by the breaks
    between pre-placed pieces (the walk counts only its own). See breaks_walk `_odd_colours`."""
    bits = np.array([0 if c == 0 or c > 62 else 1 << c for c in range(radix)], np.int64)
    odd = np.bitwise_xor.reduce(bits[table[:, 0].ravel()]) if table.size else np.int64(0)
    col = table.reshape(-1, 4)
    for x in np.flatnonzero(board0 >= 0):
        for side in (1, 2):  # top and right: each join between two pre-placed pieces once
            y = nb[x, side]
            a = col[board0[x], side]
            if y >= 0 and board0[y] >= 0 and a != col[board0[y], (side + 2) % 4]:
                odd ^= bits[a] ^ bits[col[board0[y], (side + 2) % 4]]
    return bits, np.int64(odd)


def no_parity(radix: int) -> tuple:
    """Parity off: no colour has a bit, so no break is ever refused by it."""
    return np.zeros(radix, np.int64), np.int64(0)


def _check_kinds(patterns, orient_pat, cell_pat, piece_of, free, open_cells) -> None:
    """Refuse, in one line, a board with fewer free pieces of some kind (grey pattern) than its cells."""
    for k, pattern in enumerate(patterns):  # every kind of cell needs as many pieces of its kind
        fit = len(np.unique(piece_of[(orient_pat == pattern) & free[piece_of]]))
        need = int(((cell_pat == k) & open_cells).sum())
        if fit < need:
            raise InputError(
                f"optimizer=breaks needs a piece whose grey sides face out for every border cell; only "
                f"{fit} pieces fit the {need} cells of one kind: use optimizer=sa_compiled"
            )


def _geometry(cells, nb, board0, col, n: int, m: int, cell_pat, rim_breaks: bool = False) -> tuple:
    """The kernel's geometry per depth: the cell, its left and bottom neighbours (placed before it), its
    kind, its pre-placed orient, the colours a pre-placed piece above or to the right asks for and
    whether those joins may break, then the neighbours and kinds per cell."""
    depth = n * m
    position = np.empty(depth, np.int64)
    position[cells] = np.arange(depth)
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
    top_brk = (cc > 0) & (cc < m - 1) | rim_breaks  # a vertical join along the left or right rim never breaks
    right_brk = (rr > 0) & (rr < n - 1) | rim_breaks  # nor a horizontal one along the top or bottom rim
    kinds = cell_pat[cells].astype(np.int64)
    return (
        cells,
        left,
        bottom,
        kinds,
        fixed,
        req_top,
        req_right,
        top_brk,
        right_brk,
        nb,
        cell_pat.astype(np.int64),
    )


def _candidates(patterns, orient_pat, free, piece_of, col, radix: int, rim_breaks: bool = False):
    """(members, kstart, kmid, kend): the candidate lists keyed by (kind, left colour, bottom colour),
    members[kstart[key]:kmid[key]] the exact fits, members[kmid[key]:kend[key]] the fits with one break."""
    keys, breaks, members = [], [], []
    for k, pattern in enumerate(patterns):
        # unless rim_breaks, no break on a horizontal join of the top or bottom rim, nor a vertical one
        # of the left or right rim
        left_may = rim_breaks or not (pattern & 0b1010)
        bottom_may = rim_breaks or not (pattern & 0b0101)
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
    key_a, brk_a, mem_a = np.array(keys, np.int64), np.array(breaks, np.int64), np.array(members, np.int64)
    sort = np.lexsort((mem_a, brk_a, key_a))
    key_a, brk_a, mem_a = key_a[sort], brk_a[sort], mem_a[sort]
    n_keys = len(patterns) * radix * radix
    kstart = np.searchsorted(key_a, np.arange(n_keys), "left").astype(np.int64)
    kend = np.searchsorted(key_a, np.arange(n_keys), "right").astype(np.int64)
    kmid = np.searchsorted(key_a * 2 + brk_a, np.arange(n_keys) * 2 + 1, "left").astype(np.int64)
    return mem_a, kstart, kmid, kend


def _pattern_orients(patterns, orient_pat, free, piece_of) -> tuple[np.ndarray, np.ndarray]:
    """(orients, start): the free orients of each kind, kind k's at orients[start[k]:start[k + 1]]."""
    by_pat = np.argsort(orient_pat, kind="stable")
    pat_orients, pat_start = [], [0]
    for pattern in patterns:
        chosen = [o for o in by_pat if orient_pat[o] == pattern and free[piece_of[o]]]
        pat_orients += chosen
        pat_start.append(len(pat_orients))
    return np.array(pat_orients, np.int64), np.array(pat_start, np.int64)
