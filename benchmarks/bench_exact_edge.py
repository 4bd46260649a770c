"""Exact edge matching: node rate, tree size per idea, the hardest 8 x 8 boards, the official clue
puzzles and proofs of no board. Every board a search returns is checked (each piece once, grey only on
the rim, pre-placed pieces kept) and re-scored: 0 unmatched joins.

    python -m benchmarks.bench_exact_edge speed [--nodes 200000000] [--repeats 3]  (placements/s)
    python -m benchmarks.bench_exact_edge tree [--nodes 200000000]
    python -m benchmarks.bench_exact_edge order [--instances 5] [--nodes 200000000]
    python -m benchmarks.bench_exact_edge hardest [--instances 10] [--seconds 600] [--threads 2] [--sides portfolio]
    python -m benchmarks.bench_exact_edge clues [--seconds 600]
    python -m benchmarks.bench_exact_edge none [--instances 5]
    python -m benchmarks.bench_exact_edge hedge [--instances 8] [--nodes 1000000000]
    python -m benchmarks.bench_exact_edge census [--sizes 6,7] [--instances 1] [--repeats 3] [--limit 1] [--previous REV]

The baseline is the row-scan perfect search the backtracker had before puzzles/edge_matching/solvers/perfect_search/
(benchmarks/row_scan.py), measured in the same run.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from benchmarks import flags, row_scan_ref
from benchmarks import perfect_search_54dab70 as frozen_search
from benchmarks.row_scan import first_board
from benchmarks.timing import Timing, report
from puzzles.edge_matching import EdgeMatching
from puzzles.edge_matching.eternity2 import HARDEST_COLOURS, Eternity2, Eternity2Like
from puzzles.edge_matching.seed_sweep import puzzle_for
from puzzles.edge_matching.solvers.perfect_search import Board, estimate_orders, search
from puzzles.edge_matching.solvers.perfect_search.jobs import split
from puzzles.edge_matching.solvers.perfect_search.probe import PROBES

CLUES = "puzzles/data/eternity2/clue{}.txt"


def checked(puzzle, answer) -> str:
    """'checked' when every board of the answer is a legal perfect board of the puzzle; raises otherwise."""
    for piece, turn in answer.boards:
        unmatched = puzzle.score_layout(puzzle.layout(piece, turn))["unmatched_edges"]
        assert unmatched == 0, f"a board with {unmatched} unmatched joins"
    return "checked" if answer.boards else "no board"


SPEED_BOARDS = {  # name: (n, instance seed); generated peak boards (3 frame colours + the hardest inner)
    "generated 7x7 (3 frame + 6 inner colours), #3": (7, 3),
    "generated 8x8 (3 frame + 8 inner colours), #0": (8, 0),
}


def speed(args) -> None:
    """Pieces placed per second per thread (the community's unit): the walk now (generated per board,
    issue 56), the frozen walk of commit 54dab70 (benchmarks/perfect_search_54dab70/, the baseline) and
    a plain C row scan (benchmarks/row_scan_ref.c, built here with cc -O3 if a compiler is present), on
    the same boards in the same run, interleaved, one thread each, order rows, no symmetry, capped at
    --nodes; every side must walk the same tree (nodes, placements, boards), the reference's whole tree
    is checked against the row order's on a 6 x 6 first."""
    with row_scan_ref.temporary() as folder:
        exe = row_scan_ref.build(Path(folder))
        if exe is None:
            print("no C compiler (cc, gcc, clang): the C reference is skipped")
        else:
            _reference_tree(exe, Path(folder))
        for name, (n, seed) in SPEED_BOARDS.items():
            p = Eternity2Like(n=n, instance_seed=seed)
            print(f"\n{name}, capped at {args.nodes:,} nodes, one thread, order rows, no symmetry")
            _speed_board(p, args, exe, Path(folder))


def _walk_once(board, nodes: int) -> tuple[tuple[int, int, int], float]:
    """((nodes, placements, boards), CPU seconds) of one walk from the empty board to the cap."""
    never, f = np.zeros(1, np.int64), len(board.order)
    started = time.process_time()
    _, found, walked, placed, _ = board.walk(
        board.fresh_state(), 0, f, 1 << 62, nodes, never, never.copy(), 1
    )
    return (walked, placed, found), time.process_time() - started


def _speed_board(p, args, exe, folder: Path) -> None:
    board = Board(p.table, p.n, p.m, p.preplaced, "rows", lookahead=False, symmetry=False, generated=True)
    board.generated_walk().walk_from(0)  # compiled or loaded from the cache: timed apart from the walk
    print(f"  generated walk ready in {board.compile_seconds:.2f} s (compile or cache load)")
    frozen = frozen_search.Board(p.table, p.n, p.m, p.preplaced, "rows", lookahead=False, symmetry=False)
    sides = {
        "frozen walk of 54dab70 (baseline)": lambda: _walk_once(frozen, args.nodes),
        "walk now (generated per board)": lambda: _walk_once(board, args.nodes),
    }
    if exe is not None:
        tables = folder / f"tables_{p.n}x{p.m}.txt"
        row_scan_ref.write_tables(board, tables)

        def reference():
            w = row_scan_ref.run(exe, tables, args.nodes)
            return (w.nodes, w.placements, w.boards), w.seconds

        sides["plain C row scan (cc -O3)"] = reference
    _walk_once(frozen, 1000)  # warm-up: compiled, or loaded from numba's cache
    seconds: dict[str, list[float]] = {name: [] for name in sides}
    trees: dict[str, tuple[int, int, int]] = {}
    for _ in range(args.repeats):
        for name, run in sides.items():
            trees[name], spent = run()
            seconds[name].append(spent)
    assert len(set(trees.values())) == 1, f"the sides walked different trees: {trees}"
    walked, placed, found = next(iter(trees.values()))
    print(f"  every side walked the same tree: {walked:,} nodes, {placed:,} placements, {found} boards")
    timings = {name: Timing(tuple(s), trees[name]) for name, s in seconds.items()}
    report(
        timings,
        "frozen walk of 54dab70 (baseline)",
        work=placed,
        unit="placements",
        targets={"walk now (generated per board)": "target >= 2x, and >= the C reference"},
    )
    if exe is not None:
        now, ref = (
            statistics.median(seconds["walk now (generated per board)"]),
            statistics.median(seconds["plain C row scan (cc -O3)"]),
        )
        print(f"  walk now / C reference: {ref / now:.2f}x the reference's placements per second")
    rate = placed / statistics.median(seconds["walk now (generated per board)"])
    _profile(frozen, args.nodes // 10, rate, board.compile_seconds)


def _reference_tree(exe, folder: Path) -> None:
    """The C reference's whole tree against the project's row-order walk on a 6 x 6 peak board (no
    symmetry): the same nodes, placements and boards, or the run stops."""
    p = Eternity2Like(n=6, instance_seed=0)
    board = Board(
        p.table, p.n, p.m, p.preplaced, order="rows", lookahead=False, symmetry=False, generated=False
    )
    tables = folder / "tables_check.txt"
    row_scan_ref.write_tables(board, tables)
    w = row_scan_ref.run(exe, tables, 1 << 62)
    ours, _ = _walk_once(board, 1 << 62)
    assert (w.nodes, w.placements, w.boards) == ours, f"C reference {w} against the row order's {ours}"
    print(
        f"C reference's whole tree on 6x6 #0 (rows, no symmetry) = the project's row order's: "
        f"{w.nodes:,} nodes, {w.placements:,} placements, {w.boards} boards"
    )


def _cpu_ghz() -> float | None:
    """The CPU's clock as /proc/cpuinfo reports it (a VM reports its nominal clock), or None."""
    try:
        for text in Path("/proc/cpuinfo").read_text().splitlines():
            if text.startswith("cpu MHz"):
                return float(text.split(":")[1]) / 1000
    except (OSError, ValueError):
        pass
    return None


def _profile(frozen, nodes: int, rate: float, compile_seconds: float) -> None:
    """Per placement: cycles of the walk now (at the reported clock); list entries read (the frozen
    general walk)."""
    ghz = _cpu_ghz()
    cycles = f"{ghz * 1e9 / rate:.0f} cycles per placement at {ghz:.2f} GHz; " if ghz else ""
    print(f"  profile of the walk now: {cycles}compiled in {compile_seconds:.2f} s")
    print(f"  the frozen walk's general loop (no sets) reads {_reads(frozen, nodes)}")


def _reads(board, nodes: int) -> str:
    """Candidate entries read per node, and the share of them rejected because the piece is used (or is
    a twin whose earlier twin is free), over the first `nodes` nodes of a first-board search."""
    never, tally = np.zeros(1, np.int64), np.zeros(2, np.int64)
    _, _, walked, _, _ = board.walk(
        board.fresh_state(), 0, len(board.order), 1, nodes, never, never.copy(), 1, tally
    )
    reads, blocked = tally
    return f"{reads / walked:.2f} entries per node, {blocked / reads:.0%} of them blocked"


def graded() -> dict[str, EdgeMatching]:
    """The graded set: generated Eternity-II-like 6x6 and 7x7 at the hardest colour counts, five each,
    and the seed's unturned boards (centre given) near their phase transition."""
    boards: dict[str, EdgeMatching] = {}
    for n in (6, 7):
        boards |= {f"e2-like {n}x{n} #{s}": Eternity2Like(n=n, instance_seed=s) for s in range(5)}
    for n, colours in ((9, 6), (9, 7), (11, 7), (11, 8)):
        boards[f"seed {n}x{n}, {colours} colours"] = puzzle_for(n, colours, 0)
    return boards


IDEAS: dict[str, dict[str, Any]] = {  # name: Board settings; each adds one idea to plain rows
    "rows, twins up to a turn": {"order": "rows", "lookahead": False, "symmetry": False},
    "+ symmetry": {"order": "rows", "lookahead": False, "symmetry": True},
    "+ symmetry + look-ahead": {"order": "rows", "lookahead": True, "symmetry": True},
    "columns + symmetry": {"order": "columns", "lookahead": False, "symmetry": True},
    "frame first + symmetry": {"order": "frame_first", "lookahead": False, "symmetry": True},
    "spiral + symmetry": {"order": "spiral", "lookahead": False, "symmetry": True},
    "diagonal + symmetry": {"order": "diagonal", "lookahead": False, "symmetry": True},
    "bands of 2 rows + symmetry": {"order": "bands", "lookahead": False, "symmetry": True},
}


def tree(args) -> None:
    """Nodes (and CPU seconds) to the first perfect board per idea on the graded set, one core; a capped
    search counts as the cap (a lower bound on its nodes)."""
    nodes: dict[str, list[int]] = {"row scan (baseline)": [], **{k: [] for k in IDEAS}}
    seconds: dict[str, list[float]] = {k: [] for k in nodes}
    for name, p in graded().items():
        t = time.process_time()
        status, walked = first_board(p.table, p.n, p.preplaced, args.nodes)
        nodes["row scan (baseline)"].append(walked)
        seconds["row scan (baseline)"].append(time.process_time() - t)
        line = f"{name}: baseline {walked:,}{'' if status == 1 else ' (capped)'}"
        for idea, settings in IDEAS.items():
            t = time.process_time()
            answer = search(
                Board(p.table, p.n, p.m, p.preplaced, **settings), limit=1, threads=1, max_nodes=args.nodes
            )
            seconds[idea].append(time.process_time() - t)
            nodes[idea].append(min(answer.nodes, args.nodes))
            line += f" | {idea}: {answer.nodes:,}{'' if answer.boards else ' (capped)'} {checked(p, answer)}"
        print(line, flush=True)
    base = statistics.median(nodes["row scan (baseline)"])
    print(f"\nmedian nodes to the first perfect board over {len(graded())} boards (cap {args.nodes:,}):")
    for idea in nodes:
        median = statistics.median(nodes[idea])
        print(
            f"  {idea}: {median:,.0f} nodes ({base / median:.1f}x fewer than the baseline), "
            f"median {statistics.median(seconds[idea]):.2f} CPU s"
        )
    print("\nnodes to the end of the tree (every perfect board counted), one core:")
    for s in range(5):
        p = Eternity2Like(n=6, instance_seed=s)
        line = f"e2-like 6x6 #{s}:"
        for idea in ("rows, twins up to a turn", "+ symmetry", "+ symmetry + look-ahead"):
            t = time.process_time()
            answer = search(Board(p.table, p.n, p.m, p.preplaced, **IDEAS[idea]), threads=1)
            line += (
                f" | {idea}: {answer.count} boards, {answer.nodes:,} nodes, {time.process_time() - t:.2f} s"
            )
        print(line, flush=True)


def order(args) -> None:
    """Per board and scan order: the tree size Knuth's random dives estimate (`estimate_orders`) against
    the nodes actually walked, to the end of the tree (6 x 6: every board counted) or to the first board
    (7 x 7, capped at --nodes); the order "auto" picks (the smallest estimate) and whether it was the best."""
    picked_best, near, ratios = 0, 0, []
    boards = [(f"e2-like 6x6 #{s}", Eternity2Like(n=6, instance_seed=s), None) for s in range(args.instances)]
    boards += [(f"e2-like 7x7 #{s}", Eternity2Like(n=7, instance_seed=s), 1) for s in range(args.instances)]
    for name, p, limit in boards:
        t = time.process_time()
        estimates = estimate_orders(p.table, p.n, p.m, p.preplaced)
        spent = time.process_time() - t
        actual = {}
        for scan in estimates:
            answer = search(
                Board(p.table, p.n, p.m, p.preplaced, order=scan),
                limit=limit,
                threads=1,
                max_nodes=args.nodes,
            )
            actual[scan] = answer.nodes if answer.stop_reason != "max_nodes" else float("inf")
            checked(p, answer)
        pick = min(estimates, key=lambda x: estimates[x][0])
        best = min(actual.values())
        what = "nodes to the end of the tree" if limit is None else "nodes to the first board"
        print(f"\n{name}: estimated whole tree ({PROBES:,} dives per order, {spent:.2f} CPU s) vs {what}")
        for scan, (mean, error) in sorted(estimates.items(), key=lambda x: x[1][0]):
            real = f"{actual[scan]:,.0f}" if actual[scan] < float("inf") else f"> {args.nodes:,} (capped)"
            mark = (" <- pick" if scan == pick else "") + (" (best)" if actual[scan] == best else "")
            print(f"  {scan:12s} estimate {mean:10.3g} +- {error:8.2g}  actual {real}{mark}")
        picked_best += actual[pick] == best
        near += actual[pick] <= 1.1 * best
        ratios.append(actual[pick] / best if best < float("inf") else float("nan"))
        print(
            f"  pick {pick}: {'the best' if actual[pick] == best else f'{ratios[-1]:.2f}x the best'}",
            flush=True,
        )
    finite = [r for r in ratios if r == r and r < float("inf")]
    print(
        f"\npick was the best on {picked_best} of {len(boards)} boards, within 10% of the best on {near}; "
        f"pick / best (boards whose pick finished): median {statistics.median(finite or [float('nan')]):.2f}x, "
        f"worst {max(finite or [float('nan')]):.2f}x"
    )


SIDES = ("split", "auto", "portfolio")  # hardest's sides, in its table's order


def hardest(args) -> None:
    """Generated hardest 8 x 8 boards (3 frame + 8 inner colours), the first perfect board of each: one
    tree in the default order split over the threads (before issue 34), the order chosen by estimate
    with its tree split (`order="auto"`), and the two best orders raced for a few rounds, then the
    best one's tree split (`portfolio=True`: what the app runs), each side in the same run (`--sides`
    picks some)."""
    every = {
        "one tree split (order short)": lambda p: search(
            Board(p.table, p.n, p.m, p.preplaced), limit=1, threads=args.threads, seconds=args.seconds
        ),
        "order estimated, one tree split": lambda p: search(
            Board(p.table, p.n, p.m, p.preplaced, order="auto"),
            limit=1,
            threads=args.threads,
            seconds=args.seconds,
        ),
        "two orders raced, then one split (the app)": lambda p: search(
            Board(p.table, p.n, p.m, p.preplaced, order="auto"),
            limit=1,
            threads=args.threads,
            seconds=args.seconds,
            portfolio=True,
        ),
    }
    wanted = args.sides.split(",")
    sides = {name: run for (name, run), key in zip(every.items(), SIDES, strict=True) if key in wanted}
    tally: dict[str, list[float]] = {name: [] for name in sides}
    for s in range(args.instances):
        p = Eternity2Like(n=8, instance_seed=s)
        line = f"8x8 #{s}:"
        for name, run in sides.items():
            cpu = time.process_time()
            answer = run(p)
            cpu = time.process_time() - cpu
            tally[name].append(answer.seconds if answer.boards else float("inf"))
            line += (
                f" | {name}: {'solved' if answer.boards else 'not solved'} ({checked(p, answer)}, order "
                f"{answer.order}) in {answer.seconds:.1f} s wall, {cpu:.1f} CPU s, {answer.nodes:,} nodes"
            )
        print(line, flush=True)
    for name, walls in tally.items():
        solved = sum(w < float("inf") for w in walls)
        print(
            f"{name}: solved {solved} of {args.instances} within {args.seconds:g} s each on {args.threads} "
            f"threads; median wall {statistics.median(walls):.1f} s (unsolved count as more than the limit)"
        )


def clues(args) -> None:
    """The official clue puzzles: the first perfect board, then every one counted (within --seconds)."""
    for k in (1, 2, 3, 4):
        p = Eternity2(starter=False, pieces_file=CLUES.format(k))
        board = Board(p.table, p.n, p.m, p.preplaced)
        first = search(board, limit=1, threads=args.threads)
        print(
            f"clue {k} ({p.n} x {p.m}): first perfect board ({checked(p, first)}) after {first.nodes:,} nodes, "
            f"{first.seconds:.2f} s",
            flush=True,
        )
        every = search(board, keep=10, threads=args.threads, seconds=args.seconds)
        total = "all" if every.complete else "at least"
        print(
            f"  counted: {total} {every.count:,} perfect boards (symmetry x{every.symmetry}; the first ten "
            f"{checked(p, every)}), {every.nodes:,} nodes, {every.seconds:.1f} s ({every.stop_reason})",
            flush=True,
        )


def none(args) -> None:
    """Generated 6 x 6 boards changed so that no perfect board is left: one side recoloured (the colour
    counts no longer pair up: proved without a node), or one inner piece mirrored (the same colours, in an
    order none of its turns shows: proved by the whole tree; where the mirror image still fits somewhere,
    the next such piece is mirrored instead, and the run says so)."""
    for s in range(args.instances):
        base = Eternity2Like(n=6, instance_seed=s)
        left, top, right, bottom = base.sides.T
        asymmetric = (base.sides > 0).all(axis=1) & (left != right) & (top != bottom)
        asymmetric &= ~((left == top) & (right == bottom)) & ~((top == right) & (bottom == left))
        pieces = np.flatnonzero(asymmetric)  # their mirror images are none of their turns
        recoloured = base.sides.copy()
        recoloured[pieces[0], 0] = recoloured[pieces[0], 0] % base.inner_colours + base.frame_colours + 1
        answer = _search_sides(recoloured, args.threads)
        print(f"6x6 #{s}, piece {pieces[0]} recoloured: {_verdict(answer)}", flush=True)
        for piece in pieces[:10]:
            mirrored = base.sides.copy()
            mirrored[piece, [0, 2]] = mirrored[piece, [2, 0]]
            answer = _search_sides(mirrored, args.threads)
            print(f"6x6 #{s}, piece {piece} mirrored: {_verdict(answer)}", flush=True)
            if answer.none:
                break


def _search_sides(sides: np.ndarray, threads: int):
    """Every perfect board of a 6 x 6 board of these pieces."""
    p = from_sides(sides)
    return search(Board(p.table, p.n, p.m, p.preplaced), threads=threads)


def _verdict(answer) -> str:
    found = "no perfect board (proved)" if answer.none else f"{answer.count} perfect boards"
    return f"{found}; {answer.nodes:,} nodes, {answer.seconds:.3f} s"


def from_sides(sides: np.ndarray) -> Eternity2:
    """A puzzle of these pieces under Eternity II's rules, through a piece file as users load one."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "pieces.txt"
        path.write_text(
            "# order: left top right bottom\n" + "\n".join(" ".join(map(str, row)) for row in sides)
        )
        return Eternity2(starter=False, pieces_file=str(path), order="left top right bottom")


def fresh_boards(instances: int) -> dict[str, EdgeMatching]:
    """Boards the order choice was not tuned on: generated peak 7 x 7 boards of seeds from 100, 6 x 8
    rectangles of 3 frame and 6 inner colours, and 8 x 8 boards of 4 frame and 8 inner colours (not the peak's 3 and 8)."""
    boards: dict[str, EdgeMatching] = {}
    for s in range(100, 100 + instances):
        boards[f"7x7 peak #{s}"] = Eternity2Like(n=7, instance_seed=s)
        boards[f"6x8 3+6 colours #{s}"] = Eternity2Like(
            n=6, m=8, frame_colours=3, inner_colours=6, instance_seed=s
        )
        boards[f"8x8 4+8 colours #{s}"] = Eternity2Like(
            n=8, frame_colours=4, inner_colours=8, instance_seed=s
        )
    return boards


def hedge(args) -> None:
    """How first-board searches would fare on boards the order choice was not tuned on: the nodes to the
    first board of each of the four orders of smallest estimated tree, each walked alone on one thread
    (capped at --nodes: a lower bound), and from them the wall time, in one thread's nodes, of each way
    to spend two threads: the pick's tree split (nodes / 2), two or four orders raced for the whole run
    (each order a share of the threads: k / 2 x the least), and the app's HEDGE_ROUNDS race then the
    split. Node counts do not depend on the machine's load."""
    from puzzles.edge_matching.solvers.perfect_search.turns import HEDGE_ROUNDS, SLICE

    cost: dict[str, list[float]] = {
        "split the pick": [],
        "race 2": [],
        "race 4": [],
        "short race, then split": [],
    }
    for name, p in fresh_boards(args.instances).items():
        board = Board(p.table, p.n, p.m, p.preplaced, order="auto")
        ranked = sorted(board.estimates, key=lambda x: board.estimates[x][0])
        orders, seen = [], set()
        for scan in ranked:
            cells = board.sibling(scan).order.tobytes()
            if cells not in seen:
                seen.add(cells)
                orders.append(scan)
            if len(orders) == 4:
                break
        first = {}
        for scan in orders:
            answer = search(board.sibling(scan), limit=1, threads=1, max_nodes=args.nodes)
            first[scan] = answer.nodes if answer.boards or answer.none else float(args.nodes)
            checked(p, answer)
        n = [first[s] for s in orders]
        quick = HEDGE_ROUNDS * SLICE
        row = {
            "split the pick": n[0] / 2,
            "race 2": min(n[:2]),
            "race 4": 2 * min(n),
            "short race, then split": min(n[:2]) if min(n[:2]) <= quick else quick + n[0] / 2,
        }
        for k, v in row.items():
            cost[k].append(v)
        shown = ", ".join(f"{s} {first[s]:,.0f}{'+' if first[s] >= args.nodes else ''}" for s in orders)
        print(f"{name}: nodes to the first board by order ({shown}); wall in nodes: "
              + ", ".join(f"{k} {v:,.0f}" for k, v in row.items()), flush=True)  # fmt: skip
    print(f"\nover {len(cost['race 2'])} boards (capped orders count as {args.nodes:,} nodes):")
    for k, v in cost.items():
        print(
            f"  {k}: median {statistics.median(v):,.0f}, mean {statistics.mean(v):,.0f}, worst {max(v):,.0f}"
        )


# The census's baseline: the app before issue 47 counted pieces placed, commit 9941140 (the parent of
# b841f29), fixed by its hash (main's history is never rewritten; a tag would not reach every clone). The
# census was first run beside a commit that is gone (squashed into b841f29; its code cannot be
# compared), whose app counted the 6 x 6 boards of benchmarks/log/bench_exact_edge.md#run-20261128-074919
# with the same counts and nodes as 9941140's app does.
PREVIOUS = "9941140"
ROOT = Path(__file__).resolve().parents[1]


def census(args) -> None:
    """Generated peak boards (the hardest colour counts of their size) counted through the app
    (`python -m experiments.run task=exact`), beside the same app at an earlier commit (`--previous`,
    checked out in a git worktree) in the same run, interleaved: perfect boards, nodes, pieces placed,
    the task's seconds, the threads' busy share. The sides must agree on the count and the nodes (the
    census's checksums); `--limit 1`: the first board instead."""
    sides = {"now": ROOT}
    if args.previous != "none":  # none: this checkout alone (a count of an hour a side)
        sides = {f"previous ({args.previous})": _worktree(args.previous), **sides}
    for side in sides.values():  # compiles each side's kernels into its numba cache, untimed
        _app_exact(side, 5, 0, args)
    for n in args.sizes:
        for s in range(args.instances):
            print(f"\n{n}x{n} #{s}: {_generated_walk(n, s)}")
            rows: dict[str, list[dict]] = {name: [] for name in sides}
            for _ in range(args.repeats):
                for name, side in sides.items():
                    rows[name].append(_app_exact(side, n, s, args))
            what = "first board" if args.limit else "census"
            print(f"\n{n}x{n} #{s} (peak colours), {what} on {args.threads} threads through the app:")
            for name, runs in rows.items():
                last = runs[-1]
                placed = f", {last['placements']:,} pieces placed" if "placements" in last else ""
                busy = f", threads busy {last['busy']:.1%}" if "busy" in last else ""
                print(
                    f"  {name}: {last['perfect_boards']:,} perfect boards ({last['stop_reason']}, order "
                    f"{last['scan_order']}), {last['nodes']:,} nodes{placed}{busy}"
                )
            counts = {(r["perfect_boards"], r["nodes"]) for runs in rows.values() for r in runs}
            if any(r["stop_reason"] == "seconds" for runs in rows.values() for r in runs):
                print("  checksums not compared: a run stopped at --seconds (its nodes are the time's)")
            else:
                print(
                    f"  checksums (count, nodes) {'agree' if len(counts) == 1 else 'DIFFER: ' + str(counts)}"
                )
            timings = {name: Timing(tuple(r["seconds"] for r in runs), None) for name, runs in rows.items()}
            report(timings, baseline=next(iter(sides)) if len(sides) > 1 else None)


def _generated_walk(n: int, seed: int) -> str:
    """The app's walk for the generated n x n board, chosen, and compiled (or loaded from the cache
    folder) here for the depth its jobs start at, timed apart: the app's runs below then load it from
    the cache."""
    p = Eternity2Like(n=n, instance_seed=seed)
    board = Board(p.table, p.n, p.m, p.preplaced, order="auto")  # as the app's task=exact builds it
    estimate = board.estimates[board.order_name][0]
    walks = board.generated_walk()
    if walks is None:
        return (
            f"the general walk (tree estimated at {estimate:.3g} nodes: no generated walk, it would not pay)"
        )
    walk = walks.walk_from(split(board, len(board.order))[0])
    how = "loaded from the cache folder" if walk.loaded else "compiled"
    return (
        f"a generated walk (tree estimated at {estimate:.3g} nodes), {how} in {walk.compile_seconds:.2f} s "
        "(compile seconds, apart from the app's seconds below, which load it from the cache)"
    )


def _worktree(rev: str) -> Path:
    """A checkout of `rev` beside this one (made once per commit, kept for the next run: its numba
    cache too)."""
    found = subprocess.run(["git", "rev-parse", "--verify", f"{rev}^{{commit}}"], cwd=ROOT,
                           capture_output=True, text=True)  # fmt: skip
    commit = found.stdout.strip()  # the parser checked --previous names a commit
    folder = Path(tempfile.gettempdir()) / f"puzzlelab-{commit[:12]}"
    if not folder.exists():
        made = subprocess.run(["git", "worktree", "add", "--detach", str(folder), commit], cwd=ROOT,
                              capture_output=True, text=True)  # fmt: skip
        if made.returncode != 0:
            flags.refuse(f"--previous {rev}: cannot check it out in {folder}: {made.stderr.strip()}")
    return folder


def _app_exact(checkout: Path, n: int, seed: int, args) -> dict:
    """One `task=exact` run of the app in `checkout` on the generated n x n board: its exact.parquet
    row, with the task's seconds."""
    with tempfile.TemporaryDirectory() as run_dir:
        flags.run_app([
            "puzzle=eternity2_like", f"puzzle.n={n}",
            f"puzzle.instance_seed={seed}", "task=exact", f"task.threads={args.threads}", "progress=false",
            f"hydra.run.dir={run_dir}", *([f"task.limit={args.limit}"] if args.limit else []),
            *([f"task.seconds={args.seconds}"] if args.seconds else []),
        ], cwd=checkout)  # fmt: skip
        row = pd.read_parquet(Path(run_dir) / "exact.parquet").iloc[0].to_dict()
        row["seconds"] = float(pd.read_parquet(Path(run_dir) / "run.parquet").iloc[0]["seconds"])
        return row


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    """The flags, each checked before anything runs (benchmarks/flags.py)."""
    parser = flags.Parser("bench_exact_edge", __doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for name, fn in (
        ("speed", speed),
        ("tree", tree),
        ("order", order),
        ("hardest", hardest),
        ("clues", clues),
        ("none", none),
        ("census", census),
        ("hedge", hedge),
    ):
        p = sub.add_parser(name, help=fn.__doc__.splitlines()[0])
        p.set_defaults(fn=fn)
        p.add_argument(
            "--nodes", type=flags.count, default=200_000_000, help="node cap per search (speed, tree)"
        )
        p.add_argument("--repeats", type=flags.count, default=3)
        instances = {"hardest": 10, "census": 1, "hedge": 8}.get(name, 5)
        p.add_argument("--instances", type=flags.count, default=instances)
        p.add_argument("--seconds", type=flags.seconds, default=None if name == "census" else 600.0)
        p.add_argument("--threads", type=flags.threads, default=2)
        if name == "hardest":
            p.add_argument(
                "--sides",
                type=flags.names(SIDES, "sides"),
                default=",".join(SIDES),
                help="comma-separated: split (one tree, order short), auto (one tree, order estimated), "
                "portfolio (two orders raced, then one split: the app)",
            )
        if name == "census":
            p.add_argument(
                "--sizes",
                type=flags.wholes(among=HARDEST_COLOURS),
                default="6,7",
                help="comma-separated board sizes n (n x n), sizes with the hardest colour counts known",
            )
            p.add_argument("--limit", type=flags.count, default=None, help="1: the first board, not a census")
            p.add_argument(
                "--previous",
                type=flags.commit,
                default=PREVIOUS,
                help=f"the commit whose app is the baseline (default {PREVIOUS}; none: no baseline)",
            )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = parse(argv)
    args.fn(args)


if __name__ == "__main__":
    flags.run(main)
