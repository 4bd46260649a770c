"""`bench_eternity2 walk` and `bench_eternity2 ladder`: the break backtracker's placements per second
beside the walk before it, and its complete boards per hour at each score on the official set.

walk: the same restarts (seeds 0..restarts-1) walked by puzzles/edge_matching/solvers/breaks_walk.py and
by benchmarks/breaks_walk_before.py, interleaved, each side repeated; placements (pieces placed, the
pre-placed starter not counted) per second of one thread. Two workloads: the run's restarts (the colour
quota the probes choose for seed 0, abandoned after 3 million placements short of depth 160) and deep
restarts (no quota, no abandon: the tree past depth 193 where breaks are allowed). Every restart must
return the same figures and boards on both walks, or the run stops.

ladder: `optimizer=breaks` with `ladder` set runs `--seconds` of wall-clock time on `--threads` threads
and counts every distinct complete board of at least `--floor` matched joins (each re-scored); printed
per score as boards and boards per hour, beside the baseline's settings run the same way in the same
run (`--baseline-set`; before issue 46: the defaults of that time), with the restarts' outcome profile
(how they ended, the depth they reached, placements per restart). Beside the boards, the distinct
prefixes: boards alike in all but the fill order's last 16 cells (breaks.OPEN_CELLS, eii's last row)
count once, so a cluster of completions of one deep partial shows as one. eii's published rates on
one PC of 2009 are printed as context, not as a ratio.
"""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path

import numpy as np

from benchmarks import breaks_walk_before as before
from benchmarks.eternity2_rescore import rescored
from benchmarks.timing import compare, context, report
from puzzles.edge_matching.eternity2 import Eternity2
from puzzles.edge_matching.solvers import breaks_walk as after
from puzzles.edge_matching.solvers.breaks import Breaks, RestartOutcome
from puzzles.edge_matching.solvers.breaks_tables import Tables, no_parity, odd_colours

QUOTA_SEED0 = [1, 15, 17]
QUOTA_RUN = [
    3,
    20,
    7,
]  # the triple the probes chose in the ladder's runs (seed 0, 600 s, two threads)  # the triple the probes choose on the official set for seed 0 (30 s run)
EII_PER_HOUR = {463: 2040, 464: 115, 465: 6.9, 466: 0.32}  # Verhaard's eii, 82 days on one 2009 PC
DEPTH_BINS = (0, 160, 192, 224, 240, 248, 256, 257)


def restart(walk, tables: Tables, cap: int, seed: int, quota=(), abandon=(0, 0), fewer=1 << 30, parity=False):
    """One restart on `walk` (this walk or the one before it): its five returned figures (placements,
    best, deepest, its breaks, exhausted) and its three output arrays (placements by depth, best
    board, deepest partial), as both walks give them. The walk before had no parity cut: this walk's is
    off unless `parity`, so that both walk one tree."""
    outs = (
        np.zeros(tables.cells_count, np.int64),
        np.full(tables.cells_count, -1, np.int64),
        tables.board0.copy(),
    )
    caps = (cap, abandon[0], abandon[1], fewer)
    if walk is after:  # the ladder's settings off, its outputs empty; placements with a break counted apart
        caps, outs = (
            (*caps, False, -1, 0, 1 << 30, 0, False),
            (np.zeros((2, tables.cells_count), np.int64), *outs[1:])
            + (np.zeros(1, np.int64), np.zeros((0, 1), np.int64), np.zeros(0, np.int64)),
        )
    tables_ = (tables.geometry, tables.lists, tables.allow, tables.board0)
    extra = (tables.parity if parity else no_parity(len(tables.parity[0])),) if walk is after else ()
    result = walk._restart(tables_, tables.quota(quota), caps, seed, np.zeros(1, np.int64), outs, *extra)
    return tuple(int(x) for x in result[:5]), (outs[0][0] if walk is after else outs[0], *outs[1:3])


def _walk(walk, tables: Tables, workload: tuple) -> tuple[int, list]:
    """Placements of the workload's restarts on `walk`, and each restart's figures and boards."""
    restarts, cap, quota, abandon = workload
    figures = [restart(walk, tables, cap, seed, quota, abandon) for seed in range(restarts)]
    return sum(f[0][0] for f in figures), figures


def bench_walk(args) -> None:
    """Placements per second of both walks on the same restarts, interleaved."""
    tables = Tables(Eternity2(), "staircase", None, None)
    workloads = {
        "the run's restarts": (args.restarts, 20_000_000, QUOTA_SEED0, (3_000_000, 160)),
        "deep restarts": (max(1, args.restarts // 4), 20_000_000, [], (0, 0)),
    }
    for name, workload in workloads.items():
        _walk(after, tables, (1, 1000, *workload[2:]))  # compile (or load numba's cache) off the clock
        _walk(before, tables, (1, 1000, *workload[2:]))
        sides = {
            "before (9941140)": lambda w=workload: _walk(before, tables, w),
            "now": lambda w=workload: _walk(after, tables, w),
        }
        timings = compare(sides, repeats=args.repeats)
        placements = timings["now"].result[0]
        for (old, old_outs), (new, new_outs) in zip(
            timings["before (9941140)"].result[1], timings["now"].result[1], strict=True
        ):
            if old != new or any((a != b).any() for a, b in zip(old_outs, new_outs, strict=True)):
                raise AssertionError(f"{name}: the walks differ: {old} against {new}")
        print(
            f"{name}: {workload[0]} restarts, {placements:,} placements each side, the same boards on both walks"
        )
        report(
            timings,
            baseline="before (9941140)",
            unit="placements",
            work=dict.fromkeys(sides, placements),
            targets={"now": "target >= 3x"},
        )


def odd_and_breaks(tables: Tables, board: np.ndarray) -> tuple[int, int, list[int]]:
    """A partial board's colours left odd by its broken joins (the pieces' own odd colours counted, as
    the walk counts them), its breaks, and the fill depth of each break (of its later cell)."""
    col, nb, cells = tables.colours, tables.neighbours, tables.order
    position = np.empty(len(cells), np.int64)
    position[cells] = np.arange(len(cells))
    bits, odd = odd_colours(tables.table, tables.board0, nb, tables.radix)  # as the walk with parity on
    odd, depths = int(odd), []
    for x in np.flatnonzero(board >= 0):
        for side in (2, 1):
            y = nb[x, side]
            if y >= 0 and board[y] >= 0 and col[board[x], side] != col[board[y], (side + 2) % 4]:
                odd ^= int(bits[col[board[x], side]] ^ bits[col[board[y], (side + 2) % 4]])
                depths.append(int(max(position[x], position[y])))
    return bin(odd).count("1"), len(depths), depths


def bench_parity(args) -> None:
    """The deep partial boards of today's walk (no parity cut): how many parity alone proves dead
    within the schedule's breaks, how deep restarts get, and where their breaks are spent."""
    tables = Tables(Eternity2(), "staircase", None, None, parity=False)
    allowance = int(tables.allow[-1])
    deep, dead, depths, reached = 0, 0, Counter(), Counter()
    started = time.perf_counter()
    for seed in range(args.restarts):
        run = tables.restart(args.nodes, seed, np.zeros(1, np.int64), QUOTA_RUN, (3_000_000, 160))
        reached[min(run.deepest // 8 * 8, 256)] += 1
        if run.deepest < args.depth:
            continue
        odd, breaks, at = odd_and_breaks(tables, run.deep_board)
        deep += 1
        dead += odd > 2 * (allowance - breaks)
        depths.update(d // 8 * 8 for d in at)
        print(
            f"  restart {seed}: deepest {run.deepest}, {breaks} breaks, {odd} colours odd, "
            f"{allowance - breaks} breaks left: {'dead by parity' if odd > 2 * (allowance - breaks) else 'alive'}",
            flush=True,
        )
    print(
        f"\nofficial set, starter only, quota {QUOTA_RUN}, {args.restarts} restarts of {args.nodes:,} placements "
        f"(abandoned after 3,000,000 short of depth 160), the schedule's {allowance} breaks, "
        f"{time.perf_counter() - started:.0f} s"
    )
    print(f"restarts by deepest depth (bins of 8): {dict(sorted(reached.items()))}")
    print(
        f"deepest partials at depth {args.depth} or more: {deep}; dead by parity within the schedule: {dead}"
    )
    print(f"their breaks by depth (bins of 8): {dict(sorted(depths.items()))}")


def outcome_profile(outcomes: tuple[RestartOutcome, ...], cells: int) -> str:
    """How restarts ended, the depth they reached (by bins) and their placements (quartiles)."""
    runs = [o for o in outcomes if o.k >= 0]
    if not runs:
        return "no restarts"
    ended = Counter(o.ended for o in runs)
    bins = np.histogram([o.deepest for o in runs], bins=[b * cells / 256 for b in DEPTH_BINS])[0]
    labels = [f"{a}-{b - 1}" for a, b in zip(DEPTH_BINS[:-2], DEPTH_BINS[1:-1], strict=True)] + ["256"]
    nodes = np.quantile([o.nodes for o in runs], [0.25, 0.5, 0.75])
    return (
        f"{len(runs):,} restarts ({', '.join(f'{v:,} {k}' for k, v in ended.most_common())}); deepest depth: "
        + ", ".join(f"{label}: {count:,}" for label, count in zip(labels, bins, strict=True))
        + f"; placements per restart: quartiles {nodes[0]:,.0f} / {nodes[1]:,.0f} / {nodes[2]:,.0f}"
    )


def _settings(pairs: list[str]) -> dict:
    """--set values "name=value" as Breaks keyword arguments (ints, lists of ints, true, false, null, words)."""
    out: dict = {}
    for pair in pairs:
        name, value = pair.split("=", 1)
        if value == "null":
            out[name] = None
        elif value in ("true", "false"):
            out[name] = value == "true"
        elif value.startswith("["):
            out[name] = [int(v) for v in value.strip("[]").split(",") if v.strip()]
        else:
            try:
                out[name] = int(float(value))
            except ValueError:  # a word: value_order=quota
                out[name] = value
    return out


def ladder_run(
    settings: dict, seed: int, seconds: float, threads: int, floor: int, puzzle
) -> tuple[dict, str]:
    """One side's run: distinct complete boards per matched joins (each re-scored), and its profile."""
    solver = Breaks(seed=seed, threads=threads, ladder=480 - floor, **settings)
    started = time.perf_counter()
    built = solver.construct(puzzle, seconds=seconds)
    took = time.perf_counter() - started
    turns = 4
    rescored(puzzle, built.unmatched, built.layout, f"seed {seed}: best board")
    boards = Counter(480 - u for u in built.ladder_boards.values())
    prefixes = {board: built.ladder_prefixes[board] for board in built.ladder_boards}
    parts = Counter(built.ladder_parts[board] for board in built.ladder_boards)
    for board, unmatched in built.ladder_boards.items():
        layout = puzzle.layout(
            np.frombuffer(board, np.int64) // turns, np.frombuffer(board, np.int64) % turns
        )
        rescored(puzzle, unmatched, layout, f"seed {seed}: a ladder board")
    profile = (
        f"{took:.0f} s, {built.work:,} placements ({built.work / took / threads / 1e6:.1f} million/s per thread), "
        f"best {480 - built.unmatched}; quota {list(built.quota) or 'none'}; completed by "
        + (", ".join(f"{part} {count}" for part, count in parts.most_common()) or "none")
        + "; "
        + outcome_profile(built.outcomes, 256)
    )
    best_of = {prefixes[b]: 480 - u for b, u in sorted(built.ladder_boards.items(), key=lambda x: -x[1])}
    walked = Counter(480 - u for b, u in built.ladder_boards.items() if built.ladder_parts[b] == "walk")
    return dict(boards), profile, best_of, (built.depth_nodes, built.break_nodes, walked)


def bench_ladder(args) -> None:
    """Boards per hour at each score, ours and the baseline's, side by side in one run."""
    puzzle = Eternity2()
    sides = {"now": _settings(args.set)}
    for one in args.ablate:  # ours with one setting changed: what that mechanism buys
        sides[f"now, {one}"] = _settings([*args.set, one])
    if not args.no_baseline:
        sides["baseline"] = _settings(args.baseline_set)
    Breaks().warm_up(puzzle)
    totals: dict[str, Counter] = {name: Counter() for name in sides}
    prefixes: dict[str, Counter] = {name: Counter() for name in sides}  # distinct prefixes, at their best
    walks = {name: [np.zeros(256, np.int64), np.zeros(256, np.int64), Counter()] for name in sides}
    for seed in range(args.seed_from, args.seed_from + args.seeds):
        for name, settings in sides.items():
            boards, profile, best_of, walk = ladder_run(
                settings, seed, args.seconds, args.threads, args.floor, puzzle
            )
            totals[name].update(boards)
            prefixes[name].update(best_of.values())
            for total, part in zip(walks[name], walk, strict=True):
                total += part
            print(f"  {name} seed {seed}: boards {dict(sorted(boards.items()))}; {profile}", flush=True)
    hours = args.seconds * args.seeds / 3600
    print(
        f"\nofficial set, starter on, no clues; {args.threads} threads, {args.seconds:g} s x {args.seeds} seeds per "
        f"side ({hours:.2f} h); distinct complete boards per hour (re-scored), at each score and at it or better:"
    )
    top = max([args.floor, *(s for t in totals.values() for s in t)])
    for name, settings in sides.items():
        counts = totals[name]
        cells = []
        for score in range(args.floor, top + 1):
            at = counts.get(score, 0)
            better = sum(v for s, v in counts.items() if s >= score)
            alike = sum(v for s, v in prefixes[name].items() if s >= score)
            cells.append(
                f"{score}: {at / hours:,.1f} ({better / hours:,.1f} at or above, {alike / hours:,.1f} distinct prefixes)"
            )
        print(f"  {name} {settings or '(defaults)'}: " + "; ".join(cells))
    print("the chain model (benchmarks/eternity2_chain.py) beside the walk's own complete boards, per hour:")
    for name, settings in sides.items():
        print(f"  {name}: " + chain_line(puzzle, settings, walks[name], hours))
    if "baseline" in sides:
        for score in (464, 465):
            now = sum(v for s, v in totals["now"].items() if s >= score) / hours
            base = sum(v for s, v in totals["baseline"].items() if s >= score) / hours
            ratio = f"{now / base:.2f}x" if base else "baseline none"
            print(f"  {score} or better per hour: now {now:,.1f}, baseline {base:,.1f}: {ratio}")
    if args.plot:
        draw_ladder(
            {name: {s: v / hours for s, v in counts.items()} for name, counts in totals.items()}, args
        )
    context(
        "eii (Verhaard), boards per hour on one PC of 2009: "
        + ", ".join(f"{score}: {rate:g}" for score, rate in EII_PER_HOUR.items())
        + " (the targets on two cores: >= 2,040 at 463 or better, >= 115 at 464, >= 7 at 465)"
    )


def chain_line(puzzle, settings: dict, walk: list, hours: float) -> str:
    """The chain's boards per hour at or above 462-466 for a side's schedule, fit to its placements,
    beside the side's walk-completed boards (the part of the ladder the chain models)."""
    from benchmarks.eternity2_chain import chain_for

    tables = Tables(
        puzzle, settings.get("order", "staircase"), settings.get("tail"), settings.get("schedule")
    )
    predicted, measured = chain_for(tables, walk[0], walk[1], hours, 480)
    return f"rates measured to depth {measured}; " + "; ".join(
        f"{s} or better: predicted {predicted.get(s, 0.0):,.1f}, walked {sum(v for t, v in walk[2].items() if t >= s) / hours:,.1f}"
        for s in range(462, 467)
    )


def _label(settings: dict) -> str:
    """A side's settings, short: "defaults", or "schedule=[193..240] (12)"."""
    if not settings:
        return "defaults"
    shown = [
        f"{k}=[{v[0]}..{v[-1]}] ({len(v)})" if isinstance(v, list) and len(v) > 3 else f"{k}={v}"
        for k, v in settings.items()
    ]
    return ", ".join(shown)


def new_plot():
    """A figure and axes for a benchmark's picture, drawn off screen."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt.subplots(figsize=(6.4, 3.8))


def save_plot(fig, ax, title: str, path: str) -> None:
    """Legend and title on, the picture written to `path`."""
    from experiments.records import write_picture

    ax.legend(fontsize=8)
    ax.set_title(title, fontsize=9)
    write_picture(fig, Path(path))
    print(f"plot: {path}")


def draw_ladder(rates: dict[str, dict[int, float]], args) -> None:
    """The ladder as a picture: boards per hour at each score or better, ours beside eii's rates."""
    from matplotlib.ticker import MaxNLocator

    fig, ax = new_plot()
    for (name, rate), marker in zip(rates.items(), "osDvP", strict=False):
        scores = sorted(s for s in rate if s >= args.floor)
        at_or_above = [sum(v for s, v in rate.items() if s >= score) for score in scores]
        label = (
            f"puzzlelab breaks, {args.threads} threads ({name})"
            if len(rates) > 1
            else f"puzzlelab breaks, {args.threads} threads"
        )
        ax.plot(scores, at_or_above, marker=marker, label=label)
    eii = sorted(EII_PER_HOUR)
    ax.plot(
        eii,
        [sum(EII_PER_HOUR[t] for t in eii if t >= s) for s in eii],
        "k--",
        marker="^",
        label="eii (Verhaard), one PC of 2009",
    )
    ax.set_yscale("log")
    ax.set_xlabel("matched joins of 480")
    ax.set_ylabel("complete boards per hour, at this score or better")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    save_plot(
        fig, ax, f"Eternity II, starter only: {args.seconds * args.seeds / 3600:.2f} h per side", args.plot
    )
