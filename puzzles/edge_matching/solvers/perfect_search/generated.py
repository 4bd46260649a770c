"""Walks generated per board (issue 56): Python writes the source of a walk for one board and one scan
order, numba compiles it, and the compiled walk is kept in a cache folder for the next run.

Why: the general walk (`walks._walk_sets`) reads, at every node, which cell the depth fills, which
neighbours' colours key its list and with which weights, and where the depth's lists begin. For a
given board and order all of that is fixed, so the generated walk computes each depth's list key
with those numbers written into it (one block per depth: two or three loads and a multiply, where
the general key reads four weights and four places). It also reads a candidate's child list before
placing it: the child's key is the rest of its key (fixed while the depth scans) plus the
candidate's colour on the side they share, so where the child has no candidate (40% of placements
on the peak 8 x 8) the placement and the child's dead end are counted and the scan goes on, without
a turn of the loop to place, descend, find nothing and back up. A per-entry XOR mask places or lifts
a piece and frees its next twin in one step; a per-entry "next turn of this piece" saves a compare.
The candidates, their order, the nodes and the placements are those of `_walk_sets`, so every count
and checksum is unchanged (a board walks with one or the other, never both: their cursors differ).

Every index the walk reads or writes is unsigned (`ix`, np.uint64): numba wraps a signed index that
might be negative (a shift and an AND with the array's length, that length kept live per array), and
with sixteen arrays in the loop the wraps pushed the arrays' addresses and the free set out of registers
onto the stack. Unsigned, the same walk placed 1.29x (8 x 8 #0) and 1.31x (7 x 7 #3) the pieces a second
of the signed one. Each index is one by construction: keys and entries are sums of colours times
weights, depths lie between the first and the stop depth. For the same reason the loop counts no
placements: a node places a piece and steps a depth down, or is a dead end and steps up, or is half of a
pair counted without descending (a placement and its child's dead end), so placements = (nodes + depth
now - depth at the start + steps up from a board found, not nodes) / 2, on return (1.02x more). Ratios
here: interleaved A/B in one process, `speed`'s boards, 5 repeats, medians. What is kept places 1.69x
(8 x 8 #0) and 1.67x (7 x 7 #3) the pieces a second of the frozen walk of 54dab70, not yet the 2x issue
56 asks for.

Measured and dropped (`bench_exact_edge speed`, same run): every depth's whole step written out as its
own block (1.25x the general walk, but 25-48 s of numba compile on a busy machine, against 4-7 s for the
key alone); the child's own scan walked inside its parent's (2 levels in one loop turn: no faster than
the general walk). Beside the signed walk (A/B as above, 8 x 8 #0 / 7 x 7 #3): the keys from a table per
depth, no code per depth (0.92x / 0.94x); the scan written once per eighth of the depths, each band's
branches predicted apart (0.96x / 0.97x, compile +20%). Beside the unsigned walk: the tables packed so
that a scan reads fewer arrays (an entry's flip, next turn and colours in one row, a list's pieces and
rank side by side, a depth's side, weight and cell: 0.93x / 0.94x; the lists alone 0.94x / 0.99x; the
cursor's four numbers per depth side by side 0.98x / 1.00x; the depth's row with its cell
1.01x / 0.95x); the child's colour taken from the entry's packed word (0.98x / 0.98x); a countdown of
the pairs left before the next look, one test for two (0.98x / 0.92x; the cap and the last depth in one
compare: 0.98x / 0.98x); a list's pieces and rank read once per turn (0.99x / 1.01x); the next turn
worked out on backing up, not stored (1.00x / 0.98x); each piece's first entry per list in a table (no
popcount: 1.00x / 0.99x); the scan written once per depth, its side and weight written in (0.95x on the
8 x 8, and 34 s of compile). With more live values than registers, a change that adds one loses. Two of
issue 56's ideas were here already: the scan reads no used piece's entry (a list's set AND the free set:
no used test at all), and a list is keyed by every known side (tables.py; the rim's grey sides by the
cell's pattern, a pre-placed neighbour's like any other).

No C compiler is needed: numba compiles the written module like any other (`cache=True`), so the
second run of the same board (or of any board of the same size, colours and order: the source holds
no piece) loads the machine code from the cache instead of compiling it again.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

CACHE_ENV = "PUZZLELAB_WALK_CACHE"  # where generated walks are written (default: ~/.cache/puzzlelab/walks)
_LOADED: dict[str, Callable[..., tuple]] = {}  # source hash: the walk, compiled in this process
# the walk inlines walks.py's helpers, which numba's cache does not follow: a new walks.py, new walks
_WALKS = hashlib.sha1((Path(__file__).parent / "walks.py").read_bytes()).hexdigest()[:12]


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


def _key_expression(board, d: int, without: int = -1) -> str:
    """Depth d's list key with the board's numbers written in: base + colour * weight per known side
    (the sides of cell `without` left out)."""
    terms = [str(int(board.base[d]))]
    for j in range(4):
        weight, at = int(board.key_weight[d, j]), int(board.key_at[d, j])
        if weight and at // 4 != without:
            terms.append(f"np.int64(colours[{at}]) * {weight}" if weight != 1 else f"np.int64(colours[{at}])")
    return " + ".join(terms)


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


def source(board, tallied: bool = False) -> str:
    """The walk's module source for this board (its order, keys and lists' bases written in).

    The walk reads a candidate's child list before it places the candidate (the child's key is the
    rest of its key, fixed while the depth scans, plus the candidate's colour on the side they share):
    where the child has no candidate, the two nodes (the placement and the child's dead end) are
    counted and the scan goes on at once, without placing, descending and backing up. `tallied` (to
    measure, a slower walk): tally[0] += turns of the walk's loop, tally[1] += placements counted so."""
    f = len(board.order)
    lines = [
        f"# written by {__name__} for a board of {f} cells to fill; walks.py {_WALKS}",
        "import numba",
        "import numpy as np",
        "from core.bits import popcount, trailing_zeros",
        "from puzzles.edge_matching.solvers.perfect_search.walks import _look, _reached, _resume",
        "",
        "ix = np.uint64  # indices unsigned: numba adds no wrap of a negative one (see generated.py)",
        "",
        "@numba.njit(cache=True, nogil=True)",
        "def walk(order, sets, flip, again, near, shows, state, bounds, io):",
        "    members, rank, first = sets",
        "    next_twin, blocked, shown, piece, chosen, supply, demand = state",
        "    first_depth, stop_depth, limit, max_nodes = bounds",
        "    stop, progress, record, tally, cursor = io",
        "    colours, shows_flat = shown.reshape(-1), shows.reshape(-1)",
        "    shown_at, shows_at = shown.view(np.int64).reshape(-1), shows.view(np.int64).reshape(-1)",
        "    depths = (cursor.shape[0] - 4) // 4",
        "    untried = cursor[4 : 4 + depths].view(np.uint64)",
        "    at = cursor[4 + depths : 4 + 2 * depths]",
        "    keys = cursor[4 + 2 * depths : 4 + 3 * depths]",
        "    rests = cursor[4 + 3 * depths : 4 + 4 * depths]",
        "    one = np.uint64(1)",
        "    if cursor[0] == -2:",
        "        return 1, cursor[2], 0, 0",
        "    d, fresh, found = _resume(cursor, first_depth)",
        "    known = False  # entering depth d with its key and candidates read by the depth above",
        "    free = np.uint64(0)",
        "    for p in range(blocked.shape[0] - 1):",
        "        if blocked[p] == 0:",
        "            free |= one << np.uint64(p)",
        "    nodes, status, start, backed = 0, 0, d, 0",
        "    check_at = 16384 if max_nodes >= 16384 else max_nodes + 1",
        "    key, left, i, rest, child, below = 0, np.uint64(0), 0, 0, 0, np.uint64(0)",
        "    while True:",
        *(["        tally[0] += 1"] if tallied else []),
        "        if fresh:",
        "            if d == stop_depth:",
        "                found = _reached(record, found, chosen, stop_depth)",
        "                if found >= limit or d == first_depth:",
        "                    status = 1",
        "                    break",
        "                fresh = False",
        "                d -= 1",
        "                backed += 1",
        "                free ^= flip[ix(chosen[ix(d)])]",
        "                continue",
    ]
    for d in range(f):
        rest = _key_expression(board, d + 1, int(board.order[d])) if d + 1 < f else "0"
        lines += [
            f"            {'if' if d == 0 else 'elif'} d == {d}:",
            f"                rest = {rest}",
            "                if not known:",
            f"                    key = {_key_expression(board, d)}",
        ]
    lines += [
        "            if not known:",
        "                left = members[ix(key)] & free",
        "            keys[ix(d)], rests[ix(d)], i, known = key, rest, 0, False",
        "        else:",
        "            key, left, i, rest = keys[ix(d)], untried[ix(d)], at[ix(d)], rests[ix(d)]",
        "        side, weight = near[ix(d), 0], near[ix(d), 1]",
        "        quick = d + 1 < stop_depth",
        "        while True:  # depth d's scan: candidates whose child has none are counted, not placed",
        "            if i == 0:",
        "                if left == 0:",
        "                    break",
        "                p = trailing_zeros(left)",
        "                left &= left - one",
        "                i = first[ix(rank[ix(key)] + popcount(members[ix(key)] & ((one << ix(p)) - one)))]",
        "            if not quick or nodes + 2 >= check_at:",
        "                break",
        "            child = rest + np.int64(shows_flat[ix(4 * i + side)]) * weight",
        "            below = members[ix(child)] & (free ^ flip[ix(i)])",
        "            if below != 0:",
        "                known = True",
        "                break",
        "            nodes += 2",
        *(["            tally[1] += 1"] if tallied else []),
        "            i = again[ix(i)]",
        "        nodes += 1",
        "        if i != 0:",
        "            free ^= flip[ix(i)]",
        "            chosen[ix(d)] = i",
        "            shown_at[ix(order[ix(d)])] = shows_at[ix(i)]",
        "            untried[ix(d)], at[ix(d)] = left, again[ix(i)]",
        "            fresh = True",
        "            d += 1",
        "            if known:",
        "                key, left = child, below",
        "        else:",
        "            fresh = False",
        "            if d == first_depth:",
        "                cursor[0], cursor[2] = -2, found",
        "                status = -1 if nodes > max_nodes else 1",
        "                d -= 1  # the dead end's step up, for the count of placements",
        "                break",
        "            d -= 1",
        "            free ^= flip[ix(chosen[ix(d)])]",
        "        if nodes >= check_at:",
        "            known = False",
        "            status, check_at = _look(nodes, max_nodes, d, fresh, found, stop, progress, cursor)",
        "            if status != 0:",
        "                break",
        "    for p in range(blocked.shape[0] - 1):",
        "        blocked[p] = 0 if (free >> np.uint64(p)) & one else 1",
        "    return status, found, nodes, (nodes + d - start + backed) // 2  # placements: see generated.py",
        "",
    ]
    return "\n".join(lines)


def _path(text: str) -> Path:
    return cache_folder() / f"walk_{hashlib.sha1(text.encode()).hexdigest()[:20]}.py"


def cached(board) -> bool:
    """Was this board's walk (its order and keys: boards of one size and colour counts share it)
    written to the cache folder by an earlier run, so that numba's cache holds its machine code?"""
    return _path(source(board)).exists()


def from_cache(walk) -> bool:
    """Was this compiled walk loaded from numba's cache (not compiled in this process)?"""
    return sum(walk.stats.cache_hits.values()) > 0


def load(board, tallied: bool = False) -> tuple[Callable[..., tuple], float]:
    """(the board's generated walk, compiled, and the seconds it took here): from this process's
    modules (0 s), else imported from the cache folder, written there first if it is not there, and
    compiled by one walk of no node (numba's cache makes a second run's compile a load)."""
    text = source(board, tallied)
    path = _path(text)
    if path.stem in _LOADED:
        return _LOADED[path.stem], 0.0
    started = time.perf_counter()
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists():
        with tempfile.NamedTemporaryFile("w", dir=path.parent, suffix=".tmp", delete=False) as out:
            out.write(text)
        os.replace(out.name, path)  # whole or not at all, should two runs write it at once
    name = f"puzzlelab_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    f, never = len(board.order), np.zeros(1, np.int64)
    io = (never, never.copy(), np.zeros((1, max(f, 1)), np.int64), np.zeros(2, np.int64), board.new_cursor(f))
    module.walk(
        board.order,
        board.sets,
        board.flip,
        board.again,
        board.near,
        board.shows,
        board.fresh_state(),
        (0, f, 1, 0),
        io,
    )  # compiles (or loads from numba's cache) the types every walk passes
    _LOADED[path.stem] = module.walk
    return module.walk, time.perf_counter() - started
