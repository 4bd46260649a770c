"""The local-search face of the strip: moves priced by re-packing only from the first changed position.

Why: the bottom-left decoder places pieces in genome order, so a move that changes the order (or a
piece's orientation) from position k on leaves the packing of positions 0..k-1 as it was. The state
keeps the board after every placed piece; `delta` re-packs from the board before position k on a
scratch board, and stops early when the new packing meets the old one again (same board after the
last changed position). `apply` does the same and stores the new boards.

Fitness (the face's, an int): `gaps * scale + min(overflow, scale - 1)`, where gaps is the strip's
own gap count and overflow counts the piece cells above the area bound (rows past ceil(area / width)),
a tie-break that tells an almost perfect packing from a poor one of the same height. With scale 1 the
face's fitness is exactly the gap count; the Chain divides by `scale` before the Objective sees it.

State: one flat int64 array (kernels copy it with ``best[:] = st``):
    st[0:n] the order, st[n:2n] the orientation of every piece (together: the strip's genome),
    then per position p = 0..n (before placing position p): low (first row not full), used (rows
    used) and overflow so far, then the boards, R rows each (row r of board p at BOARD + p * R + r;
    only rows low..used-1 are kept, rows past `used` are empty, rows before `low` full).
Move: (kind, i, j, o): SWAP positions i and j, INSERT (the piece at i moves to position j), REVERSE
positions i..j, TURN (the piece at position i takes orientation o).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from core.rng import randint, uniform

SWAP, INSERT, REVERSE, TURN = 0, 1, 2, 3
MIX_FIELDS = ("w_swap", "w_insert", "w_reverse", "w_turn", "tail", "repack")
DEFAULT_MIX = {"w_swap": 1.0, "w_insert": 1.0, "w_reverse": 0.5, "w_turn": 1.0, "tail": 0.0, "repack": 6}

StripInstance = namedtuple(
    "StripInstance",
    [
        "n",  # pieces
        "width",
        "rows",  # R: rows of a board, enough for any packing
        "cells",  # int64[n, O, K, 2]: the strip decoder's tables (puzzles/pentomino.py)
        "dims",  # int64[n, O, 3]: height, width, cell count
        "counts",  # int64[n]: orientations per piece (1 when fixed)
        "area",
        "bound",  # ceil(area / width): rows of a perfect packing
        "scale",
        "mix",  # float64[6]: move weights, tail and pieces re-packed by `repack` (see MIX_FIELDS)
        "scratch",  # int64[R]: a zero board delta packs on (left zero again)
    ],
)


def build_instance(strip, scale: int = 1, **mix) -> StripInstance:
    """The face's view of a `puzzles.pentomino.PentominoStrip`."""
    opts = dict(DEFAULT_MIX, **mix)
    counts = np.array([len(s) for s in strip.shapes], np.int64)
    if not strip.space.orientations:
        counts[:] = 1
    if counts.max() < 2:  # nothing turns
        opts["w_turn"] = 0.0
    rows = strip._rows
    return StripInstance(
        len(strip.pieces),
        strip.width,
        rows,
        strip._cells,
        strip._dims,
        counts,
        strip.area,
        -(-strip.area // strip.width),
        scale,
        np.array([opts[f] for f in MIX_FIELDS], np.float64),
        np.zeros(rows, np.int64),
    )


# ----------------------------------------------------------------------------- packing one piece


@njit(inline="always")
def _first_fit(board, inst, p, o, low):
    """First (row, col), rows top-down then columns left-right, where piece p in orientation o fits."""
    w, k = inst.dims[p, o, 1], inst.dims[p, o, 2]
    shifts = (1 << (inst.width - w + 1)) - 1
    i = low
    while True:
        blocked = 0
        for q in range(k):
            blocked |= board[i + inst.cells[p, o, q, 0]] >> inst.cells[p, o, q, 1]
        free = shifts & ~blocked
        if free:
            col = 0
            while not (free >> col) & 1:
                col += 1
            return i, col
        i += 1


@njit(inline="always")
def _put(board, inst, p, o, low, used, over):
    """Place piece p (orientation o) bottom-left on board; the new (low, used, overflow)."""
    i, col = _first_fit(board, inst, p, o, low)
    for q in range(inst.dims[p, o, 2]):
        r = i + inst.cells[p, o, q, 0]
        board[r] |= 1 << (inst.cells[p, o, q, 1] + col)
        if r >= inst.bound:
            over += 1
    used = max(used, i + inst.dims[p, o, 0])
    full = (1 << inst.width) - 1
    while board[low] == full:
        low += 1
    return low, used, over


@njit(inline="always")
def _value(inst, used, over):
    """The face's fitness from rows used and overflow cells."""
    return (used * inst.width - inst.area) * inst.scale + min(over, inst.scale - 1)


# ----------------------------------------------------------------------------- state


@njit(inline="always")
def _offsets(n):
    """Where the lows, useds, overflows and boards start in a state."""
    low = 2 * n
    return low, low + n + 1, low + 2 * (n + 1), low + 3 * (n + 1)


def state_size(inst) -> int:
    """Length of a state array."""
    return 2 * inst.n + 3 * (inst.n + 1) + (inst.n + 1) * inst.rows


@njit(cache=True)
def _repack_all(inst, st):
    """Fill the state's per-position lows, useds, overflows and boards from its genome."""
    n, R = inst.n, inst.rows
    lo, us, ov, bd = _offsets(n)
    board = np.zeros(R, np.int64)
    low, used, over = 0, 0, 0
    st[lo], st[us], st[ov] = 0, 0, 0
    for pos in range(n):
        p = st[pos]
        low, used, over = _put(board, inst, p, st[n + p], low, used, over)
        st[lo + pos + 1], st[us + pos + 1], st[ov + pos + 1] = low, used, over
        for r in range(low, used):
            st[bd + (pos + 1) * R + r] = board[r]


def state_from_genome(inst, genome) -> np.ndarray:
    """A state array from a strip genome (order, then orientations when the strip has them)."""
    st = np.zeros(state_size(inst), np.int64)
    genome = np.asarray(genome, np.int64)
    st[: len(genome)] = genome
    _repack_all(inst, st)
    return st


def genome_of(inst, st, oriented: bool) -> np.ndarray:
    """The strip genome of a state."""
    return st[: 2 * inst.n if oriented else inst.n].copy()


@njit(cache=True)
def fitness(inst, st):
    """The face's fitness packed from scratch from the state's genome (what every delta must agree with)."""
    n = inst.n
    board = np.zeros(inst.rows, np.int64)
    low, used, over = 0, 0, 0
    for pos in range(n):
        p = st[pos]
        low, used, over = _put(board, inst, p, st[n + p], low, used, over)
    return _value(inst, used, over)


# ----------------------------------------------------------------------------- moves


@njit(inline="always")
def _piece_at(st, mv, pos):
    """The piece at position pos after the move."""
    kind, i, j = mv[0], mv[1], mv[2]
    if kind == SWAP:
        if pos == i:
            return st[j]
        if pos == j:
            return st[i]
    elif kind == INSERT:
        if i < j and i <= pos < j:
            return st[pos + 1]
        if j < i and j < pos <= i:
            return st[pos - 1]
        if pos == j:
            return st[i]
    elif kind == REVERSE and i <= pos <= j:
        return st[i + j - pos]
    return st[pos]


@njit(inline="always")
def _span(mv):
    """First and last position a move changes."""
    kind, i, j = mv[0], mv[1], mv[2]
    if kind == TURN:
        return i, i
    return min(i, j), max(i, j)


@njit(inline="always")
def _orientation(inst, st, mv, p):
    """Orientation of piece p after the move."""
    if mv[0] == TURN and p == st[mv[1]]:
        return mv[3]
    return st[inst.n + p]


@njit(inline="always")
def _same_board(inst, st, board, pos, low, used):
    """Is the packing after position pos the state's own (same low, used and rows)?"""
    n, R = inst.n, inst.rows
    lo, us, _, bd = _offsets(n)
    if st[lo + pos + 1] != low or st[us + pos + 1] != used:
        return False
    for r in range(low, used):
        if st[bd + (pos + 1) * R + r] != board[r]:
            return False
    return True


@njit(inline="always")
def _clear(board, low, used):
    """Zero rows low..used-1 of the scratch board (rows outside were never written)."""
    for r in range(low, used):
        board[r] = 0


@njit(inline="always")
def delta(inst, st, mv):
    """Fitness change of a move, re-packing on the scratch board only from the first changed position."""
    n, R = inst.n, inst.rows
    lo, us, ov, bd = _offsets(n)
    first, last = _span(mv)
    board = inst.scratch
    low, used, over = st[lo + first], st[us + first], st[ov + first]
    for r in range(low, used):
        board[r] = st[bd + first * R + r]
    start_low = low
    value = _value(inst, st[us + n], st[ov + n])
    for pos in range(first, n):
        p = _piece_at(st, mv, pos)
        low, used, over = _put(board, inst, p, _orientation(inst, st, mv, p), low, used, over)
        if pos >= last and _same_board(inst, st, board, pos, low, used):
            over += st[ov + n] - st[ov + pos + 1]  # the rest packs as before
            used = st[us + n]
            break
    _clear(board, start_low, max(used, st[us + first]))
    return _value(inst, used, over) - value


@njit(inline="always")
def rewrite(inst, st, mv):
    """Write a move into the genome part of a state (order or orientation) and nothing else."""
    kind, i, j = mv[0], mv[1], mv[2]
    if kind == TURN:
        st[inst.n + st[i]] = mv[3]
    elif kind == SWAP:
        st[i], st[j] = st[j], st[i]
    elif kind == INSERT:
        p = st[i]
        step = 1 if i < j else -1
        for pos in range(i, j, step):
            st[pos] = st[pos + step]
        st[j] = p
    else:
        while i < j:
            st[i], st[j] = st[j], st[i]
            i += 1
            j -= 1


@njit(inline="always")
def apply(inst, st, mv):
    """Make a move: write the new order or orientation, re-pack from the first changed position."""
    n, R = inst.n, inst.rows
    lo, us, ov, bd = _offsets(n)
    first, last = _span(mv)
    rewrite(inst, st, mv)
    board = inst.scratch
    low, used, over = st[lo + first], st[us + first], st[ov + first]
    for r in range(low, used):
        board[r] = st[bd + first * R + r]
    start_low = low
    for pos in range(first, n):
        p = st[pos]
        low, used, over = _put(board, inst, p, st[n + p], low, used, over)
        if pos >= last and _same_board(inst, st, board, pos, low, used):
            break
        st[lo + pos + 1], st[us + pos + 1], st[ov + pos + 1] = low, used, over
        for r in range(low, used):
            st[bd + (pos + 1) * R + r] = board[r]
    _clear(board, start_low, max(used, st[us + n]))


@njit(inline="always")
def _position(inst, rng):
    """A position, drawn from the second half of the order with probability `tail`, else uniformly."""
    n = inst.n
    if uniform(rng) < inst.mix[4]:
        half = n // 2
        return n - half + randint(rng, half)
    return randint(rng, n)


@njit(inline="always")
def propose(inst, st, rng):
    """A random move: swap, insert, reverse or turn, by the mix's weights."""
    n, mix = inst.n, inst.mix
    x = uniform(rng) * (mix[0] + mix[1] + mix[2] + mix[3])
    i = _position(inst, rng)
    if x >= mix[0] + mix[1] + mix[2]:
        p = st[i]
        while inst.counts[p] < 2:  # some piece turns (w_turn is 0 when none does)
            i = _position(inst, rng)
            p = st[i]
        o = randint(rng, inst.counts[p] - 1)
        if o >= st[n + p]:
            o += 1
        return (TURN, i, i, o)
    j = _position(inst, rng)
    while j == i:
        j = _position(inst, rng)
    if x < mix[0]:
        return (SWAP, i, j, 0)
    if x < mix[0] + mix[1]:
        return (INSERT, i, j, 0)
    return (REVERSE, min(i, j), max(i, j), 0)


# ----------------------------------------------------------------------------- exact re-packing


@njit(inline="always")
def _first_empty(board, width, bound, row):
    """The first empty cell, row-major from `row`, in the rows of a perfect packing ((-1, -1): none)."""
    full = (1 << width) - 1
    for r in range(row, bound):
        if board[r] != full:
            c = 0
            while (board[r] >> c) & 1:
                c += 1
            return r, c
    return -1, -1


@njit(inline="always")
def _fits(board, inst, p, o, row, col):
    """Does piece p in orientation o lie inside the area bound and on empty cells at (row, col)?"""
    if col < 0 or col + inst.dims[p, o, 1] > inst.width or row + inst.dims[p, o, 0] > inst.bound:
        return False
    for q in range(inst.dims[p, o, 2]):
        if (board[row + inst.cells[p, o, q, 0]] >> (inst.cells[p, o, q, 1] + col)) & 1:
            return False
    return True


@njit(inline="always")
def _toggle(board, inst, p, o, row, col):
    """Place (or, a second time, lift) piece p in orientation o at (row, col)."""
    for q in range(inst.dims[p, o, 2]):
        board[row + inst.cells[p, o, q, 0]] ^= 1 << (inst.cells[p, o, q, 1] + col)


@njit(cache=True)
def complete(inst, board, pieces, cap, order, turns):
    """Place `pieces` in the rows of a perfect packing, each covering the first empty cell (Scott's
    backtracking; a cell may stay a hole while the area bound allows); at most `cap` placements tried.

    Why the first empty cell: pieces listed in the order of their first cells are then packed by the
    decoder exactly where they lie (puzzles/rectangles.py, strip_genome). On success `order` and
    `turns` hold the pieces in that order with their orientations. Returns (placements tried, found).
    """
    k, most = pieces.shape[0], inst.cells.shape[1]
    slack = inst.bound * inst.width - inst.area
    top = k + slack + 1
    cr, cc, nxt = np.zeros(top, np.int64), np.zeros(top, np.int64), np.zeros(top, np.int64)
    who, how, where = np.full(top, -1, np.int64), np.zeros(top, np.int64), np.zeros(top, np.int64)
    used = np.zeros(k, np.bool_)
    holes, placed, tried, d = 0, 0, 0, 0
    cr[0], cc[0] = _first_empty(board, inst.width, inst.bound, 0)
    if cr[0] < 0:
        return tried, k == 0
    while d >= 0:
        if who[d] >= 0:  # undo this depth's last choice
            _toggle(board, inst, pieces[who[d]], how[d], cr[d], where[d])
            used[who[d]] = False
            placed -= 1
        elif who[d] == -2:
            board[cr[d]] ^= 1 << cc[d]
            holes -= 1
        who[d] = -1
        while nxt[d] <= k * most and who[d] == -1:
            t = nxt[d]
            nxt[d] += 1
            if t == k * most:  # leave the cell empty
                if holes < slack:
                    board[cr[d]] ^= 1 << cc[d]
                    holes += 1
                    who[d] = -2
                break
            s, o = t // most, t % most
            p = pieces[s]
            if used[s] or o >= inst.counts[p]:
                continue
            tried += 1
            if tried > cap:
                return tried - 1, False
            col = cc[d] - inst.cells[p, o, 0, 1]
            if _fits(board, inst, p, o, cr[d], col):
                _toggle(board, inst, p, o, cr[d], col)
                used[s] = True
                placed += 1
                who[d], how[d], where[d] = s, o, col
        if who[d] == -1:
            d -= 1
            continue
        if placed == k:
            j = 0
            for e in range(d + 1):
                if who[e] >= 0:
                    order[j], turns[j] = pieces[who[e]], how[e]
                    j += 1
            return tried, True
        r, c = _first_empty(board, inst.width, inst.bound, cr[d])
        if r >= 0:
            d += 1
            cr[d], cc[d], nxt[d], who[d] = r, c, 0, -1
    return tried, False


@njit(cache=True)
def _repack_tail(inst, st, k, cap):
    """Re-pack the last k pieces exactly inside the area bound; the fitness change (never worse) and
    the placements tried."""
    n, R = inst.n, inst.rows
    lo, us, ov, bd = _offsets(n)
    first = n - k
    before = _value(inst, st[us + n], st[ov + n])
    if st[ov + first] > 0:  # the kept pieces already reach past the bound
        return 0, 0
    board = np.zeros(R, np.int64)
    full = (1 << inst.width) - 1
    board[: st[lo + first]] = full
    for r in range(st[lo + first], st[us + first]):
        board[r] = st[bd + first * R + r]
    order, turns = np.zeros(k, np.int64), np.zeros(k, np.int64)
    tried, found = complete(inst, board, st[first:n].copy(), cap, order, turns)
    if not found:
        return 0, tried
    saved = st[: 2 * n].copy()
    st[first:n] = order
    for j in range(k):
        st[n + order[j]] = turns[j]
    _repack_all(inst, st)
    change = _value(inst, st[us + n], st[ov + n]) - before
    if change >= 0:
        st[: 2 * n] = saved
        _repack_all(inst, st)
        return 0, tried
    return change, tried


def repack(inst, st, rng, steps, size):
    """The face's large step: re-pack the last `repack` pieces exactly (at most steps * size**2
    placements tried); the board never gets worse. Returns (fitness change, placements tried)."""
    k = min(int(inst.mix[5]), inst.n)
    return _repack_tail(inst, st, k, steps * size * size)
