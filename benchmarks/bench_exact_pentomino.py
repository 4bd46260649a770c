"""Exact cover speed: all 9,356 raw tilings of the 6x10 pentomino rectangle, this project's engine
against the `exact-cover` package from PyPI (dancing links in C), on the same matrix, in the same
run. Target: >= 10x.

    python -m benchmarks.bench_exact_pentomino [--board 6x10] [--skip-enumeration]

The package's get_all_solutions counts first and then enumerates (two searches), so counting is
compared with counting and enumerating with enumerating.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from heuristics.exact_cover import ExactCover, bool_matrix
from puzzles.rectangles import KNUTH, rectangle


def timed(fn):
    """(result, seconds) of one call."""
    start = time.perf_counter()
    result = fn()
    return result, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--board", default="6x10", choices=list(KNUTH))
    parser.add_argument("--skip-enumeration", action="store_true",
                        help="time counting only (the package's enumeration takes two searches)")
    args = parser.parse_args()
    import exact_cover

    model = rectangle(args.board)
    problem = ExactCover.from_model(model.cover())
    ExactCover.from_model(rectangle("3x20").cover()).count()  # compile (or load the cache) first
    matrix = np.ascontiguousarray(bool_matrix(model.masks)[:, : model.n_items], dtype=np.int32)
    print(f"{args.board}: {len(model.placements)} placements x {model.n_items} items; "
          f"Knuth: {KNUTH[args.board][0]} raw tilings")

    theirs, t_theirs = timed(lambda: int(exact_cover.get_solution_count(matrix)))
    ours, t_ours = timed(problem.count)
    assert ours == theirs == KNUTH[args.board][0], (ours, theirs)
    print(f"count   exact-cover (C, dancing links) : {t_theirs:8.2f} s  ({theirs} solutions)")
    print(f"count   this engine (numba, bitsets)   : {t_ours:8.2f} s  ratio {t_theirs / t_ours:5.1f}x "
          f"(target >= 10x)")
    plain = ExactCover.from_masks(problem.masks, problem.n_items, problem.primary, "first")
    _, t_plain = timed(plain.count)
    print(f"count   this engine, no region pruning : {t_plain:8.2f} s  ratio {t_theirs / t_plain:5.1f}x")
    if args.skip_enumeration:
        return
    their_sets, t_theirs_all = timed(lambda: exact_cover.get_all_solutions(matrix))
    our_list, t_ours_all = timed(lambda: list(problem.solutions()))
    assert {tuple(sorted(s)) for s in our_list} == {tuple(sorted(s)) for s in their_sets}
    print(f"all     exact-cover get_all_solutions  : {t_theirs_all:8.2f} s")
    print(f"all     this engine solutions()        : {t_ours_all:8.2f} s  ratio "
          f"{t_theirs_all / t_ours_all:5.1f}x  (same {len(our_list)} solutions)")


if __name__ == "__main__":
    main()
