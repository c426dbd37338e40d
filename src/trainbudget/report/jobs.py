"""The weekly report's jobs table: the N largest jobs by allocated GPU-hours, every accounting
column, and links to the whole list (jobs.csv and jobs.parquet beside the report), never every
job in HTML."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from trainbudget.report import format as fmt
from trainbudget.report.format import Column
from trainbudget.report.model import Table

TOP_JOBS = 25
_HOURS = fmt.gpu_hours
JOB_COLUMNS = [
    Column("job_id", "Job"),
    Column("state", "State"),
    Column("work_class", "Work class"),
    Column("experiment_id", "Experiment"),
    Column("gpus", "GPUs", fmt.number),
    Column("elapsed_seconds", "Elapsed (h)", lambda s: fmt.number(s / 3600, 2)),
    Column("allocated_gpu_hours", "Allocated GPU-hours", _HOURS),
    Column("useful_gpu_hours", "Useful", _HOURS),
    Column("recovery_gpu_hours", "Recovery", _HOURS),
    Column("lost_gpu_hours", "Lost", _HOURS),
    Column("unverified_gpu_hours", "Unverified", _HOURS),
    Column("gpu_util_pct", "GPU util. (%)", fmt.number),
    Column("flags", "Flags"),
]


@dataclass(frozen=True)
class JobList:
    """The week's jobs as the report gets them: the largest (at most N, largest first), how
    many there are in all, and the whole list's files relative to the report (None: none):
    CSV for a spreadsheet, Parquet (exact decimals) for a dataframe."""

    largest: list[dict[str, Any]] = field(default_factory=list)
    total: int = 0
    csv_href: str | None = None
    parquet_href: str | None = None


def jobs_table(week: str, jobs: JobList) -> Table:
    """The largest jobs of `week` (columns no job fills, e.g. Flags, are left out); the title
    stays `Jobs of <week>` whatever the count, so its Prefect artifact key is stable."""
    shown = len(jobs.largest)
    note = (
        "By allocated GPU-hours, largest first; useful + recovery + lost + unverified = allocated."
    )
    if shown < jobs.total:
        note = f"The {shown:,} largest of {fmt.plural(jobs.total, 'job')}. " + note
    links: tuple[tuple[str, str], ...] = ()
    every = fmt.plural(jobs.total, "job")
    if jobs.csv_href is not None:
        links = ((f"All {every} as CSV ({jobs.csv_href})", jobs.csv_href),)
    if jobs.parquet_href is not None:
        links += ((f"All {every} as Parquet ({jobs.parquet_href})", jobs.parquet_href),)
    return Table.of(f"Jobs of {week}", jobs.largest, JOB_COLUMNS, note, links)
