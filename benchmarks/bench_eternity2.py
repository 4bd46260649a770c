"""Compiled local search on the official Eternity II set against the Python SA path (issue 10's targets).

    python -m benchmarks.bench_eternity2                 # speed (5 interleaved repeats) and 60 s x 5 seeds
    python -m benchmarks.bench_eternity2 --seconds 10 --seeds 2

Speed: evaluations per CPU second through the Objective on 16 x 16, one core: priced moves of
`sa_compiled` against fitness calls (candidates) of today's `sa`, both measured in this run.
Score: matched joins (of 480) after `--seconds` of thread CPU time, one core, starter on, no clues.
"""

from __future__ import annotations

import argparse
import statistics
import time

from benchmarks.timing import compare, report
from core import Budget
from heuristics.compiled import CompiledSA, HybridVLNS
from heuristics.local_search import warm_up
from heuristics.minimize import minimize
from heuristics.sa import SimulatedAnnealing
from puzzles.edge_matching.eternity2 import Eternity2

PYTHON_EVALS, COMPILED_EVALS = 20_000, 4_000_000


def bench_speed(puzzle: Eternity2, face) -> None:
    """Evaluations/s of both paths, interleaved, 5 repeats; ratio of the medians' rates."""
    late = CompiledSA(t_start=0.15, t_end=0.15)  # a late-run acceptance rate, as after cooling
    sides = {
        "sa (Python, fitness calls)": lambda: (
            minimize(
                puzzle.fitness, puzzle.space, SimulatedAnnealing(), Budget(evaluations=PYTHON_EVALS), 0
            ).evaluations
        ),
        "sa_compiled (priced moves)": lambda: (
            minimize(
                puzzle.fitness, puzzle.space, late, Budget(evaluations=COMPILED_EVALS), 0, face=face
            ).evaluations
        ),
    }
    timings = compare(sides, repeats=5, clock=time.process_time)  # CPU seconds: the machine is shared
    report(
        timings,
        baseline="sa (Python, fitness calls)",
        unit="evaluations",
        work={"sa (Python, fitness calls)": PYTHON_EVALS, "sa_compiled (priced moves)": COMPILED_EVALS},
        targets={"sa_compiled (priced moves)": "target >= 3,000,000/s and >= 50x"},
    )


def bench_score(puzzle: Eternity2, face, optimizer, seconds: float, seeds: int) -> None:
    """Matched joins after `seconds` of one core's CPU time, per seed, and their median."""
    scores = []
    for seed in range(seeds):
        result = minimize(
            puzzle.fitness,
            puzzle.space,
            optimizer,
            Budget(seconds=seconds),
            seed,
            face=face,
            clock=time.thread_time,
        )
        scores.append(480 - int(result.best))
        print(
            f"  {optimizer.name} seed {seed}: {scores[-1]} of 480 joins matched, "
            f"{result.evaluations:,} evaluations in {result.seconds:.1f} s CPU",
            flush=True,
        )
    print(
        f"official set, {optimizer.name}, one core, {seconds:g} s CPU, {seeds} seeds, starter on: "
        f"median {statistics.median(scores)}, best {max(scores)}, all {scores} (target: median >= 430)"
    )


def main() -> None:
    """Parse the options; run the speed benchmark, then the score benchmark."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--method", choices=["hybrid_vlns", "sa_compiled"], default="hybrid_vlns")
    args = parser.parse_args()
    puzzle = Eternity2()
    face = puzzle.local_search()
    warm_up(face, "sa")
    bench_speed(puzzle, face)
    optimizer = HybridVLNS() if args.method == "hybrid_vlns" else CompiledSA()
    bench_score(puzzle, face, optimizer, args.seconds, args.seeds)


if __name__ == "__main__":
    main()
