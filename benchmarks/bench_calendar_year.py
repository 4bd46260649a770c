"""Calendar puzzle: every solution of every date of a leap year (366 dates), this project's engine
against, in the same run, the `exact-cover` package (dancing links in C) on the same 366 models,
and CP-SAT (seed 004's solver) against the engine on a sample of dates. Target: the engine's whole
year, from dates to solved boards, < 10 s.

Like with like: count against count, and enumerate against enumerate with both sides told each
date's count (taken outside the clock). Both sides' models are built before the clock starts; the
end-to-end line alone builds its models inside it.

    python -m benchmarks.bench_calendar_year [--dates 366] [--cpsat-dates 5] [--board classic] [--repeats 5]

`--dates K` times K dates spread over the year instead of all 366 (a quick run; the target is the year's).
"""

from __future__ import annotations

import argparse

from benchmarks import exact_cover_package as package
from benchmarks import flags
from benchmarks.timing import compare, context, report
from heuristics import exact_backends
from heuristics.exact_cover import ExactCover
from puzzles.calendar import Calendar, year_days

PACKAGE, ENGINE, WHOLE = "exact-cover package", "this engine", "this engine, end to end"


def end_to_end(cal: Calendar, days) -> int:
    """Solutions of every date, each date's model built and each solution turned into a board."""
    total = 0
    for d in days:
        model = cal.cover(d)
        total += len([cal.packing.owners(rows, model) for rows in exact_backends.solutions(model)])
    return total


def enumerate_with(backend: str, models) -> int:
    """Solutions of every model, enumerated by one of the project's exact backends."""
    return sum(len(list(exact_backends.solutions(m, backend))) for m in models)


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    """The flags, each checked before anything runs (benchmarks/flags.py)."""
    parser = flags.Parser("bench_calendar_year", __doc__.splitlines()[0])
    parser.add_argument(
        "--dates", type=flags.whole(1, 366), default=366, help="dates timed, spread over the year (366: all)"
    )
    parser.add_argument("--cpsat-dates", type=flags.whole(1, 366), default=5)
    parser.add_argument("--board", default="classic", choices=["classic"])
    parser.add_argument("--repeats", type=flags.count, default=5)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = parse(argv)
    year = year_days(2024)
    days = year[:: max(1, len(year) // args.dates)][: args.dates]
    cal = Calendar(args.board)
    models = [cal.cover(d) for d in days]
    engines = [ExactCover.from_model(m) for m in models]
    matrices = [package.matrix(m) for m in models]
    engines[0].count()  # compile (or load the cache) outside the clock
    known = [e.count() for e in engines]
    total = sum(known)
    print(f"{len(days)} dates, {total} solutions in all")

    print("count (each side one counting search per date):")
    counts = compare(
        {
            PACKAGE: lambda: sum(package.count(m) for m in matrices),
            ENGINE: lambda: sum(e.count() for e in engines),
        },
        repeats=args.repeats,
        warmup=0,
    )
    assert {t.result for t in counts.values()} == {total}
    report(counts, baseline=PACKAGE)

    print("enumerate (every solution; both sides told each date's count):")
    listed = compare(
        {
            PACKAGE: lambda: sum(len(package.solutions(m, k)) for m, k in zip(matrices, known)),
            ENGINE: lambda: sum(len(list(e.solutions(limit=k))) for e, k in zip(engines, known)),
            WHOLE: lambda: end_to_end(cal, days),
        },
        repeats=args.repeats,
        warmup=0,
    )
    assert {t.result for t in listed.values()} == {total}
    whole = listed.pop(WHOLE)
    report(listed, baseline=PACKAGE)
    print("the engine's whole year, from dates to boards (models built inside the clock; no baseline):")
    report({WHOLE: whole}, targets={WHOLE: "target < 10 s"})

    sample = models[:: max(1, len(days) // args.cpsat_dates)][: args.cpsat_dates]
    print(f"enumerate, {len(sample)} sample dates (both backends build their solver from the same models):")
    cpsat = compare(
        {
            "CP-SAT": lambda: enumerate_with("cpsat", sample),
            ENGINE: lambda: enumerate_with("algorithm_x", sample),
        },
        repeats=args.repeats,
        warmup=0,
    )
    assert cpsat["CP-SAT"].result == cpsat[ENGINE].result
    report(cpsat, baseline="CP-SAT")
    per_date = cpsat["CP-SAT"].median / len(sample)
    print(
        f"CP-SAT extrapolated (not measured) to the year: {per_date:.3f} s/date x {len(year)} dates "
        f"= {per_date * len(year):.0f} s"
    )
    context("a published Rust solver takes about 30 s for the year")


if __name__ == "__main__":
    flags.run(main)
