"""The one timing harness of the benchmarks: every side repeated, interleaved, reported as medians.

    timings = compare({"baseline": run_a, "ours": run_b}, repeats=5)
    report(timings, baseline="baseline", targets={"ours": "target >= 10x"})

`compare` calls the sides in turn (A B A B ...), so a slow spell of a shared machine falls on every
side alike; `report` prints one line per side, "name: median X (min A, max B)  ratio Rx vs
baseline", the ratio computed from medians. A figure not measured in the run (a published time, say)
goes through `context`, which prints no ratio.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

REPEATS = 5


@dataclass(frozen=True)
class Timing:
    """Seconds of each repeat of one side, and what its last call returned (to check the sides agree)."""

    seconds: tuple[float, ...]
    result: Any

    @property
    def median(self) -> float:
        return statistics.median(self.seconds)

    @property
    def min(self) -> float:
        return min(self.seconds)

    @property
    def max(self) -> float:
        return max(self.seconds)


def compare(
    sides: dict[str, Callable[[], Any]],
    repeats: int = REPEATS,
    warmup: int = 1,
    clock: Callable[[], float] = time.perf_counter,
) -> dict[str, Timing]:
    """Time every side `repeats` times, interleaved, after `warmup` untimed rounds (compiling, caches).

    `clock` is wall time by default; pass time.process_time for CPU seconds of this process.
    """
    if repeats < 1:
        raise ValueError(f"repeats must be at least 1, got {repeats}")
    for _ in range(warmup):
        for fn in sides.values():
            fn()
    seconds = {name: [] for name in sides}
    results = {}
    for _ in range(repeats):
        for name, fn in sides.items():
            start = clock()
            results[name] = fn()
            seconds[name].append(clock() - start)
    return {name: Timing(tuple(seconds[name]), results[name]) for name in sides}


def fmt(seconds: float) -> str:
    """Seconds in a unit that keeps three or four significant figures readable."""
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds * 1e6:.1f} us"


def line(
    name: str,
    t: Timing,
    base: Timing | None = None,
    base_name: str = "",
    work: float = 0,
    unit: str = "",
    target: str = "",
    base_work: float = 0,
) -> str:
    """One side as "name: median X (min A, max B) [= rate] [ratio Rx vs base] [(target)]"."""
    text = f"{name}: median {fmt(t.median)} (min {fmt(t.min)}, max {fmt(t.max)})"
    if work:
        text += f" = {work / t.median:,.0f} {unit}/s (min {work / t.max:,.0f}, max {work / t.min:,.0f})"
    if base is not None and base is not t:
        speedup = base.median / t.median * (work / base_work if work and base_work else 1)
        text += f"  ratio {speedup:,.1f}x vs {base_name}"
    return text + (f"  ({target})" if target else "")


def report(
    timings: dict[str, Timing],
    baseline: str | None = None,
    work: float | dict[str, float] = 0,
    unit: str = "",
    targets: dict[str, str] | None = None,
) -> None:
    """Print one line per side; ratios are baseline median / side median (> 1: the side is faster).

    `work` (one number, or one per side) is what one call does, in `unit`s, for a rate: it turns the
    ratio into a ratio of rates, so sides may do different amounts of work per call.
    """
    work = work if isinstance(work, dict) else dict.fromkeys(timings, work)
    base = timings[baseline] if baseline else None
    width = max(map(len, timings))
    repeats = sorted({len(t.seconds) for t in timings.values()})
    print(f"({', '.join(map(str, repeats))} interleaved repeats per side)")
    for name, t in timings.items():
        print(
            line(
                name.ljust(width),
                t,
                base,
                baseline or "",
                work.get(name, 0),
                unit,
                (targets or {}).get(name, ""),
                work.get(baseline, 0),
            ),
            flush=True,
        )


def score_all(score, genomes, passes: int = 1) -> list:
    """Score every genome `passes` times: one repeat of a rate benchmark's side (a fast side makes
    more passes over the same genomes, so that its repeat lasts long enough for the clock)."""
    return [score(g) for _ in range(passes) for g in genomes]


def context(text: str) -> None:
    """A figure quoted from elsewhere: printed for context, never turned into a ratio."""
    print(f"context (quoted, not measured): {text}")
