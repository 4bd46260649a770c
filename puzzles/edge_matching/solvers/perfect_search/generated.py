"""Walks generated per board (issue 56): for one board and scan order, a walk written as LLVM IR
(llvm_walk.py) with the board's numbers in it, compiled by llvmlite, and its machine code kept in a cache
folder for the next run of the same board.

Why: every fact the general walk (`walks._walk_sets`) reads per node about the depth it is at (which
cell it fills, which neighbours' colours key its list and with which weights, where its lists begin) is
fixed for a board and order. A walk written for them computes each depth's key from constants and
branches from one depth's code straight into the next's or back into the previous one's scan. It also
reads a candidate's child list before placing it (the child's key is the rest of its key, fixed while
the depth scans, plus the candidate's colour on the side they share), so where the child has no
candidate (40% of placements on the peak 8 x 8) the placement and the child's dead end are counted
and the scan goes on without placing, descending and backing up. A per-entry XOR mask places or lifts
a piece and frees its next twin in one step. The candidates, their order, the nodes and the
placements are those of `_walk_sets`, so every count and checksum is unchanged (a board walks with one
or the other, never both: their cursors differ).

Measured before (numba compiling Python source written per board, issue 56's first try): 1.7x the
frozen walk of 54dab70 per placement, and 14 variants of it measured and dropped, all losing to "more
live values than registers"; 4-7 s of compile (25-48 s for per-depth blocks). The IR walk gives each
depth its own blocks and keeps the scan in registers: 1.6x that walk, in a few tenths of a second of
compile (`bench_exact_edge speed`; the docs' exact edge-matching study).

No C compiler is needed: llvmlite comes with numba. The machine code (for this machine's CPU) is kept
by the hash of its text, which holds no piece: a board of the same size, colours and order loads it.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import numpy as np

from puzzles.edge_matching.solvers.perfect_search import llvm_walk
from puzzles.edge_matching.solvers.perfect_search.walks import _walk_sets

CACHE_ENV = "PUZZLELAB_WALK_CACHE"  # where generated walks are kept (default: ~/.cache/puzzlelab/walks)


def cache_folder() -> Path:
    chosen = os.environ.get(CACHE_ENV)
    if chosen:
        return Path(chosen)
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "puzzlelab" / "walks"


def toggles(next_twin: np.ndarray, piece_of: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(flip, again) per list entry: the bits of the free set that placing (or lifting) its piece flips,
    its own and its next twin's (blocked while the piece is free, free once it is used), so one XOR
    per place or lift; and the entry to try after it once it is lifted: the next entry where that is
    another turn of the same piece (it fits too), else 0 (the next piece of the list's set)."""
    one, pieces = np.uint64(1), len(next_twin)
    flip = np.zeros(len(piece_of), np.uint64)
    for i, p in enumerate(piece_of):
        if p < pieces:  # not a sentinel
            flip[i] = one << np.uint64(p)
            if next_twin[p] >= 0:
                flip[i] |= one << np.uint64(next_twin[p])
    again = np.zeros(len(piece_of), np.int64)
    same = (piece_of[1:] == piece_of[:-1]) & (piece_of[1:] < pieces)
    again[:-1][same] = np.flatnonzero(same) + 1
    return flip, again


def ahead(board) -> np.ndarray:
    """Per depth d: (side, weight) of the cell at depth d in the key of depth d + 1's list (weight 0:
    not a side of it), so that a candidate's child list is keyed as (what the rest of the key
    holds) + its colour on that side times the weight."""
    f = len(board.order)
    near = np.zeros((max(f, 1), 2), np.int64)
    for d in range(f - 1):
        for j in range(4):
            weight, at = int(board.key_weight[d + 1, j]), int(board.key_at[d + 1, j])
            if weight and at // 4 == int(board.order[d]):
                near[d] = at % 4, weight
    return near


class Walks:
    """A board's generated walks: one per first depth (the jobs start below the split's depth, turns'
    slices at 0), compiled or loaded on first use; a walk to another stop depth (the split's listing)
    is the general one. Called as the numba walks are: (state, bounds, io) -> (status, found, nodes,
    placements)."""

    def __init__(self, board):
        self.board, self.f = board, len(board.order)
        self.tables = llvm_walk.tables_of(board)
        self.by_first: dict[int, llvm_walk.LlvmWalk] = {}
        self.compile_seconds = 0.0  # compiling or loading, all first depths
        self._lock = threading.Lock()

    def walk_from(self, first: int) -> llvm_walk.LlvmWalk:
        with self._lock:
            if first not in self.by_first:
                walk = llvm_walk.LlvmWalk(self.board, first, self.tables, cache_folder())
                self.by_first[first] = walk
                self.compile_seconds += walk.compile_seconds
            return self.by_first[first]

    def __call__(self, state, bounds, io) -> tuple[int, int, int, int]:
        first, stop_depth = int(bounds[0]), int(bounds[1])
        if stop_depth != self.f or first >= self.f:
            board = self.board
            return _walk_sets(board.geometry(), board.lists(), board.sets, state, bounds, io)
        return self.walk_from(first)(state, bounds, io)
