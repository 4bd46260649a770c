"""The break walk's inner loop (breaks_walk `_dive`) written as LLVM IR for one board and one restart
setup: breaks_llvm_walk.py compiles it with llvmlite, binds it to a restart's arrays and calls it.

Why: `_dive` is one loop over the depth; each turn reads its depth's row of `per_depth` (cell, key base,
neighbours, allowance, pre-placed piece, checks, quota need) and keeps every array's address live. Here
each depth is its own few basic blocks with that row written in as constants (as the perfect search's
generated walk, perfect_search/llvm_walk.py): placing a piece branches straight into the next depth's
code with the colours it shows, its breaks and quota sides in registers, and a dead end falls back into
the previous depth's scan. The arrays a restart changes (the shuffled lists, blocked, walked, shown,
board, odd, hist) lie in one block at offsets fixed for the board (`Layout`), so the walk holds one
address and reads each array at a constant displacement from it.

It walks `_dive`'s tree exactly: the same entries tried in the same order, the same sentinels (piece P
ends the exact fits, P + 1 the break fits), quota need, break limit min(allow, cap), parity cut, the
breaks with pre-placed neighbours (`_extra_breaks`, `_fixed_flips`, written in at the depths that have
them) and pre-placed cells; it returns (depth, nodes) at the same events and leaves the same arrays
(tests/puzzles/edge_matching/test_breaks_llvm.py).

Measured (benchmarks/bench_breaks_llvm.py, official set, one restart of 2e8 placements, one thread, 3
interleaved repeats): 1.7x the walk with numba's `_dive` under the quota the probes choose for seed 0
(48.0 against 28.9 million placements a second), 2.0x with no quota (77.7 against 38.1 million); the
dive (61,700 lines of IR) compiles in about 2 s; a call from numba costs about 3 ns, one per 3,600
placements.
"""

from __future__ import annotations

import numpy as np

from puzzles.edge_matching.solvers.breaks_walk import (
    ALLOW,
    AT,
    BOTTOM,
    BOTTOM_SIDE,
    BREAKS,
    CELL,
    CHECKS,
    FIXED,
    KEY,
    KEY_BASE,
    LEFT,
    LEFT_SIDE,
    NEED,
    PIECE,
    QUOTA,
    RIGHT,
    SIDES,
    TOP,
)
from puzzles.edge_matching.solvers.perfect_search.llvm_walk import _Writer

# the arrays of a restart the walk reads or changes, in the block's order: (name, dtype)
ARRAYS = (("packed", np.int32), ("start", np.int32), ("break_start", np.int32), ("blocked", np.uint8),
          ("per_orient", np.int32), ("bits", np.int64), ("odd", np.int64), ("walked", np.int64),
          ("shown", np.int32), ("board", np.int64), ("hist", np.int64))  # fmt: skip
IR_TYPE = {np.int32: "i32", np.uint8: "i8", np.int64: "i64"}
ORIENT_ROW = 6  # per_orient's columns


class Layout:
    """Where each array lies in the block (byte offsets, 64-aligned), from their shapes (the board's)."""

    def __init__(self, shapes: dict[str, tuple[int, ...]]):
        self.shapes, self.offset, self.type, used = shapes, {}, {}, 0
        for name, dtype in ARRAYS:
            self.offset[name], self.type[name] = used, dtype
            used = (used + int(np.prod(shapes[name])) * np.dtype(dtype).itemsize + 63) // 64 * 64
        self.size = used


class _Dive(_Writer[Layout]):
    """_Writer (llvm_walk.py) with the block's arrays addressed from %blk."""

    def ptr(self, where: str, index: str | int, elem: str = "") -> str:
        lay, t = self.layout, self.tmp()
        elem = IR_TYPE[lay.type[where]]
        if isinstance(index, int):
            size = np.dtype(lay.type[where]).itemsize
            self.emit(f"{t} = getelementptr inbounds i8, ptr %blk, i64 {lay.offset[where] + size * index}")
        else:
            u = self.tmp()
            self.emit(f"{u} = getelementptr inbounds i8, ptr %blk, i64 {lay.offset[where]}")
            self.emit(f"{t} = getelementptr inbounds {elem}, ptr {u}, i64 {index}")
        return t

    def get(self, where: str, index: str | int) -> str:
        """An element as i64 (sign-extended from i32, zero-extended from i8)."""
        elem = IR_TYPE[self.layout.type[where]]
        p, t = self.ptr(where, index), self.tmp()
        self.emit(f"{t} = load {elem}, ptr {p}")
        if elem == "i64":
            return t
        return self.op(f"{'zext' if elem == 'i8' else 'sext'} {elem} {t} to i64")

    def put(self, value: str | int, where: str, index: str | int) -> None:
        elem = IR_TYPE[self.layout.type[where]]
        if elem != "i64" and not isinstance(value, int):
            value = self.op(f"trunc i64 {value} to {elem}")
        self.emit(f"store {elem} {value}, ptr {self.ptr(where, index)}")

    def orient(self, o: str, column: int) -> str:
        return self.get("per_orient", self.op(f"add i64 {self.op(f'mul i64 {o}, {ORIENT_ROW}')}, {column}"))

    def bit(self, colour: str) -> str:
        return self.get("bits", colour)


def facts(per_depth: np.ndarray, extra: tuple) -> list[dict[str, int]]:
    """Per depth the row `_dive` reads, and at depths with checks the pre-placed neighbours' asks."""
    _, req_top, req_right, top_brk, right_brk = extra[:5]
    names = {"cell": CELL, "kb": KEY_BASE, "left": LEFT, "bottom": BOTTOM, "allow": ALLOW, "fixed": FIXED,
             "checks": CHECKS, "need": NEED}  # fmt: skip
    rows = []
    for d in range(per_depth.shape[0]):
        row = {name: int(per_depth[d, column]) for name, column in names.items()}
        row.update(rt=int(req_top[d]), rr=int(req_right[d]), mt=int(top_brk[d]), mr=int(right_brk[d]))
        rows.append(row)
    return rows


def source(rows: list[dict[str, int]], lay: Layout, pieces: int, parity: bool) -> str:
    """The module: `{i64, i64} dive(ptr blk, i64 i, i64 fresh, i64 nodes, i64 watch, i64 check_at,
    i64 cap, i64 radix, i64 split, i64 final)` -> (depth, nodes), as `_dive`. `parity`: the board's
    colours have bits (else the parity cut never refuses and `odd` stays zero: left out)."""
    depth, w = len(rows), _Dive(lay)
    w.begin("entry")
    f1 = w.op(f"zext i1 {w.op('icmp ne i64 %fresh, 0')} to i64")
    where = w.op(f"or i64 {w.op('shl i64 %i, 1')}, {f1}")
    cases = [f"i64 {2 * d + 1}, label %start_{d} i64 {2 * d}, label %resume_{d}" for d in range(depth)]
    w.emit(f"switch i64 {where}, label %exit [ {' '.join(cases)} ]")
    w.edge("exit", "entry", i="%i", nodes="%nodes")
    for d, row in enumerate(rows):
        w.begin(f"start_{d}")  # entered afresh from the caller: what the depth above left, read
        more = {}
        if row["fixed"] < 0:
            more = {"lc": w.get("shown", 2 * row["left"]), "bc": w.get("shown", 2 * row["bottom"] + 1)}
        sides, base = w.get("walked", 4 * d + SIDES), w.get("walked", 4 * d + BREAKS)
        w.emit(f"br label %enter_{d}")
        w.edge(f"enter_{d}", f"start_{d}", nodes="%nodes", sides=sides, base=base, **more)
        w.begin(f"resume_{d}")  # from the caller or the depth below: the scan goes on
        w.edge(f"resume_{d}", "entry", nodes="%nodes")
        if row["fixed"] >= 0:
            _fixed(w, d, row, rows)
        else:
            _scan(w, d, row, rows, pieces, parity)
    w.begin("exit")
    pair = w.op("insertvalue {i64, i64} undef, i64 %i.exit, 0")
    pair = w.op(f"insertvalue {{i64, i64}} {pair}, i64 %nodes.exit, 1")
    w.emit(f"ret {{i64, i64}} {pair}")
    head = "define {i64, i64} @dive(ptr noalias %blk, i64 %i, i64 %fresh, i64 %nodes, i64 %watch, "
    head += "i64 %check_at, i64 %cap, i64 %radix, i64 %split, i64 %final) nounwind {"
    return "\n".join(["declare i64 @llvm.ctpop.i64(i64)", "", head, w.text(), "}", ""])


def _descend(w: _Dive, d: int, frm: str, rows: list, nodes: str, sides: str, base: str, o: str,
             shows: tuple[str, str]) -> None:  # fmt: skip
    """Placed at depth d (orient `o`, showing colours `shows` right and up): an event returns, else
    depth d + 1 is entered with the colours to its left and below (this piece's: no load), its quota
    sides and breaks."""
    if d + 1 == len(rows):  # a complete board: always an event (the caller's watch is at most the depth)
        w.emit("br label %exit")
        w.edge("exit", frm, i=str(d + 1), nodes=nodes)
        return
    nxt, cell = rows[d + 1], rows[d]["cell"]
    more = {}
    if nxt["fixed"] < 0:
        lc = shows[0] if nxt["left"] == cell else w.get("shown", 2 * nxt["left"])
        bc = shows[1] if nxt["bottom"] == cell else w.get("shown", 2 * nxt["bottom"] + 1)
        more = {"lc": lc, "bc": bc}
    ev = w.op(f"or i1 {w.op(f'icmp sle i64 %watch, {d + 1}')}, {w.op(f'icmp sge i64 {nodes}, %check_at')}")
    w.emit(f"br i1 {ev}, label %exit, label %enter_{d + 1}")
    w.edge("exit", frm, i=str(d + 1), nodes=nodes)
    w.edge(f"enter_{d + 1}", frm, nodes=nodes, sides=sides, base=base, **more)


def _back_up(w: _Dive, d: int, frm: str, rows: list, nodes: str) -> None:
    """Nothing (more) fits at depth d: a depth up, its piece lifted (at depth 0: the end)."""
    if d == 0:
        w.emit("br label %exit")
        w.edge("exit", frm, i="-1", nodes=nodes)
        return
    up = rows[d - 1]
    if up["fixed"] < 0:
        o = w.get("board", up["cell"])
        w.put(0, "blocked", w.orient(o, PIECE))
        w.put(-1, "board", up["cell"])
    w.emit(f"br label %resume_{d - 1}")
    w.edge(f"resume_{d - 1}", frm, nodes=nodes)


def _fixed(w: _Dive, d: int, row: dict, rows: list) -> None:
    """A pre-placed cell: placed once on the way down (when its quota sides suffice), passed on the way up."""
    at = w.get("walked", 4 * d + AT)
    z = w.op(f"icmp eq i64 {at}, 0")
    R = w.phi(f"resume_{d}", "nodes")
    w.emit(f"br i1 {z}, label %rput_{d}, label %fback_{d}")
    w.edge(f"fback_{d}", f"resume_{d}", nodes=R)
    w.begin(f"rput_{d}")
    sides, base = w.get("walked", 4 * d + SIDES), w.get("walked", 4 * d + BREAKS)
    w.emit(f"br label %fput_{d}")
    w.edge(f"fput_{d}", f"rput_{d}", nodes=R, sides=sides, base=base)
    w.begin(f"enter_{d}")
    E = {x: w.phi(f"enter_{d}", x) for x in ("nodes", "sides", "base")}
    w.put(0, "walked", 4 * d + AT)
    w.emit(f"br label %fput_{d}")
    w.edge(f"fput_{d}", f"enter_{d}", **E)
    w.begin(f"fput_{d}")
    P = {x: w.phi(f"fput_{d}", x) for x in ("nodes", "sides", "base")}
    q = w.op(f"add i64 {P['sides']}, {w.orient(str(row['fixed']), QUOTA)}")
    w.put(1, "walked", 4 * d + AT)
    w.put(P["base"], "walked", 4 * (d + 1) + BREAKS)
    w.put(q, "walked", 4 * (d + 1) + SIDES)
    ok = w.op(f"icmp sge i64 {q}, {row['need']}")
    w.emit(f"br i1 {ok}, label %fgo_{d}, label %fback_{d}")
    w.edge(f"fback_{d}", f"fput_{d}", nodes=P["nodes"])
    w.begin(f"fgo_{d}")
    fx = str(row["fixed"])
    _descend(w, d, f"fgo_{d}", rows, P["nodes"], q, P["base"], fx, (w.orient(fx, RIGHT), w.orient(fx, TOP)))
    w.begin(f"fback_{d}")
    _back_up(w, d, f"fback_{d}", rows, w.phi(f"fback_{d}", "nodes"))


def _scan(w: _Dive, d: int, row: dict, rows: list, pieces: int, parity: bool) -> None:
    """A free cell: its list keyed by the colours to its left and below, scanned from its cursor."""
    R = w.phi(f"resume_{d}", "nodes")
    at, key = w.get("walked", 4 * d + AT), w.get("walked", 4 * d + KEY)
    sides, base = w.get("walked", 4 * d + SIDES), w.get("walked", 4 * d + BREAKS)
    w.emit(f"br label %head_{d}")
    w.edge(f"head_{d}", f"resume_{d}", nodes=R, at=at, key=key, sides=sides, base=base)
    w.begin(f"enter_{d}")  # from the depth above (or start_d): the list of this cell's key
    E = {x: w.phi(f"enter_{d}", x) for x in ("nodes", "lc", "bc", "sides", "base")}
    k = w.op(f"add i64 {w.op('mul i64 ' + E['lc'] + ', %radix')}, {row['kb']}")
    k = w.op(f"add i64 {k}, {E['bc']}")
    w.put(k, "walked", 4 * d + KEY)
    first = w.get("start", k)
    w.emit(f"br label %head_{d}")
    w.edge(f"head_{d}", f"enter_{d}", nodes=E["nodes"], at=first, key=k, sides=E["sides"], base=E["base"])
    w.begin(f"head_{d}")
    H = {x: w.phi(f"head_{d}", x) for x in ("nodes", "at", "key", "sides", "base")}
    small = w.op(f"icmp slt i64 %cap, {row['allow']}")
    limit = w.op(f"select i1 {small}, i64 %cap, i64 {row['allow']}")
    need = w.op(f"sub i64 {row['need']}, {H['sides']}")
    may = w.op(f"icmp slt i64 {H['base']}, {limit}")  # a break may be placed (base + 1 <= limit)
    v = dict(H, limit=limit, need=need, may=may)
    if row["checks"]:
        w.emit(f"br label %gl_{d}")
        w.edge(f"gl_{d}", f"head_{d}", at=H["at"])
        _loop(w, d, row, rows, "g", v, pieces, parity)
    else:
        exact = w.op(f"icmp slt i64 {H['at']}, %split")
        w.emit(f"br i1 {exact}, label %xl_{d}, label %bl_{d}")
        w.edge(f"xl_{d}", f"head_{d}", at=H["at"])
        w.edge(f"bl_{d}", f"head_{d}", at=H["at"])
        _loop(w, d, row, rows, "x", v, pieces, parity)
        _loop(w, d, row, rows, "b", v, pieces, parity)
    w.begin(f"fail_{d}")  # the scan ended on a sentinel: the cursor kept there, a depth up
    w.put(w.phi(f"fail_{d}", "at"), "walked", 4 * d + AT)
    _back_up(w, d, f"fail_{d}", rows, H["nodes"])


def _loop(w: _Dive, d: int, row: dict, rows: list, kind: str, v: dict, pieces: int, parity: bool) -> None:
    """One scan loop of depth d: `x` over exact fits (no break), `b` over break fits (one break), `g`
    over both (a depth beside a pre-placed piece: its breaks with it counted per entry)."""
    loop, depth = f"{kind}l_{d}", len(rows)
    w.begin(loop)
    at = w.phi(loop, "at")
    entry = w.get("packed", at)
    at1 = w.op(f"add i64 {at}, 1")
    p = w.op(f"and i64 {entry}, 65535")
    used = w.op(f"icmp ne i64 {w.get('blocked', p)}, 0")
    w.emit(f"br i1 {used}, label %{loop}, label %{kind}c_{d}")
    w.edge(loop, loop, at=at1)
    w.begin(f"{kind}c_{d}")
    sentinel = w.op(f"icmp sge i64 {p}, {pieces}")
    w.emit(f"br i1 {sentinel}, label %{kind}s_{d}, label %{kind}o_{d}")
    w.begin(f"{kind}s_{d}")  # past the exact fits, the break fits if one may be placed; else the end
    jump = w.op(f"and i1 {w.op(f'icmp eq i64 {p}, {pieces}')}, {v['may']}")
    w.emit(f"br i1 {jump}, label %{kind}j_{d}, label %fail_{d}")
    w.edge(f"fail_{d}", f"{kind}s_{d}", at=at)
    w.begin(f"{kind}j_{d}")
    target, jumped = f"{'g' if kind == 'g' else 'b'}l_{d}", w.get("break_start", v["key"])
    w.emit(f"br label %{target}")
    w.edge(target, f"{kind}j_{d}", at=jumped)
    w.begin(f"{kind}o_{d}")
    o = w.op(f"ashr i64 {entry}, 16")
    q = w.orient(o, QUOTA)
    reject = w.op(f"icmp slt i64 {q}, {v['need']}") if row["need"] > 0 else "false"
    c0 = {"x": "0", "b": "1"}.get(kind) or w.op(f"zext i1 {w.op(f'icmp sgt i64 {at1}, %split')} to i64")
    c, flips = c0, []
    if kind == "g":  # breaks with pre-placed pieces above and to the right (`_extra_breaks`)
        for req, column, may in ((row["rt"], TOP, row["mt"]), (row["rr"], RIGHT, row["mr"])):
            if req < 0:
                continue
            colour = w.orient(o, column)
            differ = w.op(f"icmp ne i64 {colour}, {req}")
            if not may:
                reject = w.op(f"or i1 {reject}, {differ}")
                continue
            c = w.op(f"add i64 {c}, {w.op(f'zext i1 {differ} to i64')}")
            if parity:
                flip = w.op(f"xor i64 {w.bit(colour)}, {w.bit(str(req))}")
                flips.append(w.op(f"select i1 {differ}, i64 {flip}, i64 0"))
        reject = w.op(f"or i1 {reject}, {w.op(f'icmp sgt i64 {c}, 1')}")
    spent = w.op(f"add i64 {v['base']}, {c}")
    over = w.op(f"icmp sgt i64 {spent}, {v['limit']}")
    reject = w.op(f"or i1 {reject}, {over}")
    checked = parity and kind != "x"
    nxt = f"{kind}p_{d}" if checked else f"{kind}put_{d}"
    w.emit(f"br i1 {reject}, label %{loop}, label %{nxt}")
    w.edge(loop, f"{kind}o_{d}", at=at1)
    if checked:  # a break: the colours it leaves odd must still pair up within the allowance
        w.begin(nxt)
        if kind == "g":
            brk = w.op(f"icmp ne i64 {c}, 0")
            w.emit(f"br i1 {brk}, label %{kind}q_{d}, label %{kind}put_{d}")
            w.begin(f"{kind}q_{d}")
        now = w.get("odd", v["base"])
        here, there = w.orient(o, LEFT_SIDE), w.get("shown", 2 * row["left"])
        same = w.op(f"icmp eq i64 {here}, {there}")
        here = w.op(f"select i1 {same}, i64 {w.orient(o, BOTTOM_SIDE)}, i64 {here}")
        there = w.op(f"select i1 {same}, i64 {w.get('shown', 2 * row['bottom'] + 1)}, i64 {there}")
        listed = w.op(f"xor i64 {w.bit(here)}, {w.bit(there)}")
        if kind == "g":
            listed = w.op(f"select i1 {w.op(f'icmp ne i64 {c0}, 0')}, i64 {listed}, i64 0")
        now = w.op(f"xor i64 {now}, {listed}")
        for flip in flips:
            now = w.op(f"xor i64 {now}, {flip}")
        odd = w.op(f"call i64 @llvm.ctpop.i64(i64 {now})")
        left = w.op(f"sub i64 %final, {spent}")
        room = w.op(f"shl i64 {left}, 1")
        refuse = w.op(f"icmp sgt i64 {odd}, {room}")
        here_block = f"{kind}q_{d}" if kind == "g" else nxt
        w.emit(f"br i1 {refuse}, label %{loop}, label %{kind}k_{d}")
        w.edge(loop, here_block, at=at1)
        w.begin(f"{kind}k_{d}")
        w.put(now, "odd", spent)
        w.emit(f"br label %{kind}put_{d}")
    w.begin(f"{kind}put_{d}")  # placed: its facts for the depth below, the piece used, a node
    sides = w.op(f"add i64 {v['sides']}, {q}")
    base, cell = spent, row["cell"]
    w.put(sides, "walked", 4 * (d + 1) + SIDES)
    w.put(base, "walked", 4 * (d + 1) + BREAKS)
    w.put(o, "board", cell)
    w.put(1, "blocked", p)
    shows = (w.orient(o, RIGHT), w.orient(o, TOP))
    w.put(shows[0], "shown", 2 * cell)
    w.put(shows[1], "shown", 2 * cell + 1)
    nodes = w.op(f"add i64 {v['nodes']}, 1")
    w.put(w.op(f"add i64 {w.get('hist', d)}, 1"), "hist", d)
    if c != "0":
        w.put(w.op(f"add i64 {w.get('hist', depth + d)}, {c}"), "hist", depth + d)
    w.put(at1, "walked", 4 * d + AT)
    _descend(w, d, f"{kind}put_{d}", rows, nodes, sides, base, o, shows)
