"""Read `sacct --json` into the same staging table as the text exports.

Slurm's JSON changed shape across data_parser versions (v0.0.37 to v0.0.41): numbers may be
plain or wrapped as {"set", "infinite", "number"}, states a string or a list of flags, step ids
a string or an object. Each record becomes the text sacct would have printed, so one SQL file
parses both forms. Times are epoch seconds, written out in UTC. A quarantined record keeps
that text form (the fields we read), not the whole JSON object.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from trainbudget.base.errors import InputError
from trainbudget.reconcile.sacct import number_lines
from trainbudget.reconcile.sacct_format import STAGE_COLUMNS

if TYPE_CHECKING:
    from trainbudget.ledger import Ledger

# Joins one record's fields into a line; the ASCII unit separator, absent from sacct values.
SEPARATOR = "\x1f"


def stage_json(ledger: Ledger, path: Path) -> dict[str, Any]:
    """Load an `sacct --json` file as `sacct_raw` (one line per job or step record, its
    fields joined by SEPARATOR); return the split parameters for sacct.normalize_stage."""
    try:
        document = orjson.loads(path.read_bytes())
    except orjson.JSONDecodeError as exc:
        raise InputError(f"{path}: not valid JSON: {exc}") from None
    jobs = document.get("jobs") if isinstance(document, dict) else None
    if not isinstance(jobs, list):
        raise InputError(f"{path}: sacct --json output must have a 'jobs' list")
    rows: list[dict[str, Any]] = []
    for job in jobs:
        if not isinstance(job, dict):
            rows.append(_bad_record(job, "job record is not an object"))
            continue
        display = _display_id(job)
        rows.append(_job_record(job, display))
        for step in job.get("steps") or []:
            rows.append(_step_record(job, step, display))
    lines = [
        {"lineno": lineno, "line": SEPARATOR.join(_clean(row.get(c)) for c in STAGE_COLUMNS)}
        for lineno, row in enumerate(rows, start=1)
    ]
    ledger.execute("reconcile/land/sacct_read_json")
    ledger.insert_rows("sacct_raw", lines)
    number_lines(ledger)
    return {
        "first_data_line": 1,
        "field_count": len(STAGE_COLUMNS),
        "delim": SEPARATOR,
        **{f"i_{c}": i for i, c in enumerate(STAGE_COLUMNS, start=1)},
    }


def _clean(value: Any) -> str:
    return "" if value is None else str(value).replace(SEPARATOR, " ")


def _num(value: Any) -> Any:
    """Unwrap Slurm's {"set": true, "number": N} numbers; None when unset or infinite."""
    if isinstance(value, dict):
        if not value.get("set", True) or value.get("infinite"):
            return None
        return value.get("number")
    return value


def _text(value: Any) -> str | None:
    value = _num(value)
    return None if value is None else str(value)


def _state(value: Any) -> str | None:
    if isinstance(value, dict):
        value = value.get("current")
    if isinstance(value, list):
        value = value[0] if value else None
    return value


def _time(value: Any) -> str:
    seconds = _num(value)
    if not seconds:
        return "Unknown"
    return datetime.fromtimestamp(int(seconds), UTC).strftime("%Y-%m-%dT%H:%M:%S")


def _tres_of(record: dict[str, Any], which: str) -> str:
    """The `allocated` or `requested` TRES of a job or step as text; a `tres` that is already
    text is taken as the allocation, anything else as no TRES (so no GPUs are claimed)."""
    tres = record.get("tres")
    if isinstance(tres, str):
        return tres if which == "allocated" else ""
    return _tres(tres.get(which)) if isinstance(tres, dict) else ""


def _tres(entries: Any) -> str:
    """TRES list → sacct's text form: cpu=8,mem=64000M,gres/gpu=8,gres/gpu:h100=8.

    Step TRES usage comes as {"max": [...], "total": [...], ...} in v0.0.38; some versions
    print the text form already.
    """
    if isinstance(entries, str):
        return entries
    if isinstance(entries, dict):
        entries = entries.get("total") or []
    parts = []
    for entry in entries or []:
        if not isinstance(entry, dict):
            continue
        kind, name, count = entry.get("type"), entry.get("name") or "", _num(entry.get("count"))
        if count is None:
            continue
        label = f"{kind}/{name}" if name else kind
        parts.append(f"{label}={count}M" if kind == "mem" else f"{label}={count}")
    return ",".join(parts)


def _exit_code(value: Any) -> str | None:
    if isinstance(value, dict):
        code = _num(value.get("return_code"))
        signal = value.get("signal") or {}
        signal_id = (
            _num(signal.get("id", signal.get("signal_id"))) if isinstance(signal, dict) else 0
        )
        return f"{code or 0}:{signal_id or 0}"
    return None if value is None else f"{value}:0"


def _display_id(job: dict[str, Any]) -> str:
    """The JobID sacct prints: 9_1 for an array task, 123+1 for a het component."""
    array = job.get("array") or {}
    task = _num(array.get("task_id"))
    if _num(array.get("job_id")) and task is not None:
        return f"{_num(array['job_id'])}_{task}"
    het = job.get("het") or {}
    offset = _num(het.get("job_offset"))
    if _num(het.get("job_id")) and offset is not None:
        return f"{_num(het['job_id'])}+{offset}"
    return str(_num(job.get("job_id")))


def _job_record(job: dict[str, Any], display: str) -> dict[str, Any]:
    time = job.get("time") or {}
    return {
        "jobid": display,
        "jobidraw": _text(job.get("job_id")),
        "jobname": job.get("name"),
        "account": job.get("account"),
        "partition": job.get("partition"),
        "state": _state(job.get("state")),
        "exitcode": _exit_code(job.get("exit_code")),
        "elapsed": None,
        "elapsedraw": _text(time.get("elapsed")),
        "submit": _time(time.get("submission")),
        "start": _time(time.get("start")),
        "end": _time(time.get("end")),
        "alloctres": _tres_of(job, "allocated"),
        "reqtres": _tres_of(job, "requested"),
        "nnodes": _text(job.get("allocation_nodes")),
        "alloccpus": None,
        "cluster": job.get("cluster"),
    }


def _step_record(job: dict[str, Any], step: Any, display: str) -> dict[str, Any]:
    if not isinstance(step, dict):
        return _bad_record(step, "step record is not an object")
    ident = (step.get("step") or {}).get("id")
    step_id = ident.get("step_id") if isinstance(ident, dict) else str(ident).split(".")[-1]
    time = step.get("time") or {}
    return {
        **_job_record(job, display),
        "jobid": f"{display}.{step_id}",
        "jobname": (step.get("step") or {}).get("name"),
        "state": _state(step.get("state")),
        "exitcode": _exit_code(step.get("exit_code")),
        "elapsedraw": _text(time.get("elapsed")),
        "submit": _time((job.get("time") or {}).get("submission")),
        "start": _time(time.get("start")),
        "end": _time(time.get("end")),
        "alloctres": _tres_of(step, "allocated"),
        "reqtres": _tres_of(step, "requested"),
    }


def _bad_record(value: Any, reason: str) -> dict[str, Any]:
    return {"jobid": f"<{reason}: {type(value).__name__}>"}
