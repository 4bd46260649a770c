"""Sweeps on a Slurm cluster: many runs per job, and jobs followed through the controller.

Why not submitit's own wait: submitit reads a job's state from `sacct` (slurm accounting). Where
accounting is off, `sacct` fails, every state reads UNKNOWN, which submitit counts as not finished,
and a job cancelled before it wrote its result file is waited for forever. `squeue --states=all`
asks the controller, which every cluster has: a job it lists as pending or running is waited for;
a job in any other state, or no longer listed (ended more than MinJobAge ago), has ended.

Why chunks: a Slurm job pays Python's start-up and numba's compilation before its first run; for
short runs that costs more than the search. A chunk runs several runs, one after the other, in one
job; each run still writes (and is resumed from) its own record.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")

# Slurm's job states in which a job has not ended (squeue --help, JOB STATE CODES).
ACTIVE = {
    "PENDING",
    "CONFIGURING",
    "RUNNING",
    "COMPLETING",
    "REQUEUED",
    "REQUEUE_FED",
    "REQUEUE_HOLD",
    "RESIZING",
    "RESV_DEL_HOLD",
    "SIGNALING",
    "STAGE_OUT",
    "SUSPENDED",
    "STOPPED",
}
GONE = "GONE"  # the controller no longer lists the job: it ended a while ago
WAITING_AGAIN = {"PENDING", "REQUEUED", "REQUEUE_FED", "REQUEUE_HOLD"}  # a job that ran, seen here: requeued


def chunks(items: Sequence[T], size: int) -> list[list[T]]:
    """`items` cut into consecutive lists of at most `size` (the last may be shorter)."""
    if size < 1:
        raise ValueError(f"runs per job must be >= 1, got {size}")
    return [list(items[i : i + size]) for i in range(0, len(items), size)]


def parse_queue(text: str) -> dict[str, str]:
    """`squeue -o "%i|%T %S"` lines -> {job id: "state start-time"}; a pending array range 7_[2-5]
    becomes 7_2 ... 7_5."""
    states: dict[str, str] = {}
    for line in text.splitlines():
        if "|" not in line:
            continue
        job, state = (part.strip() for part in line.split("|", 1))
        main, _, task = job.partition("_")
        if task.startswith("["):
            for span in task.strip("[]").split("%")[0].split(","):
                first, _, last = span.partition("-")
                for index in range(int(first), int(last or first) + 1):
                    states[f"{main}_{index}"] = state
        else:
            states[job] = state
    return states


def queue_states() -> dict[str, str] | None:
    """The controller's view of this user's jobs, or None when it cannot be asked just now."""
    try:
        out = subprocess.run(
            ["squeue", "--me", "--states=all", "--noheader", "--format=%i|%T %S"],
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    return parse_queue(out)


def state_of(job_id: str, states: dict[str, str]) -> str:
    """A job's state, or GONE; an array task not listed on its own falls back to its array's line."""
    return states.get(job_id) or states.get(job_id.split("_")[0]) or GONE


def wait_for(
    job_ids: Sequence[str],
    finished: Callable[[int], bool],
    poll: float = 2.0,
    grace: float = 15.0,
    ask: Callable[[], dict[str, str] | None] = queue_states,
    requeued: Callable[[int], None] | None = None,
) -> list[str]:
    """Wait until every job has ended; returns each job's last state (COMPLETED when it wrote its result).

    `finished(i)` says whether job i's result file exists. A job that has ended without one gets
    `grace` seconds for the file to show on a slow shared file system before it counts as lost.
    `requeued(i)` is called when job i, seen running, is seen waiting again or running from a later start
    time (pre-empted or at its time limit, and requeued: it is waited for as before). The start time
    catches a requeue whose wait fell between two polls.
    """
    last = dict.fromkeys(range(len(job_ids)), "PENDING")
    ran: dict[int, str] = {}  # job -> the start time it was seen running with
    ended_at: dict[int, float] = {}
    waiting = set(last)
    while waiting:
        states = ask()
        now = time.monotonic()
        for i in sorted(waiting):
            if finished(i):
                last[i] = "COMPLETED"
                waiting.discard(i)
                continue
            if states is None:
                continue
            state, *rest = state_of(job_ids[i], states).split()  # "CANCELLED by 0" -> CANCELLED
            again = False
            if state == "RUNNING":
                started = rest[-1] if rest else ""
                again = ran.get(i, started) != started
                ran[i] = started
            elif state in WAITING_AGAIN and i in ran:
                del ran[i]
                again = True
            if again and requeued is not None:
                requeued(i)
            if state in ACTIVE:
                continue
            last[i] = state
            ended_at.setdefault(i, now)
            if now - ended_at[i] >= grace:
                waiting.discard(i)
        if waiting:
            time.sleep(poll)
    return [last[i] for i in range(len(job_ids))]
