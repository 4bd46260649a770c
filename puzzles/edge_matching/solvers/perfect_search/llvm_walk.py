"""A board's walk written as LLVM IR (issue 56): the text of the perfect search's fastest walk, which
generated.py compiles with llvmlite, caches and calls.

Why: the numba walks (`walks._walk_sets`, and the walk numba compiled from Python source written per
board, which this replaced) are one loop over the depth: entering a depth tests which depth it is,
reads that depth's side and weight, and keeps every table's address live, more values than registers.
The record engines instead give each cell its own code, so that placing a piece branches straight
into the next cell's scan and a dead end falls back into the previous cell's. Here each depth is a
small group of basic blocks with its numbers written in (its list key's base, weights and colour
slots; its child key's side and weight; the cell it fills): a descent or a step back is a direct
branch. The current depth's scan (untried pieces, entry, its list's set and rank, the rest of its
child's key) lives in registers and is written to its depth's slots only on the way down. The board's
tables are symbols, bound to its arrays (below 2 GB) as the walk is linked, so each is read at one
register plus a displacement; a walk's own state is one block it is handed (threads each walk their
own).

It walks exactly the tree of `walks._walk_sets` (the same candidates, order and pair counting: a
placement whose child has no candidate is counted with the child's dead end, not placed), stops at
the same node counts (looks every STOP_EVERY nodes: progress, the stop flag, the node cap) and
resumes from the same place, its own slots kept in the cursor: so the same boards, nodes and
placements (tests/puzzles/edge_matching/test_generated_walk.py; the census checksums).

Compiling a board's walk takes a few tenths of a second (machine code only, at -O3: the IR is written
simple, and the IR passes took 85% of a compile and bought nothing). Measured in the prototype
(interleaved, one thread, 200 M nodes, 8 x 8 #0 / 7 x 7 #3): 1.6x the numba-generated walk per
placement, about 22 cycles a placement; variants dropped there: the scan holding its key, not its
list's set and rank (3% slower); rank, first and next turn as int32 (6% slower); key and rest worked
out again on the way up (no gain); the tables' addresses anywhere, not below 2 GB (1-2% slower); the
IR pass pipeline (the same speed, 1-2 s of compile).
"""

from __future__ import annotations

from typing import Generic, TypeVar

from puzzles.edge_matching.solvers.perfect_search.walks import STOP_EVERY

# the state block's first words; then colours (cells x 4, int16), chosen, and per depth the four slots
# of its scan (untried pieces, its list's set, its list's rank, the rest of its child's key), the record
(FOUND, BACKED, KEEP, LIMIT, LEFT, FREE, DEPTH, SPENT, CHUNK, CAP, FRESH, STOP_AT, STATUS, PROGRESS_AT, HOW,
 ZERO) = range(16)  # fmt: skip
WORDS = 16
TABLES = ("members", "rank", "first", "flip", "again", "shows")  # the board's, read by every walk of it
SYMBOL = "puzzlelab_walk_"  # the tables' symbols: bound to this board's arrays when its walk is linked
DONE, PAUSED, LIMITED = 0, 1, 2  # how a walk ended (HOW): its tree walked, at a look, its boards' limit


class Layout:
    """Where a walk's state lies in its block (byte offsets), for a board of `cells` cells and `f`
    depths: the words, the colours, chosen, the slots, then the record's rows."""

    def __init__(self, cells: int, f: int):
        self.cells, self.f = cells, f
        self.colours = 8 * WORDS
        self.chosen = self.colours + 8 * cells
        self.slots = self.chosen + 8 * f
        self.record = self.slots + 32 * f

    def words(self, keep: int) -> int:
        return self.record // 8 + keep * self.f


def _key_terms(board, d: int, without: int = -1) -> tuple[int, list[tuple[int, int]]]:
    """Depth d's list key: (base, [(colour slot, weight)]), the sides of cell `without` left out."""
    terms = []
    for j in range(4):
        weight, at = int(board.key_weight[d, j]), int(board.key_at[d, j])
        if weight and at // 4 != without:
            terms.append((at, weight))
    return int(board.base[d]), terms


L = TypeVar("L")  # where the written code's state lies: this module's Layout, or the dive's (breaks_llvm.py)


class _Writer(Generic[L]):
    """The function's text: blocks in order, each block's phis gathered from its incoming edges."""

    def __init__(self, layout: L):
        self.layout = layout
        self.blocks: dict[str, list[str]] = {}
        self.phis: dict[str, dict[str, list[tuple[str, str]]]] = {}
        self.lines: list[str] = []
        self.count = 0

    def begin(self, name: str) -> None:
        self.blocks[name] = self.lines = []

    def emit(self, line: str) -> None:
        self.lines.append("  " + line)

    def tmp(self) -> str:
        self.count += 1
        return f"%t{self.count}"

    def edge(self, block: str, frm: str, **values: str) -> None:
        for name, v in values.items():
            self.phis.setdefault(block, {}).setdefault(name, []).append((v, frm))

    @staticmethod
    def phi(block: str, name: str) -> str:
        return f"%{name}.{block}"

    def ptr(self, where: str, index: str | int, elem: str = "i64") -> str:
        """A pointer to element `index` of a table (a constant address) or of a state part (an
        offset into the state block)."""
        t, size = self.tmp(), {"i64": 8, "i16": 2}[elem]
        if where in TABLES:
            self.emit(f"{t} = getelementptr inbounds {elem}, ptr @{SYMBOL}{where}, i64 {index}")
            return t
        offset = getattr(self.layout, where) if where != "words" else 0
        if isinstance(index, int):
            self.emit(f"{t} = getelementptr inbounds i8, ptr %state, i64 {offset + size * index}")
        else:
            u = self.tmp()
            self.emit(f"{u} = getelementptr inbounds i8, ptr %state, i64 {offset}")
            self.emit(f"{t} = getelementptr inbounds {elem}, ptr {u}, i64 {index}")
        return t

    def load(self, where: str, index: str | int, elem: str = "i64") -> str:
        p, t = self.ptr(where, index, elem), self.tmp()
        self.emit(f"{t} = load {elem}, ptr {p}")
        return t

    def store(self, value: str, where: str, index: str | int, elem: str = "i64") -> None:
        self.emit(f"store {elem} {value}, ptr {self.ptr(where, index, elem)}")

    def op(self, text: str) -> str:
        t = self.tmp()
        self.emit(f"{t} = {text}")
        return t

    def key(self, base: int, terms: list[tuple[int, int]]) -> str:
        """A list's key; never a constant (a zero word is read where no side is known): a table read at
        a constant address would be addressed from the code (RIP-relative), and the code lies further
        than 2 GB from the tables."""
        acc = str(base) if terms else self.op(f"add i64 {self.load('words', ZERO)}, {base}")
        for at, weight in terms:
            x = self.op(f"sext i16 {self.load('colours', at, 'i16')} to i64")
            if weight != 1:
                x = self.op(f"mul i64 {x}, {weight}")
            acc = self.op(f"add i64 {acc}, {x}")
        return acc

    def text(self) -> str:
        out = []
        for name, lines in self.blocks.items():
            out.append(f"{name}:")
            for var, incoming in self.phis.get(name, {}).items():
                out.append(f"  %{var}.{name} = phi i64 " + ", ".join(f"[ {v}, %{b} ]" for v, b in incoming))
            out += lines
        return "\n".join(out)


def source(board, first: int, layout: Layout) -> str:
    """The walk's module: `void walk(ptr state)`, from depth `first` (the jobs' split depth: a dead end
    there ends the walk) to the last; where to start (DEPTH, FRESH), the free pieces, the first chunk of
    nodes and the limits are in the state's words, and so is how it ended."""
    f, near = len(board.order), board.near  # generated.ahead
    w = _Writer(layout)

    def look(stop: str, here: str, then: str, budget: str, free: str, depth: int, fresh: int) -> None:
        """Where the chunk of nodes runs out (`stop`): a look (the next chunk, or 0: the exit)."""
        name = f"look_{here}"
        w.emit(f"br i1 {stop}, label %{name}, label %{then}")
        w.begin(name)
        w.emit(f"%next.{name} = call i64 @look(ptr %state)")
        z = w.op(f"icmp eq i64 %next.{name}, 0")
        w.emit(f"br i1 {z}, label %exit, label %{then}")
        w.edge("exit", name, budget=budget, free=free, depth=str(depth), fresh=str(fresh), how=str(PAUSED))

    w.begin("entry")
    free0, budget0 = w.load("words", FREE), w.load("words", CHUNK)
    d0, fresh0 = w.load("words", DEPTH), w.load("words", FRESH)
    where = w.op(f"shl i64 {d0}, 1")
    where = w.op(f"or i64 {where}, {fresh0}")
    cases = [f"i64 {2 * d + 1}, label %start_{d}" for d in range(first, f)]
    cases += [f"i64 {2 * d}, label %back_{d}" for d in range(first, f)]
    if f > first:
        cases.append(f"i64 {2 * f + 1}, label %start_{f}")
    w.emit(f"switch i64 {where}, label %exit [ {' '.join(cases)} ]")
    w.edge("exit", "entry", budget=budget0, free=free0, depth=d0, fresh=fresh0, how=str(DONE))
    for d in range(first, f):  # a walk started (or resumed) at depth d, fresh: its list read here
        w.begin(f"start_{d}")
        k = w.key(*_key_terms(board, d))
        left = w.op(f"and i64 {w.load('members', k)}, {free0}")
        w.emit(f"br label %enter_{d}")
        w.edge(f"enter_{d}", f"start_{d}", free=free0, budget=budget0, key=k, left=left)
        w.begin(f"back_{d}")  # resumed at depth d after a step up: its piece lifted, its scan saved
        ch = w.load("chosen", d)
        w.emit(f"br label %resume_{d}")
        w.edge(f"resume_{d}", f"back_{d}", free=free0, budget=budget0, ch=ch)
    if f > first:
        w.begin(f"start_{f}")  # resumed where a board was reached
        ch = w.load("chosen", f - 1)
        w.emit("br label %found")
        w.edge("found", f"start_{f}", free=free0, budget=budget0, ch=ch)

    for d in range(first, f):
        side, weight, last = int(near[d, 0]), int(near[d, 1]), d == f - 1
        w.begin(f"enter_{d}")  # from the depth above: the list's key and candidates known
        E = {x: w.phi(f"enter_{d}", x) for x in ("free", "budget", "key", "left")}
        rest = w.key(*_key_terms(board, d + 1, int(board.order[d]))) if not last else "0"
        mk, rk = w.load("members", E["key"]), w.load("rank", E["key"])
        w.emit(f"br label %scan_{d}")
        scan = {"free": E["free"], "budget": E["budget"], "left": E["left"], "i": "0", "rest": rest}
        w.edge(f"scan_{d}", f"enter_{d}", **scan, mk=mk, rk=rk)
        w.begin(f"resume_{d}")  # from the depth below, its piece lifted: this depth's scan read back
        R = {x: w.phi(f"resume_{d}", x) for x in ("free", "budget", "ch")}
        i_r = w.load("again", R["ch"])
        slots = [w.load("slots", s * f + d) for s in range(3)]
        r_r = "0" if last else w.load("slots", 3 * f + d)
        w.emit(f"br label %scan_{d}")
        w.edge(f"scan_{d}", f"resume_{d}", free=R["free"], budget=R["budget"], left=slots[0], i=i_r, rest=r_r,
               mk=slots[1], rk=slots[2])  # fmt: skip
        w.begin(f"scan_{d}")  # the next entry (i), else the next piece of the untried set
        S = {x: w.phi(f"scan_{d}", x) for x in ("free", "budget", "left", "i", "rest", "mk", "rk")}
        z = w.op(f"icmp eq i64 {S['i']}, 0")
        w.emit(f"br i1 {z}, label %pick_{d}, label %try_{d}")
        w.edge(f"try_{d}", f"scan_{d}", left=S["left"], i=S["i"])
        w.begin(f"pick_{d}")
        e = w.op(f"icmp eq i64 {S['left']}, 0")
        w.emit(f"br i1 {e}, label %dead_{d}, label %pick2_{d}")
        w.begin(f"pick2_{d}")
        p = w.op(f"call i64 @llvm.cttz.i64(i64 {S['left']}, i1 true)")
        mk_now = S["mk"]
        lower = w.op(f"add i64 {S['left']}, -1")
        rest_left = w.op(f"and i64 {S['left']}, {lower}")
        mask = w.op(f"add i64 {w.op(f'shl i64 1, {p}')}, -1")
        below_p = w.op(f"call i64 @llvm.ctpop.i64(i64 {w.op(f'and i64 {mk_now}, {mask}')})")
        i2 = w.load("first", w.op(f"add i64 {S['rk']}, {below_p}"))
        w.emit(f"br label %try_{d}")
        w.edge(f"try_{d}", f"pick2_{d}", left=rest_left, i=i2)
        w.begin(f"try_{d}")  # entry i; its child's candidates read before it is placed
        T = {x: w.phi(f"try_{d}", x) for x in ("left", "i")}
        nf = w.op(f"xor i64 {S['free']}, {w.load('flip', T['i'])}")
        child, below = "0", "0"
        if not last:
            child = S["rest"]
            if weight:
                four = w.op(f"shl i64 {T['i']}, 2")
                colour = w.op(f"sext i16 {w.load('shows', w.op(f'add i64 {four}, {side}'), 'i16')} to i64")
                child = w.op(f"add i64 {S['rest']}, {w.op(f'mul i64 {colour}, {weight}')}")
            below = w.op(f"and i64 {w.load('members', child)}, {nf}")
            nz = w.op(f"icmp ne i64 {below}, 0")
            w.emit(f"br i1 {nz}, label %place_{d}, label %pairchk_{d}")
            w.begin(f"pairchk_{d}")  # the pair is counted whole only inside the chunk
            small = w.op(f"icmp sle i64 {S['budget']}, 2")
            w.emit(f"br i1 {small}, label %place_{d}, label %pair_{d}")
            w.begin(f"pair_{d}")  # the placement and its child's dead end, counted without descending
            b2, i3 = w.op(f"add i64 {S['budget']}, -2"), w.load("again", T["i"])
            w.emit(f"br label %scan_{d}")
            w.edge(f"scan_{d}", f"pair_{d}", free=S["free"], budget=b2, left=T["left"], i=i3, rest=S["rest"],
                   mk=S["mk"], rk=S["rk"])  # fmt: skip
        else:
            w.emit(f"br label %place_{d}")
        w.begin(f"place_{d}")  # a node: the scan kept in this depth's slots, a depth down
        b3 = w.op(f"add i64 {S['budget']}, -1")
        w.store(T["i"], "chosen", d)
        w.store(w.load("shows", T["i"]), "colours", int(board.order[d]))
        for s, value in enumerate((T["left"], S["mk"], S["rk"])):
            w.store(value, "slots", s * f + d)
        if not last:
            w.store(S["rest"], "slots", 3 * f + d)
        stop = w.op(f"icmp sle i64 {b3}, 0")
        nxt = "found" if last else f"enter_{d + 1}"
        more = {"ch": T["i"]} if last else {"key": child, "left": below}
        look(stop, f"place_{d}", nxt, b3, nf, d + 1, 1)
        w.edge(nxt, f"look_place_{d}", free=nf, budget=f"%next.look_place_{d}", **more)
        w.edge(nxt, f"place_{d}", free=nf, budget=b3, **more)
        w.begin(f"dead_{d}")  # a node: a depth up, its piece lifted (at the first depth: the end)
        b4 = w.op(f"add i64 {S['budget']}, -1")
        if d == first:
            w.emit("br label %exit")
            w.edge("exit", f"dead_{d}", budget=b4, free=S["free"], depth=str(d - 1), fresh="0", how=str(DONE))
        else:
            ch = w.load("chosen", d - 1)
            lifted = w.op(f"xor i64 {S['free']}, {w.load('flip', ch)}")
            stop = w.op(f"icmp sle i64 {b4}, 0")
            look(stop, f"dead_{d}", f"resume_{d - 1}", b4, lifted, d - 1, 0)
            w.edge(f"resume_{d - 1}", f"look_dead_{d}", free=lifted, budget=f"%next.look_dead_{d}", ch=ch)
            w.edge(f"resume_{d - 1}", f"dead_{d}", free=lifted, budget=b4, ch=ch)

    if f > first:  # a board reached (not a node): kept while the record has rows; a depth up
        w.begin("found")
        F = {x: w.phi("found", x) for x in ("free", "budget", "ch")}
        found = w.load("words", FOUND)
        found1 = w.op(f"add i64 {found}, 1")
        w.store(found1, "words", FOUND)
        kept = w.op(f"icmp slt i64 {found}, {w.load('words', KEEP)}")
        w.emit("br i1 " + kept + ", label %record, label %found2")
        w.begin("record")
        row = w.op(f"mul i64 {found}, {f}")
        for d in range(f):  # volatile: merged into a call to memcpy, it would not reach libc from here
            at = w.ptr("record", w.op(f"add i64 {row}, {d}"))
            w.emit(f"store volatile i64 {w.load('chosen', d)}, ptr {at}")
        w.emit("br label %found2")
        w.begin("found2")
        enough = w.op(f"icmp sge i64 {found1}, {w.load('words', LIMIT)}")
        w.emit(f"br i1 {enough}, label %exit, label %found3")
        w.edge(
            "exit", "found2", budget=F["budget"], free=F["free"], depth=str(f), fresh="1", how=str(LIMITED)
        )
        w.begin("found3")
        w.store(w.op(f"add i64 {w.load('words', BACKED)}, 1"), "words", BACKED)
        lifted = w.op(f"xor i64 {F['free']}, {w.load('flip', F['ch'])}")
        w.emit(f"br label %resume_{f - 1}")
        w.edge(f"resume_{f - 1}", "found3", free=lifted, budget=F["budget"], ch=F["ch"])

    w.begin("exit")
    X = {x: w.phi("exit", x) for x in ("budget", "free", "depth", "fresh", "how")}
    for name, word in (("budget", LEFT), ("free", FREE), ("depth", DEPTH), ("fresh", FRESH), ("how", HOW)):
        w.store(X[name], "words", word)
    w.emit("ret void")
    return "\n".join(
        [*_HEADER, "define void @walk(ptr noalias %state) nounwind #0 {", w.text(), "}", _ATTRIBUTES, ""]
    )


# no jump tables: their absolute addresses (the JIT's own memory, anywhere) do not fit the small code
# model that puts each table's address in its instruction
_ATTRIBUTES = 'attributes #0 = { "no-jump-tables"="true" }'


def _word(n: int) -> str:
    return f"getelementptr inbounds i64, ptr %state, i64 {n}"


_HEADER = [
    *(f"@{SYMBOL}{name} = external dso_local global [0 x i8]" for name in TABLES),
    "declare i64 @llvm.cttz.i64(i64, i1)",
    "declare i64 @llvm.ctpop.i64(i64)",
    "",
    # a look, as walks._look: the chunk's nodes counted; past the cap, or stopped, 0; else the next chunk
    "define internal i64 @look(ptr %state) noinline nounwind {",  # not cold: .text.unlikely may lie far
    f"  %ps = {_word(SPENT)}",
    f"  %pc = {_word(CHUNK)}",
    f"  %pcap = {_word(CAP)}",
    "  %spent = load i64, ptr %ps",
    "  %chunk = load i64, ptr %pc",
    "  %cap = load i64, ptr %pcap",
    "  %done = add i64 %spent, %chunk",
    "  store i64 %done, ptr %ps",
    "  %over = icmp sge i64 %done, %cap",
    "  br i1 %over, label %capped, label %report",
    "report:",
    f"  %pp = {_word(PROGRESS_AT)}",
    "  %progress = load ptr, ptr %pp",
    "  store volatile i64 %done, ptr %progress",
    f"  %pf = {_word(STOP_AT)}",
    "  %stopflag = load ptr, ptr %pf",
    "  %flag = load volatile i64, ptr %stopflag",
    "  %stopped = icmp ne i64 %flag, 0",
    "  br i1 %stopped, label %halt, label %go",
    "halt:",
    f"  %pst = {_word(STATUS)}",
    "  store i64 -2, ptr %pst",
    "  store i64 0, ptr %pc",
    "  ret i64 0",
    "go:",
    "  %left = sub i64 %cap, %done",
    f"  %small = icmp slt i64 %left, {STOP_EVERY}",
    f"  %next = select i1 %small, i64 %left, i64 {STOP_EVERY}",
    "  store i64 %next, ptr %pc",
    "  ret i64 %next",
    "capped:",
    f"  %pst2 = {_word(STATUS)}",
    "  store i64 -1, ptr %pst2",
    "  store i64 0, ptr %pc",
    "  ret i64 0",
    "}",
    "",
]
