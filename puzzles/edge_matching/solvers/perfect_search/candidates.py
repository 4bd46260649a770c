"""How a board's candidate lists are laid out for the walks (tables.py builds them): the lists one after
another, each ended by a sentinel entry (`_sentinel_lists`), the same lists as sets of pieces on boards
of at most 64 pieces (`_piece_sets`), and the twins that keep identical pieces in list order
(`_classes`). Apart from tables.py so that `Board` stays the one class that builds a board's tables.
"""

from __future__ import annotations

import numpy as np

from puzzles.edge_matching.solvers.perfect_search.walks import NONE


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
