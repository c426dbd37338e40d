"""Renumbered copies of the real sacct fixture (tests/fixtures/sacct, Hábrók, 242 lines) in the
target format (`--parsable2`, `|`, the 17 fields of tests/reconcile/conftest.HEADER).

Each copy adds a multiple of 10,000,000 to every job id (steps and array tasks follow their
job) and, when a week is given, moves each job's times into that week (same weekday and time
of day as it started, else was submitted), so a copy is the fixture's jobs again under new
ids. Registry rows and progress
events are written for a share of the copies' completed allocations.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import orjson

FIXTURE = (
    Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "sacct"
    / "hb-jobinfo_sacct_snowman.txt"
)  # fmt: skip
HEADER = (
    "JobID|JobIDRaw|JobName|Account|Partition|State|ExitCode|Elapsed|ElapsedRaw|Submit|Start|"
    "End|AllocTRES|ReqTRES|NNodes|AllocCPUS|TRESUsageInTot"
)
_ID = re.compile(r"^(\d+)(.*)$")
_TIME = "%Y-%m-%dT%H:%M:%S"
ID_STRIDE = 10_000_000


def _seconds(elapsed: str) -> int:
    days, _, clock = elapsed.rpartition("-")
    parts = [int(float(p)) for p in clock.split(":")]
    while len(parts) < 3:
        parts.insert(0, 0)
    return int(days or 0) * 86400 + parts[0] * 3600 + parts[1] * 60 + parts[2]


def fixture_rows() -> list[dict[str, str]]:
    """The fixture's lines as target-format fields (JobIDRaw = JobID unless an array task;
    Account and ExitCode are not in the fixture and stay empty)."""
    rows = []
    for line in FIXTURE.read_text(encoding="utf-8").splitlines():
        f = line.split("☃")
        job_id = f[0]
        rows.append({
            "JobID": job_id, "JobIDRaw": "" if "_" in job_id else job_id, "JobName": f[1],
            "Account": "", "Partition": f[3], "State": f[8], "ExitCode": "",
            "Elapsed": f[13], "ElapsedRaw": str(_seconds(f[13])) if f[13] else "",
            "Submit": f[9], "Start": f[10], "End": f[11], "AllocTRES": f[22],
            "ReqTRES": f[21], "NNodes": f[5], "AllocCPUS": f[6], "TRESUsageInTot": f[24],
        })  # fmt: skip
    return rows


def _renumber(job_id: str, offset: int) -> str:
    if not job_id:
        return job_id
    match = _ID.match(job_id)
    assert match, job_id
    return f"{int(match.group(1)) + offset}{match.group(2)}"


def _shift(text: str, delta: timedelta) -> str:
    if not text or not text[0].isdigit():
        return text
    return (datetime.strptime(text, _TIME) + delta).strftime(_TIME)


def _week_delta(row: dict[str, str], week_start: datetime) -> timedelta:
    """How far to move a job so it starts (else is submitted) in the week from `week_start`."""
    when = row["Start"] if row["Start"][:1].isdigit() else row["Submit"]
    moment = datetime.strptime(when, _TIME).replace(tzinfo=UTC)
    monday = (moment - timedelta(days=moment.weekday())).replace(hour=0, minute=0, second=0)
    return week_start - monday


def moved_rows(rows: list[dict[str, str]], week_start: datetime | None) -> list[dict[str, str]]:
    """The rows with each job's times (its steps' too) moved into the week from `week_start`."""
    if week_start is None:
        return rows
    out, delta = [], timedelta(0)
    for row in rows:
        if "." not in row["JobID"]:
            delta = _week_delta(row, week_start)
        out.append(row | {k: _shift(row[k], delta) for k in ("Submit", "Start", "End")})
    return out


def copy_lines(rows: list[dict[str, str]], copy: int) -> Iterator[str]:
    """The lines of one renumbered copy of `rows` (see moved_rows)."""
    offset = (copy + 1) * ID_STRIDE
    for row in rows:
        out = dict(row)
        out["JobID"], out["JobIDRaw"] = (
            _renumber(row["JobID"], offset), _renumber(row["JobIDRaw"], offset)
        )  # fmt: skip
        yield "|".join(out.values())


def write_sacct(
    path: Path, lines: int, week_start: datetime | None = None, first_copy: int = 0
) -> tuple[int, int]:
    """Write at least `lines` data lines (whole copies) with a header; (lines, copies)."""
    rows = moved_rows(fixture_rows(), week_start)
    copies = -(-lines // len(rows))
    with path.open("w", encoding="utf-8") as out:
        out.write(HEADER + "\n")
        for k in range(first_copy, first_copy + copies):
            out.write("\n".join(copy_lines(rows, k)) + "\n")
    return copies * len(rows), copies


def write_joins(
    folder: Path, copies: range, every: int = 10, week_start: datetime | None = None
) -> tuple[Path, Path]:
    """registry.csv and progress.jsonl for the completed allocations of every `every`-th copy
    in `copies` (classes in turn; start, 10 steps, 3 checkpoints and an end per job)."""
    rows = [r for r in fixture_rows() if "." not in r["JobID"] and "_" not in r["JobID"]
            and r["State"] == "COMPLETED" and r["Start"][:1].isdigit()]  # fmt: skip
    classes = ["main", "retry", "pilot", "evaluation", "diagnostic"]
    registry, progress = folder / "registry.csv", folder / "progress.jsonl"
    reg = ["job_id,experiment_id,work_class,code_revision,data_snapshot,result_valid,"
           "diagnosed_cause"]  # fmt: skip
    events = []
    n = 0
    for k in copies[::every]:
        offset = (k + 1) * ID_STRIDE
        for row in rows:
            delta = _week_delta(row, week_start) if week_start else timedelta(0)
            job_id = _renumber(row["JobID"], offset)
            reg.append(f"{job_id},exp-{n // 10},{classes[n % 5]},rev{n % 7},snap1,,")
            t0 = datetime.strptime(row["Start"], _TIME).replace(tzinfo=UTC) + delta
            seconds = int(row["ElapsedRaw"])
            events.append({"job_id": job_id, "time": t0.isoformat(), "event": "start",
                           "resumed_from_step": 0})  # fmt: skip
            for s in range(1, 11):
                when = (t0 + timedelta(seconds=seconds * s // 11)).isoformat()
                events.append({"job_id": job_id, "time": when, "event": "step", "step": s * 100})
                if s % 3 == 0:
                    events.append({"job_id": job_id, "time": when, "event": "checkpoint",
                                   "step": s * 100, "accepted": True})  # fmt: skip
            events.append({"job_id": job_id, "time": (t0 + timedelta(seconds=seconds)).isoformat(),
                           "event": "end"})  # fmt: skip
            n += 1
    registry.write_text("\n".join(reg) + "\n", encoding="utf-8")
    progress.write_bytes(b"\n".join(orjson.dumps(e) for e in events) + b"\n")
    return registry, progress


def write_week_file(path: Path, jobs: int, week_start: datetime, copy: int) -> int:
    """The first `jobs` allocations of the fixture (with their steps) as copy `copy`, moved into
    the week starting `week_start`; returns the number of lines."""
    rows, taken, allocations = fixture_rows(), [], 0
    for row in rows:
        if "." not in row["JobID"]:
            if allocations == jobs:
                break
            allocations += 1
        taken.append(row)
    lines = list(copy_lines(moved_rows(taken, week_start), copy))
    path.write_text(HEADER + "\n" + "\n".join(lines) + "\n", encoding="utf-8")
    return len(lines)
