"""The colour sweep's part of a sweep report: its points as one table, the methods compared at each
colour count with confidence intervals and verdicts, its plot and its section of report.md. The
generic report reaches it through `ColourSweep.report_section` (task.py), never by import."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from experiments import plots
from experiments.records import write_table
from experiments.report_markdown import budget_text, caption, number
from experiments.tasks import Section
from studies.colour_sweep.table import COLUMNS, TABLE


def colour_sweep_summary(table: pd.DataFrame) -> pd.DataFrame:
    """Per size and solver: mean match rate and edge score, points at 100%, total wall and CPU seconds."""
    g = table.groupby(["n", "optimizer"])
    return pd.DataFrame(
        {
            "points": g.size(),
            "mean_match_rate": g["match_rate"].mean(),
            "mean_edge_score": g["edge_score"].mean(),
            "solved": g["unmatched_edges"].apply(lambda s: int((s == 0).sum())),
            "seconds": g["seconds"].sum(),
            "cpu_seconds": g["cpu_seconds"].sum(min_count=1),
        }
    ).reset_index()


def t_interval(values: np.ndarray, level: float = 0.95) -> tuple[float, float]:
    """Student's t confidence interval of the mean (NaN, NaN for fewer than two values; the mean
    itself when every value is the same)."""
    from scipy import stats

    v = np.asarray(values, float)
    if len(v) < 2:
        return float("nan"), float("nan")
    mean, sd = float(v.mean()), float(v.std(ddof=1))
    half = float(stats.t.ppf(0.5 + level / 2, len(v) - 1)) * sd / np.sqrt(len(v))
    return mean - half, mean + half


def colour_sweep_comparison(table: pd.DataFrame) -> pd.DataFrame:
    """Per board size, colour count and method: instances, mean match rate and its 95% t interval
    over the instance seeds."""
    rows = []
    for (n, colours, optimizer), g in table.groupby(["n", "colours", "optimizer"], sort=True):
        lo, hi = t_interval(g["match_rate"].to_numpy())
        rows.append(
            {
                "n": n,
                "colours": colours,
                "optimizer": optimizer,
                "instances": g["instance_seed"].nunique(),
                "mean_match_rate": g["match_rate"].mean(),
                "ci_low": lo,
                "ci_high": hi,
            }
        )
    return pd.DataFrame(
        rows, columns=["n", "colours", "optimizer", "instances", "mean_match_rate", "ci_low", "ci_high"]
    )


VERDICT_COLUMNS = [
    "n",
    "colours",
    "methods",
    "best",
    "runner_up",
    "difference",
    "diff_ci_low",
    "diff_ci_high",
    "instances",
    "verdict",
]


def colour_sweep_verdicts(table: pd.DataFrame) -> pd.DataFrame:
    """Which method is best at each (board size, colour count): the top mean match rate, the runner-up,
    and the 95% t interval of their difference paired on instance seeds. `verdict`: "better" when the
    interval lies above 0, "tied" when they match on every instance, else "not distinguishable"
    (or "one instance" when there is none to build it on)."""
    rows = []
    for (n, colours), g in table.groupby(["n", "colours"], sort=True):
        means = g.groupby("optimizer")["match_rate"].mean().sort_values(ascending=False, kind="stable")
        if len(means) < 2:
            continue
        best, runner = means.index[0], means.index[1]
        top = sorted(means.index[means == means.iloc[0]])
        pair = g.pivot_table(index="instance_seed", columns="optimizer", values="match_rate")[
            [best, runner]
        ].dropna()
        diff = (pair[best] - pair[runner]).to_numpy()
        lo, hi = t_interval(diff)
        if len(diff) and np.all(diff == 0):
            verdict = "tied"
        elif len(diff) < 2:
            verdict = "one instance"
        else:
            verdict = "better" if lo > 0 else "not distinguishable"
        rows.append(
            {
                "n": n,
                "colours": colours,
                "methods": len(means),
                "best": ", ".join(top),
                "runner_up": runner if len(top) == 1 else "",
                "difference": float(diff.mean()) if len(diff) else float("nan"),
                "diff_ci_low": lo,
                "diff_ci_high": hi,
                "instances": len(diff),
                "verdict": verdict,
            }
        )
    return pd.DataFrame(rows, columns=VERDICT_COLUMNS)  # a sweep of one method has none: an empty table


def cell(row: pd.Series) -> str:
    """'93.1% [90.2, 96.0]' (the mean match rate and its 95% interval, in percent)."""
    mean = f"{100 * row['mean_match_rate']:.1f}%"
    return (
        mean if np.isnan(row["ci_low"]) else f"{mean} [{100 * row['ci_low']:.1f}, {100 * row['ci_high']:.1f}]"
    )


def colour_sweep_markdown(
    table: pd.DataFrame, comparison: pd.DataFrame, verdicts: pd.DataFrame, figure: bool = True
) -> list[str]:
    """The colour sweep's section of report.md: its summary, its figure (when drawn), and the methods
    compared at each colour count (the counts every method solved; all of them in
    colour_sweep_comparison.csv)."""
    lines = [
        "## Colour sweep",
        "",
        "Per board size and solver (colour_sweep_summary.csv; every point in colour_sweep_table.csv):",
        "",
        colour_sweep_summary(table).to_markdown(index=False, floatfmt=".4g"),
        "",
        *(["![colour sweep](colour_sweep.png)", ""] if figure else []),
        "### Methods at each colour count",
        "",
        "Mean match rate over instance seeds with its 95% Student-t interval (none from one instance). "
        "*best*: the top mean; *verdict*: whether it beats the runner-up, by the 95% t interval of their "
        "difference paired on instance seeds (`better`: above 0; `tied`: equal on every instance). "
        "Shown: the colour counts every method solved (the metaheuristics solve fewer, log-spaced "
        "counts); every count in colour_sweep_comparison.csv and colour_sweep_verdicts.csv.",
        "",
    ]
    for n, part in comparison.groupby("n", sort=True):
        methods = part["optimizer"].nunique()
        counts = part.groupby("colours")["optimizer"].nunique()
        shown = counts.index[counts == methods] if (counts == methods).sum() else counts.index[counts >= 2]
        wide = part[part["colours"].isin(shown)].assign(cell=lambda d: d.apply(cell, axis=1))
        wide = wide.pivot(index="colours", columns="optimizer", values="cell")
        v = verdicts[verdicts["n"] == n].set_index("colours")
        wide["best"] = v["best"].reindex(wide.index)
        wide["verdict"] = v["verdict"].reindex(wide.index)
        lines += [
            f"n = {n} ({len(shown)} of {len(counts)} colour counts):",
            "",
            wide.reset_index().to_markdown(index=False),
            "",
        ]

        def tally(verdict: pd.Series) -> str:
            better = int((verdict == "better").sum())
            return f"top at {len(verdict)}" + (f", better than the runner-up at {better}" if better else "")

        counted = v.groupby("best")["verdict"].agg(tally)
        if len(counted):
            lines += [
                f"Over all {len(v)} colour counts of n = {n} that two or more methods solved, the top mean "
                "(several names: tied): " + "; ".join(f"{k}: {t}" for k, t in counted.items()) + ".",
                "",
            ]
    return lines


def colour_sweep_outputs(
    roots: list[Path], out: Path, caption: str = "", skipped: dict[str, str] | None = None
) -> list[str] | None:
    """The colour sweep's points from every run as one table, with its summary, the seed's plot (noted in
    `skipped` when it cannot be drawn), the methods compared at each colour count; returns report.md's
    section (None: not a colour sweep)."""
    from studies.colour_sweep.plot import colour_sweep

    frames = [pd.read_parquet(p) for root in roots for p in sorted(Path(root).rglob(TABLE))]
    if not frames:
        return None
    table = pd.concat(frames, ignore_index=True).reindex(columns=COLUMNS)  # older tables: no cpu_seconds
    comparison, verdicts = colour_sweep_comparison(table), colour_sweep_verdicts(table)
    write_table(table, out / "colour_sweep_table.parquet")
    write_table(colour_sweep_summary(table), out / "colour_sweep_summary.parquet")
    write_table(comparison, out / "colour_sweep_comparison.parquet")
    write_table(verdicts, out / "colour_sweep_verdicts.parquet")
    drawn = plots.picture("colour_sweep.png", lambda: colour_sweep(table, caption=caption), out, skipped)
    return colour_sweep_markdown(table, comparison, verdicts, figure=drawn)


def colour_budget(study: dict, runs: pd.DataFrame) -> str:
    """The colour sweep's budgets per board: metaheuristics' evaluations, compiled solvers' priced moves."""
    config = study["config"]
    task = config.get("task") if isinstance(config.get("task"), dict) else {}
    budget = config.get("budget") if isinstance(config.get("budget"), dict) else {}
    if budget.get("evaluations"):  # the study's budget (a compiled solver's run records its own)
        text = f"budget {number(budget['evaluations'])} evaluations a board (metaheuristics)"
    else:
        text = budget_text(runs).replace(" a run", " a board (metaheuristics)")
    if task.get("compiled_evaluations"):
        text += f", {number(task['compiled_evaluations'])} priced moves a board (compiled)"
    return text + "; constructive solvers: no budget"


def section(
    roots: Sequence[Path], out: Path, study: dict, runs: pd.DataFrame, skipped: dict[str, str]
) -> Section | None:
    """`ColourSweep.report_section`: the sweep's outputs under the head that says its budgets (None: no
    colour sweep points under `roots`)."""
    head = caption(study, colour_budget(study, runs))
    lines = colour_sweep_outputs(list(roots), out, head, skipped)
    if lines is None:
        return None
    return Section(lines, head, "a colour sweep: its points and methods per colour count")
