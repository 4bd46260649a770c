"""Exact cover speed: every raw tiling of a pentomino rectangle (6x10: 9,356), this project's engine
against the `exact-cover` package from PyPI (dancing links in C, benchmarks/exact_cover_package.py),
on the same model, in the same run. Target: counting >= 10x faster.

Like is compared with like: count with count, and enumerate with enumerate, where both sides are
told the solution count (taken outside the clock), so the package runs one search, not its default
count-then-enumerate. Both sides' models are built before the clock starts.

    python -m benchmarks.bench_exact_pentomino [--board 6x10] [--repeats 5] [--skip-enumeration]
"""

from __future__ import annotations

import argparse

from benchmarks import exact_cover_package as package
from benchmarks import flags
from benchmarks.timing import compare, report
from heuristics.exact_cover import ExactCover
from puzzles.rectangles import KNUTH, rectangle

PACKAGE, ENGINE = "exact-cover package", "this engine"


def same(ours: list[list[int]], theirs: set[tuple[int, ...]]) -> bool:
    """Do both sides give the same solutions (as sets of rows)?"""
    return {tuple(sorted(s)) for s in ours} == {tuple(sorted(s)) for s in theirs}


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    """The flags, each checked before anything runs (benchmarks/flags.py)."""
    parser = flags.Parser("bench_exact_pentomino", __doc__.splitlines()[0])
    parser.add_argument("--board", default="6x10", choices=list(KNUTH))
    parser.add_argument("--repeats", type=flags.count, default=5)
    parser.add_argument("--skip-enumeration", action="store_true", help="time counting only")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = parse(argv)
    model = rectangle(args.board).cover()
    engine = ExactCover.from_model(model)
    plain = ExactCover.from_masks(model.masks, model.n_items, model.primary, "first")
    matrix = package.matrix(model)
    known = KNUTH[args.board][0]
    print(
        f"{args.board}: {len(model.rows)} placements x {matrix.shape[1]} primary items; "
        f"Knuth: {known} raw tilings"
    )
    ExactCover.from_model(rectangle("3x20").cover()).count()  # compile (or load the cache) first
    print("count (each side one counting search):")
    counts = compare(
        {
            PACKAGE: lambda: package.count(matrix),
            ENGINE: engine.count,
            "this engine, no region pruning": plain.count,
        },
        repeats=args.repeats,
        warmup=0,
    )
    assert {t.result for t in counts.values()} == {known}, {k: t.result for k, t in counts.items()}
    report(counts, baseline=PACKAGE, targets={ENGINE: "target >= 10x"})
    if args.skip_enumeration:
        return
    print(f"enumerate (every solution; both sides told the count, {known}):")
    listed = compare(
        {
            PACKAGE: lambda: package.solutions(matrix, known),
            ENGINE: lambda: list(engine.solutions(limit=known)),
        },
        repeats=args.repeats,
        warmup=0,
    )
    theirs, ours = listed[PACKAGE].result, listed[ENGINE].result
    assert len(ours) == len(theirs) == known and same(ours, theirs)
    report(listed, baseline=PACKAGE)
    print(f"(both sides enumerate the same {known} solutions)")


if __name__ == "__main__":
    flags.run(main)
