"""Timing helpers shared by the benchmarks."""
from __future__ import annotations

import time


def rate(score, genomes, seconds: float) -> float:
    """Evaluations per second, calling `score` on the genomes in turn for about `seconds`."""
    done, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        for g in genomes:
            score(g)
        done += len(genomes)
    return done / (time.perf_counter() - start)
