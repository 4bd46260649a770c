"""Plateau-walking destroy-and-repair for edge matching (adaptive large neighbourhood search).

Why: a beam board of Eternity II is a local optimum of every exact neighbourhood our windows try, so
an exact refill certifies its basin and cannot leave it. What reached 461 publicly frees a region,
refills it by a short anneal over the freed pieces, ACCEPTS an equal result always and a worse one with
probability exp(-d / T) (T = 1: 0.37 for one join, 0.14 for two), goes back to the best board after
`patience` iterations without a new best, and learns which way of freeing cells pays (operator
weights, scored and decayed as in ALNS). The board walks its plateau instead of sitting on it.

Operators (kernel_rows.PLATEAU_OPERATORS, in this order; the `ops` setting is a bit mask of the ones in play):
  square  a random 4 x 4 square;        worst   the 5 x 5 window with the most unmatched joins;
  grow    a region grown at random from a mismatch (16 to `region` cells);
  path    the cells on an L path between two nearby mismatches and around its ends;
  band    a stretch of the 4-row (or 4-column) band with most mismatches (`region` cells);
  chain   12 to 16 cells grown from a mismatch through the weakest neighbours;
  window  the exact re-fill of windows.py (a 2 x 2 block and 6 fitting cells, branch and bound);
  twin    the best of 32 swaps of a piece on a mismatch with a piece showing 3 of its 4 colours
          (a plateau or -1 step between far-apart cells).
The first six free cells and repair them: their pieces are shuffled (each within its class), then
annealed (swaps and turns among the freed cells only, `moves` per cell, T from t_hi to t_lo), and the
best refill of the anneal is the result.

`plateau_search` keeps the kernel contract of heuristics/kernels.py (its settings: the `plateau` row
of kernel_rows.py); one evaluation is one priced move (an anneal's move, a twin swap) or placement (the exact
re-fill). Its own control slots: ctl[SINCE] iterations since the last new best, ctl[READY] 1 once the
weights are set, then per operator the PLATEAU_STATS counts (ctl[COUNTS + 4 * op + s]) and its weight
x WEIGHT_ONE (ctl[WEIGHTS + op]).

Its parts: plateau_operators.py frees the cells (the first six operators), plateau_repair.py re-fills
them (the anneal) and makes the twin swap; this module is the search that picks, accepts and learns.

Speed: numba's reference counting (an atomic NRT call per array of inst, when a call or an inlined
helper with branches copies it) took most of the time; the anneal, the twin swap and the windows keep
it out of their loops (8x as many evaluations a second on Eternity II, same boards). Numba's cache
of this kernel checks only this file: edit it too when a module it calls changes.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from core.rng import randint, uniform
from heuristics.kernels import BEST, CURRENT, EVALS
from puzzles.edge_matching.board_moves import apply
from puzzles.edge_matching.face_instance import turning
from puzzles.edge_matching.kernel_rows import (
    PLATEAU,
    PLATEAU_OPERATORS,
    PLATEAU_STATS,
)
from puzzles.edge_matching.kernel_rows import (
    PLATEAU_COUNTS as COUNTS,
)
from puzzles.edge_matching.kernel_rows import (
    PLATEAU_READY as READY,
)
from puzzles.edge_matching.kernel_rows import (
    PLATEAU_SINCE as SINCE,
)
from puzzles.edge_matching.plateau_operators import _destroy
from puzzles.edge_matching.plateau_repair import _place, _twin_table, anneal, twin_swap
from puzzles.edge_matching.windows import _window, resolve

K = len(PLATEAU_OPERATORS)
WEIGHTS = COUNTS + len(PLATEAU_STATS) * K  # where the weights start in ctl
OPS_MASK, MOVES, T_HI, T_LO, TEMPERATURE, PATIENCE, DECAY, REGION, CAP, TARGET = map(
    PLATEAU.slot, (*PLATEAU.settings, "target")
)
WEIGHT_ONE = 1_000_000  # weights are fixed-point in the int64 ctl vector
SCORES = (10.0, 4.0, 1.0, 0.3)  # new best, better, equal, worse accepted (rejected: 0)
TWIN_TRIES = 32


@njit(cache=True)
def _pick(ctl, rng):
    """An operator drawn in proportion to its weight."""
    total = 0
    for o in range(K):
        total += ctl[WEIGHTS + o]
    u = randint(rng, max(total, 1))
    for o in range(K):
        u -= ctl[WEIGHTS + o]
        if u < 0:
            return o
    return K - 1


def plateau_search(inst, st, best, home, rng, ctl, params, max_moves, trace_e, trace_v):
    """Destroy-and-repair iterations until `max_moves` evaluations (kernel contract: heuristics/kernels.py;
    `home` is unused: the chain goes back to its best)."""
    ops, moves, t_hi, t_lo = np.int64(params[OPS_MASK]), params[MOVES], params[T_HI], params[T_LO]
    temperature, patience, decay = params[TEMPERATURE], np.int64(params[PATIENCE]), params[DECAY]
    region, cap, target = np.int64(params[REGION]), np.int64(params[CAP]), np.int64(params[TARGET])
    N = inst.n * inst.m
    turns = turning(inst)
    if ctl[READY] == 0:
        for o in range(K):
            ctl[WEIGHTS + o] = WEIGHT_ONE if (ops >> o) & 1 else 0
        ctl[READY] = 1
    tw_start, tw_list = _twin_table(inst)  # about a millisecond on 16 x 16, once a chunk
    saved = np.empty(N, np.int64)
    done, nt = 0, 0
    while done < max_moves and nt < trace_e.shape[0] and ctl[BEST] > target:
        op = _pick(ctl, rng)
        left = max_moves - done
        cells = np.empty(0, np.int64)
        ta, tb, toa, tob = np.int64(0), np.int64(0), np.int64(0), np.int64(0)
        if op == 6:
            cells = _window(inst, st, rng, 2, 0.8, 6)
            d, priced = np.int64(0), np.int64(0)
            if cells.shape[0] > 1:
                d, priced = resolve(inst, st, rng, cells, min(cap, left), turns)
        elif op == 7:
            d, ta, tb, toa, tob, priced = twin_swap(
                inst, st, rng, min(TWIN_TRIES, left), tw_start, tw_list, turns
            )
        else:
            cells = _destroy(inst, st, rng, op, region)
            for x in cells:
                saved[x] = st[x]
            d, priced = anneal(
                inst, st, rng, cells, min(np.int64(moves * cells.shape[0]), left), t_hi, t_lo, turns
            )
        priced = max(priced, 1)
        done += priced
        ctl[EVALS] += priced
        stat = COUNTS + len(PLATEAU_STATS) * op
        ctl[stat] += 1
        score = 0.0
        if d <= 0 or uniform(rng) < math.exp(-d / temperature):
            if op == 7 and ta != tb:
                apply(inst, st, (ta, tb, toa, tob))
            ctl[CURRENT] += d
            score = SCORES[2] if d == 0 else (SCORES[1] if d < 0 else SCORES[3])
            ctl[stat + 1] += d == 0
            ctl[stat + 2] += d < 0
        elif op != 7:  # rejected: the freed cells get their pieces back
            for x in cells:
                _place(inst, st, x, saved[x] >> 2, saved[x] & 3)
        if ctl[CURRENT] < ctl[BEST]:
            ctl[BEST] = ctl[CURRENT]
            best[:] = st
            trace_e[nt], trace_v[nt] = ctl[EVALS], ctl[BEST]
            nt += 1
            ctl[stat + 3] += 1
            ctl[SINCE] = 0
            score = SCORES[0]
        else:
            ctl[SINCE] += 1
            if ctl[SINCE] >= patience:
                st[:] = best
                ctl[CURRENT] = ctl[BEST]
                ctl[SINCE] = 0
        w = decay * ctl[WEIGHTS + op] + (1 - decay) * score * WEIGHT_ONE
        ctl[WEIGHTS + op] = max(np.int64(w), WEIGHT_ONE // 20)
    return done, nt


plateau_search_compiled = njit(cache=True, nogil=True)(plateau_search)  # chains run on threads
