"""The scheduled-break backtracker's compiled walk: one restart over the candidate lists of
`breaks_tables.Tables` (`_restart`); its partial boards are completed by breaks_finish.py.

How it is laid out (issue 46): the inner loop (`_dive`) places and lifts pieces until an event (a new
deepest depth, a complete board, the next look at the node cap or the stop flag) and hands it to
`_walk`. Its candidate lists are packed (piece | orient << 16) and end in sentinels that are never
blocked, the exact fits of every key first and small enough to stay in the first-level cache, so the
scan is one load and one test an entry; its facts per depth, per orient and per cell are rows of a few
arrays. It walks the tree of the walk before it (benchmarks/breaks_walk_before.py) restart by restart
and is 1.1x as fast (`bench_eternity2 walk`): the scan reads 3.7 entries a placement and a placement
costs about two loop turns (one places, one backs up), so the cost is the turn's branches and
dependent loads, not the lists. On the same kind of tree (rows, no breaks, no quota) the perfect
search's walk turns about 1.5x as fast: 40.6 million nodes a second (a node: a placement or a dead
end) against this walk's 13.3 million placements, 26.6 million turns.

A restart is set up (`_prepare`) apart from its walk (`_walk`), whose scalars live in an array of
registers between calls: a walk pauses at a look at the stop flag (set, or a pause asked for) and goes
on from its arrays and registers as if it never had (issue 58: a checkpoint keeps a restart under way).
"""

from __future__ import annotations

import numba
import numpy as np

from core.bits import popcount
from puzzles.edge_matching.solvers.breaks_finish import _complete, _finish, _unmatched
from puzzles.edge_matching.solvers.dive_call import call_dive

COMPLETE_EVERY = 1 << 17  # placements between two greedy completions at a restart's deepest depth
TAIL_NODES = 1 << 16  # the exact completion's placements, at most (then its best so far)
STOP_EVERY = 1 << 12  # placements between two looks at the stop flag
ix = np.uint64  # an unsigned index: numba wraps no negative one (see `_dive`)
NO_BOUND = np.zeros(0, np.int64)  # a walk with no best shared (`_shared_cap`), given from Python
# (numba freezes a global array read-only, so compiled callers make their own)


@numba.njit(cache=True, nogil=True, inline="always")
def _better(score, best, board, out_best):
    """The best score so far: `score`, its board copied to out_best, when it is a board's (>= 0) and lower."""
    if 0 <= score < best:
        out_best[:] = board
        return score
    return best


@numba.njit(cache=True, nogil=True)
def _shuffled(entries0, kstart, kmid, kend):
    """The candidate entries with each key's exact part and break part shuffled (numba's generator,
    seeded by the caller)."""
    entries = entries0.copy()
    for k in range(kstart.shape[0]):
        for a, b in ((kstart[k], kmid[k]), (kmid[k], kend[k])):
            for t in range(b - a - 1, 0, -1):
                r = a + np.random.randint(t + 1)
                entries[a + t], entries[r] = entries[r], entries[a + t]
    return entries


@numba.njit(cache=True, nogil=True)
def _quota_first(entries, sides, kstart, kmid, kend):
    """Each key's exact part and break part ordered by the quota colours' sides, most first, the
    shuffled order kept among ties (Blackwood's value order: the quota colours are spent first)."""
    for k in range(kstart.shape[0]):
        for a, b in ((kstart[k], kmid[k]), (kmid[k], kend[k])):
            for x in range(a + 1, b):  # insertion sort, stable: the lists are short
                e, y = entries[x], x
                while y > a and sides[entries[y - 1]] < sides[e]:
                    entries[y] = entries[y - 1]
                    y -= 1
                entries[y] = e


@numba.njit(cache=True, nogil=True)
def _sentinel_lists(entries, piece_of, kstart, kmid, kend):
    """The shuffled lists packed for the walk: (entries, start, break_start, split). An entry is piece
    | orient << 16. Key k's exact fits run from start[k] to a MID sentinel, its one-break fits from
    break_start[k] to an END sentinel; the exact lists come first (positions below `split`), small
    enough to stay in the first-level cache. The sentinels are pieces P and P + 1 (P pieces), never
    blocked, so the scan is one load and one test per entry; keys without exact (break) fits share
    one MID (END)."""
    keys, pieces = kstart.shape[0], piece_of.max() + 1
    exact = 1 + np.sum(np.minimum(kmid - kstart, 1)) + np.sum(kmid - kstart)
    total = exact + 1 + np.sum(np.minimum(kend - kmid, 1)) + np.sum(kend - kmid)
    packed = np.empty(total, np.int32)
    start, break_start = np.zeros(keys, np.int64), np.full(keys, exact, np.int64)
    packed[0], packed[exact], at, after = pieces, pieces + 1, 1, exact + 1
    for k in range(keys):
        if kmid[k] > kstart[k]:
            start[k] = at
            for x in range(kstart[k], kmid[k]):
                packed[at] = piece_of[entries[x]] | (entries[x] << 16)
                at += 1
            packed[at] = pieces
            at += 1
        if kend[k] > kmid[k]:
            break_start[k] = after
            for x in range(kmid[k], kend[k]):
                packed[after] = piece_of[entries[x]] | (entries[x] << 16)
                after += 1
            packed[after] = pieces + 1
            after += 1
    return packed, start, break_start, exact


@numba.njit(cache=True, nogil=True)
def _restart(tables, quota, caps, seed, stop, outs, parity):
    """One restart of the depth-first search, walked to its end or its stop (`_prepare`, then `_walk`);
    (nodes, best unmatched, deepest depth, its breaks, exhausted, boards kept). tables = (geometry,
    lists, allow, board0) (`Tables`); parity = (bits, odd0)
    (`Tables.parity`: a colour's bit, the colours odd before the walk); outs = (hist, out_best,
    out_deep, found, kept, kept_by): hist[0, d] counts the placements at depth d (hist[1, d] those
    that spent a break), out_best gets the best
    complete board found (complete, or completed greedily or exactly), out_deep the deepest partial.

    At depth i the board has cells order[:i] filled (and the pre-placed ones); the cell's candidates
    are the list of its (kind, left, bottom) key, exact fits first, then one-break fits, reshuffled
    from `seed`; breaks so far may not pass allow[i], nor the best complete board's breaks minus one.
    quota = (sides, need): a placement at depth i is cut when the quota colours' sides placed so far
    (sides[o] per orient) stay below need[i + 1]. caps = (placements, abandon nodes, abandon depth,
    fewer): the restart stops after its placements, or after abandon nodes if it has not yet reached
    the abandon depth (Verhaard's restarts); it looks only for boards of fewer than `fewer` breaks
    (the run's best so far); with `hold` (caps[4], the ladder) every complete board of fewer counts,
    not only a better one, in found[unmatched] (outs[3]), and those of at most keep unmatched joins
    (caps[5]) are copied to the rows of outs[4] while it has rows, as are the completions of partial
    boards (kept_by: which part completed each, WALK, GREEDY or EXACT); the last returned figure is
    how many were. caps[6]: a deepest partial with at most this many empty cells is also completed
    exactly (`_finish`: the fewest unmatched joins, within TAIL_NODES placements); 0: never.
    caps[7], caps[8]: each new deepest depth at or past caps[7] gives the restart at least caps[8]
    placements more (libblackwood extends a restart that keeps going deeper); caps[9]: each key's
    candidates with the most quota sides first (`_quota_first`) instead of shuffled only.

    Parity: a break is refused when the colours left odd by the breaks so far (`odd`, one bit a
    colour, kept per break count along the path) outnumber twice the breaks the board may still have
    (see `_odd_colours`)."""
    state, lists2 = _prepare(tables, quota, caps[9], seed, parity)
    regs = np.zeros(REGS, np.int64)
    regs[PAUSE_AT] = NEVER
    return _walk(tables[0], tables[1], state, lists2, caps, stop, outs, regs, np.zeros(0, np.int64), 0, 0)


@numba.njit(cache=True, nogil=True)
def _prepare(tables, quota, quota_first, seed, parity):
    """A restart's walk set up (see `_restart`): (state, lists2) for `_walk`, its candidate lists
    shuffled from `seed` (and ordered by quota sides when `quota_first`). Why apart from the walk: a
    paused walk continued in another process is set up again from its seed, then given back the
    arrays the walk changes (`breaks_tables._give_back`)."""
    geometry, lists, allow, board0 = tables
    cells, left, bottom, pat, fixed, req_top, req_right = geometry[:7]
    col, piece_of, entries0, kstart, kmid, kend, radix = lists[:7]
    np.random.seed(seed)
    entries = _shuffled(entries0, kstart, kmid, kend)
    if quota_first:
        _quota_first(entries, quota[0], kstart, kmid, kend)
    packed, start, break_start, split = _sentinel_lists(entries, piece_of, kstart, kmid, kend)
    depth, pad = cells.shape[0], board0.shape[0]  # the pad cell: every missing neighbour, colour 0
    board = board0.copy()
    blocked = np.zeros(piece_of.max() + 3, np.uint8)  # pieces used; the sentinels never are
    shown = np.zeros((pad + 1, 2), np.int32)  # per cell, the colours its right and top sides show
    for x in range(pad):
        if board[x] >= 0:
            blocked[piece_of[board[x]]] = 1
            shown[x, 0], shown[x, 1] = col[board[x], 2], col[board[x], 1]
    per_depth = np.zeros((depth, ROW), np.int32)  # the walk's facts per depth, one row each
    per_depth[:, CELL], per_depth[:, KEY_BASE], per_depth[:, FIXED] = cells, pat * radix * radix, fixed
    per_depth[:, LEFT], per_depth[:, BOTTOM] = (
        np.where(left >= 0, left, pad),
        np.where(bottom >= 0, bottom, pad),
    )
    per_depth[:, ALLOW], per_depth[:, NEED] = allow, quota[1][1:]
    per_depth[:, CHECKS] = (req_top >= 0) | (req_right >= 0)
    per_orient = np.stack((col[:, 2], col[:, 1], quota[0], piece_of, col[:, 0], col[:, 3])).T.astype(np.int32)
    bits, odd0 = parity
    odd = np.zeros(depth + 2, np.int64)  # odd[b]: the colours odd after the path's first b breaks
    odd[0] = odd0
    lists2 = (packed, start.astype(np.int32), break_start.astype(np.int32), blocked, per_orient, bits, odd)
    walked = np.zeros((depth + 1, 4), np.int64)  # per depth: list cursor, key, breaks, quota sides
    return (per_depth, walked, shown, board, split), lists2


ROW = 8
REGS = 16  # a walk's registers, where a pause leaves them (`_walk`)
(STATUS, NODES, LAST_COMPLETE, CAP, KEPT, BEST, DEEP, DEEP_BRK, DEEP_SEEN, AT_DEPTH, FRESH, NODE_CAP,
 PAUSE_AT) = range(13)  # fmt: skip
STARTING, PAUSED, ENDED = 0, 1, 2  # regs[STATUS]
NEVER = 1 << 62  # regs[PAUSE_AT]: no pause but at a stop
CELL, KEY_BASE, LEFT, BOTTOM, ALLOW, FIXED, CHECKS, NEED = range(ROW)
AT, KEY, BREAKS, SIDES = range(4)
RIGHT, TOP, QUOTA, PIECE, LEFT_SIDE, BOTTOM_SIDE = range(6)


@numba.njit(cache=True, nogil=True, inline="always")
def _odd_colours(odd):
    """How many colours `odd` holds (its bits).

    Why parity: on a complete board each colour's sides number its matched joins twice plus its
    half-edges on broken joins, so the broken joins hold every colour an even number of times when
    the pieces hold it an even number of times (the official set: 24, 48 or 50 each). Each break still
    to come turns the parity of two colours, so a partial board whose breaks leave more colours odd
    than twice the breaks it may still have has no completion within them. Blackwood's solver and its
    ports do not check it; on the official set 7 of 8 deep restarts' deepest partials were such."""
    return popcount(ix(odd))  # one instruction, not a turn per colour


@numba.njit(cache=True, nogil=True)
def _fixed_flips(o, i, bits, col, req_top, req_right):
    """The colours (bits) a placement of orient o at depth i turns odd or even on its joins with
    pre-placed pieces above or to its right that break. Apart from the walk, like `_extra_breaks`."""
    flips = 0
    if req_top[i] >= 0 and col[o, 1] != req_top[i]:
        flips ^= bits[col[o, 1]] ^ bits[req_top[i]]
    if req_right[i] >= 0 and col[o, 2] != req_right[i]:
        flips ^= bits[col[o, 2]] ^ bits[req_right[i]]
    return flips


@numba.njit(cache=True, nogil=True)
def _extra_breaks(o, i, col, req_top, req_right, top_brk, right_brk):
    """The breaks candidate o makes with pre-placed pieces above and to its right (-1: a join that
    may not break). Apart from the walk: only the few cells beside a pre-placed piece need it."""
    cost = 0
    for req, side, may in ((req_top[i], 1, top_brk[i]), (req_right[i], 2, right_brk[i])):
        if req >= 0 and col[o, side] != req:
            if not may:
                return -1
            cost += 1
    return cost


@numba.njit(cache=True, nogil=True)
def _dive(state, lists2, i, fresh, nodes, until, hist, extra):
    """The walk's inner loop from depth i (entered afresh when `fresh`) until an event: (depth, nodes).
    Events: a placement reaching depth until[0] or node count until[1], or depth -1 (the tree is
    walked). until[2]: the breaks a board may not reach (the cap); until[3], until[4]: the radix and
    the first break-fit entry; until[5]: the breaks a complete board may have (parity's allowance).
    Few arrays, in rows: a walk with many spilled its registers. What made it 3.3x as fast (A/B, same
    trees: the official board, staircase, quota [3, 20, 7], 5e7 placements; 2.0-4.0x): no NRT call
    in the loop, and unsigned indices. A row view `per_depth[i]` took reference-count calls every turn
    (a depth's fields are read one by one); the call to a function of a break's colours took seven
    increfs and their decrefs a break placement (a third to two thirds of the placements spend one;
    the colours are worked out here: 1.8x, and 1.4x even inlined by numba, which still increfs).
    Unsigned indices (`ix`): numba adds no wrap of a negative one (issue 56; 1.08x). Each is >= 0 by
    construction (i backs up to -1 only to return)."""
    per_depth, walked, shown, board, _ = state
    packed, start, break_start, blocked, per_orient, bits, odd = lists2
    watch, check_at, cap, radix, split, final = until
    col, req_top, req_right = extra[:3]
    pieces = blocked.shape[0] - 2  # piece `pieces`: the sentinel between exact and break fits
    while True:
        u = ix(i)
        fx = per_depth[u, FIXED]  # fields one by one, no row view (its NRT calls, see above)
        if fresh:  # enter depth i: the list of its key, or its pre-placed piece
            if fx >= 0:
                walked[u, AT] = 0
            else:
                k = per_depth[u, KEY_BASE] + shown[ix(per_depth[u, LEFT]), 0] * radix
                k += shown[ix(per_depth[u, BOTTOM]), 1]
                walked[u, KEY], walked[u, AT] = k, start[ix(k)]
        placed, limit, base = False, min(per_depth[u, ALLOW], cap), walked[u, BREAKS]
        if fx >= 0:
            if walked[u, AT] == 0:
                q = walked[u, SIDES] + per_orient[ix(fx), QUOTA]
                walked[u, AT], walked[u + ix(1), BREAKS], walked[u + ix(1), SIDES] = 1, base, q
                placed = q >= per_depth[u, NEED]
        else:
            at, need = walked[u, AT], per_depth[u, NEED] - walked[u, SIDES]
            while True:
                v = packed[ix(at)]
                at += 1
                p = v & 0xFFFF
                if blocked[ix(p)]:
                    continue
                if p >= pieces:  # a sentinel: past the exact fits, the break fits if one is allowed
                    if p == pieces and base < limit:
                        at = break_start[ix(walked[u, KEY])]
                        continue
                    at -= 1
                    break
                o = v >> 16
                if per_orient[ix(o), QUOTA] < need:
                    continue
                c = 1 if at > split else 0
                if per_depth[u, CHECKS]:
                    more = _extra_breaks(o, i, *extra)
                    if more < 0 or c + more > 1:
                        continue
                    c += more
                if base + c > limit:
                    continue
                if c:  # a break: the colours it leaves odd must still pair up within the allowance
                    # the colours it turns odd or even: its listed break (the left join, else the
                    # bottom one) and its breaks with pre-placed pieces; written here, not called
                    now = odd[ix(base)]
                    if at > split:
                        here, there = per_orient[ix(o), LEFT_SIDE], shown[ix(per_depth[u, LEFT]), 0]
                        if here == there:
                            here = per_orient[ix(o), BOTTOM_SIDE]
                            there = shown[ix(per_depth[u, BOTTOM]), 1]
                        now ^= bits[ix(here)] ^ bits[ix(there)]
                    if per_depth[u, CHECKS]:
                        now ^= _fixed_flips(o, i, bits, col, req_top, req_right)
                    if _odd_colours(now) > 2 * (final - base - c):
                        continue
                    odd[ix(base + c)] = now
                cell = ix(per_depth[u, CELL])
                walked[u + ix(1), SIDES], walked[u + ix(1), BREAKS] = (
                    walked[u, SIDES] + per_orient[ix(o), QUOTA],
                    base + c,
                )
                board[cell], blocked[ix(p)] = o, 1
                shown[cell, 0], shown[cell, 1] = per_orient[ix(o), RIGHT], per_orient[ix(o), TOP]
                nodes += 1
                hist[0, u] += 1
                hist[1, u] += c  # the placements that spent a break: the chain model's break fits
                placed = True
                break
            walked[u, AT] = at
        if placed:
            i += 1
            if i >= watch or nodes >= check_at:
                return i, nodes
            fresh = True
            continue
        i -= 1  # back up: nothing (more) fits at depth i
        if i < 0:
            return i, nodes
        fresh = False
        u = ix(i)
        if per_depth[u, FIXED] < 0:
            cell = ix(per_depth[u, CELL])
            blocked[ix(per_orient[ix(board[cell]), PIECE])] = 0
            board[cell] = -1


WALK, GREEDY, EXACT = 0, 1, 2  # which part completed a board the ladder keeps (kept_by)


@numba.njit(cache=True, nogil=True, inline="always")
def _keep(board, score, part, keep, kept, kept_by, n_kept):
    """On the ladder: a complete board of at most `keep` unmatched joins copied to the next row of
    `kept`, with the part that completed it; the rows kept so far."""
    if score <= keep and n_kept < kept.shape[0]:
        kept[n_kept], kept_by[n_kept] = board, part
        n_kept += 1
    return n_kept


@numba.njit(cache=True, nogil=True, inline="always")
def _next_check(nodes, node_cap, abandon_nodes):
    """The node count of the walk's next look at its caps and the stop flag."""
    check_at = min(node_cap, (nodes // STOP_EVERY + 1) * STOP_EVERY)
    if nodes < abandon_nodes:
        check_at = min(check_at, abandon_nodes)
    return check_at


@numba.njit(cache=True, nogil=True, inline="always")
def _back_up(i, fixed, cells, used, piece_of, board):
    """Back up from a complete board: depth i - 1, its piece (unless pre-placed) lifted and free again."""
    i -= 1
    if fixed[i] < 0:
        lift = cells[i]
        used[piece_of[board[lift]]] = 0
        board[lift] = -1
    return i


@numba.njit(cache=True, nogil=True, inline="always")
def _shared_cap(best, cap, bound):
    """The breaks a board may still reach, told of the run's best (`bound`, shared by the threads'
    walks; empty: not shared): boards only better than every walk's best so far, and this one's own
    best (a greedy or exact completion's too) told to the others. Why: one thread's new best once
    reached the other's walk only at its next restart, minutes later in a long run."""
    if bound.shape[0] == 0:
        return cap
    if best < bound[0]:
        bound[0] = best  # a plain store: a race can only leave a walk looking for too many breaks a while
    return min(cap, bound[0] - 1)


@numba.njit(cache=True, nogil=True)
def _walk(geometry, lists, state, lists2, caps, stop, outs, regs, bound, dive, block):
    """`_restart`'s walk from depth 0 of the board `_prepare` set up (`state`): `_dive` between events,
    and here what an event asks for (a new deepest board, a complete one, a greedy completion and, a few
    cells short, an exact one, the node cap, the abandon rule, a look at the stop flag).

    Pauses (issue 58): at a look at the stop flag that finds it set, or at the first look at or past
    regs[PAUSE_AT] placements, the walk leaves its scalars in `regs` (regs[STATUS] = PAUSED) and returns
    what it has so far, as a stopped restart always did; called again with the same arrays and regs, it
    goes on as if it had never paused (the same placements, boards and counts). A stopped restart that
    is not called again ended where it paused. regs[STATUS] = ENDED: the restart is over.

    `bound` (hunting, not on the ladder): the run's best unmatched joins, shared by the walks of every
    thread (`_shared_cap`), read at each look at the stop flag and written at each better board.
    `dive`: 0, or the address of the board's generated dive (breaks_llvm_walk.py), the same tree walked
    faster, on `block`, the memory of state, lists2 and hist (`GeneratedDive.bind`'s views)."""
    node_cap, abandon_nodes, abandon_depth, fewer, hold, keep, tail, extend_depth, extend_nodes, _ = caps
    cells, _, _, _, fixed, req_top, req_right, top_brk, right_brk, nb, cell_pat = geometry
    col, piece_of, _, _, _, _, radix, pat_orients, pat_start = lists
    hist, out_best, out_deep, found, kept, kept_by = outs
    per_depth, walked, _, board, split = state
    extra = (col, req_top, req_right, top_brk, right_brk)
    depth, pause_at = cells.shape[0], regs[PAUSE_AT]
    allow_last = per_depth[depth - 1, ALLOW]
    exhausted = False
    if hold:  # the ladder counts boards at its level, not only better ones
        bound = bound[:0]
    if regs[STATUS] == PAUSED:  # go on from the pause: the rest of the turn it left
        nodes, last_complete, cap, n_kept = regs[NODES], regs[LAST_COMPLETE], regs[CAP], regs[KEPT]
        best, deep, deep_brk, deep_seen = regs[BEST], regs[DEEP], regs[DEEP_BRK], regs[DEEP_SEEN]
        i, fresh, node_cap = regs[AT_DEPTH], regs[FRESH] != 0, regs[NODE_CAP]
        check_at = _next_check(nodes, node_cap, abandon_nodes)
        if not fresh:  # a complete board: back up
            i = _back_up(i, fixed, cells, lists2[3], piece_of, board)
    else:
        nodes, last_complete, cap, n_kept = 0, 0, fewer - 1, 0
        best, deep, deep_brk, deep_seen = 1 << 30, -1, 0, -1
        i, fresh = 0, True
        check_at = min(node_cap, max(abandon_nodes, 1), STOP_EVERY)
    while True:
        watch, final = min(deep, deep_seen), min(allow_last, cap)
        if dive:
            i, nodes = call_dive(dive, block, i, int(fresh), nodes, watch, check_at, cap, radix, split, final)
        else:
            i, nodes = _dive(
                state, lists2, i, fresh, nodes, (watch, check_at, cap, radix, split, final), hist, extra
            )
        if i < 0:
            exhausted = True
            break
        brk = walked[i, BREAKS]
        if i > deep or (i == deep and brk < deep_brk):
            if i > deep and i >= extend_depth:  # a new deepest depth this far down: run on
                node_cap = max(node_cap, nodes + extend_nodes)
            deep, deep_brk = i, brk
            out_deep[:] = board
        if i == depth:  # a complete board: later ones must have fewer breaks (but on the ladder)
            score = _unmatched(board, col, nb)
            best = _better(score, best, board, out_best)
            if hold:
                found[min(score, found.shape[0] - 1)] += 1
                n_kept = _keep(board, score, WALK, keep, kept, kept_by, n_kept)
            else:
                cap = _shared_cap(best, brk - 1, bound)
                if best == 0:
                    break
        elif i >= deep_seen and (i > deep_seen or nodes - last_complete >= COMPLETE_EVERY):
            deep_seen, last_complete = i, nodes
            scratch = board.copy()
            score = _complete(scratch, col, piece_of, cells, nb, cell_pat, pat_orients, pat_start)
            best = _better(score, best, scratch, out_best)
            if hold and score >= 0:
                n_kept = _keep(scratch, score, GREEDY, keep, kept, kept_by, n_kept)
            if depth - i <= tail:  # a few cells short: their best completion, exactly
                scratch = board.copy()
                limit = score if score >= 0 else 1 << 30
                score = _finish(
                    scratch, col, piece_of, cells, nb, cell_pat, pat_orients, pat_start, limit, TAIL_NODES
                )
                best = _better(score, best, scratch, out_best)
                if hold and score >= 0:
                    n_kept = _keep(scratch, score, EXACT, keep, kept, kept_by, n_kept)
            cap = _shared_cap(best, cap, bound)  # the completions' best, told and heard
        fresh = i < depth
        if nodes >= check_at:  # the node cap, the abandon count or a look at the stop flag
            if nodes >= node_cap or (nodes >= abandon_nodes and deep < abandon_depth):
                break
            if nodes % STOP_EVERY == 0:
                cap = _shared_cap(best, cap, bound)
                if stop[0] != 0 or nodes >= pause_at:
                    regs[STATUS], regs[NODES], regs[LAST_COMPLETE], regs[CAP] = (
                        PAUSED,
                        nodes,
                        last_complete,
                        cap,
                    )
                    regs[KEPT], regs[BEST], regs[DEEP], regs[DEEP_BRK] = n_kept, best, deep, deep_brk
                    regs[DEEP_SEEN], regs[AT_DEPTH], regs[FRESH], regs[NODE_CAP] = (
                        deep_seen,
                        i,
                        int(fresh),
                        node_cap,
                    )
                    return nodes, best, deep, deep_brk, exhausted, n_kept
            check_at = _next_check(nodes, node_cap, abandon_nodes)
        if not fresh:  # a complete board: back up
            i = _back_up(i, fixed, cells, lists2[3], piece_of, board)
    regs[STATUS], regs[NODES] = ENDED, nodes
    return nodes, best, deep, deep_brk, exhausted, n_kept
