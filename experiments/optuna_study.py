"""Where a tuning study lives: the one place that turns `hydra.sweeper.storage` and `study_name` into an
open Optuna study, for the sweeper that asks and tells and for a trial's job that reports to it (racing).

A storage is a database URL (`sqlite:///{sweep_dir}/optuna.db`, the default; `postgresql://...`), or
`journal:<path>` (`journal` alone: `journal:{sweep_dir}/optuna.journal`), Optuna's journal file: an append-only log with a lock that works on a shared (NFS)
file system, which is what trials running as Slurm jobs on several nodes need. `{sweep_dir}` is
replaced by the sweep's folder. Optuna is imported only when a study is opened.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from hydra.errors import HydraException

if TYPE_CHECKING:
    from optuna import Study
    from optuna.pruners import BasePruner
    from optuna.samplers import BaseSampler
    from optuna.storages import BaseStorage

DEFAULT_STORAGE = "sqlite:///<folder>/optuna.db"
JOURNAL = "journal:"
PRUNED = "pruned"  # the user attribute a racing trial's job sets when the pruner stopped it (racing.py)


class SweeperError(HydraException):
    """A mistake in hydra.sweeper.*: experiments.run prints it as one line."""


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
        return JournalStorage(JournalFileBackend(str(path))), storage
    except OSError as err:
        raise SweeperError(
            f"hydra.sweeper.storage={storage}: cannot open the journal file ({err.strerror or err})"
        ) from None


def open_study(
    storage: str | None,
    name: str,
    sampler: BaseSampler | None = None,
    direction: str = "minimize",
    pruner: BasePruner | None = None,
) -> Study:
    """The study `name` in `storage`, created or loaded (a re-run continues it)."""
    import optuna
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
    except SQLAlchemyError as err:  # a server that does not answer, a file that cannot be opened
        raise SweeperError(
            f"hydra.sweeper.storage={shown}: cannot open the study's database "
            f"({' '.join(str(getattr(err, 'orig', None) or err).split())})"
        ) from None
    if study.direction.name.lower() != direction:
        raise SweeperError(
            f"hydra.sweeper: the study {name!r} in {shown} was made to {study.direction.name.lower()}, "
            f"not {direction}; give another hydra.sweeper.study_name"
        )
    return study


def dashboard(storage: str) -> str:
    """The optuna-dashboard command that opens this storage."""
    return f"optuna-dashboard {storage.removeprefix(JOURNAL)}"
