"""Calendar puzzle: every solution of every date of a leap year (366 dates), this project's engine
against, in the same run, the `exact-cover` package (dancing links in C) on the same 366 matrices
and CP-SAT (seed 004's solver) on a sample of dates, extrapolated to the year. Target: < 10 s.

    python -m benchmarks.bench_calendar_year [--cpsat-dates 5] [--board classic]

Quoted, not measured here: a published Rust solver takes about 30 s for the year.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from experiments import exact
from heuristics.exact_cover import bool_matrix
from puzzles.calendar import Calendar, year_days

RUST_SECONDS = 30.0


def ours(cal: Calendar, days) -> tuple[int, float, float]:
    """(solutions, seconds to enumerate them all, seconds to count them) over the dates."""
    start = time.perf_counter()
    total = sum(len(list(exact.solve(cal.packing, cal.cover(d)))) for d in days)
    enumerate_s = time.perf_counter() - start
    start = time.perf_counter()
    counted = sum(exact.count(cal.cover(d)) for d in days)
    assert counted == total
    return total, enumerate_s, time.perf_counter() - start


def exact_cover_package(cal: Calendar, days) -> tuple[int, float]:
    """(solutions, seconds) enumerating every date with the exact-cover package."""
    import exact_cover
    from exact_cover.error import NoSolution
    matrices = []
    for d in days:
        problem = cal.cover(d)
        items = np.flatnonzero(bool_matrix(problem.primary[None, :])[0, : problem.n_items])
        matrices.append(np.ascontiguousarray(bool_matrix(problem.masks)[:, items], dtype=np.int32))
    start, total = time.perf_counter(), 0
    for m in matrices:
        try:
            total += len(exact_cover.get_all_solutions(m))
        except NoSolution:
            pass
    return total, time.perf_counter() - start


def cpsat(cal: Calendar, days) -> tuple[int, float]:
    """(solutions, seconds) enumerating the given dates with CP-SAT."""
    start, total = time.perf_counter(), 0
    for d in days:
        total += exact.count(cal.cover(d), "cpsat")
    return total, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cpsat-dates", type=int, default=5)
    parser.add_argument("--board", default="classic", choices=["classic"])
    args = parser.parse_args()
    days = year_days(2024)
    cal = Calendar(args.board)
    exact.count(cal.cover(days[0]))  # compile (or load the cache) outside the clock
    total, t_all, t_count = ours(cal, days)
    theirs, t_theirs = exact_cover_package(cal, days)
    assert theirs == total, (theirs, total)
    sample = days[:: max(1, len(days) // args.cpsat_dates)][: args.cpsat_dates]
    sample_total, t_sample = cpsat(cal, sample)
    assert sample_total == sum(exact.count(cal.cover(d)) for d in sample)
    per_date = t_sample / len(sample)
    year_cpsat = per_date * len(days)
    print(f"{len(days)} dates, {total} solutions in all")
    print(f"this engine, every solution enumerated : {t_all:8.2f} s (target < 10 s)")
    print(f"this engine, counting only             : {t_count:8.2f} s")
    print(f"exact-cover package, every solution    : {t_theirs:8.2f} s  ratio {t_theirs / t_all:6.1f}x")
    print(f"{f'CP-SAT, {len(sample)} dates measured':39}: {per_date:8.3f} s/date -> "
          f"{year_cpsat:7.1f} s for the year  ratio {year_cpsat / t_all:6.1f}x")
    print(f"published Rust solver (quoted, not run): {RUST_SECONDS:8.1f} s  ratio "
          f"{RUST_SECONDS / t_all:6.1f}x")


if __name__ == "__main__":
    main()
