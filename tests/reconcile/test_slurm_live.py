"""Against a real single-node Slurm: submit jobs, run `trainbudget reconcile --live`.

Needs Debian's slurm-wlm packages and root (.ci/run installs them and sets
TRAINBUDGET_REQUIRE_SLURM=1, so in CI a missing package fails instead of skipping).
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

import pytest

from .slurm_cluster import PACKAGES, SlurmCluster, missing_binaries

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def slurm():
    missing = missing_binaries()
    reason = None
    if not sys.platform.startswith("linux") or os.geteuid() != 0:
        reason = "a real Slurm needs Linux and root"
    elif missing:
        reason = f"Slurm not installed (apt-get install {PACKAGES}); missing {missing}"
    if reason:
        if os.environ.get("TRAINBUDGET_REQUIRE_SLURM") == "1":
            pytest.fail(reason)
        pytest.skip(reason)
    # MariaDB runs as user mysql, which cannot enter pytest's private (0700) tmp folders.
    root = Path(tempfile.mkdtemp(prefix="trainbudget-slurm-"))
    root.chmod(0o755)
    cluster = SlurmCluster(root)
    # Started under the strictest umask on purpose: the harness sets every mode a daemon
    # checks itself, so an earlier in-process test's umask cannot break it (issue 23).
    umask = os.umask(0o077)
    try:
        cluster.start()
        os.umask(umask)
        yield cluster
    finally:
        os.umask(umask)
        cluster.stop()
        shutil.rmtree(root, ignore_errors=True)


def _submit(slurm: SlurmCluster) -> dict[str, str]:
    ids = {}
    ids["ok"] = slurm.run("sbatch", "--parsable", "--gres=gpu:1", "-J", "ok", "--wrap", "sleep 3")
    ids["bad"] = slurm.run("sbatch", "--parsable", "--gres=gpu:2", "-J", "bad|name",
                           "--wrap", "sleep 2; exit 3")  # fmt: skip
    ids["pending"] = slurm.run("sbatch", "--parsable", "--gres=gpu:2", "-J", "never",
                               "--wrap", "sleep 60")  # fmt: skip
    ids["array"] = slurm.run("sbatch", "--parsable", "--array=1-2", "--gres=gpu:1", "-J", "arr",
                             "--wrap", "sleep 1")  # fmt: skip
    time.sleep(1)
    slurm.run("scancel", ids["pending"].strip())  # still pending: both GPUs are busy
    slurm.wait_idle()
    ids = {k: v.strip().split(";")[0] for k, v in ids.items()}
    expected = {ids["ok"], ids["bad"], ids["pending"], f"{ids['array']}_1", f"{ids['array']}_2"}
    # slurmctld hands finished jobs to slurmdbd asynchronously: wait until sacct has them all.
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        view = _scheduler_view(slurm)
        if expected <= set(view) and not any(s in {"RUNNING", "PENDING"} for s, _ in view.values()):
            break
        time.sleep(1)
    return ids


def _scheduler_view(slurm: SlurmCluster) -> dict[str, tuple[str, int, int]]:
    """JobID → (State, End − Start seconds), read from sacct itself."""
    out = slurm.run("sacct", "-X", "-n", "-P", "--format=JobID,State,Start,End")
    view = {}
    for line in out.splitlines():
        job, state, start, end = line.split("|")
        seconds = 0
        if start not in ("None", "Unknown") and end not in ("None", "Unknown"):
            fmt = "%Y-%m-%dT%H:%M:%S"
            seconds = int(
                (datetime.strptime(end, fmt) - datetime.strptime(start, fmt)).total_seconds()
            )
        view[job] = (state, seconds)
    return view


def test_live_sacct_is_reconciled(slurm, cli, tmp_path: Path) -> None:
    ids = _submit(slurm)
    view = _scheduler_view(slurm)
    ledger = str(tmp_path / "ledger.duckdb")
    env = {"SLURM_CONF": slurm.env["SLURM_CONF"], "PATH": slurm.env["PATH"]}
    result = cli("--ledger", ledger, "reconcile", "--live", "--json", env=env)
    assert result.code == 0, result.stderr
    jobs = {j["job_id"]: j for j in result.json()["jobs"]}
    arr = ids["array"]
    assert set(jobs) == {ids["ok"], ids["bad"], ids["pending"], f"{arr}_1", f"{arr}_2"}
    gpus = {ids["ok"]: 1, ids["bad"]: 2, ids["pending"]: 0, f"{arr}_1": 1, f"{arr}_2": 1}
    for job_id, job in jobs.items():
        state, seconds = view[job_id]
        assert job["gpus"] == gpus[job_id]
        assert job["allocated_gpu_hours"] == pytest.approx(gpus[job_id] * seconds / 3600, abs=1e-6)
        assert job["unverified_gpu_hours"] == job["allocated_gpu_hours"]  # no progress given
        assert job["state_text"] == state
    assert jobs[ids["bad"]]["state"] == "FAILED" and jobs[ids["bad"]]["exit_code"] == "3:0"
    assert jobs[ids["bad"]]["name"] == "bad|name"  # the delimiter inside the name
    assert jobs[ids["pending"]]["state"] == "CANCELLED"
    # Cancelled before it started: Slurm prints Start as None or equal to End; nothing ran.
    assert jobs[ids["pending"]]["elapsed_seconds"] == 0
    assert jobs[ids["ok"]]["cluster"] == "tbtest"
    raws = {jobs[f"{arr}_1"]["job_id_raw"], jobs[f"{arr}_2"]["job_id_raw"]}
    assert arr in raws and len(raws) == 2  # one task keeps the array id, one gets its own

    # The same jobs through `sacct --json` land as the same allocations.
    doc = tmp_path / "sacct.json"
    doc.write_text(slurm.run("sacct", "--json"), encoding="utf-8")
    json_run = cli(
        "--ledger", str(tmp_path / "j.duckdb"), "reconcile", "--sacct", str(doc), "--json"
    )
    assert json_run.code == 0, json_run.stderr
    by_json = {j["job_id"]: j["allocated_gpu_hours"] for j in json_run.json()["jobs"]}
    assert by_json == {k: j["allocated_gpu_hours"] for k, j in jobs.items()}
