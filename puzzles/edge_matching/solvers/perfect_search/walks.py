"""The perfect search's compiled walks: depth-first over the candidate lists (`_walk`, `_walk_sets`),
the look-ahead's books, and a job's prefix replayed onto a fresh board.

Why the walk is fast (issue 34): a list ends in a sentinel entry whose piece is never blocked, so the
scan is one load and one test per entry (`blocked`: a piece used, or a twin whose earlier twin is not,
kept up to date on each placement rather than worked out per entry); a candidate's colours are read
only once its piece is free; one resume cursor per depth; the node cap and the stop flag share one
test. Each walk takes `bounds` = (first depth, stop depth, limit, max nodes) and `io` = (stop flag,
progress, record, tally, cursor).
"""

from __future__ import annotations

import numba
import numpy as np

from core.bits import popcount, trailing_zeros

ix = np.uint64  # an unsigned index: numba wraps no negative one (see `_walk_sets`)
STOP_EVERY = 1 << 14  # nodes between two looks at the stop flag (and two progress reports)
NONE = -1


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
def _key_unsigned(colours, d, base, key_at, key_weight):
    """`_key` with unsigned indices, for `_walk_sets`."""
    u = ix(d)
    key = (
        base[u] + colours[ix(key_at[u, 0])] * key_weight[u, 0] + colours[ix(key_at[u, 1])] * key_weight[u, 1]
    )
    return key + colours[ix(key_at[u, 2])] * key_weight[u, 2] + colours[ix(key_at[u, 3])] * key_weight[u, 3]


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
def _walk(geometry, lists, state, lookahead, tallied, bounds, io):
    """Depth-first search from the first depth (everything before it is placed) to the stop depth:
    (status, boards reached at the stop depth (up to `limit`), nodes, placements). A node is a turn of
    the loop, a placement or a dead end; placements are the pieces placed, the community's node (a tree
    has about twice as many of ours, its dead ends). Status 1: the subtree is done or
    the limit reached; -1: out of nodes; -2: `stop[0]` was set (read every STOP_EVERY nodes, when the
    nodes walked so far are also written to `progress[0]`). record[k, :stop_depth]: the candidate
    chosen at each depth on the k-th board reached (rows beyond record's length are not kept).
    `tallied` (a constant, compiled apart): tally[0] += entries read, tally[1] += read and blocked."""
    order, nb, need, key_at, key_weight, check_side, check_len, base = geometry
    starts, piece_of, turn_of, shows, side_kind, radix = lists
    next_twin, blocked, shown, piece, chosen, supply, demand = state
    first_depth, stop_depth, limit, max_nodes = bounds
    stop, progress, record, tally, cursor = io
    colours = shown.reshape(-1)  # a view: the key reads it flat
    sentinel = blocked.shape[0] - 1
    nxt = cursor[3:]  # the resume cursor per depth
    if cursor[0] == -2:  # the tree was walked to its end
        return 1, cursor[2], 0, 0
    d, fresh, found = _resume(cursor, first_depth)
    nodes, placements = 0, 0
    check_at = STOP_EVERY if max_nodes >= STOP_EVERY else max_nodes + 1
    while True:
        if d == stop_depth:
            found = _reached(record, found, chosen, stop_depth)
            if found >= limit or d == first_depth:
                return 1, found, nodes, placements
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
            placements += 1
        else:
            if d == first_depth:
                cursor[0], cursor[2] = -2, found
                return (-1 if nodes > max_nodes else 1), found, nodes, placements
            d -= 1
            _lift(order[d], chosen[d], lists, nb, need, state, lookahead)
        if nodes >= check_at:  # the node cap or a look at the stop flag, after the node: a call resumes
            status, check_at = _look(nodes, max_nodes, d, fresh, found, stop, progress, cursor)
            if status != 0:
                return status, found, nodes, placements


@numba.njit(cache=True, nogil=True, inline="always")
def _resume(cursor, first_depth):
    """(depth, fresh, boards found) where a walk starts: its first depth, or where the last call ran
    out of nodes (`turns`' slices)."""
    if cursor[0] < 0:
        return first_depth, True, 0
    return cursor[0], cursor[1] != 0, cursor[2]


@numba.njit(cache=True, nogil=True, inline="always")
def _reached(record, found, chosen, stop_depth):
    """A board reached at the stop depth: kept in `record` while it has rows; the boards found now."""
    if found < record.shape[0]:
        record[found, :stop_depth] = chosen[:stop_depth]
    return found + 1


@numba.njit(cache=True, nogil=True, inline="always")
def _look(nodes, max_nodes, d, fresh, found, stop, progress, cursor):
    """At a walk's look: its place saved in `cursor`; (status: -1 past the node cap, -2 stopped, 0 walk
    on; the node count of the next look)."""
    cursor[0], cursor[1], cursor[2] = d, fresh, found
    if nodes > max_nodes:
        return -1, max_nodes
    if nodes % STOP_EVERY == 0:
        progress[0] = nodes
        if stop[0] != 0:
            return -2, max_nodes
    after = (nodes // STOP_EVERY + 1) * STOP_EVERY
    return 0, (after if after <= max_nodes else max_nodes + 1)


@numba.njit(cache=True, nogil=True)
def _walk_plain(geometry, lists, state, bounds, io):
    """`_walk` without the look-ahead, compiled apart: a flag tested in the walk, even one always off,
    slowed it 2x; here it is a constant the compiler removes."""
    return _walk(geometry, lists, state, False, False, bounds, io)


@numba.njit(cache=True, nogil=True)
def _walk_books(geometry, lists, state, bounds, io):
    """`_walk` with the look-ahead's books."""
    return _walk(geometry, lists, state, True, False, bounds, io)


@numba.njit(cache=True, nogil=True)
def _walk_tallied(geometry, lists, state, bounds, io):
    """`_walk` without the look-ahead, counting the entries it reads (`Board.tally`)."""
    return _walk(geometry, lists, state, False, True, bounds, io)


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
def _walk_sets(geometry, lists, sets, state, bounds, io):
    """`_walk` on a board of at most 64 pieces, without look-ahead or checked sides: the same candidates
    in the same order, so the same nodes and boards, faster. A list is also a set of its pieces
    (`members[key]`, a uint64), the pieces free another; the next candidate is the lowest bit of their
    AND, so no entry of a used piece is read and no unpredictable test per entry is made (issue 34:
    most entries read were of used pieces). A list holds each piece's turns side by side, sorted by
    piece: `first[rank[key] + members below p]` is piece p's first entry, its other turns follow.
    The cursor holds per depth the pieces still to try, the next entry and the list's key.
    (Reading the next depth's list at each placement, to skip the turn of a dead end, was 9% slower.)
    Indices are unsigned (`ix`): numba adds no wrap of a negative index (1.27x, as in generated.py)."""
    order, nb, need, key_at, key_weight, check_side, check_len, base = geometry
    starts, piece_of, turn_of, shows, side_kind, radix = lists
    members, rank, first = sets
    next_twin, blocked, shown, piece, chosen, supply, demand = state
    first_depth, stop_depth, limit, max_nodes = bounds
    stop, progress, record, tally, cursor = io
    colours = shown.reshape(-1)
    shown_at, shows_at = shown.view(np.int64).reshape(-1), shows.view(np.int64).reshape(-1)
    depths = (cursor.shape[0] - 4) // 4
    untried = cursor[4 : 4 + depths].view(np.uint64)
    at = cursor[4 + depths : 4 + 2 * depths]
    keys = cursor[4 + 2 * depths : 4 + 3 * depths]
    one = np.uint64(1)
    if cursor[0] == -2:
        return 1, cursor[2], 0, 0
    d, fresh, found = _resume(cursor, first_depth)
    free = _free_set(blocked)
    nodes, placements = 0, 0
    check_at = STOP_EVERY if max_nodes >= STOP_EVERY else max_nodes + 1
    while True:
        if d == stop_depth:
            found = _reached(record, found, chosen, stop_depth)
            if found >= limit or d == first_depth:
                _unpack(free, blocked)
                return 1, found, nodes, placements
            fresh = False
            d -= 1
            free = _lift_set(free, piece_of[ix(chosen[ix(d)])], next_twin)
            continue
        if fresh:
            key = keys[ix(d)] = _key_unsigned(colours, d, base, key_at, key_weight)
            left = members[ix(key)] & free
            i = 0
        else:
            key, left, i = keys[ix(d)], untried[ix(d)], at[ix(d)]
            if piece_of[ix(i)] != piece_of[ix(chosen[ix(d)])]:  # no other turn of the piece just lifted
                i = 0
        if i == 0 and left != 0:
            p = trailing_zeros(left)
            left &= left - one
            i = first[ix(rank[ix(key)] + popcount(members[ix(key)] & ((one << ix(p)) - one)))]
        nodes += 1
        if i != 0:
            p = piece_of[ix(i)]
            free &= ~(one << np.uint64(p))
            q = next_twin[ix(p)]
            if q >= 0:
                free |= one << np.uint64(q)
            chosen[ix(d)] = i
            shown_at[ix(order[ix(d)])] = shows_at[ix(i)]  # a cell's four int16 colours as one 8-byte word
            untried[ix(d)], at[ix(d)] = left, i + 1
            placements += 1
            fresh = True
            d += 1
        else:
            fresh = False
            if d == first_depth:
                cursor[0], cursor[2] = -2, found
                _unpack(free, blocked)
                return (-1 if nodes > max_nodes else 1), found, nodes, placements
            d -= 1
            free = _lift_set(free, piece_of[ix(chosen[ix(d)])], next_twin)
        if nodes >= check_at:
            status, check_at = _look(nodes, max_nodes, d, fresh, found, stop, progress, cursor)
            if status != 0:
                _unpack(free, blocked)
                return status, found, nodes, placements


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
