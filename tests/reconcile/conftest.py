"""Helpers for the reconcile tests: write sacct exports, registries and progress files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

HEADER = (
    "JobID|JobIDRaw|JobName|Account|Partition|State|ExitCode|Elapsed|ElapsedRaw|Submit|Start|"
    "End|AllocTRES|ReqTRES|NNodes|AllocCPUS|TRESUsageInTot"
)
HB_FIELDS = (
    "JobID,JobName,User,Partition,NodeList,NNodes,NCPUs,NTasks,State,Submit,Start,End,"
    "Timelimit,Elapsed,TotalCPU,CPUTime,UserCPU,SystemCPU,ReqMem,MaxRSS,MaxVMSize,ReqTRES,"
    "AllocTRES,TRESUsageInMax,TRESUsageInTot,TRESUsageOutTot,MaxDiskRead,MaxDiskWrite,"
    "MaxRSSNode,MaxRSSTask,MaxVMSizeNode,MaxVMSizeTask,MaxDiskReadNode,MaxDiskReadTask,"
    "MaxDiskWriteNode,MaxDiskWriteTask,Comment"
)
SLURM_JOBINFO_FIELDS = (
    "JobID,JobName,User,Partition,NodeList,NNodes,ncpus,NTasks,State,Submit,start,end,"
    "timelimit,elapsed,TotalCPU,UserCPU,SystemCPU,ReqMem,MaxRSS,TRESUsageInTot,"
    "TRESUsageOutTot,MaxDiskWrite,MaxDiskRead,MaxRSSNode,MaxDiskWriteNode,MaxDiskReadNode,Comment"
)
REPORTSEFF_FIELDS = (
    "AdminComment,AllocCPUS,Elapsed,JobID,JobIDRaw,MaxRSS,NNodes,ReqMem,State,Timelimit,TotalCPU"
)


def sacct_line(
    job_id: str,
    state: str = "COMPLETED",
    *,
    raw: str | None = None,
    name: str = "train",
    account: str = "proj",
    exit_code: str = "0:0",
    elapsed: str = "01:00:00",
    elapsed_raw: str = "3600",
    submit: str = "2026-11-23T00:00:00",
    start: str = "2026-11-23T00:00:00",
    end: str = "2026-11-23T01:00:00",
    tres: str = "billing=8,cpu=64,gres/gpu=8,mem=512G,node=1",
) -> str:
    """One line of the target format (HEADER), `|`-separated as sacct --parsable2 prints."""
    return "|".join(
        [job_id, raw or job_id, name, account, "gpu", state, exit_code, elapsed, elapsed_raw,
         submit, start, end, tres, tres, "1", "64", ""]
    )  # fmt: skip


@pytest.fixture
def write_sacct(tmp_path: Path):
    """write_sacct(lines, name=...) → a --parsable2 export with header."""

    def write(lines: list[str], name: str = "sacct.psv", header: bool = True) -> Path:
        path = tmp_path / name
        path.write_text("\n".join(([HEADER] if header else []) + lines) + "\n", encoding="utf-8")
        return path

    return write


@pytest.fixture
def campaign(tmp_path: Path, write_sacct) -> dict[str, Path]:
    """DESIGN.md's jobs 101/102, a pilot, an evaluation, an untracked and a pending job."""
    sacct = write_sacct([
        sacct_line("101", "NODE_FAIL", elapsed="10:00:00", elapsed_raw="36000",
                   start="2026-11-23T00:00:00", end="2026-11-23T10:00:00"),
        sacct_line("101.batch", "CANCELLED", raw="101.batch", elapsed_raw="36000",
                   start="2026-11-23T00:00:00", end="2026-11-23T10:00:00"),
        sacct_line("102", elapsed="10:30:00", elapsed_raw="37800", submit="2026-11-23T11:00:00",
                   start="2026-11-23T12:00:00", end="2026-11-23T22:30:00",
                   tres="cpu=64,gres/gpu:h100=8,gres/gpu=8,mem=512G"),
        sacct_line("201", elapsed_raw="10800", start="2026-11-24T00:00:00",
                   end="2026-11-24T03:00:00", tres="cpu=32,gres/gpu=4"),
        sacct_line("301", elapsed_raw="9000", start="2026-11-24T06:00:00",
                   end="2026-11-24T08:30:00", tres="cpu=16,gres/gpu:a100=2"),
        sacct_line("401", "FAILED", exit_code="1:0", elapsed_raw="3600",
                   start="2026-11-25T00:00:00", end="2026-11-25T01:00:00", tres="gres/gpu=1"),
        sacct_line("501", "CANCELLED by 1001", elapsed="00:00", elapsed_raw="0",
                   start="None", end="2026-11-25T00:05:00", tres=""),
    ])  # fmt: skip
    registry = tmp_path / "registry.csv"
    registry.write_text(
        "job_id,experiment_id,work_class,code_revision,data_snapshot,result_valid,"
        "diagnosed_cause,owner\n"
        "101,exp-main,main,abc,snap1,,node failure,ana\n"
        "102,exp-main,main,abc,snap1,true,,ana\n"
        "201,exp-pilot,pilot,abc,snap1,true,,ana\n"
        "301,exp-main,evaluation,abc,snap1,true,,ana\n"
        "501,exp-main,main,abc,snap1,,,ana\n",
        encoding="utf-8",
    )
    progress = tmp_path / "progress.jsonl"
    events = [
        ("101", "2026-11-23T00:00:00Z", "start", {"resumed_from_step": 0}),
        ("101", "2026-11-23T08:00:00Z", "checkpoint", {"step": 800, "accepted": True}),
        ("101", "2026-11-23T10:00:00Z", "step", {"step": 1000}),
        ("102", "2026-11-23T12:00:00+00:00", "start", {"resumed_from_step": 800}),
        ("102", "2026-11-23T15:30:00+01:00", "step", {"step": 1000}),
        ("102", "2026-11-23T22:30:00Z", "step", {"step": 2000}),
        ("102", "2026-11-23T22:30:00Z", "end", {}),
        ("201", "2026-11-24T00:00:00Z", "start", {}),
        ("201", "2026-11-24T03:00:00Z", "end", {}),
        ("301", "2026-11-24T06:00:00Z", "start", {}),
        ("301", "2026-11-24T08:30:00Z", "end", {}),
        ("301", "2026-11-24T08:30:00", "end", {}),  # no zone: quarantined
    ]
    progress.write_text(
        "".join(
            json.dumps({"job_id": j, "time": t, "event": e, **extra}) + "\n"
            for j, t, e, extra in events
        ),
        encoding="utf-8",
    )
    manifest = tmp_path / "manifest.csv"
    manifest.write_text(
        "artifact_id,experiment_id,job_id,step,size_bytes,created,role,retain_until\n"
        "ckpt-800,exp-main,101,800,180000000000,2026-11-23T00:00:00Z,recovery,2027-01-22\n"
        "final,exp-main,102,2000,180000000000,2026-11-23T00:00:00Z,final,2027-11-23\n",
        encoding="utf-8",
    )
    return {"sacct": sacct, "registry": registry, "progress": progress, "manifest": manifest}
