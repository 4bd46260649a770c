"""report.md of a sweep, section by section: each section a list of lines, empty when it has nothing
to say, so the report is their concatenation."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd

from experiments.stats import COMPARISON_COLUMNS

if TYPE_CHECKING:
    from experiments.ranking import Ranking


def number(value) -> str:
    """1000 -> '1,000'; 2.5 -> '2.5'."""
    v = float(value)
    return f"{int(v):,}" if v == int(v) else f"{v:g}"


def budget_text(runs: pd.DataFrame) -> str:
    """A run's budget as the runs table holds it (`budget.evaluations`, `budget.seconds`)."""
    parts = []
    for column, unit in (("budget.evaluations", "evaluations"), ("budget.seconds", "s")):
        values = pd.to_numeric(runs.get(column, pd.Series(dtype=float)), errors="coerce").dropna().unique()
        if len(values) == 1:
            parts.append(f"{number(values[0])} {unit}")
        elif len(values) > 1:
            parts.append(f"{number(values.min())} to {number(values.max())} {unit}")
    return "budget " + (" or ".join(parts) if parts else "not recorded") + " a run"


def caption(study: dict, budget: str) -> str:
    """The line over every picture: the study, SMOKE on a smoke run, and the budget."""
    smoke = "  [SMOKE RUN: quick settings, not results]" if study["smoke"] else ""
    return f"study {study['study']}{smoke}\n{budget}"


def failure_markdown(table: pd.DataFrame) -> list[str]:
    """The report's section on failed runs: how many, by reason, with their folders."""
    if table.empty:
        return []
    total = int(table["runs"].sum())
    lines = [
        "## Failed runs",
        "",
        f"{total} run(s) failed (see the `error` column of runs.csv); by reason:",
        "",
    ]
    for _, row in table.iterrows():
        lines += [f"- **{row['runs']}** x `{row['error']}`"]
        lines += [f"  - `{d}`" for d in row["run_dirs"]]
    return lines + [""]


def markdown(
    summary: pd.DataFrame,
    tests: pd.DataFrame,
    pictures: list[str],
    failed: pd.DataFrame | int,
    ranking: Ranking | None = None,
    ert: list[tuple[str, pd.DataFrame]] | pd.DataFrame | None = None,
    head: list[str] | None = None,
    extra: list[str] | None = None,
    skipped: dict[str, str] | None = None,
    left: list[str] | None = None,
) -> str:
    """The report: the summary table, the ranking over instances, significant differences, the
    fixed-target ERT (a table per problem instance and kind of evaluation), failures, the plots not
    drawn (`skipped`: name -> why) and records left out (`left`), pictures."""
    skipped = skipped or {}
    if isinstance(ert, pd.DataFrame):
        ert = [("", ert)] if len(ert) else []
    if isinstance(failed, pd.DataFrame):
        failures = failure_markdown(failed)
    else:
        failures = [f"{failed} run(s) failed: see the `error` column of runs.csv.", ""] if failed else []
    lines = [
        "# Sweep report",
        "",
        *(head or []),
        *summary_section(summary),
        *ranking_section(ranking, skipped),
        *comparisons_section(tests),
        *ert_section(ert or []),
        *(extra or []),
        *failures,
        *skipped_section(skipped),
        *left_out_section(left or []),
    ]
    if pictures:
        lines += ["## Figures", ""] + [f"![{f}]({f})" for f in pictures]
    return "\n".join(lines) + "\n"


def summary_section(summary: pd.DataFrame) -> list[str]:
    """The summary table, per group of swept parameters."""
    if not len(summary):
        return []
    lines = ["## Summary (per group of swept parameters)", ""]
    if "evaluation_kind" in summary:
        lines += [
            "`evaluation_kind`: what one of the group's evaluations counts (a fitness call, a priced "
            "move, a whole construction); ERT and evaluations compare only between groups of one kind.",
            "",
        ]
    return lines + [summary.to_markdown(index=False, floatfmt=".4g"), ""]


def ranking_section(ranking: Ranking | None, skipped: dict[str, str]) -> list[str]:
    """The ranking over instances, with its critical-difference diagram when drawn."""
    if ranking is None:
        return []
    lines = ["## Ranking over instances", "", ranking.text, "", ranking.table.to_markdown(index=False)]
    if "cd_diagram.png" not in skipped:
        lines += ["", "![critical-difference diagram](cd_diagram.png)"]
    return lines + [""]


def comparisons_section(tests: pd.DataFrame) -> list[str]:
    """The pairwise tests, how to read them, and one line per significant difference."""
    if not len(tests):
        return []
    sig = tests[tests["significant"]]
    lines = [
        "## Pairwise comparisons",
        "",
        "Wilcoxon signed-rank where runs pair up on the same instances (n = pairs), else "
        "Mann-Whitney U (n = runs of both); a run that never reached the known optimum counts "
        "as slower than every run that did (failures tie). Evaluations to the optimum are compared "
        "only between optimisers whose evaluations count the same thing (`evaluation_kind`). "
        f"p-values are Holm-corrected over all {len(tests)} tests below as one family (every setting "
        "and metric), so 'significant' bounds the chance of any false positive in this table at 0.05. "
        "A12 = probability that a run of *a* does better (lower best, or fewer evaluations to "
        "the known optimum) than a run of *b*.",
        "",
        tests.to_markdown(index=False, floatfmt=".4g"),
        "",
        f"Significant at 0.05: {len(sig)} of {len(tests)} comparisons.",
    ]
    setting = [c for c in tests.columns if c not in COMPARISON_COLUMNS and c != "puzzle"]
    if "puzzle" in tests.columns:
        setting = ["puzzle", *setting]
    lines += [
        f"- {', '.join(f'{c}={r[c]}' for c in setting + ['metric'])}: **{r['a']}** vs **{r['b']}**: "
        f"p_holm = {r['p_holm']:.3g}, A12 = {r['a12']:.2f} ({r['a'] if r['a12'] > 0.5 else r['b']} better)"
        for _, r in sig.iterrows()
    ]
    return lines + [""]


def ert_section(ert: list[tuple[str, pd.DataFrame]]) -> list[str]:
    """The fixed-target ERT, a table per problem instance and kind of evaluation."""
    if not ert:
        return []
    lines = [
        "## Fixed-target ERT (ert_targets.csv)",
        "",
        "Expected evaluations to get the best to <= each target: evaluations spent by all runs (a "
        "run that got there counts its evaluations until then, one that did not its whole run) "
        "over the runs that got there; inf when none did. Each problem instance has its own targets "
        "(those of its facet in ecdf.png), and runs whose evaluations count different things are in "
        "different tables.",
        "",
    ]
    for title, table in ert:
        lines += ([f"### {title}", ""] if title else []) + [table.to_markdown(floatfmt=".4g"), ""]
    return lines


def skipped_section(skipped: dict[str, str]) -> list[str]:
    """The plots not drawn, and why."""
    if not skipped:
        return []
    return ["## Plots not drawn", "", *(f"- {name}: {why}" for name, why in skipped.items()), ""]


def left_out_section(left: list[str]) -> list[str]:
    """The records found but in no table (damaged, incomplete, not ours)."""
    if not left:
        return []
    return [
        "## Records left out",
        "",
        f"{len(left)} record(s) found here are in no table of this report:",
        "",
        *(f"- `{line}`" for line in left),
        "",
    ]
