"""hydra/launcher=slurm: Hydra's submitit launcher, with many runs per job, a wait that ends, and
jobs that requeue on a time limit or pre-emption and continue from their runs' checkpoints.

Hydra finds launchers only under the `hydra_plugins` package, so this thin class lives here; what it
adds (chunks of runs, following jobs through the controller) is in experiments/cluster.py.

Why a job waits for its run before it requeues (`Chunk`): Slurm warns a job with submitit's signal
(USR2, `signal_delay_s` before its time limit, or `scancel --signal=USR2` from a scheduler that
pre-empts). submitit's own handler would call `scontrol requeue` and exit at once, inside a step of the
search, losing what it did since its last checkpoint (up to core.checkpoint.EVERY seconds). Instead the
signal asks the run to stop (core.interrupt: the search stops at its next step boundary and writes
checkpoint.pkl and an interrupted record), and only when the run has ended does the job hand over to
submitit's handler, which re-dumps the job (`Chunk.checkpoint`: the same runs), requeues it and exits
without a result, so the sweep keeps waiting. The requeued job runs the same configs in the same run
folders: finished runs are skipped, the interrupted one continues from its checkpoint. A job whose runs
all finished before the signal returns its results and is not requeued.
"""

import logging
import os
import signal
import sys
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hydra.core.config_store import ConfigStore
from hydra.core.singleton import Singleton
from hydra.core.utils import JobReturn, JobStatus, filter_overrides
from hydra_plugins.hydra_submitit_launcher.config import BaseQueueConf, SlurmQueueConf
from hydra_plugins.hydra_submitit_launcher.submitit_launcher import SlurmLauncher
from omegaconf import OmegaConf

from core import interrupt
from experiments.cluster import chunks, wait_for

log = logging.getLogger(__name__)


class Chunk:
    """What a Slurm job runs: its runs one after another (each resumes from its own record and
    checkpoint). submitit's checkpoint protocol: on its signal the job is re-dumped as
    `checkpoint(calls)` returns it and requeued; see the module's docstring for when."""

    def __init__(self, launcher: "ChunkedSlurmLauncher") -> None:
        self.launcher = launcher

    def __call__(self, calls: list[tuple[Any, ...]]) -> list[JobReturn]:
        import submitit

        usr = submitit.JobEnvironment._usr_sig()  # USR2, unless SUBMITIT_PREEMPT_SIGNAL says otherwise
        requeue = signal.getsignal(usr)  # submitit's: re-dump, `scontrol requeue`, exit without a result
        warned = threading.Event()

        def on_warning(signum: int, frame: Any) -> None:
            """Stop the running search at its next step boundary (the watcher of core.interrupt, which
            reads every handled signal, already has; this covers a signal between two runs)."""
            warned.set()
            interrupt.request()

        signal.signal(usr, on_warning)  # left in place after the runs: a finished job never requeues
        returns: list[JobReturn] = []
        try:
            for call in calls:
                if warned.is_set():
                    break
                returns.append(self.launcher(*call))
        except KeyboardInterrupt:  # a run stopped by a signal wrote its record (and its checkpoint)
            if not warned.is_set():
                raise  # SIGTERM: cancelled, or requeued by Slurm itself; the job ends without a result
        if len(returns) < len(calls):
            if not callable(requeue):
                raise KeyboardInterrupt
            print(f"requeue: stopped after {len(returns)} of {len(calls)} runs; requeueing", flush=True)
            requeue(usr, None)  # requeues and exits; too many time-outs: an error result instead
        return returns

    def checkpoint(self, calls: list[tuple[Any, ...]]) -> Any:
        """The job to requeue: the same runs (the finished ones are skipped, the stopped one continues)."""
        import submitit

        return submitit.helpers.DelayedSubmission(self, calls)


@dataclass
class ChunkedSlurmConf(SlurmQueueConf):
    _target_: str = "hydra_plugins.puzzlelab_launcher.slurm_launcher.ChunkedSlurmLauncher"
    runs_per_job: int = 1  # runs done one after another in each Slurm job (array task)
    poll_s: float = 2.0  # how often the controller is asked about the sweep's jobs
    max_num_timeout: int = 3  # requeues on reaching the time limit (pre-emptions are not counted)


ConfigStore.instance().store(
    group="hydra/launcher", name="puzzlelab_slurm", node=ChunkedSlurmConf, provider="puzzlelab"
)


class ChunkedSlurmLauncher(SlurmLauncher):
    """One Slurm job array per sweep; each array task runs `runs_per_job` runs in one process."""

    def __init__(self, runs_per_job: int = 1, poll_s: float = 2.0, **params: Any) -> None:
        if not isinstance(runs_per_job, int) or runs_per_job < 1:
            sys.exit(f"error: hydra.launcher.runs_per_job must be a whole number >= 1, got {runs_per_job!r}")
        super().__init__(**params)
        self.runs_per_job, self.poll_s = runs_per_job, poll_s

    def run_chunk(self, calls: list[tuple[Any, ...]]) -> list[JobReturn]:
        """Inside a job: the chunk's runs, one after another (each resumes from its own record)."""
        return Chunk(self)(calls)

    def executor(self) -> Any:
        """A submitit executor with this launcher's Slurm parameters (as Hydra's launcher builds it)."""
        import submitit

        init_keys = {"submitit_folder", "max_num_timeout"}
        executor = submitit.AutoExecutor(
            cluster=self._EXECUTOR,
            folder=self.params["submitit_folder"],
            slurm_max_num_timeout=self.params["max_num_timeout"],
        )
        generic = set(OmegaConf.structured(BaseQueueConf).keys())
        executor.update_parameters(
            **{k if k in generic else f"slurm_{k}": v for k, v in self.params.items() if k not in init_keys}
        )
        return executor

    def launch(self, job_overrides: Sequence[Sequence[str]], initial_job_idx: int) -> Sequence[JobReturn]:
        assert self.config is not None
        sweep_dir = Path(str(self.config.hydra.sweep.dir))
        sweep_dir.mkdir(parents=True, exist_ok=True)
        if "mode" in self.config.hydra.sweep:
            os.chmod(sweep_dir, mode=int(str(self.config.hydra.sweep.mode), 8))
        calls = []
        for idx, overrides in enumerate(job_overrides, start=initial_job_idx):
            log.info(f"\t#{idx} : {' '.join(filter_overrides(overrides))}")
            calls.append(
                (list(overrides), "hydra.sweep.dir", idx, f"job_id_for_{idx}", Singleton.get_state())
            )
        groups = chunks(calls, self.runs_per_job)
        jobs = self.executor().map_array(Chunk(self), groups)
        log.info(f"Slurm: {len(calls)} runs in {len(jobs)} jobs ({self.runs_per_job} per job) -> {sweep_dir}")
        states = wait_for(
            [job.job_id for job in jobs],
            lambda i: jobs[i].paths.result_pickle.exists(),
            poll=self.poll_s,
            requeued=lambda i: print(
                f"requeued: Slurm job {jobs[i].job_id} (pre-empted or at its time limit); its runs continue "
                "from their checkpoints when it starts again",
                flush=True,
            ),
        )
        returns: list[JobReturn] = []
        lost = []
        for job, group, state in zip(jobs, groups, states):
            try:
                if state != "COMPLETED":
                    raise RuntimeError(state)
                returns.extend(job.results()[0])
            except Exception as err:  # cancelled, killed or failed outside the runs: no returns
                lost.append(f"{job.job_id} ({state if state != 'COMPLETED' else type(err).__name__})")
                # no return value and no job config (hydra_cfg): the Optuna sweeper leaves such a trial to
                # a re-run; COMPLETED, as Hydra's basic sweeper reads every return value
                returns.extend(JobReturn(overrides=call[0], status=JobStatus.COMPLETED) for call in group)
        if lost:
            runs = sum(len(g) for g, s in zip(groups, states) if s != "COMPLETED")
            print(
                f"missing: {len(lost)} of {len(jobs)} Slurm jobs ended without finishing ({', '.join(lost)}); "
                f"up to {runs} runs have no record. Re-run the same command with hydra.sweep.dir={sweep_dir} "
                "to run only those.",
                file=sys.stderr,
            )
        return returns
