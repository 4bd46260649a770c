"""Compiled local search on Eternity II against the Python SA path (issue 10's targets).

    python -m benchmarks.bench_eternity2 speed                      # priced moves/s, 5 interleaved repeats
    python -m benchmarks.bench_eternity2 official                   # 60 s x 5 seeds, one core, hybrid_vlns
    python -m benchmarks.bench_eternity2 official --seconds 600 --chains 2 --seeds 5 [--no-starter] [--set period=2e9]
    python -m benchmarks.bench_eternity2 generated --size 8 --seeds 10 --optimizers hybrid_vlns,sa_compiled
    python -m benchmarks.bench_eternity2 beam --width 10000 --seeds 5 [--no-starter] [--size 8]
    python -m benchmarks.bench_eternity2 beam --width 10000 --max-width 1000000 --chains 2   # both cores
    python -m benchmarks.bench_eternity2 anytime --seconds 60 --seeds 5 --methods breaks,beam,beam_refine
    python -m benchmarks.bench_eternity2 anytime --seconds 600 --seeds 3 --methods portfolio,beam,beam_refine
    python -m benchmarks.bench_eternity2 sweep --seconds 10 --optimizers exact_first,breaks,portfolio
    python -m benchmarks.bench_eternity2 walk --restarts 8 --repeats 5
    python -m benchmarks.bench_eternity2 ladder --seconds 600 --threads 2 [--set abandon_nodes=1000000]
    python -m benchmarks.bench_eternity2 parity --restarts 24

speed: evaluations per CPU second through the Objective on 16 x 16, one core: priced moves of
`sa_compiled` against fitness calls (candidates) of today's `sa`, both measured in this run.
official: matched joins (of 480) after `--seconds` on `--chains` cores, starter on unless
`--no-starter`, no clues. Budgets are CPU seconds of the process (time.process_time), `--seconds`
per core: on a shared machine a run gets the CPU it is promised, however long that takes.
generated: success rate at a perfect board within `--seconds` per seed, on Eternity-II-like boards
of side `--size` with the hardest colour counts (`puzzle=eternity2_like`), instance seed = run seed.
beam: beam search of `--width` (widened up to `--max-width`, cells in `--order`; puzzles/edge_matching/solvers/beam.py)
on the official set (or with `--size` a generated board, instance seed = run seed), on numba's
threads (NUMBA_NUM_THREADS=1: one core), against `hybrid_vlns` with `--chains` chains given the CPU
seconds the beam took, in the same run, seed by seed.
anytime: issue 33's figures. Each method of `--methods` (optimizer configs; `beam` is the beam alone
with beam_refine's widths) runs `--seconds` of wall-clock time per seed as `python -m experiments.run
... budget.seconds=S` runs it (the break backtracker's restarts, the chains and the beams on their own
threads), side by side in this run; it prints the matched joins of the best board at 1, 10, 60, 600
and 3,600 s (those within the budget, read from the run's trace), the final board re-scored, where
`breaks` spends its nodes by depth, and the plateau walk's operator shares.
walk, ladder, parity: the break backtracker's placements per second beside the walk before it, its
complete boards per hour at each score, and the share of its deepest partial boards that parity proves
dead (benchmarks/eternity2_ladder.py).
sweep: the colour sweep's hard counts (issue 33's last target): the seed's pseudo Eternity II (no
turns, centre given; `puzzles.edge_matching.seed_sweep.puzzle_for`) at `--boards` (n,colours; by default
the three counts whose best median was below 95%), instances 0..`--seeds`-1, each optimiser of
`--optimizers` given `--seconds` CPU seconds per board (a constructive solver: as its own schedule
times it), side by side: unmatched joins and match rate board by board, each count's median against
95%.

Every board reported is re-scored from the final board: the best genome decoded, checked by the
puzzle (`Eternity2.check`) and by this module's own reading of the rules (`checked_unmatched`: each
piece once, grey sides exactly on the rim, the starter in its cell and turn), and scored by the
puzzle's scorer and by that count; a kernel's running tally that disagrees with them stops the run.
"""

from __future__ import annotations

import argparse
import inspect
import resource
import statistics
import time
from collections.abc import Callable, Sequence
from functools import partial

import numba
import numpy as np
from hydra.errors import ConfigCompositionException

from benchmarks import flags
from benchmarks.eternity2_ladder import _settings, bench_ladder, bench_parity, bench_walk, new_plot, save_plot
from benchmarks.eternity2_rescore import rescored
from benchmarks.timing import compare, report
from core.errors import InputError
from core.space import Budget
from experiments.api import config
from experiments.build import build
from experiments.overrides import one_line, options
from experiments.pairing import as_optimizer, local_search_face
from heuristics.chains import warm_up
from heuristics.compiled import Chains, CompiledSA
from heuristics.minimize import minimize
from heuristics.sa import SimulatedAnnealing
from puzzles.edge_matching.board import inner_edges
from puzzles.edge_matching.eternity2 import HARDEST_COLOURS, Eternity2, Eternity2Like
from puzzles.edge_matching.seed_sweep import puzzle_for
from puzzles.edge_matching.solvers.beam import Beam
from puzzles.edge_matching.solvers.breaks import Breaks

PYTHON_EVALS, COMPILED_EVALS = 20_000, 4_000_000


def bench_speed(repeats: int) -> None:
    """Evaluations/s of both paths, interleaved; ratio of the medians' rates."""
    puzzle = Eternity2()
    face = puzzle.local_search()
    warm_up(face, "sa")
    late = CompiledSA(t_start=0.15, t_end=0.15)  # a late-run acceptance rate, as after cooling
    python, compiled = "sa (Python, fitness calls)", "sa_compiled (priced moves)"
    sides = {
        python: lambda: minimize(
            puzzle.fitness, puzzle.space, SimulatedAnnealing(), Budget(evaluations=PYTHON_EVALS), 0
        ),
        compiled: lambda: minimize(
            puzzle.fitness, puzzle.space, late, Budget(evaluations=COMPILED_EVALS), 0, face=face
        ),
    }
    timings = compare(sides, repeats=repeats, clock=time.process_time)  # CPU seconds: the machine is shared
    report(
        timings,
        baseline=python,
        unit="evaluations",
        work={python: PYTHON_EVALS, compiled: COMPILED_EVALS},
        targets={compiled: "target >= 3,000,000/s and >= 50x"},
    )
    for name, evaluations in ((python, PYTHON_EVALS), (compiled, COMPILED_EVALS)):
        result = timings[name].result
        assert result.evaluations == evaluations, (name, result.evaluations, evaluations)
        matched = rescored(puzzle, result.best, puzzle.decode(result.best_genome), name)
        print(
            f"{name}: last repeat's best board re-scored, {matched} of 480 joins matched "
            "(a legal board: grey sides exactly on the rim)",
            flush=True,
        )


def optimizer_named(name: str, chains: int, settings: tuple[str, ...] | list[str] = ()):
    """An optimiser from its config (configs/optimizer/<name>.yaml), with `chains` chains if compiled
    and `settings` ("period=2.1e8", a nested one as "breaks.schedule=[200,210]") overriding its own; a
    setting it does not take is one line, as the app says it (a moved one: where it is now)."""
    overrides = ([f"optimizer.chains={chains}"] if chains > 1 else []) + [f"optimizer.{s}" for s in settings]
    try:
        cfg = config(optimizer=name, overrides=overrides)
    except ConfigCompositionException as err:
        raise InputError(one_line(err, [f"optimizer={name}", *overrides])) from None
    return build(cfg.optimizer, "optimizer")


def run_once(puzzle, optimizer, seconds: float, seed: int, target: float | None = None):
    """One run under a CPU-seconds budget (per core the optimiser uses); a constructive solver (the beam)
    builds its board within the budget, timed as its own schedule times it (wall clock)."""
    compiled = isinstance(optimizer, Chains)
    return minimize(
        puzzle.fitness,
        puzzle.space,
        as_optimizer(optimizer, puzzle),
        Budget(seconds=seconds * (optimizer.chains if compiled else 1), target=target),
        seed,
        face=local_search_face(puzzle, optimizer) if compiled else None,
        clock=time.process_time,
    )


def anytime(result, joins: int, marks: list[float]) -> str:
    """Matched joins of the run's start board and of its best at each mark (CPU seconds), from its trace."""
    at = [f"start {joins - int(result.trace[0][2])} at {result.trace[0][1]:.0f} s"]
    for mark in marks:
        seen = [best for _, seconds, best in result.trace if seconds <= mark]
        if mark <= result.seconds and seen:
            at.append(f"{joins - int(min(seen))} by {mark:g} s")
    return ", ".join(at)


def peak_memory_gb() -> float:
    """The process's peak resident memory so far (ru_maxrss, KB on Linux), in GB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20


def bench_official(args) -> None:
    """Matched joins of the official set after the budget, per seed, and their median."""
    puzzle = Eternity2(starter=args.starter)
    optimizer = optimizer_named(args.method, args.chains, args.set)
    local_search_face(puzzle, optimizer)  # compile the kernels (or load numba's cache) outside the clock
    Beam(width=10).solve(puzzle)
    scores = []
    for seed in range(args.seed_from, args.seed_from + args.seeds):
        result = run_once(puzzle, optimizer, args.seconds, seed)
        scores.append(rescored(puzzle, result.best, puzzle.decode(result.best_genome), f"seed {seed}"))
        marks = [m * args.seconds * args.chains for m in (1 / 60, 1 / 6, 1 / 2, 1)]
        print(
            f"  {args.method} x{args.chains} seed {seed}: {scores[-1]} of 480 joins matched (final board "
            f"re-scored, agrees with the run's tally), {result.evaluations:,} evaluations in "
            f"{result.seconds:.0f} CPU s; anytime (CPU s): {anytime(result, 480, marks)}; peak memory "
            f"{peak_memory_gb():.1f} GB",
            flush=True,
        )
    print(
        f"official set, {args.method} {' '.join(args.set)}, {args.chains} core(s), {args.seconds:g} s per core, "
        f"{args.seeds} seeds, {_starter(args)}, no clues: median {statistics.median(scores)}, best "
        f"{max(scores)}, all {scores}"
    )


def bench_generated(args) -> None:
    """Perfect boards within the budget, per optimiser, over seeds (each seed its own instance, a
    square of `--size` or a rectangle of `--size` rows and `--cols` columns); with two or more
    optimisers, each one's unmatched joins beside the first's, board by board."""
    cols = args.cols or args.size
    by_name: dict[str, list[int]] = {}
    for name in args.optimizers.split(","):
        optimizer = optimizer_named(name, args.chains, settings_for(name, args.set))
        solved, bests, times, starts = 0, [], [], []
        by_name[name] = bests
        for seed in range(args.seed_from, args.seed_from + args.seeds):
            frame, inner = args.colours or (None, None)
            puzzle = Eternity2Like(args.size, cols, frame, inner, instance_seed=seed)
            result = run_once(puzzle, optimizer, args.seconds, seed, target=0)
            joins = rescored(puzzle, result.best, puzzle.decode(result.best_genome), f"{name} seed {seed}")
            bests.append(inner_edges(puzzle.n, puzzle.m) - joins)
            solved += bests[-1] == 0
            times.append(result.seconds)
            starts.append(int(result.trace[0][2]))
            print(
                f"  {name} seed {seed}: best {bests[-1]} unmatched (its first board {starts[-1]}, at "
                f"{result.trace[0][1]:.1f} s), {result.seconds:.1f} CPU s; peak memory {peak_memory_gb():.1f} GB",
                flush=True,
            )
        joins = inner_edges(args.size, cols)
        print(
            f"generated {args.size}x{cols} ({joins} joins), {name}, {args.seconds:g} s: solved "
            f"{solved}/{args.seeds}; unmatched median {statistics.median(bests)}, all {bests} (first boards: "
            f"{starts}); median time {statistics.median(times):.1f} s",
            flush=True,
        )
    board_by_board(by_name)


def board_by_board(by_name: dict[str, list[int]], what: str = "") -> None:
    """Each optimiser's unmatched joins against the first one's, board by board (fewer: better)."""
    first, *others = by_name
    for name in others:
        pairs = list(zip(by_name[name], by_name[first], strict=True))
        print(
            f"{what}{name} against {first}, board by board (unmatched): {by_name[name]} against "
            f"{by_name[first]}: better on {sum(a < b for a, b in pairs)}, equal on "
            f"{sum(a == b for a, b in pairs)}, worse on {sum(a > b for a, b in pairs)}"
        )


SWEEP_HARD = ((13, 8), (15, 9), (15, 10))  # the colour sweep's counts whose best median was below 95%


def bench_sweep(args) -> None:
    """The colour sweep's hard counts: each optimiser's unmatched joins and match rate per instance,
    re-scored, and each count's median match rate against the target (95%)."""
    for n, colours in args.boards:
        by_name: dict[str, list[int]] = {}
        for name in args.optimizers.split(","):
            optimizer = optimizer_named(name, 1, settings_for(name, args.set))
            if not isinstance(optimizer, Chains):  # compile (or load numba's cache) off the clock
                optimizer.warm_up(puzzle_for(n, colours, 0))
            bests, rates, times = [], [], []
            for instance in range(args.seeds):
                puzzle = puzzle_for(n, colours, instance)
                result = run_once(puzzle, optimizer, args.seconds, 0, target=0)
                board = puzzle.decode(result.best_genome)
                bests.append(inner_edges(n) - rescored(puzzle, result.best, board, f"{name} {instance}"))
                rates.append(puzzle.score_layout(board)["match_rate"])
                times.append(result.seconds)
                print(
                    f"  n={n} colours={colours} {name} instance {instance}: {bests[-1]} unmatched "
                    f"({100 * rates[-1]:.1f}%), {result.seconds:.1f} CPU s; peak memory {peak_memory_gb():.1f} GB",
                    flush=True,
                )
            by_name[name] = bests
            print(  # the match rate falls as the unmatched joins rise: the medians are one board's
                f"n={n} colours={colours}, {name}, {args.seconds:g} s a board: unmatched median "
                f"{statistics.median(bests):g} ({100 * statistics.median(rates):.1f}%; 95% allows "
                f"{int(0.05 * 4 * n * n / 2)}), all {bests}; median {statistics.median(times):.1f} CPU s",
                flush=True,
            )
        board_by_board(by_name, f"n={n} colours={colours}: ")


def bench_beam(args) -> None:
    """Matched joins of beam search, and of the hybrid SA given the same CPU seconds, per seed."""
    hybrid = optimizer_named("hybrid_vlns", args.chains)
    settings = {"width": args.width, "max_width": args.max_width, "order": args.order}
    beams, hybrids = [], []
    for seed in range(args.seeds):
        puzzle = (
            Eternity2Like(args.size, instance_seed=seed) if args.size else Eternity2(starter=args.starter)
        )
        local_search_face(puzzle, hybrid)
        Beam(width=10, seed=seed, order=args.order).solve(puzzle)  # compile (or load numba's cache) first
        start, wall = time.process_time(), time.perf_counter()
        layout = Beam(seed=seed, **settings).solve(puzzle)
        seconds, wall = time.process_time() - start, time.perf_counter() - wall
        beam_tally = puzzle.score_layout(layout)["unmatched_edges"]
        beams.append(rescored(puzzle, beam_tally, layout, f"beam seed {seed}"))
        result = run_once(puzzle, hybrid, seconds / args.chains, seed, target=0)
        hybrids.append(
            rescored(puzzle, result.best, puzzle.decode(result.best_genome), f"hybrid seed {seed}")
        )
        print(
            f"  seed {seed}: beam {beams[-1]} joins matched in {seconds:.1f} CPU s ({wall:.1f} s wall, "
            f"{numba.get_num_threads()} threads); hybrid_vlns x{args.chains} in the same CPU time {hybrids[-1]}",
            flush=True,
        )
    joins = 2 * puzzle.n * (puzzle.n - 1)
    board = f"generated {args.size}x{args.size}" if args.size else f"official set, {_starter(args)}"
    print(
        f"{board} ({joins} joins), beam {settings}, {args.seeds} seeds: beam median "
        f"{statistics.median(beams)} (min {min(beams)}, max {max(beams)}), hybrid_vlns at equal CPU "
        f"median {statistics.median(hybrids)} (min {min(hybrids)}, max {max(hybrids)}); perfect boards: "
        f"beam {beams.count(joins)}, hybrid {hybrids.count(joins)}"
    )


MARKS = (1, 10, 60, 600, 3600)  # seconds at which the anytime curve is read
BEAM_ALONE = ("width=200000", "max_width=20000000")  # beam_refine's beam, as the beam alone


def settings_for(name: str, sets: Sequence[str]) -> list[str]:
    """The `--set` settings optimiser `name` takes: "key=value" for every optimiser, "name:key=value"
    for `name` alone (so that optimisers of different settings run side by side in one run); the beam
    alone gets beam_refine's beam."""
    shared = [s for s in sets if ":" not in s.split("=", 1)[0]]
    own = [s.split(":", 1)[1] for s in sets if s.split("=", 1)[0].startswith(name + ":")]
    return [*shared, *own, *(BEAM_ALONE if name == "beam" else ())]


def bench_anytime(args) -> None:
    """Matched joins over time per method and seed, each method beside the others at equal wall time."""
    puzzle = Eternity2(starter=args.starter)
    finals: dict[str, list[int]] = {}
    curves: dict[str, list[list[int | None]]] = {}
    traces: dict[str, list[list[tuple[float, int]]]] = {}
    for name in args.methods.split(","):
        optimizer = optimizer_named(name, 1, settings_for(name, args.set))
        runner = as_optimizer(optimizer, puzzle)
        face = local_search_face(puzzle, optimizer) if isinstance(optimizer, Chains) else None
        if face is None:
            optimizer.warm_up(puzzle)
        for seed in range(args.seed_from, args.seed_from + args.seeds):
            result = minimize(
                puzzle.fitness, puzzle.space, runner, Budget(seconds=args.seconds), seed, face=face
            )
            matched = rescored(puzzle, result.best, puzzle.decode(result.best_genome), f"{name} seed {seed}")
            seen = [  # the final board counts at the budget's own mark
                [b for _, t, b in result.trace if t <= mark or mark == args.seconds]
                for mark in MARKS
                if mark <= args.seconds
            ]
            shown = [(mark, 480 - int(min(b)) if b else None) for mark, b in zip(MARKS, seen, strict=False)]
            finals.setdefault(name, []).append(matched)
            curves.setdefault(name, []).append([a for _, a in shown])
            traces.setdefault(name, []).append([(t, 480 - int(b)) for _, t, b in result.trace])
            line = f"  {name} seed {seed}: " + ", ".join(f"{a if a else '-'} by {m:g} s" for m, a in shown)
            line += f"; final {matched} of 480 (re-scored) after {result.seconds:.0f} s"
            built = getattr(runner, "last", None)
            if built is not None and hasattr(built, "depth_nodes"):
                line += "; " + depth_profile(built.depth_nodes)
            stats = getattr(optimizer, "operator_stats", None)
            if stats:
                line += "; " + operator_shares(stats)
            print(line + f"; peak memory {peak_memory_gb():.1f} GB", flush=True)
    print(
        f"\nofficial set, {_starter(args)}, no clues, {args.seconds:g} s wall per run, seeds "
        f"{args.seed_from}..{args.seed_from + args.seeds - 1}; matched joins of 480:"
    )
    for name, scores in finals.items():
        marks = [m for m in MARKS if m <= args.seconds]
        medians = [statistics.median(c[k] or 0 for c in curves[name]) for k in range(len(marks))]
        print(
            f"  {name}: final median {statistics.median(scores)} (min {min(scores)}, max {max(scores)}), all "
            f"{scores}; median by "
            + ", ".join(f"{m:g} s {v:g}" for m, v in zip(marks, medians, strict=True))
            + " (0: no board yet)"
        )
    if args.plot:
        draw_anytime(traces, args)


def draw_anytime(traces: dict[str, list[list[tuple[float, int]]]], args) -> None:
    """The anytime curves as a picture: each run's best matched joins over time, one colour a method."""
    from matplotlib import rcParams
    from matplotlib.ticker import MaxNLocator

    fig, ax = new_plot()
    for (name, runs), colour in zip(
        traces.items(), rcParams["axes.prop_cycle"].by_key()["color"], strict=False
    ):
        for k, run in enumerate(runs):
            times = [max(t, 0.1) for t, _ in run] + [args.seconds]
            joins = [j for _, j in run] + [run[-1][1]]
            ax.step(times, joins, where="post", color=colour, alpha=0.8, label=name if k == 0 else None)
    ax.set_xscale("log")
    ax.set_xlabel("seconds (wall clock)")
    ax.set_ylabel("matched joins of 480, best so far")
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    save_plot(fig, ax, f"Eternity II, starter only: {args.seeds} seeds per method", args.plot)


def depth_profile(depth_nodes: np.ndarray) -> str:
    """Where a backtracker's nodes go: the peak depth and the share of nodes at depth >= 165 of 256."""
    total = max(int(depth_nodes.sum()), 1)
    deep = int(depth_nodes[165:].sum()) / total
    bins = [int(depth_nodes[k : k + 32].sum()) / total for k in range(0, len(depth_nodes), 32)]
    return (
        f"nodes {total:,}, peak at depth {int(np.argmax(depth_nodes))}, {deep:.0%} at depth >= 165; by 32 "
        "depths: " + " ".join(f"{b:.0%}" for b in bins)
    )


def operator_shares(stats: dict[str, dict[str, int]]) -> str:
    """Each operator's share of the steps that improved the current board and of the new bests."""
    better = max(sum(r["better"] for r in stats.values()), 1)
    best = max(sum(r["best"] for r in stats.values()), 1)
    return "operators (share of improvements / of new bests): " + ", ".join(
        f"{op} {r['better'] / better:.0%}/{r['best'] / best:.0%}" for op, r in stats.items() if r["tried"]
    )


def _starter(args) -> str:
    return "starter on" if args.starter else "starter off"


OPTIMIZERS = options("optimizer")  # configs/optimizer/*.yaml


def breaks_setting(text: str) -> str:
    """A ladder side's `--set`: NAME=VALUE, NAME a setting of Breaks, VALUE as `_settings` reads it."""
    known = [
        name for name in inspect.signature(Breaks).parameters if name not in ("seed", "threads", "ladder")
    ]
    try:
        (name, value), *_ = _settings([text]).items()
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"must be NAME=VALUE, VALUE a number, [a,list], true, false, null or a word, got {text!r}"
        ) from None
    if name not in known:
        raise argparse.ArgumentTypeError(f"{name!r} is no setting of breaks; choose from {', '.join(known)}")
    try:
        Breaks(**{name: value})
    except InputError as err:
        raise argparse.ArgumentTypeError(str(err)) from None
    return text


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    """The flags, each checked before anything runs (benchmarks/flags.py): numbers and names by their
    parser, the boards and optimisers they describe built once by the project's own checks."""
    parser = flags.Parser("bench_eternity2", __doc__)
    sub = parser.add_subparsers(dest="what", required=True)
    speed = sub.add_parser("speed")
    speed.add_argument("--repeats", type=flags.count, default=5)
    official = sub.add_parser("official")
    official.add_argument("--seconds", type=flags.seconds, default=60)
    official.add_argument("--seeds", type=flags.count, default=5)
    official.add_argument("--seed-from", type=flags.first, default=0)
    official.add_argument("--chains", type=flags.threads, default=1)
    official.add_argument("--method", choices=OPTIMIZERS, default="hybrid_vlns", metavar="OPTIMIZER")
    official.add_argument("--no-starter", dest="starter", action="store_false")
    beam = sub.add_parser("beam")
    beam.add_argument("--width", type=flags.count, default=10_000)
    beam.add_argument("--max-width", type=flags.count, default=None)
    beam.add_argument("--order", default="rows")
    beam.add_argument("--chains", type=flags.threads, default=1, help="hybrid_vlns's chains (cores)")
    beam.add_argument("--seeds", type=flags.count, default=5)
    beam.add_argument("--size", type=int, choices=sorted(HARDEST_COLOURS), default=None)
    beam.add_argument("--no-starter", dest="starter", action="store_false")
    anytime_ = sub.add_parser("anytime")
    anytime_.add_argument("--seconds", type=flags.seconds, default=60)
    anytime_.add_argument("--seeds", type=flags.count, default=5)
    anytime_.add_argument("--seed-from", type=flags.first, default=0)
    anytime_.add_argument(
        "--methods", type=flags.names(OPTIMIZERS, "optimizers"), default="breaks,beam,beam_refine"
    )
    anytime_.add_argument("--no-starter", dest="starter", action="store_false")
    anytime_.add_argument("--plot", default=None, help="draw the anytime curves into this PNG file")
    generated = sub.add_parser("generated")
    generated.add_argument("--size", type=flags.count, default=8)
    generated.add_argument(
        "--cols", type=flags.count, default=None, help="columns of a rectangle (default: --size)"
    )
    generated.add_argument(
        "--colours",
        type=flags.wholes(size=2),
        default=None,
        metavar="FRAME,INNER",
        help="frame and inner colour counts (needed for a rectangle)",
    )
    generated.add_argument("--seconds", type=flags.seconds, default=60)
    generated.add_argument("--seeds", type=flags.count, default=10)
    generated.add_argument("--seed-from", type=flags.first, default=0)
    generated.add_argument("--chains", type=flags.threads, default=1)
    generated.add_argument(
        "--optimizers",
        type=flags.names(OPTIMIZERS, "optimizers"),
        default="hybrid_vlns,sa_compiled,ils_compiled,descent_compiled,sa,two_opt_swap,ga",
    )
    walk = sub.add_parser("walk")
    walk.add_argument("--restarts", type=flags.count, default=8)
    walk.add_argument("--repeats", type=flags.count, default=5)
    parity = sub.add_parser("parity")
    parity.add_argument("--restarts", type=flags.count, default=24)
    parity.add_argument("--nodes", type=flags.count, default=50_000_000)
    parity.add_argument("--depth", type=flags.whole(1, 256), default=240)
    ladder = sub.add_parser("ladder")
    ladder.add_argument("--seconds", type=flags.seconds, default=600)
    ladder.add_argument("--seeds", type=flags.count, default=1)
    ladder.add_argument("--seed-from", type=flags.first, default=0)
    ladder.add_argument("--threads", type=flags.threads, default=2)
    ladder.add_argument(
        "--floor", type=flags.whole(0, 480), default=460, help="the lowest matched joins counted"
    )
    ladder.add_argument(
        "--set",
        action="append",
        type=breaks_setting,
        default=[],
        metavar="NAME=VALUE",
        help="a breaks setting of ours",
    )
    ladder.add_argument(
        "--baseline-set",
        action="append",
        type=breaks_setting,
        default=[],
        metavar="NAME=VALUE",
        help="a breaks setting of the baseline",
    )
    ladder.add_argument(
        "--ablate",
        action="append",
        type=breaks_setting,
        default=[],
        metavar="NAME=VALUE",
        help="a side more: ours with this one setting changed (an ablation row; repeat for more)",
    )
    ladder.add_argument("--no-baseline", action="store_true")
    ladder.add_argument("--plot", default=None, help="draw the ladder into this PNG file")
    sweep = sub.add_parser("sweep")
    sweep.add_argument(
        "--boards",
        nargs="+",
        type=flags.wholes(size=2),
        default=SWEEP_HARD,
        metavar="N,COLOURS",
    )
    sweep.add_argument("--seconds", type=flags.seconds, default=10)
    sweep.add_argument("--seeds", type=flags.count, default=5, help="instances 0..seeds-1")
    sweep.add_argument(
        "--optimizers", type=flags.names(OPTIMIZERS, "optimizers"), default="exact_first,breaks,portfolio"
    )
    for command in (official, generated, anytime_, sweep):
        command.add_argument(
            "--set",
            action="append",
            type=flags.setting,
            default=[],
            metavar="[OPTIMIZER:]NAME=VALUE",
            help="an optimizer setting, e.g. period=2.1e8, or portfolio:threads=1 for one optimizer "
            "(portfolio:breaks.schedule=[200,210]: its backtracker's; repeatable)",
        )
    args = parser.parse_args(argv)
    commands = {"official": official, "beam": beam, "anytime": anytime_, "generated": generated}
    commands |= {"ladder": ladder, "sweep": sweep}
    flags.check(commands.get(args.what, parser), checks(args))
    return args


def checks(args: argparse.Namespace) -> dict[str, Callable[[], object]]:
    """What a command's flags describe, built once by the project's own checks: {the flags: a call},
    the boards first, then each optimiser with its settings."""
    out: dict[str, Callable[[], object]] = {}
    if args.what == "generated":
        frame, inner = args.colours or (None, None)
        out["--size, --cols, --colours"] = lambda: Eternity2Like(
            args.size, args.cols or args.size, frame, inner, instance_seed=args.seed_from
        )
    if args.what == "sweep":
        for n, colours in args.boards:
            out[f"--boards {n},{colours}"] = partial(puzzle_for, n, colours, 0)
    if args.what == "beam":
        out["--width, --max-width, --order"] = lambda: Beam(
            width=args.width, max_width=args.max_width, order=args.order
        )
    if args.what == "ladder":
        out["--set"] = lambda: Breaks(**_settings(args.set))
        out["--baseline-set"] = lambda: Breaks(**_settings(args.baseline_set))
        out["--ablate"] = lambda: [Breaks(**_settings([*args.set, one])) for one in args.ablate]
    named = {"official": "method", "anytime": "methods", "generated": "optimizers", "sweep": "optimizers"}
    if args.what in named:
        chains = getattr(args, "chains", 1)
        sets = f" --set {' --set '.join(args.set)}" if args.set else ""
        for name in getattr(args, named[args.what]).split(","):
            settings = args.set if args.what == "official" else settings_for(name, args.set)
            out[f"--{named[args.what]} {name}{sets}"] = partial(optimizer_named, name, chains, settings)
    return out


def main(argv: list[str] | None = None) -> None:
    args = parse(argv)
    if args.what == "speed":
        bench_speed(args.repeats)
    elif args.what == "official":
        bench_official(args)
    elif args.what == "beam":
        bench_beam(args)
    elif args.what == "anytime":
        bench_anytime(args)
    elif args.what == "sweep":
        bench_sweep(args)
    elif args.what == "walk":
        bench_walk(args)
    elif args.what == "ladder":
        bench_ladder(args)
    elif args.what == "parity":
        bench_parity(args)
    else:
        bench_generated(args)


if __name__ == "__main__":
    flags.run(main)
