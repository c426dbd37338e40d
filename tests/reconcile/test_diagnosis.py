"""diagnosis.recovery_finding: a resume is checked against the chain's accepted checkpoints,
reading stored splits only as far back as it must."""

from __future__ import annotations

from trainbudget.reconcile.accounting import JobTimeline, Split
from trainbudget.reconcile.diagnosis import recovery_finding
from trainbudget.reconcile.timelines import TrackedJob

HOUR = 3600


def _stored(alloc_id: int, start_h: int, accepted: tuple[int, ...], reads: list[int]):
    """An earlier week's job of chain 'e:main', decoded (and counted in `reads`) when read."""
    timeline = JobTimeline(
        gpus=8, start_s=start_h * HOUR, elapsed_s=HOUR, state="COMPLETED", has_progress=True,
        accepted_checkpoints=tuple((start_h * HOUR + 60, s) for s in accepted),
    )  # fmt: skip

    def load():
        reads.append(alloc_id)
        return timeline, Split(HOUR, 0, 0, 0), None, accepted[-1] if accepted else None

    return TrackedJob.stored(alloc_id, str(alloc_id), "e:main", max(accepted, default=0), load)


def _resumed(alloc_id: int, start_h: int, from_step: int) -> TrackedJob:
    """This week's job of the chain, resumed from `from_step` after half an hour's recovery."""
    timeline = JobTimeline(
        gpus=8, start_s=start_h * HOUR, elapsed_s=HOUR, state="COMPLETED", has_progress=True,
        resumed_from_step=from_step, high_water_step=from_step + 50,
    )  # fmt: skip
    split = Split(HOUR // 2, HOUR // 2, 0, 0)
    return TrackedJob(alloc_id, str(alloc_id), timeline, split, "e:main", None, None, None)


def test_a_resume_reads_the_chain_back_only_to_its_checkpoint() -> None:
    reads: list[int] = []
    earlier = [_stored(1, 0, (100,), reads), _stored(2, 2, (200,), reads),
               _stored(3, 4, (300,), reads)]  # fmt: skip
    week = [_resumed(10, 6, 300), _resumed(11, 8, 200)]
    finding = recovery_finding([*earlier, *week], in_week={10, 11})
    verified = {r["job_id"]: r["resumed_from_accepted_checkpoint"] for r in finding["resumes"]}
    assert verified == {"10": True, "11": True}
    assert reads == [3, 2]  # job 1 (step 100) is never decoded
    # 2 resumes × 8 GPUs × 0.5 h = 8 GPU-hours regained.
    assert finding["summary"] == "2 resumed jobs spent 8.00 GPU-hours regaining earlier progress."


def test_a_resume_from_a_step_no_job_accepted_reads_the_whole_chain() -> None:
    reads: list[int] = []
    earlier = [_stored(1, 0, (100,), reads), _stored(2, 2, (200,), reads)]
    finding = recovery_finding([*earlier, _resumed(10, 4, 150)], in_week={10})
    assert [r["resumed_from_accepted_checkpoint"] for r in finding["resumes"]] == [False]
    assert sorted(reads) == [1, 2]
    assert "1 resumed from a step with no accepted checkpoint" in finding["summary"]
