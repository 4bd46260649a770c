"""The colour sweep's figure: the seed's plot of match rate against the colour count, seed-faithful and
corrected greedy side by side (the report's colour_sweep.png)."""

from __future__ import annotations

from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from experiments.plots import NotDrawn, finish, marks, styles

OFFSET = 1.0  # percentage points between lines of equal match rate in the colour sweep's figure


def mean_rates(rows: pd.DataFrame) -> pd.DataFrame:
    """Mean, min and max match rate (%) per colour count over instance seeds."""
    return rows.groupby("colours")["match_rate"].agg(["mean", "min", "max"]) * 100


def dodge(curves: list[pd.Series], step: float = OFFSET) -> list[pd.Series]:
    """Each curve (mean rate per colour count) moved `step` apart from the curves it coincides with
    at a colour count, and only there: lines of equal rate (several solvers at 100%) stay visible
    side by side, the others keep their values."""
    if len(curves) < 2:
        return curves
    long = pd.concat([c.rename("y").reset_index().assign(line=i) for i, c in enumerate(curves)])
    same = long.groupby(["colours", long["y"].round(9)])
    rank, size = same.cumcount(), same["line"].transform("size")
    long["y"] = long["y"] + (rank - (size - 1) / 2) * step
    return [long[long["line"] == i].set_index("colours")["y"] for i in range(len(curves))]


def log_colour_axis(ax, lo: float, hi: float) -> None:
    """A readable log axis of colour counts: 2, 5, 10, 20, 50, ... and the last count, as plain
    numbers, no minor labels."""
    from matplotlib.ticker import FixedLocator, NullFormatter, ScalarFormatter

    nice = [m * 10**e for e in range(0, 6) for m in (1, 2, 5)]
    ticks = [t for t in nice if lo <= t <= hi]
    if not ticks or hi / ticks[-1] > 1.5:
        ticks.append(hi)
    if lo not in ticks and (not ticks or ticks[0] / lo > 1.5):
        ticks.insert(0, lo)
    ax.xaxis.set_major_locator(FixedLocator(ticks))
    formatter = ScalarFormatter()
    formatter.set_scientific(False)
    ax.xaxis.set_major_formatter(formatter)
    ax.xaxis.set_minor_formatter(NullFormatter())


def colour_sweep(table: pd.DataFrame, faithful: str = "greedy_faithful", caption: str = ""):
    """The seed's figure (match rate against colours), seed-faithful and corrected side by side.

    Top row: a linear colour axis, as the seed drew it; bottom row: the same on a log axis. Each
    solver and size has its colour, line style and marker; where lines meet at one rate they are
    drawn OFFSET points apart (`dodge`); the legend sits under the panels.
    """
    if table.empty:
        raise NotDrawn("no colour sweep points")
    table = table.assign(match_rate=pd.to_numeric(table["match_rate"], errors="coerce"))  # None: a blank
    panels = [
        ("seed-faithful greedy (the seed's figure)", table["optimizer"] == faithful),
        ("corrected greedy and optimisers", table["optimizer"] != faithful),
    ]
    panels = [(title, mask) for title, mask in panels if mask.any()]
    fig, axes = plt.subplots(2, len(panels), figsize=(6.5 * len(panels), 8.5), squeeze=False, sharey=True)
    keys = table[["optimizer", "n"]].drop_duplicates()
    style = styles(keys["optimizer"].astype(str) + ", n=" + keys["n"].astype(str))
    handles: dict[str, Any] = {}
    dodged = False
    lo, hi = float(table["colours"].min()), float(table["colours"].max())
    for col, (title, mask) in enumerate(panels):
        groups = list(table[mask].groupby(["optimizer", "n"]))
        rates = [mean_rates(rows) for _, rows in groups]
        means = dodge([r["mean"] for r in rates])
        dodged = dodged or any(
            not np.allclose(m.to_numpy(), r["mean"].to_numpy()) for m, r in zip(means, rates)
        )
        for row, scale in enumerate(("linear", "log")):
            ax = axes[row, col]
            for i, (((opt, n), rows), r, mean) in enumerate(zip(groups, rates, means)):
                name, seeds = f"{opt}, n={n}", rows["instance_seed"].nunique()
                s = style[name]
                ax.plot(
                    mean.index,
                    mean.to_numpy(),
                    label=f"{name} ({seeds} instance{'s' if seeds != 1 else ''})",
                    color=s["color"],
                    ls=s["ls"],
                    marker=s["marker"],
                    ms=4,
                    markevery=marks(i, len(mean), every=8) if len(mean) > 12 else None,
                    lw=1.3,
                )
                if seeds > 1:
                    ax.fill_between(r.index, r["min"], r["max"], color=s["color"], alpha=0.15, lw=0)
            ax.set(
                title=title,
                xscale=scale,
                xlabel=f"colours ({scale} axis)",
                ylim=(0, 105),
                ylabel="match rate %\n(seed's accuracy: matching sides / 4n²)",
            )
            if scale == "log":
                log_colour_axis(ax, lo, hi)
            ax.grid(alpha=0.3)
            for h, lab in zip(*ax.get_legend_handles_labels()):
                handles.setdefault(lab, h)
    note = "bands: min to max over instance seeds"
    if dodged:
        note = (
            f"where lines meet at one rate they are drawn {OFFSET} points apart so each stays visible; "
            + note
        )
    fig.text(0.5, 0.0, note, ha="center", va="top", fontsize=8)
    finish(fig, caption)
    fig.legend(
        list(handles.values()),
        list(handles),
        loc="upper center",
        bbox_to_anchor=(0.5, -0.03),
        ncol=min(3, len(handles)),
        fontsize=8,
        frameon=False,
    )
    return fig
