"""Pentomino packing that tells methods apart: (1) incremental re-packing against a full decode, per
move, on the moves of an annealing walk; (2) success of sa_repack at a perfect rectangle on free widths
6, 5, 4 and 3 within 1,000,000 evaluations, with GA and 2-opt beside it on free 6 x 10.

(1) The moves of one annealing walk on the face (its proposals, the temperature of sa_repack falling
from 8 to 1) are recorded with whether each was taken, then replayed by both sides: the incremental
side prices a move with `delta` and makes a taken one with `apply`; the full side writes the move into
a copy of the genome and decodes it from scratch (and writes a taken move into the genome). Both end on
the same genome and fitness. CPU clock (time.process_time), interleaved repeats; on free 6 x 10, two
sets of pentominoes and the 35 hexominoes.
(2) Per run: success, evaluations to the optimum and CPU seconds; ERT = evaluations over all runs / successes.

    python -m benchmarks.bench_pentomino_suite [--moves 1000000] [--repeats 5] [--seeds 30] [--baseline-seeds 30] [--jobs 2]
"""

from __future__ import annotations

import argparse
import math
import statistics
import time

import numpy as np
from joblib import Parallel, delayed
from numba import njit

from benchmarks import flags
from benchmarks.timing import compare, report
from core.rng import make_rng, uniform
from core.space import Budget
from experiments.stats import ert
from heuristics.chains import warm_up
from heuristics.compiled import HybridVLNS
from heuristics.ga import GA
from heuristics.minimize import minimize
from heuristics.two_opt import TwoOpt
from puzzles import strip_search as ss
from puzzles.pentomino import PentominoStrip

SA_REPACK = dict(
    t_start=8.0, t_end=1.0, period=200_000, every=1000, steps=1, size=80
)  # configs/optimizer/sa_repack.yaml


@njit(cache=True)
def walk(inst, st, rng, moves, made, taken):
    """An annealing walk of `moves` priced moves (temperature 8 down to 1, sa_repack's); each move
    into `made`, whether it was taken into `taken`."""
    for t in range(moves):
        temp = 8.0 * math.exp(math.log(1.0 / 8.0) * t / moves)
        mv = ss.propose(inst, st, rng)
        d = ss.delta(inst, st, mv)
        made[t, 0], made[t, 1], made[t, 2], made[t, 3] = mv
        taken[t] = d <= 0 or uniform(rng) < math.exp(-d / temp)
        if taken[t]:
            ss.apply(inst, st, mv)


@njit(cache=True)
def replay(inst, st, made, taken, incremental):
    """Price every move of a walk and make the taken ones; the fitness it ends at."""
    cur = ss.fitness(inst, st)
    trial = st.copy()
    for t in range(made.shape[0]):
        mv = (made[t, 0], made[t, 1], made[t, 2], made[t, 3])
        if incremental:
            d = ss.delta(inst, st, mv)
            if taken[t]:
                ss.apply(inst, st, mv)
        else:
            trial[: 2 * inst.n] = st[: 2 * inst.n]
            ss.rewrite(inst, trial, mv)
            d = ss.fitness(inst, trial) - cur
            if taken[t]:
                ss.rewrite(inst, st, mv)
        if taken[t]:
            cur += d
    return cur


@njit(cache=True)
def decode_prefix(inst, st, k, times):
    """Pack the state's first k positions from scratch, `times` times (k = n: a full decode)."""
    used = 0
    for _ in range(times):
        board = np.zeros(inst.rows, np.int64)
        low, used, over = 0, 0, 0
        for pos in range(k):
            p = st[pos]
            low, used, over = ss._put(board, inst, p, st[inst.n + p], low, used, over)
    return used


def profile(inst, start, times: int = 20_000) -> str:
    """Where a decode's CPU goes: the share of a full decode spent on positions k and later."""
    cost = {}
    for k in sorted({0, *range(0, inst.n, max(1, inst.n // 6)), inst.n}):
        decode_prefix(inst, start, k, 10)
        cost[k] = math.inf
        for _ in range(3):  # the least of three: a profile of the work, not of the machine's load
            t = time.process_time()
            decode_prefix(inst, start, k, times)
            cost[k] = min(cost[k], time.process_time() - t)
    full = cost[inst.n] - cost[0]
    return ", ".join(f"{k}+: {(cost[inst.n] - cost[k]) / full:.0%}" for k in sorted(cost)[1:-1])


INSTANCES = {
    "free 6x10": dict(width=6, orientations="free"),
    "two sets, width 10": dict(width=10, orientations="free", copies=2),
    "35 hexominoes, width 15": dict(width=15, orientations="free", pieces="hexominoes"),
}


def move_speed(moves: int, repeats: int) -> None:
    """(1): the moves of one walk, priced and made incrementally and by full decodes."""
    for label, settings in INSTANCES.items():
        strip = PentominoStrip(**settings)
        inst = strip.local_search().instance
        start = ss.state_from_genome(inst, strip.space.random(np.random.default_rng(0)))
        made, taken = np.zeros((moves, 4), np.int64), np.zeros(moves, np.bool_)
        walk(inst, start.copy(), make_rng(1), moves, made, taken)
        first = np.where(made[:, 0] == ss.TURN, made[:, 1], np.minimum(made[:, 1], made[:, 2]))

        def side(incremental: bool, inst=inst, start=start, made=made, taken=taken):
            st = start.copy()
            return replay(inst, st, made, taken, incremental), st[: 2 * inst.n].tolist()

        timings = compare(
            {"full decode": lambda side=side: side(False), "incremental": lambda side=side: side(True)},
            repeats=repeats,
            clock=time.process_time,
        )
        assert timings["full decode"].result == timings["incremental"].result, "the replays must agree"
        print(
            f"(1) {label}: {moves:,} moves of an annealing walk ({taken.mean():.0%} taken; on average "
            f"re-packed from position {first.mean():.1f} of {inst.n}), CPU seconds:"
        )
        report(
            timings, baseline="full decode", work=moves, unit="moves", targets={"incremental": "target >= 3x"}
        )
        print(
            f"  profile, share of a full decode's CPU spent placing positions k and later: {profile(inst, start)}"
        )


def one_run(name: str, width: int, seed: int, evaluations: int) -> tuple[bool, int, float]:
    """(reached 0 gaps, evaluations to it or the budget, CPU seconds) of one seeded run."""
    strip = PentominoStrip(width=width, orientations="free")
    strip.fitness(strip.space.identity())  # compile (or load numba's cache) outside the clock
    face = None
    if name == "sa_repack":
        optimizer = HybridVLNS(**SA_REPACK)
        face = strip.local_search()
        warm_up(face, "sa")
    else:
        optimizer = GA() if name == "ga" else TwoOpt()
    start = time.process_time()
    r = minimize(
        strip.fitness, strip.space, optimizer, Budget(evaluations=evaluations, target=0), seed, face=face
    )
    evals = next((e for e, _, v in r.trace if v <= 0), r.evaluations)
    return r.best <= 0, evals, time.process_time() - start


def success(parallel: Parallel, name: str, width: int, seeds: int, evaluations: int) -> None:
    """(2): one line per (optimiser, width)."""
    runs = parallel(delayed(one_run)(name, width, s, evaluations) for s in range(seeds))
    hits = np.array([r[0] for r in runs])
    evals = np.array([r[1] for r in runs])
    cpu = [r[2] for r in runs]
    reached = (
        f"median evaluations to it {statistics.median(evals[hits]):,.0f}" if hits.any() else "never reached"
    )
    print(
        f"{name:9s} free {width}x{60 // width}: perfect in {hits.sum():2d}/{seeds} runs ({reached}; "
        f"ERT {ert(evals, hits):,.0f})   CPU s per run: median {statistics.median(cpu):.2f} "
        f"(min {min(cpu):.2f}, max {max(cpu):.2f})",
        flush=True,
    )


TARGETS = {6: "target >= 27/30", 5: "target >= 20/30", 4: "target >= 10/30", 3: "report"}


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    """The flags, each checked before anything runs (benchmarks/flags.py)."""
    parser = flags.Parser("bench_pentomino_suite", __doc__.splitlines()[0])
    parser.add_argument("--moves", type=flags.count, default=1_000_000, help="moves of the walk in (1)")
    parser.add_argument("--repeats", type=flags.count, default=5)
    parser.add_argument("--seeds", type=flags.count, default=30, help="sa_repack runs per width in (2)")
    parser.add_argument(
        "--baseline-seeds", type=flags.whole(0), default=30, help="GA and 2-opt runs on 6x10 in (2)"
    )
    parser.add_argument("--evaluations", type=flags.count, default=1_000_000)
    parser.add_argument("--jobs", type=flags.jobs, default=2)
    parser.add_argument("--skip", choices=["moves", "success"], help="leave one part out")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = parse(argv)
    if args.skip != "moves":
        move_speed(args.moves, args.repeats)
    if args.skip == "success":
        return
    print(f"(2) perfect rectangles, free orientations, {args.evaluations:,} evaluations per run")
    with Parallel(n_jobs=args.jobs) as parallel:
        for width, target in TARGETS.items():
            print(f"  {target}:")
            success(parallel, "sa_repack", width, args.seeds, args.evaluations)
        for name in ("two_opt", "ga"):
            if args.baseline_seeds:
                success(parallel, name, 6, args.baseline_seeds, args.evaluations)


if __name__ == "__main__":
    flags.run(main)
