"""Where a tuning study lives: the one place that turns `hydra.sweeper.storage` and `study_name` into an
open Optuna study, for the sweeper that asks and tells and for a trial's job that reports to it (racing).

A storage is a database URL (`sqlite:///{sweep_dir}/optuna.db`, the default; `postgresql://...`), or
`journal:<path>` (`journal` alone: `journal:{sweep_dir}/optuna.journal`), Optuna's journal file: an
append-only log with a lock that works on a shared (NFS) file system, which is what trials running as
Slurm jobs on several nodes need. `{sweep_dir}` is replaced by the sweep's folder. Optuna is imported
only when a study is opened.

A study carries its identity (user attribute IDENTITY): what was searched (each setting's interval or
choices), the direction, and the settings that say what a trial measures (task, budget, puzzle,
optimizer). A sweep that opens a study made with another identity is refused in one line naming what
differs: its trials would otherwise mix with the study's, and the study's best would pass as its own.

A journal whose last record was cut (a writer killed mid-write, a full disk) is cut back to its last
whole record when opened (the cut bytes are kept beside it): Optuna reads past a cut end, but appends
its next record to it, and the study cannot be read again. Other damage, to a journal or an SQLite
file, is one line saying which file and how to recover.

A trial sees the study as its batch found it (AsOf): its racing pruner judges it against the trials
told before its batch, and the seeded sampler proposes it from those and the batch's trials asked
before it (as running), so neither depends on when the batch's trials were told.
"""

from __future__ import annotations

import copy
import json
import os
import re
import shlex
import sys
import time
from collections.abc import Container, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hydra.errors import HydraException

if TYPE_CHECKING:
    from optuna import Study
    from optuna.distributions import BaseDistribution
    from optuna.pruners import BasePruner
    from optuna.samplers import BaseSampler
    from optuna.storages import BaseStorage
    from optuna.study import StudyDirection
    from optuna.trial import FrozenTrial, TrialState

DEFAULT_STORAGE = "sqlite:///<folder>/optuna.db"
JOURNAL = "journal:"
PRUNED = "pruned"  # the user attribute a racing trial's job sets when the pruner stopped it (racing.py)
BATCH = "puzzlelab.batch"  # a trial's user attribute: the first trial number of its batch (the sweeper's)
IDENTITY = "puzzlelab.identity"  # the study's user attribute: what its trials search and measure
SEARCH = "search:"  # an identity key of a searched setting: "search:optimizer.t_start"
SHOWN_DIFFERENCES = 3  # a refusal names this many differences, then how many more


class SweeperError(HydraException):
    """A mistake in hydra.sweeper.*: experiments.run prints it as one line."""


class AsOf:
    """The study as a trial's batch found it: its trials numbered below `before` (the batch's first; all
    of them when None, a trial asked before batches were kept), as they are now. For a sampler asking
    trial `asking`, also the trials of its batch asked before it, as they were then (RUNNING, with their
    settings, no value and no reports: in an unbroken sweep they run beside it), and itself: a trial's
    proposal is the same whether they were told since (a study first run with fewer trials, its last
    batch smaller) or not. It answers what Optuna's pruners and samplers read of a study (`direction`,
    `directions`, `best_trial`, `get_trials`, `_get_trials`, `trials`, `_storage.get_all_trials`) from
    these trials alone, read afresh as the study reads them (`use_cache` is the study's); what a
    sampler writes (a trial's system attributes) goes to the study's storage."""

    def __init__(self, study: Study, before: int | None, asking: int | None = None) -> None:
        self.study, self.before, self.asking = study, before, asking
        self.direction: StudyDirection = study.direction
        self.directions = study.directions
        self.study_name = study.study_name
        self._study_id = study._study_id
        self._storage = ViewedStorage(study._storage, self)

    def _is_multi_objective(self) -> bool:
        return len(self.directions) > 1

    def shown(self, trial: FrozenTrial) -> FrozenTrial | None:
        """The trial as this view shows it, or None when it is not in it."""
        from optuna.trial import TrialState

        if self.before is None or trial.number < self.before or trial.number == self.asking:
            return trial
        if self.asking is None or trial.number > self.asking:
            return None
        asked = copy.copy(trial)  # of the batch, asked before `asking`: as it was then
        asked.state, asked.values, asked.intermediate_values = TrialState.RUNNING, None, {}
        asked.datetime_complete = None
        return asked

    def _get_trials(
        self, deepcopy: bool = True, states: Container[TrialState] | None = None, use_cache: bool = False
    ) -> list[FrozenTrial]:
        found = (self.shown(t) for t in self.study._get_trials(deepcopy=False, use_cache=use_cache))
        trials = [t for t in found if t is not None and (states is None or t.state in states)]
        return copy.deepcopy(trials) if deepcopy else trials

    def get_trials(
        self, deepcopy: bool = True, states: Container[TrialState] | None = None
    ) -> list[FrozenTrial]:
        return self._get_trials(deepcopy, states)

    @property
    def trials(self) -> list[FrozenTrial]:
        return self.get_trials()

    @property
    def best_trial(self) -> FrozenTrial:
        """The best complete trial, the lowest number among equals."""
        from optuna.study import StudyDirection
        from optuna.trial import TrialState

        done = [t for t in self.get_trials(False, states=(TrialState.COMPLETE,)) if t.value is not None]
        if not done:
            raise ValueError("no trial is complete yet")
        sign = -1.0 if self.direction == StudyDirection.MAXIMIZE else 1.0
        return min(done, key=lambda t: (sign * float(t.value), t.number))  # type: ignore[arg-type]


class ViewedStorage:
    """A study's storage as an AsOf view reads it: the study's trials are the view's (a sampler may read
    them here, as GridSampler does); all else, writes too, is the storage's."""

    def __init__(self, storage: BaseStorage, view: AsOf) -> None:
        self.storage, self.view = storage, view

    def get_all_trials(
        self, study_id: int, deepcopy: bool = True, states: Container[TrialState] | None = None
    ) -> list[FrozenTrial]:
        if study_id != self.view._study_id:
            return self.storage.get_all_trials(study_id, deepcopy, states)
        return self.view._get_trials(deepcopy, states)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.storage, name)


def located(storage: str | None, sweep_dir: Path) -> str | None:
    """The storage setting with `{sweep_dir}` replaced by the sweep's folder; `journal` alone is the
    journal file `optuna.journal` there (braces need quoting on a command line; this does not)."""
    if storage is None:
        return None
    if str(storage) == JOURNAL.rstrip(":"):
        return f"{JOURNAL}{sweep_dir / 'optuna.journal'}"
    return str(storage).replace("{sweep_dir}", str(sweep_dir))


def default_name(study_name: str | None, sweep_dir: Path) -> str:
    """The study's name: as given, else `<study>/<sweep folder name>`."""
    return study_name or f"{sweep_dir.parent.name}/{sweep_dir.name}"


def make_folder(folder: Path, shown: str) -> None:
    """The folder a file storage needs, or one line saying why it cannot be made."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise SweeperError(
            f"hydra.sweeper.storage={shown}: cannot make the folder {folder} for the study's file "
            f"({err.strerror or err}); give a folder you can write, or null to keep the study in memory"
        ) from None


@dataclass
class JournalScan:
    """How much of a journal file is whole: `records` whole records in its first `end` bytes, then
    either nothing, a cut last record of `cut` bytes, or a damaged line (its number, `bad_line`)."""

    records: int = 0
    end: int = 0
    cut: int = 0
    bad_line: int | None = None


def scan_journal(path: Path) -> JournalScan:
    """Read the journal line by line as Optuna does: a record is one JSON object on a line of its own."""
    scan = JournalScan()
    with open(path, "rb") as f:
        for number, line in enumerate(f, 1):
            if not line.endswith(b"\n"):  # only the last line can lack one
                scan.cut = len(line)
                break
            try:
                record = json.loads(line)
            except ValueError:  # not JSON, or not UTF-8
                record = None
            if not isinstance(record, dict) or "op_code" not in record:
                scan.bad_line = number
                break
            scan.records, scan.end = scan.records + 1, scan.end + len(line)
    return scan


def damaged_journal(path: Path, scan: JournalScan, shown: str) -> SweeperError:
    """One line: which line of the journal is damaged, and how to keep the whole records before it."""
    file, aside = shlex.quote(str(path)), shlex.quote(f"{path}.damaged")
    where = f"hydra.sweeper.storage={shown}: the journal file {path} is damaged at line {scan.bad_line}"
    if not scan.records:
        return SweeperError(
            f"{where} (not an Optuna record, and none before it): move it aside with 'mv {file} {aside}' "
            "and run the same command again (the study starts over; runs already finished with the same "
            "settings are read back, not run again)"
        )
    return SweeperError(
        f"{where} (not an Optuna record; {scan.records} whole records before it): keep those with "
        f"'mv {file} {aside} && head -c {scan.end} {aside} > {file}' and run the same command again, or "
        "give the study a new journal with hydra.sweeper.storage=journal:<new file>"
    )


def recover_journal(path: Path, shown: str) -> None:
    """Cut a journal back to its last whole record when a writer stopped half-way through one (the cut
    bytes kept in `<journal>.cut-<time>`, with a note); one line for any other damage. The cut is made
    holding Optuna's own lock of the file, so a record another process is writing is never taken for
    a cut one."""
    if not path.is_file():
        return
    scan = scan_journal(path)
    if scan.bad_line is not None:
        raise damaged_journal(path, scan, shown)
    if not scan.cut:
        return
    from optuna.storages.journal import JournalFileSymlinkLock

    lock = JournalFileSymlinkLock(str(path))  # the lock JournalFileBackend takes to append
    lock.acquire()
    try:
        scan = scan_journal(path)
        if scan.bad_line is not None:
            raise damaged_journal(path, scan, shown)
        if not scan.cut:
            return
        aside = path.with_name(f"{path.name}.cut-{time.strftime('%Y%m%d-%H%M%S')}")
        try:
            with open(path, "rb") as f:
                f.seek(scan.end)
                aside.write_bytes(f.read())
            os.truncate(path, scan.end)
        except OSError as err:
            raise SweeperError(
                f"hydra.sweeper.storage={shown}: the journal file {path} ends in a cut record (a writer "
                f"stopped mid-write) and cannot be cut back ({err.strerror or err}): free the space or "
                f"permission, then run the same command again"
            ) from None
    finally:
        lock.release()
    print(
        f"note: the journal {path} ended in a cut record (a writer stopped mid-write): kept its "
        f"{scan.records} whole records; the cut {scan.cut} bytes are in {aside}",
        file=sys.stderr,
    )


def journal_path(storage: str | None) -> Path | None:
    """The journal file of a `journal:<path>` storage (None for any other)."""
    if storage is None or not storage.startswith(JOURNAL):
        return None
    return Path(storage.removeprefix(JOURNAL))


def damage(storage: str | None, shown: str, err: BaseException) -> SweeperError | None:
    """The one line for a study's file found damaged (a journal line, an SQLite file Optuna cannot
    read), or None when `err` is something else."""
    path = journal_path(storage)
    if path is not None:
        try:
            scan = scan_journal(path)
        except OSError:
            return None
        return None if scan.bad_line is None else damaged_journal(path, scan, shown)
    inner = err.__cause__ or err  # Optuna's StorageInternalError says only "during the commit"
    cause = " ".join(str(getattr(inner, "orig", None) or inner).split())
    if not shown.startswith("sqlite:///") or ("malformed" not in cause and "not a database" not in cause):
        return None
    file = shown.removeprefix("sqlite:///")
    quoted = shlex.quote(file)
    return SweeperError(
        f"hydra.sweeper.storage={shown}: the study's SQLite file is damaged ({cause}): move it aside with "
        f"'mv {quoted} {shlex.quote(file + '.damaged')}' and run the same command again (the study starts "
        "over; runs already finished with the same settings are read back, not run again), or give "
        "another hydra.sweeper.storage"
    )


def database(storage: str) -> str:
    """The storage URL as shown in messages (its password hidden), once it is known to be one and its
    sqlite folder is made: a mistake here is one line, not SQLAlchemy's traceback."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        url = make_url(storage)
    except ArgumentError:
        raise SweeperError(
            f"hydra.sweeper.storage={storage} is not a database URL; give one such as {DEFAULT_STORAGE}, "
            f"{JOURNAL}<folder>/optuna.journal (a journal file, for a cluster's shared file system), "
            "or null to keep the study in memory"
        ) from None
    shown = url.render_as_string(hide_password=True)
    if url.get_backend_name() == "sqlite" and url.database not in (None, "", ":memory:"):
        make_folder(Path(url.database).parent, shown)
    return shown


def storage_of(storage: str | None) -> tuple[str | BaseStorage | None, str]:
    """What Optuna opens for the setting (a URL, a journal storage, or None: memory), and how a
    message shows it."""
    if storage is None:
        return None, "memory"
    if not storage.startswith(JOURNAL):
        return storage, database(storage)
    from optuna.storages import JournalStorage
    from optuna.storages.journal import JournalFileBackend

    path = Path(storage.removeprefix(JOURNAL))
    if not path.name:
        raise SweeperError(
            f"hydra.sweeper.storage={storage} names no file; give {JOURNAL}<folder>/optuna.journal"
        )
    make_folder(path.parent, storage)
    try:
        recover_journal(path, storage)
        return JournalStorage(JournalFileBackend(str(path))), storage
    except OSError as err:
        raise SweeperError(
            f"hydra.sweeper.storage={storage}: cannot open the journal file ({err.strerror or err})"
        ) from None
    except ValueError as err:  # Optuna's reading of a line damaged since the scan above
        raise damage(storage, storage, err) or err from None


def open_study(
    storage: str | None,
    name: str,
    sampler: BaseSampler | None = None,
    direction: str = "minimize",
    pruner: BasePruner | None = None,
    identity: Mapping[str, str] | None = None,
    folder: Path | None = None,
) -> Study:
    """The study `name` in `storage`, created or loaded (a re-run continues it). With `identity` (the
    sweeper's), a study made with another is refused, and a new study is given it; `folder`: the sweep
    folder the storage is in, whose files (trials, tuned settings, report) a new study would share, so
    a refusal suggests another."""
    import optuna
    from optuna.exceptions import StorageInternalError
    from optuna.study import StudyDirection
    from sqlalchemy.exc import SQLAlchemyError

    opened, shown = storage_of(storage)
    try:
        study = optuna.create_study(
            storage=opened,
            study_name=name,
            sampler=sampler,
            pruner=pruner,
            direction=StudyDirection[direction.upper()],
            load_if_exists=True,
        )
    except ValueError as err:
        raise SweeperError(f"hydra.sweeper: the study {name!r} in {shown}: {err}") from None
    except ImportError as err:  # Optuna's own words name no module: its cause does
        module = getattr(err.__cause__, "name", None)
        raise SweeperError(
            f"hydra.sweeper.storage={shown}: its database driver is not installed"
            + (f" (no module {module}): pip install {module}" if module else ": install it")
            + f", or use {DEFAULT_STORAGE}"
        ) from None
    except (SQLAlchemyError, StorageInternalError) as err:  # a server that does not answer, a bad file
        cause = err.__cause__ if isinstance(err, StorageInternalError) and err.__cause__ else err
        raise damage(storage, shown, err) or SweeperError(
            f"hydra.sweeper.storage={shown}: cannot open the study's database "
            f"({' '.join(str(getattr(cause, 'orig', None) or cause).split())})"
        ) from None
    if study.direction.name.lower() != direction:
        raise SweeperError(
            f"hydra.sweeper: the study {name!r} in {shown} was made to {study.direction.name.lower()}, "
            f"not {direction}; give another hydra.sweeper.study_name"
        )
    if identity is not None:
        check_identity(study, dict(identity), shown, folder)
    return study


def describe(dist: BaseDistribution) -> str:
    """A distribution in Hydra's sweep syntax, exactly (the identity compares it as text)."""
    from optuna.distributions import CategoricalDistribution, FloatDistribution, IntDistribution

    if isinstance(dist, CategoricalDistribution):
        return f"choice({', '.join(json.dumps(c) for c in dist.choices)})"
    if isinstance(dist, IntDistribution) and dist.step != 1:
        return f"range({dist.low}, {dist.high + dist.step}, {dist.step})"
    if not isinstance(dist, IntDistribution | FloatDistribution):  # an older Optuna's kind
        return repr(dist)
    tags = [*(["int"] if isinstance(dist, IntDistribution) else []), *(["log"] if dist.log else [])]
    if isinstance(dist, FloatDistribution) and dist.step is not None:
        tags.append(f"step {dist.step!r}")
    interval = f"interval({dist.low!r}, {dist.high!r})"
    return f"tag({', '.join(tags)}, {interval})" if tags else interval


def identity_of(
    space: Mapping[str, BaseDistribution], direction: str, settings: Mapping[str, Any]
) -> dict[str, str]:
    """A study's identity as {key: text}: each searched setting's distribution (SEARCH + key), the
    direction, and each setting that says what a trial measures (dotted key: its value as JSON)."""
    out = {f"{SEARCH}{key}": describe(dist) for key, dist in sorted(space.items())}
    out["direction"] = direction
    out.update({key: json.dumps(value, sort_keys=True) for key, value in sorted(settings.items())})
    return out


def differences(study: Mapping[str, str], now: Mapping[str, str]) -> list[str]:
    """What differs between the study's identity and this sweep's, one phrase each."""
    out = []
    for key in sorted(study.keys() | now.keys(), key=lambda k: (not k.startswith(SEARCH), k)):
        then, here = study.get(key, "<unset>"), now.get(key, "<unset>")
        if then == here:
            continue
        if key.startswith(SEARCH):
            bare = key.removeprefix(SEARCH)
            if then == "<unset>":
                out.append(f"{bare} is searched here ({here}), not by the study")
            elif here == "<unset>":
                out.append(f"{bare} is not searched here, but by the study ({then})")
            else:
                out.append(f"{bare} searched in {here} here, {then} by the study")
        else:
            out.append(f"{key}={here} here, {then} in the study")
    return out


def new_name(study: Study) -> str:
    """A study name like this one's that its storage has not yet: `<name>-2`, `-3`, ..."""
    taken = {s.study_name for s in study._storage.get_all_studies()}
    base, number = study.study_name, 2
    if found := re.fullmatch(r"(.*)-(\d+)", base):
        base, number = found.group(1), int(found.group(2)) + 1
    while f"{base}-{number}" in taken:
        number += 1
    return f"{base}-{number}"


def free_folder(folder: Path) -> Path:
    """A folder beside this one that does not exist yet: `<folder>-2`, `-3`, ..."""
    number = 2
    while folder.with_name(f"{folder.name}-{number}").exists():
        number += 1
    return folder.with_name(f"{folder.name}-{number}")


def check_identity(study: Study, identity: dict[str, str], shown: str, folder: Path | None = None) -> None:
    """Give a new study this sweep's identity; refuse, in one line naming what differs, a study made
    with another. A study made before identities were kept is given this one when its trials searched
    the same distributions (all that it records of what they measured)."""
    stored = study.user_attrs.get(IDENTITY)
    if stored is None:
        searched = {
            f"{SEARCH}{key}": describe(dist)
            for trial in study.get_trials(deepcopy=False)
            for key, dist in trial.distributions.items()
        }
        now = {key: value for key, value in identity.items() if key.startswith(SEARCH)}
        found = differences(searched, now) if searched else []
    else:
        found = differences(stored, identity)
    if found:
        more = len(found) - SHOWN_DIFFERENCES
        raise SweeperError(
            f"hydra.sweeper: the study {study.study_name!r} in {shown} was made with other settings, and "
            f"its trials would mix with this sweep's: {'; '.join(found[:SHOWN_DIFFERENCES])}"
            + (f" (and {more} more)" if more > 0 else "")
            + f"; give this sweep a study of its own, e.g. hydra.sweeper.study_name={new_name(study)}"
            + (f" hydra.sweep.dir={free_folder(folder)}" if folder is not None else "")
            + ", or sweep with the study's settings to continue it"
        )
    if stored is None:
        study.set_user_attr(IDENTITY, identity)


def dashboard(storage: str) -> str:
    """The optuna-dashboard command that opens this storage."""
    return f"optuna-dashboard {storage.removeprefix(JOURNAL)}"
