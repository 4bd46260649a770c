"""`python -m experiments.report <sweep dir> [...]`: one runs table, one trace table, statistics,
plots and a Markdown report, written beside the sweep (or into --out).

Also run automatically at the end of every multirun (experiments/callbacks.py).
"""

from __future__ import annotations

from core import interrupt

# Ctrl-C while the report loads (seconds) ends in one line, as it does while it writes.
with interrupt.ends_quietly("while starting; nothing was written", active=__name__ == "__main__"):
    import argparse
    import os
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
    from experiments.records import CONFIG, RUN, atomic_write, write_table
    from experiments.report_markdown import budget_text, caption, markdown
    from experiments.schema import setup
    from experiments.stats import ert_targets, evaluations_to_optimum, pairwise, summarise
    from experiments.tasks import Section, trait

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


def task_configs(runs: pd.DataFrame) -> list[dict]:
    """The task config (`cfg.task`, as saved in config.yaml) of one run per task among the runs, in the
    runs table's order: what names each task's class, and so its traits and report hook."""
    found: dict[str, dict] = {}
    if "task" not in runs or "run_dir" not in runs:
        return []
    for task, d in zip(runs["task"], runs["run_dir"]):
        if pd.isna(d) or str(task) in found or not (Path(d) / CONFIG).is_file():
            continue
        cfg = OmegaConf.to_container(OmegaConf.load(Path(d) / CONFIG), resolve=False)
        node = cfg.get("task") if isinstance(cfg, dict) else None
        if isinstance(node, dict):
            found[str(task)] = node
    return list(found.values())


def sections(
    roots: Sequence[Path], out: Path, study: dict, runs: pd.DataFrame, skipped: dict[str, str]
) -> list[Section]:
    """Each study's part of the report: the `report_section` hook of the task class its runs name
    (experiments/tasks Task), called once per class; it writes the study's tables and pictures into
    `out` and returns report.md's lines. The report imports no study: a task names its own section."""
    parts, called = [], set()
    for node in task_configs(runs):
        hook = trait(node, "report_section")
        key = getattr(hook, "__func__", hook)
        if key in called:
            continue
        called.add(key)
        part = hook(roots, out, study, runs, skipped)
        if part is not None:
            parts.append(part)
    return parts


def left_out_lines(roots: Sequence[Path], runs: pd.DataFrame) -> list[str]:
    """The records under `roots` that are in no table (damaged, incomplete, not ours), one line each with
    its folder and why: gathering says them on stderr only, which a report read later no longer shows."""
    from experiments.gather import left_out

    kept = set(runs["run_dir"].astype(str)) if "run_dir" in runs else set()
    found = sorted({p.parent.resolve() for root in roots for p in Path(root).rglob(RUN)})
    return [line for d in found if str(d) not in kept for line in [left_out(d)[0]] if line]


def report(
    roots: list[Path],
    out: Path | None = None,
    quiet: bool = False,
    outside: Sequence[Path] = (),
    pictures: bool = True,
) -> Path:
    """Gather the runs under `roots` (and `outside` results: experiments/outside.py) and write tables,
    pictures and report.md into `out` (default: roots[0]).

    summary and report.md are written whenever any record exists: report.md lists the failed runs
    by reason (`failures(runs)`; `python -m experiments.report` prints them), each study's own section
    (`sections`: the hook its task declares), and, where
    runs have a best, the statistics and pictures; it names any picture it could not draw and any record
    it left out. `pictures=False` leaves out the generic pictures (seconds each on a sweep of many
    instances), not the tables.
    """
    out = Path(out or roots[0])
    runs = join_outside(gather_runs(roots), outside)
    traces = gather_traces(runs)
    write_table(runs, out / "runs.parquet")
    write_table(traces, out / "traces.parquet", csv=False)
    study = study_of(runs, roots)
    failed, left = failures(runs), left_out_lines(roots, runs)
    skipped: dict[str, str] = {}  # the pictures not drawn, and why
    parts = sections(roots, out, study, runs, skipped)  # each study's own, through its task's hook
    extra = [line for part in parts for line in part.lines]
    ok = scored(runs)
    if ok.empty:  # nothing scored (a study's own records, or every run failed)
        done = runs[runs["status"] == "ok"]
        summary = summarise(done, group_keys(done if len(done) else runs))
        write_table(summary, out / "summary.parquet")
        head = parts[0].caption if parts else caption(study, budget_text(runs))
        text = markdown(
            summary,
            pd.DataFrame(),
            [],
            failed,
            head=[head.replace("\n", "; "), ""],
            extra=extra,
            skipped=skipped,
            left=left,
        )
        atomic_write(out / "report.md", lambda tmp: tmp.write_text(text))
        if not quiet:
            what = parts[0].what if parts else "none with a best score"
            print(f"{len(runs)} run(s), {what}{failed_note(failed, out)}")
            skipped_note(skipped)
        return out
    title = caption(study, budget_text(ok))
    summary, tests, ranking = statistics(ok, out)
    drawn, ert = figures(ok, traces, title, ranking, out, skipped, pictures)
    keys = group_keys(ok)
    text = markdown(
        summary,
        tests,
        drawn,
        failed,
        ranking,
        ert_tables(ert, keys) if len(ert) else None,
        head=[title.replace("\n", "; "), ""],
        extra=extra,
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


def scored(runs: pd.DataFrame) -> pd.DataFrame:
    """The runs that finished with a best score, `best` as numbers (beside a failed run's None, `best`
    reads back as objects)."""
    if "best" not in runs:
        return runs[:0]
    ok = runs[(runs["status"] == "ok") & runs["best"].notna()]
    return ok.assign(best=pd.to_numeric(ok["best"], errors="coerce")) if len(ok) else ok


def statistics(ok: pd.DataFrame, out: Path) -> tuple[pd.DataFrame, pd.DataFrame, Ranking | None]:
    """The summary, the pairwise tests (also of evaluations to the known optimum, where every run has
    one) and the ranking over instances, each written as a table."""
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
    ranking = rank(ok, keys)
    if ranking is not None:
        write_table(ranking.table, out / "ranking.parquet")
    return summary, tests, ranking


PICTURES_OFF = "hydra.callbacks.report.pictures=false"


def figures(
    ok: pd.DataFrame,
    traces: pd.DataFrame,
    title: str,
    ranking: Ranking | None,
    out: Path,
    skipped: dict[str, str],
    pictures: bool = True,
) -> tuple[list[str], pd.DataFrame]:
    """Draw the sweep's pictures (those that cannot be drawn go into `skipped`), write the fixed-target
    ERT and the IOHprofiler export; the pictures drawn and the ERT."""
    keys = group_keys(ok)
    what, ok_traces = score_label(ok), traces[traces["run_id"].isin(ok["run_id"])]
    traced = ok[ok["run_id"].isin(ok_traces["run_id"])]  # outside results have no traces to draw
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
    if not pictures:
        skipped.update(dict.fromkeys([*makers, *["cd_diagram.png"] * (ranking is not None)], PICTURES_OFF))
        makers, ranking = {}, None
    if ranking is not None:
        plots.picture("cd_diagram.png", lambda: cd_diagram(ranking, caption=title), out, skipped)
    drawn = [name for name, make in makers.items() if plots.picture(name, make, out, skipped)]
    iohprofiler.export(ok, ok_traces, out / iohprofiler.FOLDER, instance_columns(ok, keys))
    return drawn, ert


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
    where = args.out or args.dirs[0]
    with interrupt.ends_quietly(
        f"the report in {where} is not complete; run the same command again to write it"
    ):
        out = write(args)
        print(f"report written to {out / 'report.md'}")
        lines = failure_lines(failures(pd.read_parquet(out / "runs.parquet")))
        if lines:
            print("\n".join(lines), file=sys.stderr)


def write(args: argparse.Namespace) -> Path:
    """The command line's report, written; each way it can fail is one line."""
    import errno

    setup()
    try:
        return report(args.dirs, args.out, outside=args.outside)
    except (FileNotFoundError, OutsideError) as err:
        raise SystemExit(f"error: {err}") from None
    except OSError as err:  # a read-only or full folder: which, and how to go on
        where = Path(err.filename).parent if err.filename else args.out or args.dirs[0]
        full = err.errno in (errno.ENOSPC, errno.EDQUOT)
        fix = "free some space there" if full else "make that folder writable"
        why = f"the disk is full ({os.strerror(err.errno or errno.ENOSPC)})" if full else err.strerror or err
        raise SystemExit(
            f"error: cannot write the report into {where}: {why}; {fix}, or write the report elsewhere "
            "with --out DIR"
        ) from None
    except Exception as err:  # a report bug: one line, not a traceback; the runs are untouched
        why = (str(err).strip().splitlines() or [""])[0]
        raise SystemExit(
            f"error: the report failed ({type(err).__name__}: {why}); the runs are kept"
        ) from None


if __name__ == "__main__":
    main()
