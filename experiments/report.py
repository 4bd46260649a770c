"""`python -m experiments.report <sweep dir> [...]`: one runs table, one trace table, statistics,
plots and a Markdown report, written beside the sweep (or into --out).

Also run automatically at the end of every multirun (experiments/callbacks.py).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from omegaconf import OmegaConf

from experiments import iohprofiler, plots
from experiments.gather import gather_runs, gather_traces, group_keys, instance_columns
from experiments.outside import OutsideError, join_outside
from experiments.ranking import Ranking, cd_diagram, rank
from experiments.records import CONFIG, RUN, atomic_write, unwritable, write_picture, write_table
from experiments.schema import setup
from experiments.stats import COMPARISON_COLUMNS, ert_targets, evaluations_to_optimum, pairwise, summarise

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def score_label(runs: pd.DataFrame) -> str:
    """What 'best' counts for these runs (each puzzle names it), for axis labels."""
    names = runs["score_name"].dropna().unique() if "score_name" in runs else []
    return f"best ({names[0]})" if len(names) == 1 else "best (fitness)"


def two_parameter_axes(runs: pd.DataFrame, keys: list[str]) -> tuple[str, str] | None:
    """The two swept numeric parameters of a two-parameter sweep (for a heatmap), if that's what it is."""
    several_puzzles = "puzzle" in runs and runs["puzzle"].nunique() > 1
    numeric = [
        k
        for k in keys
        if k not in ("puzzle", "optimizer")
        and k not in instance_columns(runs, keys)
        and pd.api.types.is_numeric_dtype(runs[k])
        # a puzzle's own settings (packing/free6's width 6) are no axis where the puzzles vary
        and not (several_puzzles and runs.groupby("puzzle")[k].nunique(dropna=False).max() <= 1)
    ]
    return (numeric[0], numeric[1]) if len(numeric) == 2 else None


def failures(runs: pd.DataFrame) -> pd.DataFrame:
    """The failed runs grouped by their one-line reason (the `error` column), most frequent first:
    `error`, `runs` (how many), `run_dirs` (their folders, a list). Empty when none failed."""
    columns = ["error", "runs", "run_dirs"]
    if "status" not in runs:
        return pd.DataFrame(columns=columns)
    failed = runs[runs["status"] != "ok"]
    if failed.empty:
        return pd.DataFrame(columns=columns)
    reason = failed["error"].fillna("(no error recorded)") if "error" in failed else "(no error recorded)"
    where = failed["run_dir"].astype(str) if "run_dir" in failed else pd.Series("?", index=failed.index)
    table = (
        pd.DataFrame({"error": reason, "run_dir": where})
        .groupby("error", sort=False)["run_dir"]
        .agg(list)
        .reset_index(name="run_dirs")
    )
    table.insert(1, "runs", table["run_dirs"].str.len())
    return table.sort_values("runs", ascending=False, kind="stable").reset_index(drop=True)[columns]


def failure_lines(table: pd.DataFrame, dirs: int = 3) -> list[str]:
    """`failures(runs)` as lines to print: the count, then each reason with up to `dirs` folders."""
    if table.empty:
        return []
    lines = [f"{int(table['runs'].sum())} run(s) failed:"]
    for _, row in table.iterrows():
        shown = row["run_dirs"][:dirs]
        more = f" (and {len(row['run_dirs']) - dirs} more)" if len(row["run_dirs"]) > dirs else ""
        lines.append(f"  {row['runs']} x {row['error']}: {', '.join(shown)}{more}")
    return lines


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


def study_of(runs: pd.DataFrame, roots: Sequence[Path]) -> dict:
    """The study's name and whether it is a smoke run, from a run's config.yaml (the runs table does
    not hold them), with the config itself; the sweep folder's name where no run has a config."""
    for d in runs.get("run_dir", pd.Series(dtype=str)).dropna():
        path = Path(d) / CONFIG
        if path.is_file():
            cfg = OmegaConf.to_container(OmegaConf.load(path), resolve=False)
            if isinstance(cfg, dict):
                return {
                    "study": str(cfg.get("study") or Path(roots[0]).name),
                    "smoke": bool(cfg.get("smoke")),
                    "config": cfg,
                }
    return {"study": Path(roots[0]).name, "smoke": False, "config": {}}


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
    lines = ["# Sweep report", "", *(head or [])]
    if len(summary):
        lines += [
            "## Summary (per group of swept parameters)",
            "",
        ]
        if "evaluation_kind" in summary:
            lines += [
                "`evaluation_kind`: what one of the group's evaluations counts (a fitness call, a priced "
                "move, a whole construction); ERT and evaluations compare only between groups of one kind.",
                "",
            ]
        lines += [summary.to_markdown(index=False, floatfmt=".4g"), ""]
    if ranking is not None:
        lines += ["## Ranking over instances", "", ranking.text, "", ranking.table.to_markdown(index=False)]
        if "cd_diagram.png" not in skipped:
            lines += ["", "![critical-difference diagram](cd_diagram.png)"]
        lines += [""]
    if len(tests):
        sig = tests[tests["significant"]]
        lines += [
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
        ]
        lines += [f"Significant at 0.05: {len(sig)} of {len(tests)} comparisons."]
        setting = [c for c in tests.columns if c not in COMPARISON_COLUMNS and c != "puzzle"]
        if "puzzle" in tests.columns:
            setting = ["puzzle", *setting]
        lines += [
            f"- {', '.join(f'{c}={r[c]}' for c in setting + ['metric'])}: **{r['a']}** vs **{r['b']}**: "
            f"p_holm = {r['p_holm']:.3g}, A12 = {r['a12']:.2f} ({r['a'] if r['a12'] > 0.5 else r['b']} better)"
            for _, r in sig.iterrows()
        ]
        lines += [""]
    if isinstance(ert, pd.DataFrame):
        ert = [("", ert)] if len(ert) else []
    if ert:
        lines += [
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
    lines += extra or []
    if isinstance(failed, pd.DataFrame):
        lines += failure_markdown(failed)
    elif failed:
        lines += [f"{failed} run(s) failed: see the `error` column of runs.csv.", ""]
    if skipped:
        lines += ["## Plots not drawn", "", *(f"- {name}: {why}" for name, why in skipped.items()), ""]
    if left:
        lines += [
            "## Records left out",
            "",
            f"{len(left)} record(s) found here are in no table of this report:",
            "",
            *(f"- `{line}`" for line in left),
            "",
        ]
    if pictures:
        lines += ["## Figures", ""] + [f"![{f}]({f})" for f in pictures]
    return "\n".join(lines) + "\n"


def ert_tables(ert: pd.DataFrame, keys: list[str]) -> list[tuple[str, pd.DataFrame]]:
    """The fixed-target ERT as tables to read, one per problem instance and kind of evaluation:
    a row per target, a column per group."""
    tables = []
    several = ert["evaluation_kind"].nunique() > 1 if "evaluation_kind" in ert else False
    for problem, kind, part in plots.facets(ert, keys, by_kind=True):
        inner = [k for k in keys if k not in plots.problem_columns(ert, keys)] or ["optimizer"]
        title = problem + (
            f" (evaluations = {plots.KIND_NAMES.get(kind, kind or 'unknown')})" if several else ""
        )
        wide = part.assign(group=plots.label(part, inner))
        if wide.duplicated(["target", "group"]).any():
            tables.append((title, part.set_index("target")))
        else:
            tables.append((title, wide.pivot(index="target", columns="group", values="ert_evaluations")))
    return tables


def ert_by_problem(
    runs: pd.DataFrame, traces: pd.DataFrame, keys: list[str], targets: dict[str, np.ndarray]
) -> pd.DataFrame:
    """`ert_targets` per problem instance on its own targets, with each group's `evaluation_kind`."""
    frames = []
    for problem, _, prun in plots.facets(runs, keys, by_kind=False):
        part = ert_targets(prun, traces[traces["run_id"].isin(prun["run_id"])], keys, targets[problem])
        kind = prun.assign(evaluation_kind=plots.evaluation_kinds(prun))[[*keys, "evaluation_kind"]]
        part = part.merge(kind.drop_duplicates(keys), on=keys, how="left")
        frames.append(part)
    columns = [*keys, "evaluation_kind", "target", "runs", "hits", "ert_evaluations"]
    return pd.concat(frames, ignore_index=True)[columns] if frames else pd.DataFrame(columns=columns)


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
    from experiments.tasks.colour_sweep import COLUMNS, TABLE

    frames = [pd.read_parquet(p) for root in roots for p in sorted(Path(root).rglob(TABLE))]
    if not frames:
        return None
    table = pd.concat(frames, ignore_index=True).reindex(columns=COLUMNS)  # older tables: no cpu_seconds
    comparison, verdicts = colour_sweep_comparison(table), colour_sweep_verdicts(table)
    write_table(table, out / "colour_sweep_table.parquet")
    write_table(colour_sweep_summary(table), out / "colour_sweep_summary.parquet")
    write_table(comparison, out / "colour_sweep_comparison.parquet")
    write_table(verdicts, out / "colour_sweep_verdicts.parquet")
    drawn = picture("colour_sweep.png", lambda: plots.colour_sweep(table, caption=caption), out, skipped)
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
        import matplotlib.pyplot as plt

        plt.close("all")
        why = (str(err).strip().splitlines() or ["no message"])[0]
        if skipped is not None:
            skipped[name] = why if isinstance(err, plots.NotDrawn) else f"{type(err).__name__}: {why}"
        return False


def left_out_lines(roots: Sequence[Path], runs: pd.DataFrame) -> list[str]:
    """The records under `roots` that are in no table (damaged, incomplete, not ours), one line each with
    its folder and why: gathering says them on stderr only, which a report read later no longer shows."""
    from experiments.gather import left_out

    kept = set(runs["run_dir"].astype(str)) if "run_dir" in runs else set()
    found = sorted({p.parent.resolve() for root in roots for p in Path(root).rglob(RUN)})
    return [line for d in found if str(d) not in kept for line in [left_out(d)[0]] if line]


def report(
    roots: list[Path], out: Path | None = None, quiet: bool = False, outside: Sequence[Path] = ()
) -> Path:
    """Gather the runs under `roots` (and `outside` results: experiments/outside.py) and write tables,
    pictures and report.md into `out` (default: roots[0]).

    summary and report.md are written whenever any record exists: report.md lists the failed runs
    by reason (`failures(runs)`; `python -m experiments.report` prints them), a colour sweep's section, and, where
    runs have a best, the statistics and pictures; it names any picture it could not draw and any record
    it left out.
    """
    out = Path(out or roots[0])
    runs = join_outside(gather_runs(roots), outside)
    traces = gather_traces(runs)
    write_table(runs, out / "runs.parquet")
    write_table(traces, out / "traces.parquet", csv=False)
    study = study_of(runs, roots)
    failed, left = failures(runs), left_out_lines(roots, runs)
    skipped: dict[str, str] = {}  # the pictures not drawn, and why
    colour_caption = caption(study, colour_budget(study, runs))
    colour = colour_sweep_outputs(roots, out, colour_caption, skipped)
    ok = (
        runs[(runs["status"] == "ok") & runs.get("best", pd.Series(dtype=float)).notna()]
        if "best" in runs
        else runs[:0]
    )
    if len(ok):  # beside a failed run's None, `best` reads back as objects
        ok = ok.assign(best=pd.to_numeric(ok["best"], errors="coerce"))
    if ok.empty:  # nothing scored (a colour sweep's records, or every run failed): what there is
        done = runs[runs["status"] == "ok"]
        keys = group_keys(done if len(done) else runs)
        summary = summarise(done, keys)
        write_table(summary, out / "summary.parquet")
        text = markdown(
            summary,
            pd.DataFrame(),
            [],
            failed,
            head=[(colour_caption if colour else caption(study, budget_text(runs))).replace("\n", "; "), ""],
            extra=colour,
            skipped=skipped,
            left=left,
        )
        atomic_write(out / "report.md", lambda tmp: tmp.write_text(text))
        if not quiet:
            what = (
                "a colour sweep: its points and methods per colour count"
                if colour
                else "none with a best score"
            )
            print(f"{len(runs)} run(s), {what}{failed_note(failed, out)}")
            skipped_note(skipped)
        return out
    keys = group_keys(ok)
    summary = summarise(ok, keys)
    compared = ok
    metrics: tuple[str, ...] = ("best",)
    if "success" in ok and ok["known_optimum"].notna().all():
        compared = ok.assign(evaluations_to_optimum=evaluations_to_optimum(ok))
        metrics = ("best", "evaluations_to_optimum")
    tests = pairwise(compared, keys, instance_columns(ok, keys), metrics=metrics)
    write_table(summary, out / "summary.parquet")
    write_table(tests, out / "comparisons.parquet")
    what, ok_traces = score_label(ok), traces[traces["run_id"].isin(ok["run_id"])]
    traced = ok[ok["run_id"].isin(ok_traces["run_id"])]  # outside results have no traces to draw
    title = caption(study, budget_text(ok))
    makers: dict[str, Callable[[], Figure]] = {
        "final.png": lambda: plots.final_scores(ok, keys, what, caption=title)
    }
    ert = pd.DataFrame()
    if len(traced):
        targets = plots.targets_by_problem(traced, ok_traces, keys)
        ert = ert_by_problem(traced, ok_traces, keys, targets)
        makers = {
            "convergence.png": lambda: plots.convergence(traced, ok_traces, keys, what, caption=title),
            "convergence_seconds.png": lambda: plots.convergence(
                traced, ok_traces, keys, what, x="seconds", caption=title
            ),
            **makers,
            "ecdf.png": lambda: plots.ecdf(traced, ok_traces, keys, targets, caption=title),
            "ecdf_seconds.png": lambda: plots.ecdf(
                traced, ok_traces, keys, targets, caption=title, x="seconds"
            ),
        }
    write_table(ert, out / "ert_targets.parquet")
    axes = two_parameter_axes(ok, keys)
    if axes:
        makers["heatmap.png"] = lambda: plots.heatmaps(ok, *axes, ylabel=what, caption=title)
    ranking = rank(ok, keys)
    if ranking is not None:
        write_table(ranking.table, out / "ranking.parquet")
        picture("cd_diagram.png", lambda: cd_diagram(ranking, caption=title), out, skipped)
    pictures = [name for name, make in makers.items() if picture(name, make, out, skipped)]
    iohprofiler.export(ok, ok_traces, out / iohprofiler.FOLDER, instance_columns(ok, keys))
    text = markdown(
        summary,
        tests,
        pictures,
        failed,
        ranking,
        ert_tables(ert, keys) if len(ert) else None,
        head=[title.replace("\n", "; "), ""],
        extra=colour,
        skipped=skipped,
        left=left,
    )
    atomic_write(out / "report.md", lambda tmp: tmp.write_text(text))
    if not quiet:
        with pd.option_context("display.width", 200, "display.max_columns", 30):
            print(summary.to_string(index=False))
        if len(failed):
            print(failed_note(failed, out).lstrip("; "))
        skipped_note(skipped)
    return out


def skipped_note(skipped: dict[str, str]) -> None:
    """One line on stderr per picture not drawn (report.md names them too)."""
    for name, why in skipped.items():
        print(f"{name} not drawn ({why}); the rest of the report is written", file=sys.stderr)


def failed_note(failed: pd.DataFrame, out: Path) -> str:
    """One line's end on the failures (their reasons and folders are in report.md)."""
    if failed.empty:
        return ""
    return f"; {int(failed['runs'].sum())} run(s) failed, by reason in {out / 'report.md'}"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Gather sweeps into one runs table, statistics and plots.")
    parser.add_argument("dirs", nargs="+", type=Path, help="sweep directories (or any folders of runs)")
    parser.add_argument("--out", type=Path, help="where to write (default: the first directory)")
    parser.add_argument(
        "--outside",
        type=Path,
        action="append",
        default=[],
        metavar="CSV",
        help="results from outside puzzlelab to put beside the runs (repeatable; columns: puzzle, "
        "instance, method, seed or run, score, optionally evaluations and seconds)",
    )
    args = parser.parse_args(argv)
    setup()
    try:
        out = report(args.dirs, args.out, outside=args.outside)
    except (FileNotFoundError, OutsideError) as err:
        raise SystemExit(f"error: {err}") from None
    except OSError as err:  # a read-only or full folder: which, and how to go on
        where = Path(err.filename).parent if err.filename else args.out or args.dirs[0]
        raise SystemExit(
            f"error: cannot write the report into {where}: {err.strerror or err}; make that folder writable, "
            "or write the report elsewhere with --out DIR"
        ) from None
    except Exception as err:  # a report bug: one line, not a traceback; the runs are untouched
        why = (str(err).strip().splitlines() or [""])[0]
        raise SystemExit(
            f"error: the report failed ({type(err).__name__}: {why}); the runs are kept"
        ) from None
    print(f"report written to {out / 'report.md'}")
    lines = failure_lines(failures(pd.read_parquet(out / "runs.parquet")))
    if lines:
        print("\n".join(lines), file=sys.stderr)


if __name__ == "__main__":
    main()
