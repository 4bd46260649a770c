"""Statistics over runs: per-group summaries, expected running time, effect sizes and tests."""

from __future__ import annotations

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

COMPARISON_COLUMNS = (
    "metric",
    "a",
    "b",
    "n_a",
    "n_b",
    "median_a",
    "median_b",
    "test",
    "n",
    "p",
    "a12",
    "p_holm",
    "significant",
)  # after the setting's own columns, in every comparisons table


def ert(evaluations_used: np.ndarray, success: np.ndarray) -> float:
    """Expected running time (Auger & Hansen, 2005): evaluations spent over all runs / successes.

    A successful run counts the evaluations it needed to reach the target; a failed one its whole
    budget. Infinite when no run succeeds.
    """
    successes = int(np.sum(success))
    return float(np.sum(evaluations_used)) / successes if successes else float("inf")


def time_totals(runs: pd.DataFrame) -> dict[str, float]:
    """What a group of runs cost in all: wall-clock and CPU seconds (NaN where no run recorded it).

    Both, since neither alone is fair: wall time hides what threads add, CPU time hides waiting.
    """
    columns = {"wall_seconds_total": "seconds", "cpu_seconds_total": "cpu_seconds"}
    return {
        name: float(runs[column].sum(min_count=1)) if column in runs else float("nan")
        for name, column in columns.items()
    }


def summarise(runs: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Per group: n, what one evaluation counts (`evaluation_kind`), min, median, mean, std, max of
    best; success rate; time to the optimum; ERT; wall-clock and CPU seconds in total.

    Records without a best (a colour sweep's runs, whose points are in their own table) get n and
    the time totals only.
    """
    ok = runs[runs["status"] == "ok"] if "status" in runs else runs
    scored = "best" in ok and bool(ok["best"].notna().any())
    rows = []
    for key, g in ok.groupby(keys, dropna=False, sort=True):
        key = key if isinstance(key, tuple) else (key,)
        success = g["success"].astype("boolean").fillna(False).to_numpy(bool) if "success" in g else None
        row: dict = dict(zip(keys, key))
        row["n"] = len(g)
        if "evaluation_kind" in g and g["evaluation_kind"].notna().any():
            row["evaluation_kind"] = ", ".join(sorted(g["evaluation_kind"].dropna().astype(str).unique()))
        if scored:
            row.update(
                min=g["best"].min(),
                median=g["best"].median(),
                mean=g["best"].mean(),
                std=g["best"].std(ddof=1),
                max=g["best"].max(),
            )
        if scored and success is not None and g["known_optimum"].notna().any():
            # NaN (unknown: outside results that give no evaluations), not 0, where a success's count is missing
            used = np.where(success, g["evals_to_optimum"], g["evaluations"])
            row.update(
                success_rate=success.mean(),
                median_evals_to_optimum=g.loc[success, "evals_to_optimum"].median(),
                median_seconds_to_optimum=g.loc[success, "seconds_to_optimum"].median(),
                ert_evaluations=ert(used, success),
            )
        row.update(time_totals(g))
        rows.append(row)
    return pd.DataFrame(rows) if rows else pd.DataFrame(columns=[*keys, "n"])


def a12(x: ArrayLike, y: ArrayLike) -> float:
    """Vargha-Delaney A12: the probability that a value drawn from x exceeds one from y (ties half).

    For scores to minimise, a12(y, x) is the probability that x beats y; 0.5 means no effect, and
    Vargha and Delaney call |A - 0.5| >= 0.06, 0.14, 0.21 small, medium and large.
    """
    xs, ys = np.asarray(x, float)[:, None], np.asarray(y, float)[None, :]
    return float(((xs > ys).sum() + 0.5 * (xs == ys).sum()) / (xs.size * ys.size))


def holm(pvalues: ArrayLike) -> np.ndarray:
    """Holm's step-down adjustment of p-values for multiple comparisons (family-wise error)."""
    p = np.asarray(pvalues, float)
    order = np.argsort(p)
    m = len(p)
    adjusted = np.empty(m)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[i]))
        adjusted[i] = running
    return adjusted


def paired_samples(
    a: pd.DataFrame, b: pd.DataFrame, instance: list[str], metric: str = "best"
) -> tuple[np.ndarray, np.ndarray] | None:
    """Aligned values of a and b on the same instances, or None when runs don't pair up."""
    if not instance:
        return None
    ia, ib = a.set_index(instance)[metric], b.set_index(instance)[metric]
    if not (ia.index.is_unique and ib.index.is_unique) or set(ia.index) != set(ib.index):
        return None
    return ia.sort_index().to_numpy(), ib.reindex(ia.sort_index().index).to_numpy()


def compare(a: pd.DataFrame, b: pd.DataFrame, instance: list[str], metric: str = "best") -> dict:
    """One comparison: Wilcoxon signed-rank when runs pair up on instances, else Mann-Whitney U.

    `n` is what the test used: pairs for Wilcoxon, runs (both sides) for Mann-Whitney. Values must
    be finite (`censor` encodes failures first), so no scipy version drops or propagates a NaN.
    """
    from scipy import stats

    paired = paired_samples(a, b, instance, metric)
    if paired is not None:
        x, y = paired
        if np.all(x == y):
            return {"test": "wilcoxon", "n": len(x), "p": 1.0}
        p = stats.wilcoxon(x, y, zero_method="zsplit", nan_policy="raise").pvalue
        return {"test": "wilcoxon", "n": len(x), "p": float(p)}
    x, y = a[metric].to_numpy(float), b[metric].to_numpy(float)
    n = len(x) + len(y)
    if np.all(x == x[0]) and np.all(y == x[0]):
        return {"test": "mann-whitney", "n": n, "p": 1.0}
    exact = len(np.unique(np.concatenate([x, y]))) == n and len(x) * len(y) <= 10_000
    method = "exact" if exact else "asymptotic"  # exact whenever there are no ties and it is cheap
    p = stats.mannwhitneyu(x, y, alternative="two-sided", method=method, nan_policy="raise").pvalue
    return {"test": "mann-whitney", "n": n, "p": float(p)}


def evaluations_to_optimum(runs: pd.DataFrame) -> pd.Series:
    """Evaluations a run needed to reach the known optimum, a failed run censored above every success.

    A failure's time is only known to exceed its budget, so it gets one value worse than any run's
    spent evaluations: failures tie with each other (a pair in which both failed is a tie, not a
    NaN from inf - inf) and rank behind every success, which is all a rank test reads.
    """
    success = runs["success"].astype("boolean").fillna(False).to_numpy(bool)
    censored = float(runs["evaluations"].max()) + 1
    return pd.Series(np.where(success, runs["evals_to_optimum"], censored), index=runs.index)


def kinds(runs: pd.DataFrame) -> frozenset[str]:
    """What these runs' evaluations count (empty when the runs do not say)."""
    if "evaluation_kind" not in runs:
        return frozenset()
    return frozenset(runs["evaluation_kind"].dropna().astype(str))


def pairwise(
    runs: pd.DataFrame,
    keys: list[str],
    instance: list[str] | None = None,
    alpha: float = 0.05,
    metrics: tuple[str, ...] = ("best",),
    same_kind: tuple[str, ...] = ("evaluations_to_optimum",),
) -> pd.DataFrame:
    """Every pair of optimisers within each setting, for each metric: test, n, p, A12, significance.

    Metrics in `same_kind` count evaluations, so they compare only optimisers whose evaluations count
    the same thing (the `evaluation_kind` column: a fitness call, a priced move, a whole construction):
    a pair of different kinds is not tested on them (nor counted in Holm's family). Runs that do not
    say what they count (outside results) are tested as before.

    Each metric is a column to minimise (the final best, or evaluations to the optimum); `a12` is the
    probability that a run of `a` does better (lower) than a run of `b`. Holm's correction covers the
    whole table, one family over every setting and metric, so "significant" bounds the chance of any
    false positive in it at `alpha`.
    """
    instance = instance or []
    setting = [k for k in keys if k != "optimizer" and k not in instance]
    rows = []
    for key, g in runs.groupby(setting, dropna=False) if setting else [((), runs)]:
        key = key if isinstance(key, tuple) else (key,)
        names = sorted(g["optimizer"].unique())
        for metric in metrics:
            for i, a in enumerate(names):
                for b in names[i + 1 :]:
                    # runs that do not give this metric (outside results without evaluations) sit out
                    ra, rb = (g[(g["optimizer"] == o) & g[metric].notna()] for o in (a, b))
                    if ra.empty or rb.empty:
                        continue
                    if metric in same_kind and kinds(ra) and kinds(rb) and kinds(ra) != kinds(rb):
                        continue  # (a side that does not say, as outside results, is not held back)
                    rows.append(
                        {
                            **dict(zip(setting, key)),
                            "metric": metric,
                            "a": a,
                            "b": b,
                            "n_a": len(ra),
                            "n_b": len(rb),
                            "median_a": ra[metric].median(),
                            "median_b": rb[metric].median(),
                            **compare(ra, rb, instance, metric),
                            "a12": a12(rb[metric], ra[metric]),
                        }
                    )
    tests = pd.DataFrame(rows, columns=[*setting, *COMPARISON_COLUMNS[:-2]])
    tests["p_holm"] = holm(tests["p"]) if len(tests) else []
    tests["significant"] = tests["p_holm"] < alpha
    return tests


def first_hits(traces: pd.DataFrame, targets: np.ndarray, x: str = "evaluations") -> pd.DataFrame:
    """For each run and target, the first `x` (evaluation, or wall-clock second) at which best <=
    target (inf if never); the column is named after `x`."""
    rows = []
    for run_id, t in traces.groupby("run_id", sort=False):
        t = t.sort_values(x, kind="stable")
        best, at = t["best"].to_numpy(), t[x].to_numpy()
        for target in targets:
            hit = np.nonzero(best <= target)[0]
            rows.append((run_id, target, float(at[hit[0]]) if len(hit) else np.inf))
    return pd.DataFrame(rows, columns=["run_id", "target", x])


def ert_targets(
    runs: pd.DataFrame, traces: pd.DataFrame, keys: list[str], targets: np.ndarray
) -> pd.DataFrame:
    """Fixed-target ERT per group and target: `ert` with success = the run's best got to <= target.

    A run that hit the target counts the evaluations it needed (`first_hits`), one that never did
    (or has no trace) its whole run; the ECDF's targets, so table and picture read the same pairs.
    """
    pairs = runs[["run_id", "evaluations", *keys]].merge(pd.DataFrame({"target": targets}), how="cross")
    hits = first_hits(traces, targets).rename(columns={"evaluations": "hit"}).astype({"target": float})
    pairs = pairs.merge(hits, on=["run_id", "target"], how="left").fillna({"hit": np.inf})
    rows = []
    for key, g in pairs.groupby([*keys, "target"], dropna=False, sort=True):
        reached = np.isfinite(g["hit"].to_numpy())
        used = np.where(reached, g["hit"], g["evaluations"])
        rows.append(
            {
                **dict(zip([*keys, "target"], key)),
                "runs": len(g),
                "hits": int(reached.sum()),
                "ert_evaluations": ert(used, reached),
            }
        )
    return pd.DataFrame(rows, columns=[*keys, "target", "runs", "hits", "ert_evaluations"])
