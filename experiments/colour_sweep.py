"""Seed 001's analysis: match rate against the number of colours, per board size and solver.

One point is one (n, colours, solver, instance seed): the seed's generator makes the instance,
the seed's rules apply (no rotation, centre given), and the solver is the greedy (seed-faithful
or corrected) or a metaheuristic under an evaluation budget. Columns of the table:
n, colours, optimizer, instance_seed, match_rate (the seed's accuracy over 4 n^2 sides),
edge_score (matched inner edges over 2 n (n-1)), unmatched_edges, duplicates, seconds.

Differences from the article, on purpose: instances come from a numpy Generator seeded by the
instance seed (the seed drew palettes and the shuffle from Python's `random`, unseeded), so they
are the same in distribution, not the same boards; the article ran one instance per colour count,
this sweeps several and draws their range as a band; it plotted int(percent) against the list
index (colours - 2), this plots the exact rate against the colour count.

    python -m experiments.colour_sweep <sweep dir> [...] [--out DIR]   # table + plot from a sweep
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from hydra.experimental.callback import Callback  # noqa: E402

from heuristics.edge_greedy import Greedy  # noqa: E402
from puzzles.edge_matching import EdgeMatching, Layout, inner_edges  # noqa: E402

TABLE = "colour_sweep.parquet"
COLUMNS = ["n", "colours", "optimizer", "instance_seed", "match_rate", "edge_score",
           "unmatched_edges", "duplicates", "seconds"]
FAITHFUL = "greedy_faithful"


def seed_colours(n: int, points: int | None = None) -> list[int]:
    """The seed's colour counts, 2 .. 2n(n-1); or `points` of them, spaced evenly on a log scale."""
    top = inner_edges(n)
    if points is None or points >= top - 1:
        return list(range(2, top + 1))
    return sorted({int(round(c)) for c in np.geomspace(2, top, points)})


def puzzle_for(n: int, colours: int, instance_seed: int, **options) -> EdgeMatching:
    """The seed's instance: its generator and rules (unless `options` say otherwise)."""
    kwargs = {"generator": "seed", "rotations": False, "fix_centre": True, **options}
    return EdgeMatching(n=n, colours=colours, instance_seed=instance_seed, **kwargs)


def point(puzzle: EdgeMatching, layout: Layout, optimizer: str, seconds: float) -> dict[str, Any]:
    """One row of the table: what was solved, by whom, both scores, and the time it took."""
    scores = puzzle.score_layout(layout)
    return {"n": puzzle.n, "colours": puzzle.colours, "optimizer": optimizer,
            "instance_seed": puzzle.instance_seed,
            **{k: scores[k] for k in ("match_rate", "edge_score", "unmatched_edges", "duplicates")},
            "seconds": seconds}


def greedy_point(n: int, colours: int, instance_seed: int, seed_faithful: bool, **options) -> dict[str, Any]:
    """Make the seed's instance and solve it with the greedy (the board is checked); seconds: the solve."""
    puzzle = puzzle_for(n, colours, instance_seed, **options)
    solver = Greedy(seed_faithful)
    start = time.perf_counter()
    layout = solver.solve(puzzle)
    return point(puzzle, layout, solver.name, time.perf_counter() - start)


def gather(roots: list[Path]) -> pd.DataFrame:
    """Every run's table under `roots`, as one table."""
    frames = [pd.read_parquet(p) for root in roots for p in sorted(Path(root).rglob(TABLE))]
    if not frames:
        raise FileNotFoundError(f"no {TABLE} under {', '.join(map(str, roots))}")
    return pd.concat(frames, ignore_index=True)[COLUMNS]


def _band(ax, rows: pd.DataFrame, label: str, colour) -> None:
    """Mean match rate (%) against colours, with a min-max band over instance seeds."""
    g = rows.groupby("colours")["match_rate"].agg(["mean", "min", "max"]) * 100
    ax.plot(g.index, g["mean"], label=label, color=colour, lw=1.2)
    if rows["instance_seed"].nunique() > 1:
        ax.fill_between(g.index, g["min"], g["max"], color=colour, alpha=0.2, lw=0)


def plot(table: pd.DataFrame):
    """The seed's figure (match rate against colours), seed-faithful and corrected side by side.

    Top row: a linear colour axis, as the seed drew it; bottom row: the same on a log axis.
    """
    panels = [("seed-faithful greedy (the seed's figure)", table["optimizer"] == FAITHFUL),
              ("corrected greedy and optimisers", table["optimizer"] != FAITHFUL)]
    panels = [(title, mask) for title, mask in panels if mask.any()]
    fig, axes = plt.subplots(2, len(panels), figsize=(6.5 * len(panels), 8.5), squeeze=False, sharey=True)
    for col, (title, mask) in enumerate(panels):
        groups = list(table[mask].groupby(["optimizer", "n"]))
        colours = plt.get_cmap("tab10")(np.arange(len(groups)) % 10)
        for row, scale in enumerate(("linear", "log")):
            ax = axes[row, col]
            for colour, ((opt, n), rows) in zip(colours, groups):
                _band(ax, rows, f"{opt}, n={n} ({rows['instance_seed'].nunique()} instances)", colour)
            ax.set(title=title, xscale=scale, xlabel=f"colours ({scale} axis)", ylim=(0, 105),
                   ylabel="match rate %\n(seed's accuracy: matching sides / 4n²)")
            ax.legend(fontsize=7, loc="lower right")
            ax.grid(alpha=0.3)
    fig.tight_layout()
    return fig


def summary(table: pd.DataFrame) -> pd.DataFrame:
    """Per size and solver: mean match rate and edge score, points at 100%, total seconds."""
    g = table.groupby(["n", "optimizer"])
    return pd.DataFrame({"points": g.size(), "mean_match_rate": g["match_rate"].mean(),
                         "mean_edge_score": g["edge_score"].mean(),
                         "solved": g["unmatched_edges"].apply(lambda s: int((s == 0).sum())),
                         "seconds": g["seconds"].sum()}).reset_index()


def write_outputs(table: pd.DataFrame, out: Path) -> Path:
    """The sweep's table (CSV + Parquet), its summary and its plot, into `out`."""
    from experiments.records import write_figure, write_table

    write_table(table, out / "colour_sweep_table.parquet")
    write_table(summary(table), out / "colour_sweep_summary.parquet")
    write_figure(plot(table), out / "colour_sweep.png")
    return out / "colour_sweep.png"


class SweepCallback(Callback):
    """Hydra callback: at the end of a colour-sweep multirun, write its table and plot beside the runs."""

    def on_multirun_end(self, config, **kwargs) -> None:
        sweep_dir = Path(config.hydra.sweep.dir)
        if any(sweep_dir.rglob(TABLE)):
            print(f"colour sweep -> {write_outputs(gather([sweep_dir]), sweep_dir)}")


def main() -> None:
    parser = argparse.ArgumentParser(description="Table and plot of colour-sweep runs.")
    parser.add_argument("roots", nargs="+", type=Path)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    try:
        table = gather(args.roots)
    except FileNotFoundError as err:
        raise SystemExit(f"error: {err}")
    print(summary(table).to_string(index=False))
    print(f"plot -> {write_outputs(table, args.out or args.roots[0])}")


if __name__ == "__main__":
    main()
