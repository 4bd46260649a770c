"""Galakub cube: every solution (576 raw), this project's engine against the `exact-cover` package
(dancing links in C) on the same model, in the same run. Target: the engine's whole answer, model
built and every solution as a filling, < 1 s.

Like with like: count against count, and enumerate against enumerate with both sides told the count
(taken outside the clock); both sides' models are built before the clock starts. Seed 003's own
time (about six hours, Python 2) is quoted for context only.

    python -m benchmarks.bench_galakub [--repeats 5]
"""

from __future__ import annotations

import argparse

import numpy as np

from benchmarks import exact_cover_package as package
from benchmarks import flags
from benchmarks.timing import compare, context, report
from heuristics.exact_cover import ExactCover
from puzzles.galakub import Galakub

PACKAGE, ENGINE, WHOLE = "exact-cover package", "this engine", "this engine, end to end"


def fillings(cube: Galakub) -> np.ndarray:
    """Every solution of the cube as a filling (the covering piece per cell), one row each."""
    model = cube.model({})
    return cube.packing.owner_table([model.rows[r] for r in ExactCover.from_model(model).solutions()])


def whole_answer() -> int:
    """Build the model and turn every solution into a filling of the cube: the figure the target is for."""
    return len(fillings(Galakub()))


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    """The flags, each checked before anything runs (benchmarks/flags.py)."""
    parser = flags.Parser("bench_galakub", __doc__.splitlines()[0])
    parser.add_argument("--repeats", type=flags.count, default=5)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = parse(argv)
    cube = Galakub()
    cover = cube.model({})
    ours, matrix = ExactCover.from_model(cover), package.matrix(cover)
    known = ours.count()  # also compiles (or loads the cache) outside the clock
    counts = cube.counts(fillings(cube))
    print(
        f"{len(cube.packing.placements)} placements; raw {counts['raw']}, distinct {counts['distinct']}, "
        f"up to rotation {counts['up_to_rotation']} (seed: 576, 8, 1)"
    )

    print("count (each side one counting search):")
    counted = compare(
        {PACKAGE: lambda: package.count(matrix), ENGINE: ours.count}, repeats=args.repeats, warmup=0
    )
    assert known == counts["raw"] and {t.result for t in counted.values()} == {known}
    report(counted, baseline=PACKAGE)

    print(f"enumerate (every solution; both sides told the count, {known}):")
    listed = compare(
        {
            PACKAGE: lambda: len(package.solutions(matrix, known)),
            ENGINE: lambda: len(list(ours.solutions(limit=known))),
            WHOLE: whole_answer,
        },
        repeats=args.repeats,
        warmup=0,
    )
    assert {t.result for t in listed.values()} == {known}
    whole = listed.pop(WHOLE)
    report(listed, baseline=PACKAGE)
    print("the engine's whole answer, model built and solutions as fillings (no baseline):")
    report({WHOLE: whole}, targets={WHOLE: "target < 1 s"})
    context("seed 003 (Python 2, nested loops over placements) took about six hours")


if __name__ == "__main__":
    flags.run(main)
