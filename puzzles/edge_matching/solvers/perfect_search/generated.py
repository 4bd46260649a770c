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

import ctypes
import hashlib
import mmap
import os
import tempfile
import threading
import time
from pathlib import Path

import llvmlite
import numpy as np

from puzzles.edge_matching.solvers.perfect_search import llvm_walk as ir
from puzzles.edge_matching.solvers.perfect_search.walks import STOP_EVERY, _walk_sets

MAP_32BIT = 0x40  # Linux x86-64: a mapping in the first 2 GB, so an address fits a 32-bit displacement
_LINKING = threading.Lock()  # the tables' symbols are the process's: one walk linked at a time
_llvm = None
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
        self.tables = tables_of(board)
        self.by_first: dict[int, CompiledWalk] = {}
        self.compile_seconds = 0.0  # compiling or loading, all first depths
        self._lock = threading.Lock()

    def walk_from(self, first: int) -> CompiledWalk:
        with self._lock:
            if first not in self.by_first:
                walk = CompiledWalk(self.board, first, self.tables, cache_folder())
                self.by_first[first] = walk
                self.compile_seconds += walk.compile_seconds
            return self.by_first[first]

    def __call__(self, state, bounds, io) -> tuple[int, int, int, int]:
        first, stop_depth = int(bounds[0]), int(bounds[1])
        if stop_depth != self.f or first >= self.f:
            board = self.board
            return _walk_sets(board.geometry(), board.lists(), board.sets, state, bounds, io)
        return self.walk_from(first)(state, bounds, io)


def _binding():
    """llvmlite's binding, its native target set up once."""
    global _llvm
    if _llvm is None:
        import llvmlite.binding as llvm

        llvm.initialize_native_target()
        llvm.initialize_native_asmprinter()
        _llvm = llvm
    return _llvm


class _Arena:
    """The board's tables in one mapping below 2 GB where the system gives one (else anywhere)."""

    def __init__(self, arrays: dict[str, np.ndarray]):
        size = (sum(a.nbytes + 64 for a in arrays.values()) + 4095) // 4096 * 4096
        try:
            self.map = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | MAP_32BIT)
        except (OSError, ValueError):
            self.map = mmap.mmap(-1, size)
        raw = np.frombuffer(self.map, np.uint8)
        self.low = raw.ctypes.data + size < 1 << 31
        self.at: dict[str, int] = {}
        used = 0
        for name, values in arrays.items():
            values = np.ascontiguousarray(values)
            raw[used : used + values.nbytes] = values.view(np.uint8).reshape(-1)
            self.at[name] = raw.ctypes.data + used
            used = (used + values.nbytes + 63) // 64 * 64
        self.raw = raw  # kept: the walk reads these addresses


class KeptCode:
    """llvmlite's object cache over one file (`path`; None: none): a module's machine code read back
    where a run before compiled the same text (`loaded`), else written for the next run."""

    path: Path | None
    loaded: bool

    def _load(self, _module) -> bytes | None:
        if not self.loaded or self.path is None:
            return None
        try:
            return self.path.read_bytes()
        except OSError:  # removed since: compiled here
            return None

    def _keep(self, _module, machine_code: bytes) -> None:
        """The machine code written for the next run, whole or not at all (two runs may write it)."""
        if self.path is None or self.loaded:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile("wb", dir=self.path.parent, suffix=".tmp", delete=False) as out:
                out.write(machine_code)
            os.replace(out.name, self.path)
        except OSError:  # no folder to write: compiled again next run
            pass


class CompiledWalk(KeptCode):
    """A board's walk from depth `first`, compiled (or its machine code loaded from `folder`, where a
    run before compiled the same text for this machine) and bound to the board's tables; threads share
    it, each call walking its own state block (`__call__` takes and returns what the numba walks do)."""

    def __init__(self, board, first: int, tables: _Arena, folder: Path | None):
        llvm = _binding()
        started = time.perf_counter()
        self.f, self.first, self.tables = len(board.order), first, tables
        self.layout = ir.Layout(board.shown.shape[0], self.f)
        self.text = ir.source(board, first, self.layout)
        cpu, features = llvm.get_host_cpu_name(), llvm.get_host_cpu_features().flatten()
        model = "small" if tables.low else "large"  # small: a table's address in the instruction
        machine = llvm.Target.from_default_triple().create_target_machine(
            opt=3, cpu=cpu, features=features, codemodel=model, reloc="static"
        )
        key = hashlib.sha1("\n".join([self.text, cpu, features, model, llvmlite.__version__]).encode())
        self.path = None if folder is None else folder / f"walk_{key.hexdigest()[:20]}.o"
        self.loaded = self.path is not None and self.path.exists()
        with _LINKING:  # the tables' symbols are the process's: bound to this board's while it links
            for name, at in tables.at.items():
                llvm.add_symbol(ir.SYMBOL + name, at)
            self.engine = llvm.create_mcjit_compiler(llvm.parse_assembly(self.text), machine)
            self.engine.set_object_cache(self._keep, self._load)
            self.engine.finalize_object()
            address = self.engine.get_function_address("walk")
        self.function = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(address)
        self.compile_seconds = time.perf_counter() - started

    def __call__(self, state, bounds, io) -> tuple[int, int, int, int]:
        """(status, boards found, nodes, placements), as `walks._walk_sets`; `state` and the cursor in
        `io` are left as that walk leaves them (blocked, shown, chosen; where to resume)."""
        first, _, limit, max_nodes = (int(x) for x in bounds)  # the stop depth is the last (Walks)
        stop, progress, record, _, cursor = io
        if cursor[0] == -2:
            return 1, int(cursor[2]), 0, 0
        _, blocked, shown, _, chosen, _, _ = state
        f, lay = self.f, self.layout
        start, fresh, found = (
            (first, 1, 0) if cursor[0] < 0 else (int(cursor[0]), int(cursor[1] != 0), int(cursor[2]))
        )
        keep = record.shape[0]
        block = np.zeros(lay.words(keep), np.int64)
        words = block[: ir.WORDS]
        colours = block[lay.colours // 8 : lay.chosen // 8].view(np.int16).reshape(-1, 4)
        kept_chosen = block[lay.chosen // 8 : lay.slots // 8]
        slots = block[lay.slots // 8 : lay.record // 8]
        rows = block[lay.record // 8 :].reshape(keep, f)
        colours[...], kept_chosen[...], slots[...], rows[...] = (
            shown,
            chosen[:f],
            cursor[4 : 4 + 4 * f],
            record,
        )
        pieces = np.arange(len(blocked) - 1, dtype=np.uint64)
        free = np.bitwise_or.reduce(np.uint64(1) << pieces[blocked[:-1] == 0], initial=np.uint64(0))
        cap = min(max_nodes, 1 << 62) + 1  # the walk stops after the node that passes max_nodes
        chunk = min(cap, STOP_EVERY)
        words[ir.FOUND], words[ir.KEEP], words[ir.LIMIT], words[ir.DEPTH], words[ir.FRESH] = (
            found,
            keep,
            limit,
            start,
            fresh,
        )
        words[ir.FREE : ir.FREE + 1] = np.array([free], np.uint64).view(np.int64)
        words[ir.CHUNK], words[ir.CAP] = chunk, cap
        words[ir.STOP_AT], words[ir.PROGRESS_AT] = stop.ctypes.data, progress.ctypes.data
        self.function(block.ctypes.data)
        shown[...], chosen[:f], cursor[4 : 4 + 4 * f] = colours, kept_chosen, slots
        free = words[ir.FREE : ir.FREE + 1].view(np.uint64)[0]
        blocked[:-1] = (free >> pieces) & np.uint64(1) == 0
        found, depth, how = int(words[ir.FOUND]), int(words[ir.DEPTH]), int(words[ir.HOW])
        nodes = int(words[ir.SPENT] + words[ir.CHUNK] - words[ir.LEFT])
        record[...] = rows
        if how == ir.DONE:
            cursor[0], cursor[2] = -2, found
            status = -1 if nodes > max_nodes else 1
        elif how == ir.LIMITED:
            status = 1
        else:
            cursor[0], cursor[1], cursor[2] = depth, int(words[ir.FRESH]), found
            status = int(words[ir.STATUS])
        return status, found, nodes, (nodes + depth - start + int(words[ir.BACKED])) // 2


def tables_of(board) -> _Arena:
    """The board's tables where its walks read them (built once per board)."""
    members, rank, first = board.sets
    shows = np.ascontiguousarray(board.shows, np.int16)
    return _Arena({"members": members, "rank": rank, "first": first, "flip": board.flip,
                   "again": board.again, "shows": shows.reshape(-1)})  # fmt: skip
