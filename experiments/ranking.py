"""Across instances: which optimiser wins where, by Friedman's test with Nemenyi's critical difference.

Why beside the pairwise tests: those compare two optimisers on one instance; a study over an instance
suite asks which optimiser ranks best over all of them. Each (instance, optimiser) is summarised by its
mean final best; autorank ranks the optimisers on every instance, tests the mean ranks (Friedman) and
draws the critical-difference diagram (Nemenyi; optimisers joined by a bar do not differ significantly).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import pandas as pd

MIN_INSTANCES = 5  # autorank's least for its tests


@dataclass(frozen=True)
class Ranking:
    """autorank's result, its mean-rank table and a sentence for the report."""

    result: Any
    table: pd.DataFrame
    text: str
    instances: int = 0


def instance_table(runs: pd.DataFrame, instance: str = "puzzle", metric: str = "best") -> pd.DataFrame:
    """Mean `metric` per instance (rows) and optimiser (columns): the data a ranking reads."""
    return runs.pivot_table(index=instance, columns="optimizer", values=metric, aggfunc="mean")


def rank(runs: pd.DataFrame, keys: list[str], alpha: float = 0.05) -> Ranking | None:
    """Rank optimisers over the swept puzzles (None unless both vary, over MIN_INSTANCES or more)."""
    if not {"puzzle", "optimizer"} <= set(keys):
        return None
    table = instance_table(runs).dropna()
    if len(table) < MIN_INSTANCES or table.shape[1] < 2:
        return None
    from autorank import autorank

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # autorank warns about ties and small samples, both expected
        result = autorank(table, alpha=alpha, order="ascending", force_mode="nonparametric")
    ranks = result.rankdf[["meanrank"]].reset_index(names="optimizer")
    cd = getattr(result, "cd", None)
    text = (
        f"{result.omnibus.title()} test over {len(table)} instances (mean final best per instance; "
        f"rank 1 = lowest): p = {result.pvalue:.3g}"
        + (f", critical difference {cd:.2f} (Nemenyi, alpha {alpha})" if cd is not None else "")
        + "."
    )
    return Ranking(result, ranks, text, len(table))


def cd_diagram(ranking: Ranking, caption: str = ""):
    """The critical-difference diagram of a ranking (drawn even when no difference is significant),
    under `caption` (the study and budget) and a line saying what was ranked."""
    import matplotlib.pyplot as plt
    from autorank import plot_stats

    ax = plot_stats(ranking.result, allow_insignificant=True)
    fig = ax.get_figure() if ax is not None else plt.gcf()
    what = f"mean rank of the mean final best over {ranking.instances} instances (1 = best)"
    text = f"{caption}\n{what}" if caption else what
    # above the axes and autorank's critical-difference bar, which it draws over the top axis
    fig.text(0.5, 1.0 + 0.35 / fig.get_size_inches()[1], text, ha="center", va="bottom", fontsize=9)
    return fig
