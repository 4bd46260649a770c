"""Results from outside puzzlelab (published scores, another framework's runs) in a sweep's report.

    python -m experiments.report <sweep dir> --outside results.csv

Why: a study is often judged against numbers it did not make. The CSV's rows join the runs table,
so the summary, the pairwise tests, the ranking over instances and the critical-difference diagram
take them in like any optimiser's runs, marked in every table: the runs table's `source` column says
"outside" (else "puzzlelab") and the method is named `<method> (outside)`.

Columns: `puzzle`, `instance`, `method`, `seed` (or `run`, when there is no `seed`), `score` (the
final best, as the puzzle scores it: lower is better), and optionally `evaluations` and `seconds`
(what the run spent; for a run that reached the known optimum, what it needed to reach it) and
`evaluation_kind` (what one evaluation counts, as run records say it: `fitness`, `priced move`, ...;
without it, the row's evaluations are not tested against runs whose evaluations count a said kind).

What the sweep knows is checked: no score below the least its instance allows (the runs' known
optimum, an optimum or lower bound an exact record of the same board proved, 0 for a score that
counts), and no negative, NaN or infinite evaluations or seconds; each refusal is one line naming the
CSV line, the value and what is accepted.

A row joins the sweep's runs of one instance: the same puzzle (`pentomino`, `packing/free6`) and
the same `instance`, which is the puzzle's name (or blank) where the sweep ran one instance of it,
else the value of the puzzle setting that tells its instances apart in the sweep
(`puzzle.instance_seed`, or `puzzle.width` in a sweep over widths; several settings: `name=value`
pairs separated by spaces). It
takes the settings those runs share (puzzle settings, budget, known optimum), so it falls in their
groups. A row naming an instance the sweep did not run is an error, not dropped: with nothing to be
compared with it is most likely a typo (trim a published table to the instances you ran).
Outside rows have no traces: the figures drawn from traces and the IOHprofiler export leave them out.
"""

from __future__ import annotations

import csv
import math
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from experiments.pairing import EVALUATION_KIND

SOURCE, PUZZLELAB, OUTSIDE = "source", "puzzlelab", "outside"
MARK = " (outside)"  # after the method's name, in every table that names optimisers
REQUIRED = ("puzzle", "instance", "method", "score")
DOCUMENTED = (
    "puzzle, instance, method, seed (or run), score, and optionally evaluations, seconds, evaluation_kind"
)
SHARED = ("task", "puzzle", "known_optimum", "score_name", "instance_keys")  # and puzzle.*, budget.*


class OutsideError(ValueError):
    """Bad outside results: one line saying what and where."""


def number_text(value: object) -> str:
    """A value as a label compares it: 6, 6.0 and ' 6' alike."""
    text = str(value).strip()
    try:
        x = float(text)
    except ValueError:
        return text
    return str(int(x)) if math.isfinite(x) and x.is_integer() else text


def canonical(instance: str) -> str:
    """An instance label with its numbers written one way (`width=6.0` -> `width=6`)."""
    tokens = []
    for token in instance.split():
        name, sep, value = token.rpartition("=")
        tokens.append(f"{name.removeprefix('puzzle.')}={number_text(value)}" if sep else number_text(token))
    return " ".join(tokens)


ACCEPTED = {
    "seed": "a whole number",
    "run": "a whole number",
    "score": "a number, the final best as the puzzle scores it (lower is better)",
    "evaluations": "a number >= 0 (the evaluations the run spent), or blank",
    "seconds": "a number >= 0 (the seconds the run spent), or blank",
}
SPENT = ("evaluations", "seconds")  # what a run spent: never negative
# the score names of puzzlelab's puzzles whose score counts something, so it is never below 0
COUNTED = ("gaps", "unmatched edges", "attacking pairs")


def numbers(df: pd.DataFrame, column: str, path: Path, whole: bool = False) -> pd.Series:
    """A column of numbers (blank: NaN); the first value that is not one (or, for what a run spent, is
    negative) names its line, the value and what is accepted there."""
    values = pd.to_numeric(df[column], errors="coerce").astype(float)
    given = df[column] != ""
    for bad, what in (
        (given & values.isna(), "is not a number"),
        (given & values.notna() & ~np.isfinite(values), "is not a finite number"),
        (given & np.isfinite(values) & (values % 1 != 0) & whole, "is not a whole number"),
        (given & (values < 0) & (column in SPENT), "is negative"),
    ):
        if bad.any():
            line, text = df.loc[bad.idxmax(), "line"], df.loc[bad.idxmax(), column]
            raise OutsideError(f"{path} line {line}: {column} '{text}' {what}; accepted: {ACCEPTED[column]}")
    return values


def kinds(df: pd.DataFrame, path: Path) -> pd.Series:
    """What each row's evaluations count, as puzzlelab's run records name it (blank: not said, and the
    row's evaluations then sit out of the tests beside runs whose evaluations count something said)."""
    names = sorted(set(EVALUATION_KIND.values()))
    bad = (df["evaluation_kind"] != "") & ~df["evaluation_kind"].isin(names)
    if bad.any():
        line, text = df.loc[bad.idxmax(), "line"], df.loc[bad.idxmax(), "evaluation_kind"]
        raise OutsideError(
            f"{path} line {line}: evaluation_kind '{text}' is not one puzzlelab counts; accepted: "
            f"{', '.join(names)}, or blank"
        )
    return df["evaluation_kind"].replace("", None)


def table_of(path: Path) -> pd.DataFrame:
    """The CSV's cells as text (blank lines skipped), each row with its line number."""
    rows = []
    try:
        with open(path, newline="", encoding="utf-8-sig") as f:
            reader = csv.reader(f)
            header = [cell.strip() for cell in next(reader, [])]
            for row in reader:
                if not any(cell.strip() for cell in row):
                    continue
                if len(row) != len(header):
                    raise OutsideError(
                        f"{path} line {reader.line_num}: {len(row)} fields where the header has {len(header)}"
                    )
                rows.append([cell.strip() for cell in row] + [reader.line_num])
    except (UnicodeDecodeError, csv.Error) as err:
        raise OutsideError(f"{path}: not a CSV table ({err})") from None
    return pd.DataFrame(rows, columns=[*header, "line"], dtype=object)


def read(path: Path) -> pd.DataFrame:
    """One CSV, checked: the documented columns, every row named, numbers where numbers go."""
    if not Path(path).is_file():
        raise OutsideError(f"outside results: no such file: {path}")
    df = table_of(path)
    missing = [c for c in REQUIRED if c not in df]
    if missing:
        raise OutsideError(f"{path}: no column '{missing[0]}'; the columns are: {DOCUMENTED}")
    if "seed" not in df and "run" not in df:
        raise OutsideError(
            f"{path}: no column 'seed' or 'run' (which run a row is); the columns are: {DOCUMENTED}"
        )
    if df.empty:
        raise OutsideError(f"{path}: no rows under the header")
    seed = "seed" if "seed" in df else "run"
    for column in ("puzzle", "method", seed, "score"):
        blank = df[df[column] == ""]
        if len(blank):
            raise OutsideError(f"{path} line {blank['line'].iloc[0]}: no {column}")
    return pd.DataFrame(
        {
            "puzzle": df["puzzle"],
            "instance": [canonical(i or p) for i, p in zip(df["instance"], df["puzzle"])],
            "method": df["method"],
            "seed": numbers(df, seed, path, whole=True).astype(int),
            "score": numbers(df, "score", path),
            **{c: numbers(df, c, path) if c in df else np.nan for c in ("evaluations", "seconds")},
            "evaluation_kind": kinds(df, path) if "evaluation_kind" in df else None,
            "where": [f"{path} line {line}" for line in df["line"]],
        }
    )


def instances(runs: pd.DataFrame) -> pd.DataFrame:
    """The sweep's instances: per puzzle, one row per value of the settings that tell them apart,
    with its label (`instance`), the settings its runs share, and the least score possible on it
    (`floor`, with `floor_from` saying what knows it; NaN where nothing does)."""
    ok = runs[(runs["status"] == "ok") & runs["best"].notna()] if "best" in runs else runs[:0]
    rows = []
    for puzzle, g in ok.groupby("puzzle", sort=True):
        tells = [c for c in g if c.startswith("puzzle.") and g[c].astype(str).nunique() > 1]
        for values, h in g.groupby(tells, dropna=False, sort=True) if tells else [((), g)]:
            pairs = list(zip(tells, values))
            if len(pairs) == 1:
                label = number_text(pairs[0][1])
            else:
                label = canonical(" ".join(f"{c}={v}" for c, v in pairs) or str(puzzle))
            shared = [c for c in h if c in SHARED or c.startswith(("puzzle.", "budget."))]
            row = {c: h[c].iloc[0] for c in shared if h[c].astype(str).nunique() == 1}
            rows.append({**row, "instance": label, **floor(runs, row)})
    return pd.DataFrame(rows)


def same(a: object, b: object) -> bool:
    """Two settings' values alike as a label reads them (6 and 6.0; None and NaN)."""
    missing_a, missing_b = (bool(pd.api.types.is_scalar(x) and pd.isna(x)) for x in (a, b))
    return missing_a and missing_b or not (missing_a or missing_b) and number_text(a) == number_text(b)


def floor(runs: pd.DataFrame, instance: dict) -> dict:
    """The least score possible on an instance (`floor`) and what knows it (`floor_from`): the highest of
    its runs' known optimum, the optimum or lower bound an exact record of the same puzzle settings
    proved (task exact on an edge-matching board: columns `optimum`, `lower_bound`), and 0 for a
    score that counts something (COUNTED); NaN where none of them is known."""
    puzzle = instance["puzzle"]
    found: list[tuple[float, str]] = []
    if pd.notna(instance.get("known_optimum")):
        optimum = float(instance["known_optimum"])
        found.append((optimum, f"its known optimum is {optimum:g}"))
    if "task" in runs:
        exact = runs[(runs["task"] == "exact") & (runs["status"] == "ok") & (runs["puzzle"] == puzzle)]
        settings = [c for c in instance if c.startswith("puzzle.")]
        for _, r in exact.iterrows():
            if all(c in r and same(r[c], instance[c]) for c in settings):
                for column, what in (("optimum", "optimum"), ("lower_bound", "lower bound")):
                    if column in r and pd.notna(r[column]):
                        bound = float(r[column])
                        found.append(
                            (bound, f"the exact record {r.get('run_dir', '')} proved its {what} {bound:g}")
                        )
    if instance.get("score_name") in COUNTED:
        found.append((0.0, f"its score counts {instance['score_name']}, never below 0"))
    if not found:
        return {"floor": np.nan, "floor_from": ""}
    value, source = max(found, key=lambda f: f[0])  # the first of equals: the known optimum first
    return {"floor": value, "floor_from": source}


def check_floor(rows: pd.DataFrame) -> None:
    """A score below the least possible on its instance is a mistake (a typo, another scoring, a score
    to maximise), not a run better than any can be."""
    below = rows[rows["score"] < rows["floor"]]  # False where no floor is known
    if len(below):
        r = below.iloc[0]
        raise OutsideError(
            f"{r['where']}: score {r['score']:g} is below what {r['puzzle']} instance {r['instance']} "
            f"allows ({r['floor_from']}); accepted: a score >= {r['floor']:g}, as the puzzle scores it (lower is better)"
        )


def listed(names: Sequence[str], most: int = 10) -> str:
    """Names for a message, the first `most` of them."""
    return ", ".join(names[:most]) + (f", ... ({len(names)} in all)" if len(names) > most else "")


def unknown(row: pd.Series, known: pd.DataFrame) -> OutsideError:
    """What a row names that the sweep did not run, and what it did run."""
    if known.empty:
        return OutsideError(f"{row['where']}: the sweep has no finished runs to put outside results beside")
    mine = known[known["puzzle"] == row["puzzle"]]
    if mine.empty:
        return OutsideError(
            f"{row['where']}: puzzle '{row['puzzle']}' is not in the sweep "
            f"(its puzzles: {listed(sorted(known['puzzle'].unique()))})"
        )
    return OutsideError(
        f"{row['where']}: puzzle '{row['puzzle']}' has no instance '{row['instance']}' in the sweep "
        f"(its instances: {listed(list(mine['instance']))})"
    )


def check_repeats(table: pd.DataFrame) -> None:
    """A run named twice (the same method, instance and seed) is a mistake, not two runs."""
    names = ["puzzle", "instance", "method", "seed"]
    repeated = table[table.duplicated(names, keep=False)]
    if len(repeated):
        first, again = repeated.iloc[0], repeated[repeated.duplicated(names)].iloc[0]
        raise OutsideError(
            f"{again['where']}: repeats {first['where']} ({first['method']}, {first['puzzle']} "
            f"instance {first['instance']}, seed {first['seed']})"
        )


def note_coverage(table: pd.DataFrame, known: pd.DataFrame) -> None:
    """Say when an outside method misses some of the sweep's instances: the ranking over instances
    keeps only instances every method ran."""
    for method, g in table.groupby("method"):
        covered = len(g[["puzzle", "instance"]].drop_duplicates())
        if covered < len(known):
            print(
                f"note: {method}{MARK} covers {covered} of the sweep's {len(known)} instances; "
                "the ranking over instances uses only instances every method ran",
                file=sys.stderr,
            )


def outside_rows(table: pd.DataFrame, known: pd.DataFrame, first_id: int) -> pd.DataFrame:
    """The CSV rows as runs-table rows: the instance's shared settings, then what the row says."""
    rows = table.merge(known, on=["puzzle", "instance"], how="left", indicator=True, validate="many_to_one")
    if (rows["_merge"] == "left_only").any():
        raise unknown(rows[rows["_merge"] == "left_only"].iloc[0], known)
    check_floor(rows)
    optimum = rows["known_optimum"] if "known_optimum" in rows else pd.Series(np.nan, index=rows.index)
    reached = rows["score"] <= optimum  # False where no optimum is known
    return rows.drop(
        columns=["_merge", "instance", "method", "score", "where", "floor", "floor_from"]
    ).assign(
        optimizer=rows["method"] + MARK,
        status="ok",
        best=rows["score"],
        success=reached.astype(object).where(optimum.notna(), None),
        evals_to_optimum=rows["evaluations"].where(reached),
        seconds_to_optimum=rows["seconds"].where(reached),
        run_dir=rows["where"].str.replace(" line ", ":"),  # where the row came from: file:line
        run_id=np.arange(first_id, first_id + len(rows)),
        **{SOURCE: OUTSIDE},
    )


def join_outside(runs: pd.DataFrame, paths: Sequence[Path]) -> pd.DataFrame:
    """The runs table with every outside CSV's rows added (unchanged when there are none)."""
    if not paths:
        return runs
    table = pd.concat([read(Path(p)) for p in paths], ignore_index=True)
    check_repeats(table)
    known = instances(runs)
    if known.empty:
        raise unknown(table.iloc[0], known)
    rows = outside_rows(table, known, int(runs["run_id"].max()) + 1)
    note_coverage(table, known)
    return pd.concat([runs.assign(**{SOURCE: PUZZLELAB}), rows], ignore_index=True)
