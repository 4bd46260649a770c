"""Statistics over runs: per-group summaries, expected running time, effect sizes and tests."""
from __future__ import annotations

import numpy as np
import pandas as pd


def ert(evaluations_used: np.ndarray, success: np.ndarray) -> float:
    """Expected running time (Auger & Hansen, 2005): evaluations spent over all runs / successes.

    A successful run counts the evaluations it needed to reach the target; a failed one its whole
    budget. Infinite when no run succeeds.
    """
    successes = int(np.sum(success))
    return float(np.sum(evaluations_used)) / successes if successes else float("inf")


def summarise(runs: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Per group: n, min, median, mean, std, max of best; success rate; time to the optimum; ERT."""
    ok = runs[runs["status"] == "ok"] if "status" in runs else runs
    rows = []
    for key, g in ok.groupby(keys, dropna=False, sort=True):
        key = key if isinstance(key, tuple) else (key,)
        success = g["success"].astype("boolean").fillna(False).to_numpy(bool) if "success" in g else None
        row = dict(zip(keys, key))
        row.update(n=len(g), min=g["best"].min(), median=g["best"].median(), mean=g["best"].mean(),
                   std=g["best"].std(ddof=1), max=g["best"].max())
        if success is not None and g["known_optimum"].notna().any():
            used = np.where(success, g["evals_to_optimum"].fillna(0), g["evaluations"])
            row.update(success_rate=success.mean(),
                       median_evals_to_optimum=g.loc[success, "evals_to_optimum"].median(),
                       median_seconds_to_optimum=g.loc[success, "seconds_to_optimum"].median(),
                       ert_evaluations=ert(used, success))
        rows.append(row)
    return pd.DataFrame(rows)
