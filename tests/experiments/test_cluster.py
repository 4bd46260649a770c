"""How the Slurm launcher cuts sweeps into jobs and follows them (experiments/cluster.py), without a cluster."""

import pytest

from experiments.cluster import GONE, chunks, parse_queue, state_of, wait_for


def test_chunks_keep_order_and_cover_every_run():
    assert chunks(list(range(7)), 3) == [[0, 1, 2], [3, 4, 5], [6]]
    assert chunks(list(range(1000)), 50)[-1] == list(range(950, 1000))
    assert len(chunks(list(range(1000)), 50)) == 20
    with pytest.raises(ValueError, match="runs per job must be >= 1"):
        chunks([1], 0)


def test_squeue_lines_become_one_state_per_array_task():
    states = parse_queue("7_[3-5%8]|PENDING\n7_2|RUNNING\n7_1|CANCELLED by 0\n9|COMPLETED\n8_[0,4]|PENDING\n")
    assert states == {
        "7_3": "PENDING",
        "7_4": "PENDING",
        "7_5": "PENDING",
        "7_2": "RUNNING",
        "7_1": "CANCELLED by 0",
        "9": "COMPLETED",
        "8_0": "PENDING",
        "8_4": "PENDING",
    }
    assert state_of("7_0", states) == GONE  # purged from the controller: ended
    assert state_of("9_0", {"9": "RUNNING"}) == "RUNNING"


def test_the_wait_ends_for_cancelled_and_vanished_jobs_and_never_before_a_running_one_ends():
    views = iter(
        [
            {"1_0": "RUNNING", "1_1": "PENDING", "1_2": "PENDING"},
            None,  # the controller did not answer: nothing is decided
            {"1_0": "RUNNING", "1_1": "CANCELLED by 0"},  # 1_2 is gone (a cancelled pending task)
            {"1_0": "COMPLETING"},
            {},
        ]
    )
    results = {0: [False, False, False, False, True]}
    calls = []

    def finished(i):
        calls.append(i)
        return results.get(i, [False] * 5)[min(sum(c == i for c in calls) - 1, 4)]

    states = wait_for(["1_0", "1_1", "1_2"], finished, poll=0, grace=0, ask=lambda: next(views))
    assert states == ["COMPLETED", "CANCELLED", GONE]
