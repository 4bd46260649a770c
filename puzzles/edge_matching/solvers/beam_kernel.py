"""The beam's compiled kernels (beam.py): one beam over a board's tables (`_beam`), the extensions of
every kept board at a cell priced in parallel (`_fast` where a cell's placed neighbours are its left and
top, `_full` otherwise) and the boards kept (`_select`).
"""

from __future__ import annotations

import os

import numba
import numpy as np

from puzzles.edge_matching.board import unmatched_join

# OpenMP threads that spin while they wait make a busy machine's beam crawl (Eternity II, width 32, two
# threads beside other jobs: 4.7 s spinning, 0.16 s passive or on one thread); read when numba first
# starts its threads, so set here, before any beam runs (a value the user set is kept).
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


@numba.njit(cache=True, nogil=True)
def _select(cost, keep):
    """Indices of the `keep` lowest costs, ties at the threshold drawn at random.

    Costs are unmatched joins, so below 4096 (`Prepared` refuses boards with more joins); the scan writes
    without branching (every index is written, and kept only where its cost passes)."""
    hist = np.zeros(4096, np.int64)
    for c in cost:
        hist[c] += 1
    threshold, below = 0, 0
    while below + hist[threshold] < keep:
        below += hist[threshold]
        threshold += 1
    chosen, ties = np.empty(keep + 1, np.int64), np.empty(hist[threshold] + 1, np.int64)
    j = t = 0
    for i in range(cost.shape[0]):
        c = cost[i]
        chosen[j] = i
        j += c < threshold
        ties[t] = i
        t += c == threshold
    for i in range(keep - j):  # the first keep - j of a random shuffle of the ties
        r = i + np.random.randint(t - i)
        ties[i], ties[r] = ties[r], ties[i]
        chosen[j + i] = ties[i]
    return chosen[:keep]


@numba.njit(cache=True, inline="always")
def _unmatched(table, facing, orient):
    """Joins of the orient with its placed neighbours (facing: the colour each shows, -1: none)
    that the edge-matching rule calls unmatched."""
    turns, add = table.shape[1], 0
    for s in range(4):
        if facing[s] >= 0:
            add += unmatched_join(table[orient // turns, orient % turns, s], facing[s])
    return add


DE_BRUIJN = 0x03F79D71B4CB0A89  # multiply a lone bit by it: the top 6 bits name the bit
BIT_OF = np.zeros(64, np.int64)
BIT_OF[[((1 << b) * DE_BRUIJN % 2**64) >> 58 for b in range(64)]] = np.arange(64)


@numba.njit(cache=True, inline="always")
def _bit(low):
    """The index of the lone bit set in `low`."""
    return BIT_OF[((low * DE_BRUIJN) >> 58) & 63]


@numba.njit(cache=True, inline="always")
def _free(used, p):
    """Is piece p not in the bitset `used`?"""
    return (used[p // 64] >> (p % 64)) & 1 == 0


@numba.njit(cache=True, inline="always")
def _shown(table, orient, side):
    """The colour an orient (piece * turns + turn) shows on a side."""
    turns = table.shape[1]
    return table[orient // turns, orient % turns, side]


@numba.njit(cache=True, nogil=True, parallel=True)
def _beam(table, pools, fixed, order, keeps, cap, seed, stop, lists, slots, ring):
    """(best board found, an orient per cell; its unmatched inner edges; candidates priced; finished).

    A kept board is its last `ring` placements (slot = position in the order % ring: every
    neighbour a later cell reads lies within that many), its pieces in use (a bitset) and its cost; the boards
    themselves are a history of one (parent, orient) per kept board and cell, walked back at the end.
    So a board costs tens of bytes a cell to carry, not its whole length (`slots`: the ring slot of
    each cell's placed neighbours, -1 for none; `pools`: the pool tables, see `beam_tables.pools`).
    An entry prices only the pieces it has left, so late cells are cheap and the beam keeps more
    boards there (`keeps`). Candidates of entry e go to slots from start[e], so the beam does not
    depend on the threads. Once another thread sets stop[0], it gives up at its next look (twice a cell).

    At a cell whose placed neighbours are its left, its top or both (`lists.fast`), an entry first
    prices only the orients that match its left or its top colour (`lists`), a tenth of its pool; any
    other costs a join more for each placed neighbour. When those are too few to fill the beam, or a
    board that many joins below the threshold could gain, the cell is priced in full (`_full`).
    """
    fast = lists.fast
    pool_mask, pool_orients, pool_count, cell_pool = pools
    np.random.seed(seed)
    cells, turns, words = order.shape[0], table.shape[1], pool_mask.shape[1]
    width = keeps.max()
    last = np.zeros((2, width, ring), np.int16)  # two generations: the beam and its successor
    used = np.zeros((2, width, words), np.int64)
    cost = np.zeros((2, width), np.int64)
    offset = np.zeros(cells + 1, np.int64)
    for i in range(cells):
        offset[i + 1] = offset[i] + keeps[i]
    parent, placed = np.empty(offset[cells], np.int32), np.empty(offset[cells], np.int16)
    c_entry, c_orient, c_cost = np.empty(cap, np.int32), np.empty(cap, np.int16), np.empty(cap, np.int32)
    out = (c_entry, c_orient, c_cost)
    start = np.zeros(width + 1, np.int64)
    size, now, priced = 1, 0, 0
    for i in range(cells):
        if stop[0] != 0:
            return np.empty(0, np.int64), -1, priced, False
        x, pool = order[i], cell_pool[order[i]]
        full = True
        if fast[i]:
            at_left, at_top = slots[i, 0], slots[i, 1]  # one may be -1: no placed neighbour there
            _fast(table, lists, pool, at_left, at_top, last[now], used[now], cost[now], size, start, out)
            k = start[size]
            priced += k
            if stop[0] != 0:  # a wide beam's cell takes a while: look again before selecting
                return np.empty(0, np.int64), -1, priced, False
            if k >= keeps[i]:
                chosen = _select(c_cost[:k], keeps[i])
                threshold = 0
                for j in range(keeps[i]):
                    threshold = max(threshold, c_cost[chosen[j]])
                omitted = (at_left >= 0) + (at_top >= 0)  # the least an orient matching neither would add
                full = cost[now, :size].min() + omitted < threshold
        if full:
            _full(table, pools, fixed[x], x, slots[i], last[now], used[now], cost[now], size, start, out, cap)
            k = start[size]
            priced += k
            chosen = _select(c_cost[:k], min(keeps[i], k))
        keep, nxt, slot = min(keeps[i], k), 1 - now, i % ring
        for j in numba.prange(keep):
            e, o = c_entry[chosen[j]], c_orient[chosen[j]]
            last[nxt, j], used[nxt, j] = last[now, e], used[now, e]
            last[nxt, j, slot] = o
            p = o // turns
            used[nxt, j, p // 64] |= 1 << (p % 64)
            cost[nxt, j] = c_cost[chosen[j]]
            parent[offset[i] + j], placed[offset[i] + j] = e, o
        size, now = keep, nxt
    best = np.argmin(cost[now, :size])
    board, e = np.empty(cells, np.int64), best
    for i in range(cells - 1, -1, -1):
        board[order[i]] = placed[offset[i] + e]
        e = parent[offset[i] + e]
    return board, cost[now, best], priced, True


@numba.njit(cache=True, nogil=True, parallel=True)
def _fast(table, lists, pool, at_left, at_top, last, used, cost, size, start, out):
    """`_full` for a cell whose placed neighbours are its left, its top or both (ring slots at_left,
    at_top; -1: none): only the pool's orients that match the left or the top colour."""
    c_entry, c_orient, c_cost = out
    starts, members, member_piece, member_left, member_top = (
        lists.starts,
        lists.members,
        lists.piece,
        lists.left,
        lists.top,
    )
    for e in numba.prange(size):  # matching candidates per entry
        left = _shown(table, last[e, at_left], 2) if at_left >= 0 else -1
        top = _shown(table, last[e, at_top], 3) if at_top >= 0 else -1
        count = 0
        if left >= 0:
            for j in range(starts[pool, 0, left], starts[pool, 0, left + 1]):
                count += _free(used[e], member_piece[j])
        if top >= 0:
            for j in range(starts[pool, 1, top], starts[pool, 1, top + 1]):
                count += _free(used[e], member_piece[j]) and member_left[j] != left
        start[e + 1] = count
    for e in range(size):
        start[e + 1] += start[e]
    for e in numba.prange(size):
        left = _shown(table, last[e, at_left], 2) if at_left >= 0 else -1
        top = _shown(table, last[e, at_top], 3) if at_top >= 0 else -1
        k = start[e]
        for side in range(2):
            shown = left if side == 0 else top
            if shown < 0:
                continue
            for j in range(starts[pool, side, shown], starts[pool, side, shown + 1]):
                if not _free(used[e], member_piece[j]) or (side == 1 and member_left[j] == left):
                    continue
                add = 0
                if left >= 0:
                    add += unmatched_join(member_left[j], left)
                if top >= 0:
                    add += unmatched_join(member_top[j], top)
                c_entry[k], c_orient[k], c_cost[k] = e, members[j], cost[e] + add
                k += 1


@numba.njit(cache=True, nogil=True, parallel=True)
def _full(table, pools, fixed, x, slots, last, used, cost, size, start, out, cap):
    """Price every candidate of every entry at cell x (its pool's free pieces in every orient; only the
    fixed orient where `fixed` >= 0) into out = (entry, orient, cost) from slot start[e] on; their
    count ends in start[size]. slots[s]: the ring slot of the neighbour across side s, -1: none."""
    c_entry, c_orient, c_cost = out
    pool_mask, pool_orients, pool_count, cell_pool = pools
    pool, words = cell_pool[x], pool_mask.shape[1]
    for e in numba.prange(size):  # candidates per entry
        count = 1
        if fixed < 0:
            count = 0
            for w in range(words):
                bits = pool_mask[pool, w] & ~used[e, w]
                while bits != 0:
                    low = bits & -bits
                    count += pool_count[pool, 64 * w + _bit(low)]
                    bits ^= low
        start[e + 1] = count
    for e in range(size):
        start[e + 1] += start[e]
    if start[size] > cap:  # keep_schedule's bound is wrong: fail rather than write past the end
        raise RuntimeError("beam search: more candidates than keep_schedule allowed for")
    for e in numba.prange(size):
        facing = np.empty(4, np.int64)  # the colour each placed neighbour shows the cell, -1: none
        for s in range(4):
            q = slots[s]
            facing[s] = _shown(table, last[e, q], (s + 2) % 4) if q >= 0 else -1
        k = start[e]
        if fixed >= 0:
            c_entry[k], c_orient[k], c_cost[k] = e, fixed, cost[e] + _unmatched(table, facing, fixed)
            continue
        for w in range(words):
            bits = pool_mask[pool, w] & ~used[e, w]
            while bits != 0:
                low = bits & -bits
                bits ^= low
                p = 64 * w + _bit(low)
                for j in range(pool_count[pool, p]):
                    o = pool_orients[pool, p, j]
                    c_entry[k], c_orient[k], c_cost[k] = e, o, cost[e] + _unmatched(table, facing, o)
                    k += 1
