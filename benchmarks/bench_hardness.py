"""The hardness-peak study at one board size, as a user runs it (`+experiment=hardness_peak puzzle.n=N`),
timed from the command line: the wall time against the target (n = 8 within 20 minutes on two cores),
and where its hardest colour count lies against Owen's predicted peak.

The hardest count is the one with the most median nodes to the first perfect board (a board not solved
counting at the cap; between medians at the cap, the lower solve rate); the lowest solve rate is printed
beside it. The study is deterministic (one
thread a board), so one run is the figure; `--repeats` runs it again into fresh folders.

    python -m benchmarks.bench_hardness [--n 8] [--repeats 1] [--smoke]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import pandas as pd

from benchmarks import flags
from benchmarks.timing import Timing, line  # importing it logs this run (benchmarks/log/)
from puzzles.edge_matching.eternity2 import HARDEST_COLOURS

TARGET_S = {8: 20 * 60}


def study(n: int, smoke: bool) -> tuple[float, pd.DataFrame]:
    """One whole study in a fresh process: (wall seconds, its summary table)."""
    with tempfile.TemporaryDirectory() as out:
        args = ["+experiment=hardness_peak", f"puzzle.n={n}"]
        args += ["smoke=on"] * smoke + [f"hydra.sweep.dir={out}"]
        start = time.perf_counter()
        flags.run_app(args)
        seconds = time.perf_counter() - start
        return seconds, pd.read_csv(Path(out) / "hardness_peak_summary.csv")


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    """The flags, each checked before anything runs (benchmarks/flags.py)."""
    parser = flags.Parser("bench_hardness", __doc__.splitlines()[0])
    parser.add_argument(
        "--n", type=int, choices=sorted(HARDEST_COLOURS), default=8, help="the board size (n x n)"
    )
    parser.add_argument("--repeats", type=flags.count, default=1)
    parser.add_argument("--smoke", action="store_true", help="the smoke study (a check of this script)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = parse(argv)
    runs = [study(args.n, args.smoke) for _ in range(args.repeats)]
    seconds = [s for s, _ in runs]
    summary = runs[0][1]
    assert all(s.equals(summary) for _, s in runs), "the study's numbers differ between runs"
    shown = summary[["colours", "boards", "solved", "solve_rate", "nodes_q1", "nodes_median", "nodes_q3"]]
    print(shown.to_string(index=False))
    # where medians tie at the cap, the lower solve rate is the harder count
    hardest = summary.sort_values(["nodes_median", "solve_rate"], ascending=[False, True]).iloc[0]
    rarest = summary.loc[summary["solve_rate"].idxmin()]
    peak = float(summary["predicted_peak"].iloc[0])
    print(
        f"hardest colour count (most median nodes to the first board): {int(hardest['colours'])} "
        f"({hardest['nodes_median']:,.0f} nodes, solve rate {hardest['solve_rate']:.2f}); lowest solve rate "
        f"at {int(rarest['colours'])} ({rarest['solve_rate']:.2f}); Owen's predicted peak {peak:.2f} "
        f"({int(summary['frame_colours'].iloc[0])} frame colours, cap {int(summary['max_nodes'].max()):,} nodes)"
    )
    target = TARGET_S.get(args.n)
    goal = (
        ""
        if target is None or args.smoke
        else f"target <= {target} s: {'met' if max(seconds) <= target else 'missed'}"
    )
    boards = f"{len(summary)} colour counts x {int(summary['boards'].iloc[0])} boards"
    print(line(f"n = {args.n}, {boards}, wall", Timing(tuple(seconds), None), target=goal))


if __name__ == "__main__":
    flags.run(main)
