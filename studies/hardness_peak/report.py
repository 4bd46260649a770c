"""The hardness study's part of a sweep report: every board as one table, its summary per board size
and colour count (solve rate, nodes to the first perfect board, perfect boards counted, the predicted
peak), a plot per size and its section of report.md. The generic report reaches it through
`HardnessPeak.report_section` (task.py), never by import."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from pathlib import Path

import pandas as pd

from experiments import plots
from experiments.records import write_table
from experiments.report_markdown import caption, number
from experiments.tasks import Section
from studies.hardness_peak.table import COLUMNS, TABLE, TIMING

SUMMARY_COLUMNS = [
    "n",
    "frame_colours",
    "colours",
    "boards",
    "solved",
    "solve_rate",
    "nodes_q1",
    "nodes_median",
    "nodes_q3",
    "max_nodes",
    "counted",
    "solutions_median",
    "predicted_peak",
]


def hardness_summary(table: pd.DataFrame) -> pd.DataFrame:
    """Per size, frame palette and inner colour count: boards, solved within the cap, nodes to the first
    perfect board (quartiles over every board, one not solved counting at the cap), boards whose count
    finished and their median number of perfect boards, and Owen's predicted peak."""
    rows = []
    for (n, frame, colours), g in table.groupby(["n", "frame_colours", "colours"], sort=True):
        nodes = pd.to_numeric(g["nodes_to_first"]).quantile([0.25, 0.5, 0.75])
        counted = g[g["solutions_complete"].astype(bool)]
        rows.append(
            {
                "n": n,
                "frame_colours": frame,
                "colours": colours,
                "boards": len(g),
                "solved": int(g["solved"].sum()),
                "solve_rate": float(g["solved"].mean()),
                "nodes_q1": float(nodes[0.25]),
                "nodes_median": float(nodes[0.5]),
                "nodes_q3": float(nodes[0.75]),
                "max_nodes": int(g["max_nodes"].max()),
                "counted": len(counted),
                "solutions_median": float(counted["solutions"].median()) if len(counted) else float("nan"),
                "predicted_peak": float(g["predicted_peak"].iloc[0]),
            }
        )
    return pd.DataFrame(rows, columns=SUMMARY_COLUMNS)


def hardest(part: pd.DataFrame) -> list[int]:
    """The measured hardest colour counts of one size: the lowest solve rate, then the most nodes at
    the median (ties: every count that shares both)."""
    key = part.assign(rate=part["solve_rate"].round(9), nodes=-part["nodes_median"])
    top = key.sort_values(["rate", "nodes"]).iloc[0]
    same = key[(key["rate"] == top["rate"]) & (key["nodes"] == top["nodes"])]
    return sorted(int(c) for c in same["colours"])


def nodes_cell(value: float, cap: int) -> str:
    """Nodes as report.md shows them: '>= 300,000,000' where the value is the cap (a lower bound)."""
    return f">= {number(cap)}" if value >= cap else number(round(value))


def readable(part: pd.DataFrame) -> pd.DataFrame:
    """One size's summary as report.md's table: rates in percent, nodes with their '>=' marker."""
    cap = part["max_nodes"]
    return pd.DataFrame(
        {
            "colours": part["colours"],
            "boards": part["boards"],
            "solved": part["solved"],
            "solve rate": (100 * part["solve_rate"]).map(lambda r: f"{r:.0f}%"),
            "nodes median": [nodes_cell(v, c) for v, c in zip(part["nodes_median"], cap)],
            "nodes q1": [nodes_cell(v, c) for v, c in zip(part["nodes_q1"], cap)],
            "nodes q3": [nodes_cell(v, c) for v, c in zip(part["nodes_q3"], cap)],
            "counted": part["counted"],
            "solutions median": part["solutions_median"].map(lambda s: "" if s != s else f"{s:g}"),
        }
    )


def hardness_markdown(summary: pd.DataFrame, pictures: dict[int, str], count_cap: int | None) -> list[str]:
    """The hardness study's section of report.md: per size, the predicted and measured peak, its plot
    and its table."""
    count = f"counted within {number(count_cap)} nodes" if count_cap else "not counted"
    lines = [
        "## Hardness peak",
        "",
        "Per board size and inner colour count (hardness_peak_summary.csv; every board in "
        "hardness_peak_table.csv): boards solved within the node cap, nodes to the first perfect board "
        "(median and quartiles over every board; a board not solved counts at the cap, shown `>= cap`), "
        f"and perfect boards (turned copies apart) {count}: their median over the boards whose count "
        "finished (*counted*). The predicted peak is Owen's: the inner colour count where the expected "
        "number of perfect boards of a random board of that size and frame palette is 1.",
        "",
    ]
    for n, part in summary.groupby("n", sort=True):
        frames = ", ".join(str(f) for f in sorted(part["frame_colours"].unique()))
        peak = ", ".join(f"{p:.2f}" for p in sorted(part["predicted_peak"].unique()))
        worst = ", ".join(map(str, hardest(part)))
        lines += [
            f"### n = {n} ({frames} frame colours)",
            "",
            f"Predicted peak: {peak} inner colours; hardest measured: {worst} (lowest solve rate, then "
            "most nodes at the median).",
            "",
            *([f"![hardness n = {n}]({pictures[n]})", ""] if n in pictures else []),
            readable(part).to_markdown(index=False),
            "",
        ]
    return lines


def picture_name(n: int) -> str:
    return f"hardness_peak_n={n}.png"


def hardness_outputs(
    roots: list[Path], out: Path, caption: str = "", skipped: dict[str, str] | None = None
) -> list[str] | None:
    """The boards of every run as one table, its summary, a plot per size (noted in `skipped` when one
    cannot be drawn); returns report.md's section (None: not a hardness study)."""
    from studies.hardness_peak.plot import hardness_figure

    frames = [pd.read_parquet(p) for root in roots for p in sorted(Path(root).rglob(TABLE))]
    frames = [f for f in frames if len(f)]
    if not frames:
        return None
    table = pd.concat(frames, ignore_index=True).reindex(columns=COLUMNS)
    table = table.sort_values(["n", "colours", "instance_seed"], kind="stable", ignore_index=True)
    summary = hardness_summary(table)
    write_table(table, out / "hardness_peak_table.parquet", timing=TIMING)
    write_table(summary, out / "hardness_peak_summary.parquet")
    pictures: dict[int, str] = {}
    for n, part in summary.groupby("n", sort=True):
        size = int(n)
        boards = table[table["n"] == size]
        if plots.picture(picture_name(size), partial(hardness_figure, part, boards, caption), out, skipped):
            pictures[size] = picture_name(size)
    caps = pd.to_numeric(table["count_cap"]).dropna()
    return hardness_markdown(summary, pictures, int(caps.max()) if len(caps) else None)


def hardness_budget(task: dict) -> str:
    """The study's caps as the report's head says them (from a run's task settings)."""
    first, count = task.get("max_nodes"), task.get("count_nodes")
    text = f"node cap {number(first)} a board (first perfect board)" if first else "node cap not recorded"
    return text + (f", {number(count)} (count)" if count else ", no count")


def section(
    roots: Sequence[Path], out: Path, study: dict, runs: pd.DataFrame, skipped: dict[str, str]
) -> Section | None:
    """`HardnessPeak.report_section`: the study's outputs under the head that says its node caps (None:
    no boards under `roots`)."""
    task = study["config"].get("task") or {}
    head = caption(study, hardness_budget(task if isinstance(task, dict) else {}))
    lines = hardness_outputs(list(roots), out, head, skipped)
    if lines is None:
        return None
    return Section(lines, head, "a hardness study: its boards per size and colour count")
