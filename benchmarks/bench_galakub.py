"""Galakub cube: every solution (576 raw), this project's engine against the `exact-cover` package
(dancing links in C) on the same matrix, in the same run. Target: < 1 s (the seed: six hours).

    python -m benchmarks.bench_galakub

The seed's own figure (about six hours, Python 2, nested loops over placements) is quoted.
"""
from __future__ import annotations

import time

import numpy as np

from experiments.exact import all_owners, engine
from heuristics.exact_cover import bool_matrix
from puzzles.galakub import figures, galakub

SEED_SECONDS = 6 * 3600.0


def main() -> None:
    import exact_cover
    engine(galakub().cover()).count()  # compile (or load the cache) outside the clock
    start = time.perf_counter()
    model = galakub()
    built = time.perf_counter()
    owners = all_owners(model)
    solved = time.perf_counter()
    counts = figures(model, owners)
    matrix = np.ascontiguousarray(bool_matrix(model.masks)[:, : model.n_items], dtype=np.int32)
    t0 = time.perf_counter()
    theirs = exact_cover.get_all_solutions(matrix)
    t_theirs = time.perf_counter() - t0
    assert len(theirs) == len(owners) == counts["raw"]
    ours = solved - start
    print(f"{len(model.placements)} placements; raw {counts['raw']}, distinct "
          f"{counts['distinct']}, up to rotation {counts['up_to_rotation']} (seed: 576, 8, 1)")
    print(f"this engine: model {built - start:.3f} s + all solutions {solved - built:.3f} s "
          f"= {ours:.3f} s (target < 1 s)")
    print(f"exact-cover package, all solutions : {t_theirs:8.3f} s  ratio {t_theirs / ours:7.1f}x")
    print(f"seed 003 (quoted, not run)         : {SEED_SECONDS:8.0f} s  ratio {SEED_SECONDS / ours:7.0f}x")


if __name__ == "__main__":
    main()
