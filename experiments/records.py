"""Run records: the files one run leaves in its directory, written atomically (write, then rename).

A run directory holds `config.yaml` (resolved, enough to re-run it), `run.parquet` + `run.csv`
(one row), `trace.parquet` + `trace.csv` (one row per improvement) and pictures. `run.parquet` is
written last, so its presence means the record is complete.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd
from omegaconf import DictConfig, OmegaConf

from core.errors import InputError

if TYPE_CHECKING:
    from matplotlib.figure import Figure

RUN, TRACE, CONFIG = "run.parquet", "trace.parquet", "config.yaml"
REFUSED = "refused.txt"  # beside a record kept although its config changed since: the sweep counts it failed
UNRECORDED = ".unrecorded"  # in a sweep's folder: runs that failed where no record could be written
TRACE_COLUMNS = ("evaluations", "seconds", "best")


RESULTS_ENV = "PUZZLELAB_RESULTS"


def results_root() -> Path:
    """Where results go: results/ in the current folder, or $PUZZLELAB_RESULTS (as configs/config.yaml).

    Set but empty (`export PUZZLELAB_RESULTS=$SCRATCH` with SCRATCH unset) is refused, not read as
    unset: the config's `${oc.env:...}` reads it as "", which put runs in /runs at the file system's
    root while the readers looked in the current folder. A file is refused too (Hydra's traceback)."""
    value = os.environ.get(RESULTS_ENV)
    if value is None:
        return Path("results")
    if not value.strip():
        raise InputError(
            f"{RESULTS_ENV} is set but empty: unset it (results go to ./results) or give a folder, e.g. "
            f"export {RESULTS_ENV}=$HOME/puzzlelab-results"
        )
    root = Path(value)
    blocker = file_in_the_way(root)
    if blocker is not None:
        raise InputError(
            f"{RESULTS_ENV}={value}: {blocker} is a file, not a folder; give a folder for results"
        )
    return root


def file_in_the_way(path: Path) -> Path | None:
    """The file (not a folder) at `path` or at one of its parents, which stops it being made a folder."""
    existing = next((p for p in (path, *path.parents) if p.exists() or p.is_symlink()), None)
    return existing if existing is not None and not existing.is_dir() else None


GATHERED = ("run_dir", "run_id")  # added when runs are gathered: where a row came from


def _kind(kind: str, default: Any = None) -> Any:
    """A record field of one kind: "what" was run, an "outcome", or "timing" (depends on the machine)."""
    return field(default=default, metadata={"kind": kind})


@dataclass
class RunRecord:
    """One run's row in every table: what was run, what it found, and what it cost.

    `config` holds the flattened config columns (`puzzle.width`, `optimizer.cxpb`, ...) and `scores`
    the puzzle's own scores (`score.match_rate`, ...); `extra` holds a task's own outcomes (a colour
    sweep's mean match rate, an exact task's solution count). `seconds` is wall-clock time and
    `cpu_seconds` the process's CPU time over the same span (more than `seconds` when numba runs
    threads, less when the run waited). Gather, report and reproduce read
    their column lists from the field kinds here, so a new column is added in one place.
    """

    task: str = _kind("what")
    seed: int = _kind("what", 0)
    puzzle: str | None = _kind("what")
    optimizer: str | None = _kind("what")
    status: str = _kind("outcome", "ok")
    error: str | None = _kind("outcome")
    best: float | None = _kind("outcome")
    known_optimum: float | None = _kind("outcome")
    success: bool | None = _kind("outcome")
    evaluations: int | None = _kind("outcome")
    evaluation_kind: str | None = _kind("outcome")  # one evaluation: "fitness", "priced move", "construction"
    work: int | None = _kind("outcome")  # a constructive solver's work: placements priced or nodes walked
    work_unit: str | None = _kind("outcome")  # what `work` counts: "placement" or "node"
    lower_bound: float | None = _kind("outcome")  # the optimum proved to be at least this (an exact solver)
    evals_to_optimum: float | None = _kind("outcome")
    stop_reason: str | None = _kind("outcome")
    best_genome: str | None = _kind("outcome")
    score_name: str | None = _kind("outcome")
    instance_keys: str | None = _kind("outcome")
    seconds: float | None = _kind("timing")  # wall-clock (time.perf_counter) of the search or solve
    cpu_seconds: float | None = _kind("timing")  # the process's CPU time over the same span, every thread
    seconds_to_optimum: float | None = _kind("timing")
    threads: int | None = _kind("timing")
    config: dict[str, Any] = field(default_factory=dict, metadata={"kind": "what"})
    scores: dict[str, Any] = field(default_factory=dict, metadata={"kind": "outcome"})
    extra: dict[str, Any] = field(default_factory=dict, metadata={"kind": "outcome"})

    def __post_init__(self) -> None:
        _built[:] = [self]

    @staticmethod
    def columns(*kinds: str) -> set[str]:
        """Names of the plain columns of the given kinds."""
        return {
            f.name for f in fields(RunRecord) if f.metadata["kind"] in kinds and f.type != "dict[str, Any]"
        }

    def row(self) -> dict[str, Any]:
        """The record as one flat table row."""
        plain = {f.name: getattr(self, f.name) for f in fields(self) if f.type != "dict[str, Any]"}
        return {**plain, **self.config, **{f"score.{k}": v for k, v in self.scores.items()}, **self.extra}


_built: list[RunRecord] = []  # the record built last in this process (one run at a time)


def last_built() -> RunRecord | None:
    """The record built last since `forget_built()`: what a run found, kept in memory, so a run whose
    files cannot be written (a full disk, at its picture or its tables) can still say it."""
    return _built[0] if _built else None


def forget_built() -> None:
    _built.clear()


OUTCOME_COLUMNS = RunRecord.columns("outcome", "timing") | set(GATHERED)
TIMING_COLUMNS = RunRecord.columns("timing") | set(GATHERED)
TRACE_TIMING = ("seconds",)  # the trace's clock (TRACE_COLUMNS)
TIMING_KEY = b"puzzlelab.timing"  # a table's Parquet metadata: its timing columns, a JSON list


def _umask() -> int:
    """The process's umask (read by setting it, so set it straight back)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def atomic_write(path: Path, write: Callable[[Path], Any]) -> None:
    """Call `write(tmp)` on a temporary file beside `path`, then rename it into place, readable as the
    user's umask says (a temporary file is made private; a research group's shared folder is not)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    try:
        write(Path(tmp))
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def write_table(df: pd.DataFrame, path: Path, csv: bool = True, timing: Iterable[str] = ()) -> None:
    """A table as Parquet (and CSV beside it), each written atomically. `timing` names the columns
    that hold the machine's clocks (wall and CPU seconds, threads), declared by the writer and kept in
    the Parquet file's metadata (TIMING_KEY): `reproduce` compares every other column."""
    clocks = set(timing)
    declared = json.dumps([c for c in df.columns if c in clocks]).encode()
    atomic_write(path, lambda tmp: _parquet(df, tmp, declared))
    if csv:
        atomic_write(path.with_suffix(".csv"), lambda tmp: df.to_csv(tmp, index=False))


def _parquet(df: pd.DataFrame, path: Path, timing: bytes) -> None:
    """`df.to_parquet(path, index=False)`, its timing columns in the file's metadata."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pandas(df, preserve_index=False)
    pq.write_table(table.replace_schema_metadata({**(table.schema.metadata or {}), TIMING_KEY: timing}), path)


def declared_timing(path: Path) -> frozenset[str] | None:
    """The timing columns a table's writer declared (`write_table`), from its Parquet file (for a CSV
    copy, the Parquet file beside it); None when it declared none (written before, or elsewhere)."""
    import pyarrow.parquet as pq

    try:
        raw = (pq.read_schema(Path(path).with_suffix(".parquet")).metadata or {}).get(TIMING_KEY)
    except (OSError, ValueError):  # missing or unreadable: pyarrow's ArrowInvalid is a ValueError
        return None
    return None if raw is None else frozenset(json.loads(raw))


def write_config(cfg: DictConfig, run_dir: Path) -> None:
    """The resolved config, so the run can be repeated from this directory alone."""
    text = OmegaConf.to_yaml(cfg, resolve=True)
    atomic_write(run_dir / CONFIG, lambda tmp: tmp.write_text(text))


DPI = 120  # a picture's dots per inch


def write_picture(fig: Figure, path: Path) -> None:
    """Save and close a matplotlib figure, cropped to what it draws (`bbox_inches="tight"`'s crop)."""
    import matplotlib.pyplot as plt

    crop = tight_crop(fig)
    atomic_write(path, lambda tmp: fig.savefig(tmp, format=path.suffix[1:], dpi=DPI, bbox_inches=crop))
    plt.close(fig)


def tight_crop(fig: Figure) -> Any:
    """The box `savefig(bbox_inches="tight")` crops to (everything drawn, legends and notes outside the
    axes included, plus savefig.pad_inches), measured once at DPI. Why not "tight" itself: savefig then
    draws the whole figure once to measure it and again to save it; given the box, a figure with no
    layout engine left (as `plots.finish` lays one out) is drawn once, the same pixels. "tight" where
    the figure's canvas has no renderer to measure with."""
    import matplotlib

    renderer = getattr(fig.canvas, "get_renderer", None)
    if renderer is None:
        return "tight"
    fig.set_dpi(DPI)  # measured at the dpi it is saved at, as savefig measures it
    return fig.get_tightbbox(renderer()).padded(matplotlib.rcParams["savefig.pad_inches"])


def write_record(
    run_dir: Path, record: RunRecord | dict, trace: pd.DataFrame | None = None, timing: Iterable[str] = ()
) -> dict[str, Any]:
    """The run's row and trace; the row goes last and marks the record complete. Returns the row.
    The row's timing columns are the record's (RunRecord's "timing" fields) and a task's `timing`
    among its extra columns."""
    if trace is not None:
        write_table(trace, run_dir / TRACE, timing=TRACE_TIMING)
    row = record.row() if isinstance(record, RunRecord) else record
    write_table(pd.DataFrame([row]), run_dir / RUN, timing=RunRecord.columns("timing") | set(timing))
    return row


def unwritable(err: OSError, run_dir: Path) -> str | None:
    """One line for a folder a run cannot write to (read-only, not ours, a full disk, a file where a
    folder must go); None when the error is something else."""
    import errno

    where = Path(err.filename).parent if err.filename else run_dir
    elsewhere = "choose another folder (hydra.run.dir=..., hydra.sweep.dir=...)"
    reason = os.strerror(err.errno) if err.errno else str(err)
    if err.errno in (errno.ENOSPC, errno.EDQUOT):  # "make it writable" would send the user astray
        full = "the disk is full" if err.errno == errno.ENOSPC else "the disk quota is used up"
        return f"cannot write to {where}: {full} ({reason}); free some space there, or {elsewhere}"
    if err.errno in (errno.ENOTDIR, errno.EEXIST) and err.filename:
        blocker = file_in_the_way(Path(err.filename))
        if blocker is None:
            return None
        return f"cannot make the folder {err.filename}: {blocker} is a file, not a folder; {elsewhere}"
    if err.errno not in (errno.EACCES, errno.EPERM, errno.EROFS):
        return None
    return f"cannot write to {where}: {reason}; make it writable or {elsewhere}"


def needs_trace(row: dict[str, Any]) -> bool:
    """Does this record come with a trace? A finished optimise run always writes one."""
    return row.get("task") == "optimise" and row.get("status") == "ok"


def damage(run_dir: Path) -> str | None:
    """What is wrong with a run's record, as a full disk, a shared file system or a killed node
    leaves it (an empty or cut-off Parquet file, a row-less table, a trace gone); None when there is
    nothing wrong."""
    run = Path(run_dir) / RUN
    if run.is_file() and run.stat().st_size and not (Path(run_dir) / TRACE).is_file():
        try:
            row = pd.read_parquet(run).iloc[0].to_dict()
        except (OSError, ValueError, IndexError):
            row = {}
        if needs_trace(row):
            return f"{TRACE} is missing"
    for name in (RUN, TRACE):
        path = Path(run_dir) / name
        if not path.is_file():
            continue
        if path.stat().st_size == 0:
            return f"{name} is empty"
        try:
            table = pd.read_parquet(path)
        except (OSError, ValueError) as err:  # pyarrow's ArrowInvalid is a ValueError
            return f"{name} is unreadable ({str(err).splitlines()[0]})"
        if name == RUN and len(table) != 1:
            return f"{name} holds {len(table)} rows, not 1"
    return None


def discard(run_dir: Path) -> None:
    """Remove a damaged record's tables, so the run reads as not done until it is run again."""
    for name in (RUN, TRACE):
        for path in (Path(run_dir) / name, (Path(run_dir) / name).with_suffix(".csv")):
            path.unlink(missing_ok=True)


def is_complete(run_dir: Path) -> bool:
    """Has this run finished writing a whole record (successfully or as a recorded failure)?"""
    return (Path(run_dir) / RUN).is_file() and damage(run_dir) is None


def read_row(run_dir: Path) -> dict[str, Any]:
    """A finished run's row, as `write_record` returned it."""
    row: dict[str, Any] = pd.read_parquet(Path(run_dir) / RUN).iloc[0].to_dict()
    return row


def flatten(prefix: str, params: dict[str, Any]) -> dict[str, Any]:
    """{'width': 6} -> {'puzzle.width': 6}, with nested values written as strings."""
    return {
        f"{prefix}.{k}": (v if isinstance(v, (int, float, str, bool)) or v is None else str(v))
        for k, v in params.items()
        if not k.startswith("_")
    }
