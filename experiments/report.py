"""`python -m experiments.report <sweep dir> [...]`: one runs table, one trace table, statistics,
plots and a Markdown report, written beside the sweep (or into --out).

Also run automatically at the end of every multirun (experiments/callbacks.py).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from experiments import iohprofiler, plots
from experiments.gather import gather_runs, gather_traces, group_keys, instance_columns
from experiments.outside import OutsideError, join_outside
from experiments.ranking import Ranking, cd_diagram, rank
from experiments.records import atomic_write, write_picture, write_table
from experiments.run import setup
from experiments.stats import COMPARISON_COLUMNS, ert_targets, evaluations_to_optimum, pairwise, summarise


def score_label(runs: pd.DataFrame) -> str:
    """What 'best' counts for these runs (each puzzle names it), for axis labels."""
    names = runs["score_name"].dropna().unique() if "score_name" in runs else []
    return f"best ({names[0]})" if len(names) == 1 else "best (fitness)"


def two_parameter_axes(runs: pd.DataFrame, keys: list[str]) -> tuple[str, str] | None:
    """The two swept numeric parameters of a two-parameter sweep (for a heatmap), if that's what it is."""
    numeric = [
        k
        for k in keys
        if k not in ("puzzle", "optimizer")
        and k not in instance_columns(runs, keys)
        and pd.api.types.is_numeric_dtype(runs[k])
    ]
    return (numeric[0], numeric[1]) if len(numeric) == 2 else None


def markdown(
    summary: pd.DataFrame,
    tests: pd.DataFrame,
    pictures: list[str],
    failed: int,
    ranking: Ranking | None = None,
    ert: pd.DataFrame | None = None,
) -> str:
    """The report: the summary table, the ranking over instances, significant differences, the
    fixed-target ERT, pictures."""
    lines = [
        "# Sweep report",
        "",
        "## Summary (per group of swept parameters)",
        "",
        summary.to_markdown(index=False, floatfmt=".4g"),
        "",
    ]
    if ranking is not None:
        lines += ["## Ranking over instances", "", ranking.text, "", ranking.table.to_markdown(index=False)]
        lines += ["", "![critical-difference diagram](cd_diagram.png)", ""]
    if len(tests):
        sig = tests[tests["significant"]]
        lines += [
            "## Pairwise comparisons",
            "",
            "Wilcoxon signed-rank where runs pair up on the same instances (n = pairs), else "
            "Mann-Whitney U (n = runs of both); a run that never reached the known optimum counts "
            "as slower than every run that did (failures tie). p-values are Holm-corrected over "
            f"all {len(tests)} tests below as one family (every setting and metric), so "
            "'significant' bounds the chance of any false positive in this table at 0.05. "
            "A12 = probability that a run of *a* does better (lower best, or fewer evaluations to "
            "the known optimum) than a run of *b*.",
            "",
            tests.to_markdown(index=False, floatfmt=".4g"),
            "",
        ]
        lines += [f"Significant at 0.05: {len(sig)} of {len(tests)} comparisons."]
        setting = [c for c in tests.columns if c not in COMPARISON_COLUMNS and c != "puzzle"]
        lines += [
            f"- {', '.join(f'{c}={r[c]}' for c in setting + ['metric'])}: **{r['a']}** vs **{r['b']}**: "
            f"p_holm = {r['p_holm']:.3g}, A12 = {r['a12']:.2f} ({r['a'] if r['a12'] > 0.5 else r['b']} better)"
            for _, r in sig.iterrows()
        ]
        lines += [""]
    if ert is not None and len(ert):
        lines += [
            "## Fixed-target ERT (ert_targets.csv)",
            "",
            "Expected evaluations to get the best to <= each target: evaluations spent by all runs (a "
            "run that got there counts its evaluations until then, one that did not its whole run) "
            "over the runs that got there; inf when none did. The targets are those of ecdf.png.",
            "",
            ert.to_markdown(floatfmt=".4g"),
            "",
        ]
    if failed:
        lines += [f"{failed} run(s) failed: see the `error` column of runs.csv.", ""]
    lines += ["## Figures", ""] + [f"![{f}]({f})" for f in pictures]
    return "\n".join(lines) + "\n"


def ert_table(ert: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """The fixed-target ERT to read: a row per target, a column per group (the long table is in the file)."""
    group = plots.label(ert, keys)
    if "puzzle" in keys and ert["puzzle"].nunique() > 1:
        group = ert["puzzle"].astype(str) + ": " + group
    wide = ert.assign(group=group)
    if wide.duplicated(["target", "group"]).any():  # labels that do not tell groups apart: the long table
        return ert.set_index("target")
    return wide.pivot(index="target", columns="group", values="ert_evaluations")


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


def colour_sweep_outputs(roots: list[Path], out: Path) -> bool:
    """The colour sweep's points from every run as one table, with its summary and the seed's plot."""
    from experiments.tasks.colour_sweep import COLUMNS, TABLE

    frames = [pd.read_parquet(p) for root in roots for p in sorted(Path(root).rglob(TABLE))]
    if not frames:
        return False
    table = pd.concat(frames, ignore_index=True).reindex(columns=COLUMNS)  # older tables: no cpu_seconds
    write_table(table, out / "colour_sweep_table.parquet")
    write_table(colour_sweep_summary(table), out / "colour_sweep_summary.parquet")
    write_picture(plots.colour_sweep(table), out / "colour_sweep.png")
    return True


def report(
    roots: list[Path], out: Path | None = None, quiet: bool = False, outside: Sequence[Path] = ()
) -> Path:
    """Gather the runs under `roots` (and `outside` results: experiments/outside.py) and write tables,
    pictures and report.md into `out` (default: roots[0])."""
    out = Path(out or roots[0])
    runs = join_outside(gather_runs(roots), outside)
    traces = gather_traces(runs)
    write_table(runs, out / "runs.parquet")
    write_table(traces, out / "traces.parquet", csv=False)
    colour_sweep_outputs(roots, out)
    ok = (
        runs[(runs["status"] == "ok") & runs.get("best", pd.Series(dtype=float)).notna()]
        if "best" in runs
        else runs[:0]
    )
    failed = int((runs["status"] != "ok").sum())
    if ok.empty:
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
    targets = plots.target_grid(traced, ok_traces)
    ert = ert_targets(traced, ok_traces, keys, targets)
    write_table(ert, out / "ert_targets.parquet")
    pictures = {
        "convergence.png": plots.convergence(traced, ok_traces, keys, what),
        "convergence_seconds.png": plots.convergence(traced, ok_traces, keys, what, x="seconds"),
        "final.png": plots.final_scores(ok, keys, what),
        "ecdf.png": plots.ecdf(traced, ok_traces, keys, targets),
    }
    axes = two_parameter_axes(ok, keys)
    if axes:
        pictures["heatmap.png"] = plots.heatmaps(ok, *axes, ylabel=what)
    ranking = rank(ok, keys)
    if ranking is not None:
        write_table(ranking.table, out / "ranking.parquet")
        write_picture(cd_diagram(ranking), out / "cd_diagram.png")
    for name, fig in pictures.items():
        write_picture(fig, out / name)
    iohprofiler.export(ok, ok_traces, out / iohprofiler.FOLDER, instance_columns(ok, keys))
    text = markdown(summary, tests, list(pictures), failed, ranking, ert_table(ert, keys))
    atomic_write(out / "report.md", lambda tmp: tmp.write_text(text))
    if not quiet:
        with pd.option_context("display.width", 200, "display.max_columns", 30):
            print(summary.to_string(index=False))
        if failed:
            print(f"{failed} run(s) failed; see the 'error' column of {out / 'runs.csv'}")
    return out


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
    print(f"report written to {out / 'report.md'}")


if __name__ == "__main__":
    main()
