"""Run `sacct` on a cluster login node and keep its output as a file to land.

The export asks for exactly the fields we read (LIVE_FIELDS) with `--parsable2` and a header,
`--duplicates` so requeued and preempted earlier runs of a job are not hidden, and
`--allusers` (Slurm still shows only what PrivateData permits). The file is kept next to the
ledger, so the landing has a path and a content hash like any other input.
"""

from __future__ import annotations

import shutil
import subprocess
from datetime import UTC, datetime, timedelta
from pathlib import Path

from trainbudget.base.errors import InputError
from trainbudget.reconcile.sacct_format import LIVE_FIELDS
from trainbudget.reconcile.week import zone


def sacct_command(start: datetime, end: datetime, cluster_tz: str) -> list[str]:
    """The sacct argv for [start, end) (UTC datetimes), times written in the cluster's zone."""
    tz = zone(cluster_tz)

    def local(t: datetime) -> str:
        return t.astimezone(tz).strftime("%Y-%m-%dT%H:%M:%S")

    return [
        "sacct",
        "--parsable2",
        "--duplicates",
        "--allusers",
        f"--format={','.join(LIVE_FIELDS)}",
        f"--starttime={local(start)}",
        f"--endtime={local(end)}",
    ]


def run_sacct(
    out_dir: Path, week: tuple[datetime, datetime] | None, cluster_tz: str = "UTC"
) -> Path:
    """Run sacct for the week (default: the last 7 days) and return the file it wrote."""
    if shutil.which("sacct") is None:
        raise InputError(
            "sacct: not on PATH (run on a cluster login node, or give an sacct export file)"
        )
    now = datetime.now(UTC)
    start, end = week or (now - timedelta(days=7), now)
    argv = sacct_command(start, end, cluster_tz)
    proc = subprocess.run(argv, capture_output=True, text=True, check=False, timeout=600)
    if proc.returncode != 0:
        message = (proc.stderr.strip().splitlines() or ["no message"])[0]
        raise InputError(f"sacct: exited with {proc.returncode}: {message}")
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"sacct-{start:%Y%m%dT%H%M%S}-{now:%Y%m%dT%H%M%S}.psv"
    path.write_text(proc.stdout, encoding="utf-8")
    return path
