"""Plots of a sweep (seaborn): convergence (every run, the median, an interquartile band), final scores,
ECDF and heatmaps."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns


def evaluation_grid(max_evals: float, points: int = 200) -> np.ndarray:
    """Log-spaced evaluation counts from 1 to max_evals."""
    return np.unique(np.geomspace(1, max(max_evals, 1), points).astype(np.int64))


def seconds_grid(runs: pd.DataFrame, traces: pd.DataFrame, points: int = 200) -> np.ndarray:
    """Log-spaced seconds from the first improvement's time to the longest run's end."""
    seen = pd.concat([traces["seconds"], runs["seconds"]]).dropna()
    start = seen[seen > 0].min() if (seen > 0).any() else 1e-6
    return np.geomspace(start, max(seen.max(), start), points)


def x_grid(runs: pd.DataFrame, traces: pd.DataFrame, x: str) -> np.ndarray:
    """Where curves are read: evaluation counts, or seconds (wall-clock, as the traces record them)."""
    return evaluation_grid(runs["evaluations"].max()) if x == "evaluations" else seconds_grid(runs, traces)


def best_so_far(traces: pd.DataFrame, grid: np.ndarray, x: str = "evaluations") -> pd.DataFrame:
    """Each run's best-so-far at every grid point of `x` (a trace column: evaluations or seconds), a
    step function of its improvement trace."""
    frames = []
    for run_id, t in traces.groupby("run_id", sort=False):
        t = t.sort_values(x, kind="stable")  # rows sharing a time (a compiled chunk) keep their order
        idx = np.searchsorted(t[x].to_numpy(), grid, side="right") - 1
        best = np.where(idx >= 0, t["best"].to_numpy()[np.maximum(idx, 0)], np.nan)
        frames.append(pd.DataFrame({"run_id": run_id, x: grid, "best": best}))
    return pd.concat(frames, ignore_index=True)


def label(runs: pd.DataFrame, keys: list[str]) -> pd.Series:
    """A readable group label from the group's key columns."""
    parts = [
        runs[k].astype(str) if k == "optimizer" else k.split(".")[-1] + "=" + runs[k].astype(str)
        for k in keys
        if k != "puzzle"
    ]
    return pd.concat(parts, axis=1).agg(", ".join, axis=1) if parts else runs["optimizer"].astype(str)


RUN_LINE = 0.6  # the width of one run's thin line


def run_lines(ax, curves: pd.DataFrame, x: str, colour) -> None:
    """Every run's own best-so-far, thin and faint, up to its end: the spread a median hides.

    Fainter the more runs there are, so hundreds stay readable as a shade.
    """
    alpha = float(np.clip(8 / curves["run_id"].nunique(), 0.06, 0.35))
    for _, c in curves.groupby("run_id", sort=False):
        best = c["best"].where(c[x] <= c["end"])
        ax.plot(c[x], best, color=colour, lw=RUN_LINE, alpha=alpha, drawstyle="steps-post", zorder=1)


def quartiles(curves: pd.DataFrame, x: str) -> pd.DataFrame:
    """Quartiles of the runs' best-so-far at each grid point, a run not yet started counting as worse
    than any score (so a quartile shows once that many runs have a score, and never rises)."""
    started = curves.assign(best=curves["best"].fillna(np.inf))
    with np.errstate(invalid="ignore"):  # inf - inf between two unstarted runs: NaN, drawn as a gap
        q = started.groupby(x)["best"].quantile([0.25, 0.5, 0.75]).unstack()
    return q.replace(np.inf, np.nan)


def convergence(
    runs: pd.DataFrame, traces: pd.DataFrame, keys: list[str], ylabel: str = "best", x: str = "evaluations"
):
    """Best-so-far against `x` (evaluations, or wall-clock seconds), one colour per group: every run
    as a thin line, the median over them with an interquartile band."""
    grid = x_grid(runs, traces, x)
    ends = (
        runs[["run_id", x]].rename(columns={x: "end"}).fillna({"end": np.inf}).assign(group=label(runs, keys))
    )
    curves = best_so_far(traces, grid, x).merge(ends, on="run_id")
    fig, ax = plt.subplots(figsize=(7, 4.5))
    palette = sns.color_palette("tab10", curves["group"].nunique())
    for colour, (group, g) in zip(palette, curves.groupby("group")):
        run_lines(ax, g, x, colour)
        q = quartiles(g, x)
        ax.plot(q.index, q[0.5], label=group, color=colour, lw=2, zorder=3)
        ax.fill_between(q.index, q[0.25], q[0.75], color=colour, alpha=0.2, zorder=2)
    xlabel = "evaluations" if x == "evaluations" else "wall-clock seconds"
    ax.set(xscale="log", xlabel=xlabel, ylabel=f"{ylabel}: median (IQR band), thin lines: runs")
    ax.legend(fontsize=8)
    return fig


def final_scores(runs: pd.DataFrame, keys: list[str], ylabel: str = "best"):
    """Final best per group as a box plot with the runs drawn over it."""
    data = runs.assign(group=label(runs, keys))
    fig, ax = plt.subplots(figsize=(max(5, 1.2 * data["group"].nunique()), 4.5))
    sns.boxplot(data=data, x="group", y="best", ax=ax, color="white", showfliers=False)
    sns.stripplot(data=data, x="group", y="best", ax=ax, hue="group", legend=False, alpha=0.6, jitter=0.25)
    ax.set(xlabel="", ylabel=f"final {ylabel}")
    ax.tick_params(axis="x", rotation=30)
    return fig


MOST_TARGETS = 50  # integer targets beyond this many are thinned out to this many, evenly spaced


def target_grid(runs: pd.DataFrame, traces: pd.DataFrame, count: int = 20) -> np.ndarray:
    """Targets from the best final score to the worst first score (the ECDF's y-range).

    Whole-number scores (gaps, unmatched joins, pieces) get every integer between, as no score lies
    between two of them (evenly spaced integers past MOST_TARGETS); fractional scores `count`
    evenly spaced values.
    """
    scores = pd.concat([runs["best"], traces["best"]]).dropna().to_numpy(float)
    lo, hi = runs["best"].min(), scores.max()
    if np.all(scores == np.round(scores)):
        return np.unique(np.round(np.linspace(lo, hi, int(min(hi - lo + 1, MOST_TARGETS)))))
    return np.unique(np.linspace(lo, hi, count))


def ecdf(runs: pd.DataFrame, traces: pd.DataFrame, keys: list[str], targets: np.ndarray | None = None):
    """Anytime performance: the fraction of (run, target) pairs reached against evaluations.

    As IOHanalyzer and COCO draw it: each run is paired with every target; a pair counts from the
    first evaluation at which the run's best is <= the target.
    """
    from experiments.stats import first_hits

    targets = target_grid(runs, traces) if targets is None else targets
    hits = first_hits(traces, targets).merge(runs[["run_id"]].assign(group=label(runs, keys)), on="run_id")
    grid = evaluation_grid(runs["evaluations"].max())
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for colour, (group, g) in zip(sns.color_palette("tab10", hits["group"].nunique()), hits.groupby("group")):
        reached = np.sort(g["evaluations"].to_numpy())
        ax.step(
            grid,
            np.searchsorted(reached, grid, side="right") / len(reached),
            where="post",
            label=group,
            color=colour,
        )
    ax.set(
        xscale="log",
        ylim=(0, 1.02),
        xlabel="evaluations",
        ylabel=f"fraction of (run, target) pairs reached\n({len(targets)} targets)",
    )
    ax.legend(fontsize=8)
    return fig


def heatmaps(runs: pd.DataFrame, x: str, y: str, ylabel: str = "best"):
    """Median final score over a two-parameter sweep, one panel per optimiser."""
    names = sorted(runs["optimizer"].unique())
    fig, axes = plt.subplots(1, len(names), figsize=(4.5 * len(names), 4), squeeze=False)
    for ax, name in zip(axes[0], names):
        table = runs[runs["optimizer"] == name].pivot_table(
            index=y, columns=x, values="best", aggfunc="median"
        )
        sns.heatmap(
            table, annot=True, fmt=".3g", cmap="viridis_r", ax=ax, cbar_kws={"label": f"median {ylabel}"}
        )
        ax.set_title(name)
    return fig


def _band(ax, rows: pd.DataFrame, label: str, colour) -> None:
    """Mean match rate (%) against colours, with a min-max band over instance seeds."""
    g = rows.groupby("colours")["match_rate"].agg(["mean", "min", "max"]) * 100
    ax.plot(g.index, g["mean"], label=label, color=colour, lw=1.2)
    if rows["instance_seed"].nunique() > 1:
        ax.fill_between(g.index, g["min"], g["max"], color=colour, alpha=0.2, lw=0)


def colour_sweep(table: pd.DataFrame, faithful: str = "greedy_faithful"):
    """The seed's figure (match rate against colours), seed-faithful and corrected side by side.

    Top row: a linear colour axis, as the seed drew it; bottom row: the same on a log axis.
    """
    panels = [
        ("seed-faithful greedy (the seed's figure)", table["optimizer"] == faithful),
        ("corrected greedy and optimisers", table["optimizer"] != faithful),
    ]
    panels = [(title, mask) for title, mask in panels if mask.any()]
    fig, axes = plt.subplots(2, len(panels), figsize=(6.5 * len(panels), 8.5), squeeze=False, sharey=True)
    for col, (title, mask) in enumerate(panels):
        groups = list(table[mask].groupby(["optimizer", "n"]))
        palette = "tab10" if len(groups) <= 10 else "tab20"  # tab20: a hue per solver, a shade per n
        colours = plt.get_cmap(palette)(np.arange(len(groups)) % 20)
        for row, scale in enumerate(("linear", "log")):
            ax = axes[row, col]
            for colour, ((opt, n), rows) in zip(colours, groups):
                _band(ax, rows, f"{opt}, n={n} ({rows['instance_seed'].nunique()} instances)", colour)
            ax.set(
                title=title,
                xscale=scale,
                xlabel=f"colours ({scale} axis)",
                ylim=(0, 105),
                ylabel="match rate %\n(seed's accuracy: matching sides / 4n²)",
            )
            ax.legend(fontsize=7, loc="lower right")
            ax.grid(alpha=0.3)
    fig.tight_layout()
    return fig
