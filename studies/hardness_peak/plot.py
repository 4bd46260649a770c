"""The hardness study's figure for one board size: nodes to the first perfect board against the inner
colour count (log axis: median line, quartile band, every board a dot, boards not solved marked at the
cap) over the solve rate, with Owen's predicted peak drawn across both."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from experiments.plots import NotDrawn, finish
from experiments.report_markdown import number

SOLVED, CAPPED, PEAK = "tab:blue", "tab:red", "tab:green"


def _boards(ax, boards: pd.DataFrame) -> None:
    """Every board's nodes as a faint dot, spread a little sideways so that boards at one count show;
    those not solved as red crosses at the cap."""
    spread = np.random.default_rng(0).uniform(-0.18, 0.18, len(boards))  # fixed: the same figure each time
    x = boards["colours"].to_numpy(float) + spread
    solved = boards["solved"].astype(bool).to_numpy()
    nodes = pd.to_numeric(boards["nodes_to_first"]).to_numpy(float)
    ax.scatter(x[solved], nodes[solved], s=8, color=SOLVED, alpha=0.3, lw=0, label="a board solved")
    if (~solved).any():
        ax.scatter(
            x[~solved], nodes[~solved], s=18, color=CAPPED, marker="x", lw=0.8, label="not solved: at the cap"
        )


def hardness_figure(summary: pd.DataFrame, boards: pd.DataFrame, caption: str = ""):
    """One size's figure from its summary rows and its boards (hardness_report's tables)."""
    if summary.empty:
        raise NotDrawn("no boards measured")
    n, peak = int(summary["n"].iloc[0]), float(summary["predicted_peak"].iloc[0])
    frame = int(summary["frame_colours"].iloc[0])
    fig, (top, bottom) = plt.subplots(
        2, 1, figsize=(7.5, 6.5), sharex=True, gridspec_kw={"height_ratios": [2.2, 1]}
    )
    x = summary["colours"].to_numpy(float)
    top.fill_between(
        x, summary["nodes_q1"], summary["nodes_q3"], color=SOLVED, alpha=0.2, lw=0, label="quartiles"
    )
    top.plot(x, summary["nodes_median"], color=SOLVED, marker="o", ms=4, lw=1.5, label="median")
    capped = summary["nodes_median"] >= summary["max_nodes"]
    if capped.any():  # more than half not solved: the median is a lower bound
        top.plot(
            x[capped],
            summary["nodes_median"][capped],
            "o",
            ms=8,
            mfc="none",
            color=CAPPED,
            label="median at the cap",
        )
    _boards(top, boards)
    cap = float(summary["max_nodes"].max())
    top.axhline(cap, color=CAPPED, ls=":", lw=1, label=f"node cap ({number(cap)})")
    bottom.plot(x, 100 * summary["solve_rate"], color="black", marker="o", ms=4, lw=1.5)
    for ax in (top, bottom):
        ax.axvline(peak, color=PEAK, ls="--", lw=1.2, label=f"predicted peak (Owen): {peak:.2f}")
        ax.grid(alpha=0.3)
    top.set(
        yscale="log",
        ylabel="nodes to the first perfect board",
        title=f"n = {n}, {frame} frame colours: {int(summary['boards'].max())} boards per count",
    )
    top.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    bottom.set(xlabel="inner colours", ylabel="solved within the cap %", ylim=(-5, 105))
    bottom.set_xticks(x)
    finish(fig, caption)
    return fig
