"""The Hydra app: `python -m experiments.run [overrides]` runs one config; `-m` sweeps.

User mistakes end with one line naming the problem. In a sweep, a failed run is recorded as
failed (with its error) and the sweep goes on, and a sweep with any failed run exits non-zero. A
sweep's folder is named by its study and overrides, so the same command again resumes it: a run whose
record is complete and whose saved config is the one composed now is skipped; a failed, interrupted or
damaged run is run again (`resume.keep_failed=true` keeps failed ones); a run whose config changed is
refused in one line naming the keys (`resume.rerun_changed=true` runs it again).

Ctrl-C or SIGTERM ends a run at its optimiser's next budget check with its best so far recorded
(`stop_reason: interrupted`); a second Ctrl-C stops at once.
"""

from __future__ import annotations

from core import interrupt

# Ctrl-C while the app loads (seconds on a busy machine) ends in one line, as it does later.
with interrupt.ends_quietly("while starting; nothing was run", active=__name__ == "__main__"):
    import contextlib
    import hashlib
    import math
    import os
    import re
    import socket
    import sys
    import traceback
    from collections.abc import Sequence
    from pathlib import Path
    from typing import Any

    import hydra
    from hydra.core.hydra_config import HydraConfig
    from hydra.errors import HydraException
    from hydra.types import RunMode
    from hydra.utils import get_object
    from omegaconf import DictConfig, OmegaConf
    from omegaconf.errors import OmegaConfBaseException

    from core.checkpoint import FILE as CHECKPOINT
    from core.errors import InputError
    from core.space import LARGEST_COUNT as LARGEST
    from core.space import check_limits
    from experiments import overrides
    from experiments.build import build, flat
    from experiments.records import (
        CONFIG,
        REFUSED,
        RUN,
        UNRECORDED,
        RunRecord,
        damage,
        discard,
        forget_built,
        last_built,
        read_row,
        results_root,
        unwritable,
        write_config,
        write_record,
    )
    from experiments.schema import DEFAULT_EVALUATIONS, setup

GROUPS = ("puzzle", "optimizer", "task")
NOT_COMPARED = ("progress", "resume")  # settings that do not change what a run finds
SWEEP_PID = "PUZZLELAB_SWEEP_PID"  # set by the sweep's process, read by its local workers
NOT_IN_NAME = ("experiment", "smoke", "study", "resume", "progress")  # the study's name says these
INTERRUPTED = interrupt.INTERRUPTED  # the exit code of a run stopped by Ctrl-C, as a shell reports it
LONGEST_SECONDS = 1e9  # a time limit's most, well inside what a timer thread can wait (threading.TIMEOUT_MAX)


def sweep_name(task_overrides: Sequence[str]) -> str:
    """A sweep folder's name from its command line, so the same command finds the same folder and
    continues it: "default" for none, else what it changes (less Hydra's settings and what the study's
    name says), groups first and the seed last, a key without its group where that is unambiguous
    (`optimizer=ga,sa,cxpb=0.5,0.9,seed=range(3)`); past 80 characters, the first settings, how many
    more and a hash of them all (`optimizer=ga,sa,+3_more_1a2b3c4d`), the same for the same command."""
    given = {}
    for o in task_overrides:
        key, sep, value = str(o).lstrip("+").partition("=")
        bare = key.lstrip("~")
        if not bare.startswith(("hydra.", "hydra/")) and bare.split(".")[0] not in NOT_IN_NAME:
            given[key] = sep + value
    if not given:
        return "default"
    keys = sorted(given, key=lambda k: (k == "seed", "." in k, k))  # groups, then settings, then the seed
    rests = [k.lstrip("~").split(".", 1)[-1] for k in keys]
    reserved = {"seed", "budget", *GROUPS, *NOT_IN_NAME, *(k.lstrip("~").split(".")[0] for k in keys)}

    def short(key: str, rest: str) -> str:
        unambiguous = "." in key and rests.count(rest) == 1 and rest.split(".")[0] not in reserved
        return ("~" if key.startswith("~") else "") + rest if unambiguous else key

    items = [re.sub(r"[^\w.=,+\-()\[\]]", "_", short(k, r) + given[k]) for k, r in zip(keys, rests)]
    name = ",".join(items)
    if len(name) <= 80:
        return name
    digest = hashlib.sha1(",".join(k + given[k] for k in sorted(given)).encode()).hexdigest()[:8]
    for n in range(len(items) - 1, 0, -1):
        tail = f"+{len(items) - n}_more_{digest}"
        if len(",".join(items[:n])) + 1 + len(tail) <= 80:
            return f"{','.join(items[:n])},{tail}"
    tail = f"+{len(items) - 1}_more_{digest}" if len(items) > 1 else digest
    return f"{items[0][: 77 - len(tail)]}..,{tail}"


def with_sweep_dir(argv: list[str]) -> list[str]:
    """The command line, with the sweep folder its overrides name (unless it names one itself): set
    here once, so every job of the sweep, in any process, writes into the same folder, under
    $PUZZLELAB_RESULTS when that is set (as configs/config.yaml's folders are)."""
    given = overrides.parse(argv)
    if any(o.key_or_group == "hydra.sweep.dir" for o in given):
        return argv
    name = sweep_name([o.input_line or "" for o in given])
    return overrides.with_added(
        argv, f"hydra.sweep.dir='${{oc.env:PUZZLELAB_RESULTS,results}}/sweeps/${{study}}/{name}'"
    )


def note_choices(cfg: DictConfig) -> None:
    """Keep the config chosen in each group (two_opt_swap, not the class's two_opt) with the run."""
    choices = HydraConfig.get().runtime.choices
    cfg.choices = {group: choices.get(group) for group in GROUPS if choices.get(group)}


def check_seed(cfg: DictConfig) -> None:
    """A seed is a whole number >= 0 (numpy's generators refuse the rest, with a traceback) that a
    record can store (at most 2^63 - 1)."""
    if not isinstance(cfg.seed, int) or isinstance(cfg.seed, bool) or cfg.seed < 0:
        raise InputError(f"seed must be a whole number >= 0, got {cfg.seed!r}; e.g. seed=3")
    if cfg.seed > LARGEST:
        raise InputError(f"seed must be at most 2^63 - 1 (what a record stores), got {cfg.seed}")


def default_seconds(cfg: DictConfig) -> float | None:
    """The time budget the configured optimiser declares for a run that sets none (`default_seconds`
    on its class: a constructive or time-driven solver, which cannot count evaluations)."""
    target = OmegaConf.select(cfg, "optimizer._target_")
    if not target:
        return None
    try:
        seconds: float | None = getattr(get_object(str(target)), "default_seconds", None)
    except Exception:  # a class that does not import fails, in one line, where the optimiser is built
        return None
    return seconds


def settle_budget(cfg: DictConfig) -> str:
    """The budget in force, written into the config (so config.yaml re-runs it), and a line that says
    it: what the user set; else the optimiser's own default time (`default_seconds`), else
    DEFAULT_EVALUATIONS."""
    budget = cfg.get("budget")
    if budget is None:
        return ""
    evaluations, seconds = budget.get("evaluations"), budget.get("seconds")
    check_limits(evaluations, seconds)
    own = default_seconds(cfg) if evaluations is None and seconds is None else None
    if own:
        budget.seconds = own
        return (
            f"budget: {budget.seconds:g} s (the default of optimizer="
            f"{OmegaConf.select(cfg, 'choices.optimizer')}; set budget.seconds or budget.evaluations to choose)"
        )
    if evaluations is None and seconds is None:
        budget.evaluations = DEFAULT_EVALUATIONS
        return (
            f"budget: {DEFAULT_EVALUATIONS:,} evaluations (the default; set budget.evaluations or "
            "budget.seconds to choose)"
        )
    parts = [
        f"{evaluations:,} evaluation{'' if evaluations == 1 else 's'}" if evaluations is not None else "",
        f"{seconds:g} s" if seconds else "",
    ]
    return "budget: " + " or ".join(p for p in parts if p) + (", whichever comes first" if all(parts) else "")


def check_seconds(cfg: DictConfig) -> None:
    """A time limit is one a stop timer can keep: past about 9.2e9 s (threading.TIMEOUT_MAX) the timer
    thread of a compiled search dies with a traceback and the run goes on without a limit, so a time
    past LONGEST_SECONDS is refused rather than ignored."""
    for key in ("budget.seconds", "task.seconds"):
        seconds = OmegaConf.select(cfg, key)
        if not isinstance(seconds, (int, float)) or isinstance(seconds, bool):
            continue
        if math.isinf(seconds) and seconds > 0:  # no end at all: the same word as budget's own check
            raise InputError(f"{key} must be finite, got {seconds}; leave {key} unset for no time limit")
        if seconds > LONGEST_SECONDS:
            raise InputError(
                f"{key}={seconds:g} is longer than a run can be timed (at most {LONGEST_SECONDS:g} s, about "
                f"{LONGEST_SECONDS / 3.156e7:.0f} years); give less, or leave {key} unset for no time limit"
            )


def prepare(cfg: DictConfig) -> str:
    """Check what a record must be able to store before any work; the budget line to print."""
    check_seed(cfg)
    check_seconds(cfg)
    return settle_budget(cfg)


def failure(cfg: DictConfig, error: BaseException) -> RunRecord:
    """A failed run's record: what was asked, and the one-line error."""
    seed = cfg.seed if isinstance(cfg.seed, int) else -1
    return RunRecord(
        task=OmegaConf.select(cfg, "choices.task") or "unknown",
        seed=seed,
        puzzle=OmegaConf.select(cfg, "choices.puzzle"),
        optimizer=OmegaConf.select(cfg, "choices.optimizer"),
        status="failed",
        error=f"{type(error).__name__}: {error}",
    )


def run_task(cfg: DictConfig, run_dir: Path) -> dict[str, Any]:
    """Build the configured task and run it: it writes the run's record and returns its row."""
    prepare(cfg)
    with interrupt.caught():
        row: dict[str, Any] = build(cfg.task, "task")(cfg, run_dir)
    return row


def own_checkpoint(cfg: DictConfig, run_dir: Path) -> None:
    """A checkpoint left in the run folder must be this run's (the task continues from it): else one
    line saying what differs, before config.yaml is written over. In a sweep run with
    resume.rerun_changed=true, another run's checkpoint is dropped instead."""
    if not (run_dir / CHECKPOINT).is_file():
        return
    from experiments.tasks.optimise import checkpoint_of

    try:
        checkpoint_of(cfg, run_dir).load()
    except InputError as err:
        if not OmegaConf.select(cfg, "resume.rerun_changed"):
            raise
        print(f"checkpoint dropped, run afresh: {run_dir}: {err}")
        (run_dir / CHECKPOINT).unlink()


def execute(cfg: DictConfig, run_dir: Path, multirun: bool) -> dict | None:
    """Run the configured task in `run_dir`, with one-line errors and failures recorded."""
    from experiments.tasks import trait

    forget_built()
    try:
        line = prepare(cfg)
        if line and not multirun and trait(cfg.get("task"), "budgeted"):
            print(line)  # a task with caps of its own (task.max_nodes) declares budgeted = False
        own_checkpoint(cfg, run_dir)
        write_config(cfg, run_dir)
        return run_task(cfg, run_dir)
    except (InputError, OmegaConfBaseException) as err:
        if not multirun:
            print(f"error: {err}", file=sys.stderr)
            sys.exit(2)
        record_failure(cfg, run_dir, err)
    except OSError as err:
        found(run_dir)
        folder = unwritable(err, run_dir)
        if folder is None:
            if not multirun:
                raise
            record_failure(cfg, run_dir, err, traceback.format_exc())
        elif not multirun:
            print(f"error: {folder}", file=sys.stderr)
            sys.exit(2)
        else:
            print(f"failed: {run_dir}: {folder}", file=sys.stderr)
            note_unrecorded(run_dir, folder)
            return None
    except Exception as err:  # a bug: keep the traceback, but let the sweep go on
        if not multirun:
            raise
        record_failure(cfg, run_dir, err, traceback.format_exc())
    print(f"failed: {run_dir}", file=sys.stderr)
    return None


def found(run_dir: Path) -> None:
    """What a run found whose files could not be written (a full disk), said on the console, so it is
    not lost with its record: the result line and the best layout found."""
    record = last_built()
    row = record.row() if record is not None else {}
    if row.get("best") is None:
        return
    from experiments.tasks.optimise import summary_line

    print(summary_line(row, run_dir).rsplit(" -> ", 1)[0] + " (not recorded: see below)")
    if row.get("best_genome"):
        print(f"best_genome: {row['best_genome']}")


def record_failure(cfg: DictConfig, run_dir: Path, err: BaseException, trace: str | None = None) -> None:
    """A failed run's record (and a bug's traceback beside it); a folder that takes no record is noted
    in the sweep's folder instead, so the sweep's summary still counts the run."""
    try:
        if trace is not None:
            (run_dir / "error.txt").write_text(trace)
        write_record(run_dir, failure(cfg, err))
    except OSError as write_err:
        note_unrecorded(run_dir, unwritable(write_err, run_dir) or str(write_err))


def note_unrecorded(run_dir: Path, reason: str) -> None:
    """Note, in the sweep's folder, a run that could not write its record (best effort: that folder may
    be read-only too, and then every run says so on the console)."""
    sweep_dir = Path(HydraConfig.get().sweep.dir)
    try:
        with open(sweep_dir / UNRECORDED, "a") as notes:
            notes.write(f"{run_dir}\t{reason}\n")
    except OSError:
        pass


def changed_keys(saved_path: Path, cfg: DictConfig) -> list[str]:
    """The settings whose saved value (config.yaml) differs from the one composed now, as
    "key (saved -> now)"; settings that cannot change a run's result are not compared."""
    saved = OmegaConf.to_container(OmegaConf.load(saved_path), resolve=True)
    now = OmegaConf.to_container(cfg, resolve=True)
    a, b = flat(saved), flat(now)
    keep = [k for k in sorted(a.keys() | b.keys()) if k.split(".")[0] not in NOT_COMPARED]
    return [f"{k} ({a.get(k, '<none>')} -> {b.get(k, '<none>')})" for k in keep if a.get(k) != b.get(k)]


def resumed(cfg: DictConfig, run_dir: Path) -> tuple[bool, float | None]:
    """In a sweep run again: (done, its objective) for a run already recorded; (False, None) when it
    must run (no record, a damaged one, a failed or interrupted one). A run whose config changed is
    refused in one line (a refusal file beside its record makes the sweep's summary count it)."""
    problem = damage(run_dir)
    if problem:
        print(f"damaged record, run again: {run_dir}: {problem}", file=sys.stderr)
        discard(run_dir)
        return False, None
    if not (run_dir / RUN).is_file():
        return False, None
    row = read_row(run_dir)
    if row.get("stop_reason") == "interrupted":
        print(f"interrupted before, run again: {run_dir}")
        return False, None
    if row.get("status") != "ok" and not cfg.resume.keep_failed:
        print(f"failed before, run again: {run_dir} ({row.get('error')})")
        return False, None
    changed = changed_keys(run_dir / CONFIG, cfg) if (run_dir / CONFIG).is_file() else []
    refusal = run_dir / REFUSED
    if changed and cfg.resume.rerun_changed:
        print(f"config changed, run again: {run_dir}: {', '.join(changed)}")
        refusal.unlink(missing_ok=True)
        return False, None
    if changed:
        line = (
            f"refused: {run_dir}: its saved config differs from the one composed now in "
            f"{', '.join(changed)}; run it again with resume.rerun_changed=true, or sweep into another "
            "folder with hydra.sweep.dir=..."
        )
        print(line, file=sys.stderr)
        refusal.write_text(line + "\n")
        return True, None
    refusal.unlink(missing_ok=True)
    print(f"skip (already complete): {run_dir}")
    return True, objective(row)


def objective(row: dict[str, Any] | None) -> float | None:
    """What a run returns to a sweeper that minimises (hydra/sweeper=optuna): its best score, or a
    tuning trial's statistic over its runs; None for a failed run or one without a score."""
    value = None if row is None else row.get("objective", row.get("best"))
    return None if value is None or value != value else float(value)


@hydra.main(version_base="1.3", config_path="../configs", config_name="config")
def app(cfg: DictConfig) -> float | None:
    hc = HydraConfig.get()
    multirun = hc.mode == RunMode.MULTIRUN
    run_dir = Path(hc.runtime.output_dir)
    if multirun:
        if interrupt.requested():  # the sweep is stopping: start nothing new
            raise KeyboardInterrupt
        watch_sweep(hc)
        cfg.progress = False
    else:
        interrupt.clear()
    note_choices(cfg)
    if multirun:
        with contextlib.suppress(InputError):  # `execute` records it as the run's failure
            prepare(cfg)  # as `execute` will: the config compared is the one a run would save
        done, value = resumed(cfg, run_dir)
        if done:
            return value
    row = execute(cfg, run_dir, multirun)
    if row is not None:
        from experiments.tasks.optimise import summary_line

        print(summary_line(row, run_dir) if row.get("best") is not None else f"done -> {run_dir}")
        if row.get("stop_reason") == "interrupted":
            if multirun:
                raise KeyboardInterrupt
            print(f"interrupted: the best so far is recorded in {run_dir}", file=sys.stderr)
            sys.exit(INTERRUPTED)
    return objective(row)


def watch_sweep(hc: Any) -> None:
    """In a local worker of a sweep (joblib), stop when the sweep's process dies (kill -9 of it leaves
    workers running otherwise). Not on a cluster, whose jobs outlive the process that submitted them."""
    pid, host = os.environ.get(SWEEP_PID, ":").split(":", 1)
    if pid and host == socket.gethostname() and overrides.local_workers(hc.launcher):
        interrupt.watch_parent(int(pid))


def main() -> None:
    """Entry point: set up, check the command line in one line per mistake, then let Hydra run it."""
    with interrupt.ends_quietly("while starting; nothing was run"):
        try:
            results_root()  # $PUZZLELAB_RESULTS set but empty, or a file: refused before it names a folder
            setup(overrides.search_dirs(sys.argv[1:]))
            overrides.check(sys.argv[1:])
            capped, note = overrides.cap_workers(sys.argv[1:])
        except InputError as err:
            sys.exit(f"error: {err}")
    if note:
        print(note, file=sys.stderr)  # stderr: `--cfg job` output stays YAML
    argv = sys.argv[1:]
    sys.argv[1:] = with_sweep_dir(capped)
    os.environ[SWEEP_PID] = f"{os.getpid()}:{socket.gethostname()}"
    from experiments import callbacks, sweep_lock

    callbacks.outcome.clear()
    os.environ.setdefault("HYDRA_FULL_ERROR", "1")  # Hydra raises to here instead of printing its own trace
    try:
        app()
    except OSError as err:  # Hydra making a folder it cannot (a read-only sweep or run folder)
        problem = unwritable(err, Path(err.filename or "."))
        if problem is None:
            raise
        sys.exit(f"error: {problem}")
    except (HydraException, OmegaConfBaseException) as err:
        sys.exit(f"error: {hydra_line(err)}")
    except ValueError as err:  # Hydra's check of its flags, as a traceback
        if not str(err).startswith("Only one of --run, --multirun, --cfg"):
            raise
        sys.exit(f"error: {err}; e.g. --cfg job shows the config of one run, without -m")
    except KeyboardInterrupt as stop:
        stop_workers()
        if isinstance(stop, sweep_lock.Ending):  # the runs are done; only the report is not
            sweep_lock.release(stop.sweep_dir / sweep_lock.LOCK)  # now, not only at exit (atexit)
            print(f"\n{stop.line()}", file=sys.stderr)
            sys.exit(128 + stop.signum)
        again = " ".join(["python -m experiments.run", *map(quoted, argv)])
        print(
            f"\ninterrupted: every finished run is recorded; run the same command again to resume: {again}",
            file=sys.stderr,
        )
        sys.exit(INTERRUPTED)
    if callbacks.outcome.get("failed"):
        sys.exit(1)


def hydra_line(err: Exception) -> str:
    """Hydra's error as one line. A sweep's values past the first are composed only when the sweep
    starts: one that does not fit (budget.evaluations=10,abc) says why, as the first value's would."""
    merging = re.match(r"Error merging override (\S+)", str(err))
    if merging:
        return overrides.one_line(err, [merging.group(1)])
    return str(err).strip().splitlines()[0]


def stop_workers() -> None:
    """End the local workers of an interrupted sweep now: joblib starts fresh idle ones after an
    interrupt, and those would otherwise wait minutes for work that never comes."""
    from joblib.externals.loky import reusable_executor

    executor = reusable_executor._executor  # None when no sweep started workers in this process
    if executor is not None:
        executor.shutdown(wait=False, kill_workers=True)


def quoted(arg: str) -> str:
    """A command-line word as a shell needs it again ('seed=range(3)' keeps its quotes)."""
    import shlex

    return shlex.quote(arg)


if __name__ == "__main__":
    main()
