"""The split of one allocation into useful / recovery / lost / unverified (DESIGN.md)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from trainbudget.reconcile.accounting import JobTimeline, clock_disagrees, split_job

H = 3600  # seconds per hour


def test_design_worked_example_job_101() -> None:
    # 8 GPUs, 00:00-10:00, step 1,000 at 10:00, checkpoint at step 800 written at 08:00
    # accepted, dies at 10:00 (NODE_FAIL): useful 64, lost 16 GPU-hours.
    job = JobTimeline(
        gpus=8, start_s=0, elapsed_s=10 * H, state="NODE_FAIL", has_progress=True,
        steps=((10 * H, 1000),), accepted_checkpoints=((8 * H, 800),), app_start_s=0,
    )  # fmt: skip
    split = split_job(job)
    assert [g / H for g in split.gpu_seconds(8)] == [64, 0, 16, 0]


def test_design_worked_example_job_102() -> None:
    # Starts 12:00 resuming from 800, back at 1,000 at 14:30, completes at 2,000 at 22:30
    # with a valid result: recovery 20 (12:00-14:30), useful 64 GPU-hours, of 84 allocated.
    job = JobTimeline(
        gpus=8, start_s=12 * H, elapsed_s=int(10.5 * H), state="COMPLETED", has_progress=True,
        result_valid=True, resumed_from_step=800, high_water_step=1000,
        steps=((int(14.5 * H), 1000), (int(22.5 * H), 2000)),
        app_start_s=12 * H, app_end_s=int(22.5 * H),
    )  # fmt: skip
    split = split_job(job)
    assert [g / H for g in split.gpu_seconds(8)] == [64, 20, 0, 0]


def test_no_progress_is_unverified_whatever_the_state() -> None:
    for state in ("COMPLETED", "FAILED", "NODE_FAIL"):
        split = split_job(JobTimeline(gpus=4, start_s=0, elapsed_s=7200, state=state))
        assert (split.useful_s, split.recovery_s, split.lost_s, split.unverified_s) == (
            0,
            0,
            0,
            7200,
        )


def test_clean_exit_with_invalid_result_is_lost() -> None:
    job = JobTimeline(gpus=2, start_s=0, elapsed_s=3600, state="COMPLETED", has_progress=True,
                      result_valid=False, app_end_s=3600)  # fmt: skip
    assert split_job(job).lost_s == 3600 and split_job(job).useful_s == 0


def test_failed_run_keeps_its_checkpoint() -> None:
    # A FAILED job whose checkpoint at 45 min was accepted: 45 min useful, 15 lost.
    job = JobTimeline(gpus=1, start_s=0, elapsed_s=3600, state="FAILED", has_progress=True,
                      accepted_checkpoints=((2700, 50),))  # fmt: skip
    split = split_job(job)
    assert (split.useful_s, split.lost_s) == (2700, 900)


def test_completed_without_end_event_keeps_only_to_the_checkpoint() -> None:
    job = JobTimeline(gpus=1, start_s=0, elapsed_s=3600, state="COMPLETED", has_progress=True,
                      accepted_checkpoints=((1800, 50),))  # fmt: skip
    split = split_job(job)
    assert (split.useful_s, split.lost_s) == (1800, 1800)


def test_running_tail_is_unverified_not_lost() -> None:
    job = JobTimeline(gpus=1, start_s=0, elapsed_s=3600, state="RUNNING", has_progress=True,
                      accepted_checkpoints=((1000, 10),))  # fmt: skip
    split = split_job(job)
    assert (split.useful_s, split.lost_s, split.unverified_s) == (1000, 0, 2600)


def test_dies_before_regaining_is_all_lost_beyond_its_checkpoint() -> None:
    # Resumed from 800, needed 1,000, died at step 900 without a new checkpoint.
    job = JobTimeline(
        gpus=8, start_s=0, elapsed_s=3600, state="PREEMPTED", has_progress=True,
        resumed_from_step=800, high_water_step=1000, steps=((3000, 900),),
    )  # fmt: skip
    split = split_job(job)
    assert (split.useful_s, split.recovery_s, split.lost_s) == (0, 0, 3600)


def test_clock_disagreement_beyond_tolerance() -> None:
    base = dict(gpus=1, start_s=1000, elapsed_s=3600, state="COMPLETED", has_progress=True)
    assert not clock_disagrees(JobTimeline(**base, app_start_s=1100, app_end_s=4600), 300)
    assert clock_disagrees(JobTimeline(**base, app_start_s=1000, app_end_s=5400), 300)
    assert clock_disagrees(JobTimeline(**base, steps=((9000, 5),)), 300)


_times = st.integers(min_value=-500, max_value=20_000)


@settings(max_examples=300, deadline=None)
@given(
    gpus=st.integers(0, 16),
    elapsed=st.integers(0, 10_000),
    state=st.sampled_from(["COMPLETED", "FAILED", "RUNNING", "NODE_FAIL", "TIMEOUT"]),
    has_progress=st.booleans(),
    valid=st.sampled_from([None, True, False]),
    resumed=st.integers(0, 1000),
    high_water=st.integers(0, 2000),
    steps=st.lists(st.tuples(_times, st.integers(0, 3000)), max_size=6),
    checkpoints=st.lists(st.tuples(_times, st.integers(0, 3000)), max_size=4),
    app_end=st.one_of(st.none(), _times),
)
def test_the_four_classes_sum_to_the_allocation(
    gpus, elapsed, state, has_progress, valid, resumed, high_water, steps, checkpoints, app_end
) -> None:
    job = JobTimeline(
        gpus=gpus, start_s=0, elapsed_s=elapsed, state=state, has_progress=has_progress,
        result_valid=valid, resumed_from_step=resumed, high_water_step=high_water,
        steps=tuple(sorted(steps)), accepted_checkpoints=tuple(sorted(checkpoints)),
        app_end_s=app_end,
    )  # fmt: skip
    split = split_job(job)
    parts = (split.useful_s, split.recovery_s, split.lost_s, split.unverified_s)
    assert all(p >= 0 for p in parts)
    assert sum(parts) == elapsed
    assert sum(split.gpu_seconds(gpus)) == gpus * elapsed
