"""Plots of a sweep (seaborn): convergence (every run, the median, an interquartile band), final scores,
ECDF and heatmaps."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.figure import Figure
from matplotlib.layout_engine import TightLayoutEngine
from matplotlib.ticker import MaxNLocator

from experiments.records import unwritable, write_picture


class NotDrawn(ValueError):
    """A plot these runs cannot make (nothing to draw): the report names it and writes the rest."""


def scored(runs: pd.DataFrame, *columns: str) -> pd.DataFrame:
    """The runs with a number in `best` and each of `columns`, those columns as floats (a failed run's
    `best` is None, so records gathered beside one hold it as objects); NotDrawn when none has."""
    needed = ["best", *columns]
    numbers = runs.assign(**{c: pd.to_numeric(runs[c], errors="coerce") for c in needed}).dropna(
        subset=needed
    )
    if numbers.empty:
        raise NotDrawn(f"no run has a number in {', '.join(needed)}")
    return numbers


def evaluation_grid(max_evals: float, points: int = 200) -> np.ndarray:
    """Log-spaced evaluation counts from 1 to max_evals (1 alone when that is unknown)."""
    return np.unique(np.geomspace(1, max_evals if max_evals > 1 else 1, points).astype(np.int64))


def seconds_grid(runs: pd.DataFrame, traces: pd.DataFrame, points: int = 200) -> np.ndarray:
    """Log-spaced seconds from the first improvement's time to the longest run's end."""
    seen = pd.concat([traces["seconds"], pd.to_numeric(runs["seconds"], errors="coerce")]).dropna()
    start = seen[seen > 0].min() if (seen > 0).any() else 1e-6
    return np.geomspace(start, max(seen.max(), start), points)


def x_grid(runs: pd.DataFrame, traces: pd.DataFrame, x: str) -> np.ndarray:
    """Where curves are read: evaluation counts (to the longest run, or trace where a run's count is
    missing), or seconds (wall-clock, as the traces record them)."""
    if x != "evaluations":
        return seconds_grid(runs, traces)
    return evaluation_grid(
        pd.concat([traces["evaluations"], pd.to_numeric(runs["evaluations"], errors="coerce")]).max()
    )


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


# ---- what is compared with what: one facet per problem instance (and per kind of evaluation) ----

KIND_NAMES = {"fitness": "fitness calls", "priced move": "priced moves", "construction": "constructions"}


def problem_columns(runs: pd.DataFrame, keys: list[str]) -> list[str]:
    """The columns that make a problem instance, one score scale: the puzzle, its swept settings
    (`puzzle.width`, `puzzle.n`, ...) and the instance columns (`gather.instance_columns`)."""
    from experiments.gather import instance_columns

    named = set(instance_columns(runs, keys))
    return [k for k in keys if k == "puzzle" or k.startswith("puzzle.") or k in named]


def problem_label(runs: pd.DataFrame, keys: list[str]) -> pd.Series:
    """Each run's problem instance as a reader names it: the puzzle, then the settings that tell its
    instances apart (those taking more than one value within the puzzle)."""
    columns = problem_columns(runs, keys)
    puzzle = runs["puzzle"].astype(str) if "puzzle" in runs else pd.Series("", index=runs.index)
    settings = [
        k
        for k in columns
        if k != "puzzle" and runs.groupby(puzzle, dropna=False)[k].nunique(dropna=False).max() > 1
    ]
    if not settings:
        return puzzle
    parts = pd.concat([k.split(".")[-1] + "=" + runs[k].astype(str) for k in settings], axis=1)
    return puzzle + " (" + parts.agg(", ".join, axis=1) + ")"


def group_label(runs: pd.DataFrame, keys: list[str]) -> pd.Series:
    """A group's label within its problem's facet: what varies besides the problem (the optimiser...)."""
    return label(runs, [k for k in keys if k not in problem_columns(runs, keys)])


def evaluation_kinds(runs: pd.DataFrame) -> pd.Series:
    """What one of each run's evaluations counts ("fitness", "priced move", "construction"; "" unknown)."""
    if "evaluation_kind" not in runs:
        return pd.Series("", index=runs.index)
    return runs["evaluation_kind"].fillna("").astype(str)


def facets(runs: pd.DataFrame, keys: list[str], by_kind: bool = True) -> list[tuple[str, str, pd.DataFrame]]:
    """(problem, evaluation kind, runs) per facet: one per problem instance (never pooled across score
    scales) and, with `by_kind`, per kind of evaluation (never one evaluations axis for a fitness call
    and a whole construction). Without `by_kind` the kind is ""."""
    tagged = runs.assign(_problem=problem_label(runs, keys), _kind=evaluation_kinds(runs) if by_kind else "")
    return [
        (problem, kind, g.drop(columns=["_problem", "_kind"]))
        for (problem, kind), g in tagged.groupby(["_problem", "_kind"], sort=True)
    ]


def facet_title(problem: str, kind: str, several_kinds: bool) -> str:
    """A facet's title: the problem, and what an evaluation is where kinds differ."""
    return f"{problem}\nevaluations = {KIND_NAMES.get(kind, kind or 'unknown')}" if several_kinds else problem


def facet_axes(count: int, columns: int | None = None, width: float = 5.0, height: float = 3.6):
    """A grid of `count` axes (unused ones hidden), as a flat list."""
    columns = columns or min(3, count)
    rows = -(-count // columns)
    fig, axes = plt.subplots(rows, columns, figsize=(width * columns, height * rows), squeeze=False)
    flat = list(axes.flat)
    for ax in flat[count:]:
        ax.set_visible(False)
    return fig, flat[:count]


LINE_STYLES = ("-", "--", "-.", ":")
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*", "<", ">")


def styles(labels) -> dict[str, dict]:
    """A colour, line style and marker per label: lines at equal values stay told apart."""
    names = sorted(set(labels), key=str)
    palette = sns.color_palette("tab10" if len(names) <= 10 else "tab20", len(names))
    return {
        name: {
            "color": palette[i],
            "ls": LINE_STYLES[i % len(LINE_STYLES)],
            "marker": MARKERS[i % len(MARKERS)],
        }
        for i, name in enumerate(names)
    }


def drawn(style: dict, i: int, points: int) -> dict:
    """A group's line keywords: its colour, dash and marker, the markers staggered by group (`marks`)
    so that lines at equal values stay told apart."""
    return dict(
        color=style["color"], ls=style["ls"], marker=style["marker"], ms=4, markevery=marks(i, points)
    )


def marks(i: int, points: int, every: int = 6) -> tuple[int, int]:
    """markevery for the i-th line of `points` points: a few markers, staggered between lines so
    lines lying on top of each other show every marker."""
    step = max(points // every, 1)
    return ((i * max(step // 5, 1)) % step, step)


def whole_numbers(values) -> bool:
    """Are these scores whole numbers (gaps, unmatched joins)? Then their axis gets integer ticks."""
    v = pd.Series(np.asarray(values, float)).dropna()
    v = v[np.isfinite(v)]
    return bool(len(v)) and bool(np.all(v == np.round(v)))


def integer_ticks(ax, values) -> None:
    """Integer ticks on the y axis where the scores are whole numbers (over at least two integers,
    so a panel where every run ends at one score still reads as integers)."""
    if whole_numbers(values):
        lo, hi = ax.get_ylim()
        if np.floor(hi) - np.ceil(lo) < 2:
            middle = float(np.round((lo + hi) / 2))
            ax.set_ylim(min(lo, middle - 1.25), max(hi, middle + 1.25))
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))


def legend_outside(fig, handles, labels, title: str | None = None) -> None:
    """One legend for the figure, right of the data."""
    if handles:
        fig.legend(
            handles,
            labels,
            loc="upper left",
            bbox_to_anchor=(1.0, 0.93),
            fontsize=8,
            title=title,
            frameon=False,
        )


def finish(fig, caption: str) -> None:
    """Lay the figure out under its caption (study, budget, smoke): `fig.tight_layout()`'s layout, but
    with no layout engine left on the figure, which would make savefig draw it once more before saving
    (`records.tight_crop`)."""
    if caption:
        fig.suptitle(caption, fontsize=10)
    # rect=None as fig.tight_layout() passes it (a whole-figure rect lays it out twice); the stub omits None
    TightLayoutEngine(rect=None).execute(fig)  # type: ignore[arg-type]


def median_handles(style: dict[str, dict]) -> tuple[list, list[str]]:
    """Legend entries for the groups: their median's colour, style and marker."""
    from matplotlib.lines import Line2D

    handles = [
        Line2D([], [], lw=2, color=s["color"], ls=s["ls"], marker=s["marker"], ms=5) for s in style.values()
    ]
    return handles, list(style)


def convergence(
    runs: pd.DataFrame,
    traces: pd.DataFrame,
    keys: list[str],
    ylabel: str = "best",
    x: str = "evaluations",
    caption: str = "",
):
    """Best-so-far against `x` (evaluations, or wall-clock seconds): one facet per problem instance
    (and, against evaluations, per kind of evaluation), one colour, line style and marker per group:
    every run as a thin line, the median over them with an interquartile band."""
    if runs.empty:
        raise NotDrawn("no runs")
    by_kind = x == "evaluations"
    panels = facets(runs, keys, by_kind)
    several = len({kind for _, kind, _ in panels}) > 1
    style = styles(group_label(runs, keys))
    fig, axes = facet_axes(len(panels), columns=2 if several else None)
    xlabel = "evaluations" if x == "evaluations" else "wall-clock seconds"
    for ax, (problem, kind, prun) in zip(axes, panels):
        ptraces = traces[traces["run_id"].isin(prun["run_id"])]
        if ptraces.empty:
            ax.set(title=facet_title(problem, kind, several) + "\n(no traces)")
            continue
        grid = x_grid(prun, ptraces, x)
        ends = prun[["run_id", x]].rename(columns={x: "end"}).fillna({"end": np.inf})
        ends = ends.assign(group=group_label(prun, keys))
        curves = best_so_far(ptraces, grid, x).merge(ends, on="run_id")
        for i, (group, g) in enumerate(curves.groupby("group")):
            s = style[group]
            run_lines(ax, g, x, s["color"])
            q = quartiles(g, x)
            ax.plot(
                q.index, q[0.5], label=group, drawstyle="steps-post", lw=2, zorder=3, **drawn(s, i, len(q))
            )
            ax.fill_between(q.index, q[0.25], q[0.75], color=s["color"], alpha=0.2, zorder=2)
        ax.set(xscale="log", xlabel=xlabel, ylabel=f"{ylabel}\nmedian (IQR band), thin: runs")
        ax.set_title(facet_title(problem, kind, several), fontsize=9)
        integer_ticks(ax, ptraces["best"])
    legend_outside(fig, *median_handles(style))
    finish(fig, caption)
    return fig


def final_scores(runs: pd.DataFrame, keys: list[str], ylabel: str = "best", caption: str = ""):
    """Final best per group as a box plot with the runs drawn over it, one facet per problem instance
    (each its own score scale)."""
    runs = scored(runs)
    panels = facets(runs, keys, by_kind=False)
    data = runs.assign(group=group_label(runs, keys))
    groups = data["group"].nunique()
    fig, axes = facet_axes(len(panels), width=max(4.0, 0.9 * groups + 1.5), height=3.8)
    style = styles(data["group"])
    for ax, (problem, _, prun) in zip(axes, panels):
        d = data.loc[prun.index]
        order = sorted(d["group"].unique())
        sns.boxplot(data=d, x="group", y="best", order=order, ax=ax, color="white", showfliers=False)
        sns.stripplot(
            data=d,
            x="group",
            y="best",
            order=order,
            hue="group",
            palette={g: style[g]["color"] for g in order},
            ax=ax,
            legend=False,
            alpha=0.7,
            jitter=0.25,
        )
        ax.set(xlabel="", ylabel=f"final {ylabel}")
        ax.set_title(problem, fontsize=9)
        ax.tick_params(axis="x", rotation=30)
        for tick in ax.get_xticklabels():
            tick.set_horizontalalignment("right")
        integer_ticks(ax, d["best"])
    finish(fig, caption)
    return fig


MOST_TARGETS = 50  # integer targets beyond this many are thinned out to this many, evenly spaced


def target_grid(runs: pd.DataFrame, traces: pd.DataFrame, count: int = 20) -> np.ndarray:
    """Targets from the best final score to the worst first score (the ECDF's y-range), for runs of
    one problem instance (one score scale: `targets_by_problem` splits a sweep).

    Whole-number scores (gaps, unmatched joins, pieces) get every integer between, as no score lies
    between two of them (evenly spaced integers past MOST_TARGETS); fractional scores `count`
    evenly spaced values.
    """
    scores = pd.concat([runs["best"], traces["best"]]).dropna().to_numpy(float)
    lo, hi = runs["best"].min(), scores.max()
    if np.all(scores == np.round(scores)):
        return np.unique(np.round(np.linspace(lo, hi, int(min(hi - lo + 1, MOST_TARGETS)))))
    return np.unique(np.linspace(lo, hi, count))


def targets_by_problem(runs: pd.DataFrame, traces: pd.DataFrame, keys: list[str]) -> dict[str, np.ndarray]:
    """Each problem instance's own targets (`target_grid` over its runs of every kind)."""
    return {
        problem: target_grid(prun, traces[traces["run_id"].isin(prun["run_id"])])
        for problem, _, prun in facets(runs, keys, by_kind=False)
    }


def ecdf(
    runs: pd.DataFrame,
    traces: pd.DataFrame,
    keys: list[str],
    targets: dict[str, np.ndarray] | None = None,
    caption: str = "",
    x: str = "evaluations",
):
    """Anytime performance: the fraction of (run, target) pairs reached against evaluations (or
    wall-clock seconds), one facet per problem instance with its own targets (and, against
    evaluations, per kind of evaluation).

    As IOHanalyzer and COCO draw it: each run is paired with every target; a pair counts from the
    first evaluation at which the run's best is <= the target.
    """
    from experiments.stats import first_hits

    runs = scored(runs)
    targets = targets_by_problem(runs, traces, keys) if targets is None else targets
    by_kind = x == "evaluations"
    panels = facets(runs, keys, by_kind)
    several = len({kind for _, kind, _ in panels}) > 1
    style = styles(group_label(runs, keys))
    fig, axes = facet_axes(len(panels), columns=2 if several else None)
    for ax, (problem, kind, prun) in zip(axes, panels):
        ptraces = traces[traces["run_id"].isin(prun["run_id"])]
        mine = targets[problem]
        groups = prun[["run_id"]].assign(group=group_label(prun, keys))
        hits = first_hits(ptraces, mine, x)
        grid = x_grid(prun, ptraces, x)
        for i, (group, g) in enumerate(groups.groupby("group")):
            at = hits.loc[hits["run_id"].isin(g["run_id"]), x].to_numpy(float)
            reached = np.sort(at[np.isfinite(at)])  # a run without a trace reached none of its pairs
            s = style[group]
            ax.step(
                grid,
                np.searchsorted(reached, grid, side="right") / (len(mine) * len(g)),
                where="post",
                label=group,
                lw=1.6,
                **drawn(s, i, len(grid)),
            )
        ax.set(
            xscale="log",
            ylim=(-0.02, 1.02),
            xlabel="evaluations" if x == "evaluations" else "wall-clock seconds",
            ylabel=f"(run, target) pairs reached\n({len(mine)} targets, {mine.min():g} to {mine.max():g})",
        )
        ax.set_title(facet_title(problem, kind, several), fontsize=9)
    legend_outside(fig, *median_handles(style))
    finish(fig, caption)
    return fig


def heatmaps(runs: pd.DataFrame, x: str, y: str, ylabel: str = "best", caption: str = ""):
    """Median final score over a two-parameter sweep, one panel per optimiser; failed runs (no best)
    are left out, so a cell where every run failed stays blank or missing."""
    runs = scored(runs, x, y)
    names = sorted(runs["optimizer"].astype(str).unique())
    fig, axes = plt.subplots(1, len(names), figsize=(4.5 * len(names), 4), squeeze=False)
    for ax, name in zip(axes[0], names):
        table = runs[runs["optimizer"].astype(str) == name].pivot_table(
            index=y, columns=x, values="best", aggfunc="median"
        )
        sns.heatmap(
            table, annot=True, fmt=".3g", cmap="viridis_r", ax=ax, cbar_kws={"label": f"median {ylabel}"}
        )
        ax.set_title(name)
    finish(fig, caption)
    return fig


def picture(name: str, make: Callable[[], Figure], out: Path, skipped: dict[str, str] | None = None) -> bool:
    """Draw and save one picture; whether it was. Every plot is optional to the report: one that cannot
    be drawn goes into `skipped` (its name: why) and the report is written without it; only a folder
    that cannot be written stops the report."""
    try:
        write_picture(make(), out / name)
        return True
    except Exception as err:
        if isinstance(err, OSError) and unwritable(err, out):
            raise
        plt.close("all")
        why = (str(err).strip().splitlines() or ["no message"])[0]
        if skipped is not None:
            skipped[name] = why if isinstance(err, NotDrawn) else f"{type(err).__name__}: {why}"
        return False
