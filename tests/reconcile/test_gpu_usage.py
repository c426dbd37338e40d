"""What the GPUs did (reconcile/gpu_usage.py, gpu_findings.py): sacct TRESUsageIn* and jobstats
summaries landed, normalised per GPU, and the idle / oversized findings priced by hand."""

from __future__ import annotations

import base64
import gzip
import json
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest

from trainbudget.plan import parse_plan
from trainbudget.reconcile.gpu_usage import decode_js1
from trainbudget.reconcile.land import land_registry, land_sacct
from trainbudget.reconcile.review import review, write_jobs

from .conftest import HB_FIELDS

WEEK = (datetime(2026, 11, 23, tzinfo=UTC), datetime(2026, 11, 30, tzinfo=UTC))
HEADER = (
    "JobID|JobIDRaw|JobName|Account|Partition|State|ExitCode|Elapsed|ElapsedRaw|Submit|Start|"
    "End|AllocTRES|ReqTRES|NNodes|AllocCPUS|TRESUsageInAve|TRESUsageInTot|AdminComment"
)
# jobstats docs/setup/summaries.md, "an example job summary for a GPU job" (jobstats 12345678 -j)
DOC_SUMMARY = {
    "gpus": 1,
    "nodes": {
        "della-k1g1": {
            "cpus": 12,
            "gpu_total_memory": {"1": 85899345920},
            "gpu_used_memory": {"1": 83314868224},
            "gpu_utilization": {"1": 98.6},
            "total_memory": 137438953472,
            "total_time": 57620.8,
            "used_memory": 84683702272,
        }
    },
    "total_time": 50944,
}
PLAN = """
campaign: demo-7b
unit_of_progress: tokens
prices: {gpu_hour_usd: 2.40, storage_gb_month_usd: 0.023}
ceiling: {gpu_hours: 2000}
main: {gpus: 8, hours: 120}
evaluation: [{name: per-checkpoint, jobs: 12, gpus: 8, hours: 2.5}]
"""


def js1(summary: dict) -> str:
    """A jobstats AdminComment, as jobstats stores it: JS1: + base64(gzip(JSON))."""
    payload = gzip.compress(json.dumps(summary).encode("ascii"))
    return "JS1:" + base64.b64encode(payload).decode("ascii")


def _line(job: str, *, gpus: int, hours: int = 2, ave: str = "", tot: str = "", admin: str = "",
          step_gpus: int | None = None) -> str:  # fmt: skip
    """One line of HEADER on 2026-11-24 from 10:00 (allocation line, or a step when `job` has
    a dot, holding `step_gpus` GPUs)."""
    seconds = hours * 3600
    tres = f"cpu=8,gres/gpu={step_gpus if step_gpus is not None else gpus},mem=64G,node=1"
    return "|".join([
        job, job, "eval", "lab", "gpu", "COMPLETED", "0:0", f"{hours:02d}:00:00", str(seconds),
        "2026-11-24T09:00:00" if "." not in job else "2026-11-24T10:00:00",
        "2026-11-24T10:00:00", f"2026-11-24T{10 + hours}:00:00", tres, tres, "1", "8",
        ave, tot, admin,
    ])  # fmt: skip


def _write(tmp_path: Path, name: str, lines: list[str]) -> Path:
    path = tmp_path / name
    path.write_text("\n".join([HEADER, *lines]) + "\n", encoding="utf-8")
    return path


def _jobs(ledger, tmp_path: Path, plan=None) -> tuple[dict[str, dict], object]:
    """The week's jobs by id (as --json prints them, exact decimals) and the review."""
    with ledger.transaction():
        result = review(ledger, plan, WEEK)
        write_jobs(ledger, result, tmp_path / "jobs.json")
    rows = json.loads((tmp_path / "jobs.json").read_text(), parse_float=Decimal)
    return {r["job_id"]: r for r in rows}, result


def _step(result, name: str) -> dict:
    (finding,) = [f for f in result.diagnosis if f["step"] == name]
    return finding


def test_the_documented_sample_is_per_gpu(ledger, fixtures_dir: Path, tmp_path: Path) -> None:
    """gres.shtml's job 1277.0: two tasks, one A100 each; Tot gpuutil 200 over 2 GPUs = 100 %,
    gpumem 72532M over 2 = 36266 MiB = 36266 / 1024 GiB (rounded half up at 6 places)."""
    land_sacct(ledger, fixtures_dir / "gpu_usage" / "slurm_gres_doc_sample.psv")
    jobs, _ = _jobs(ledger, tmp_path)
    job = jobs["1277"]
    assert job["gpu_util_pct"] == Decimal(200) / 2
    assert job["gpu_mem_used_gib"] == (Decimal(72532) / 2 / 1024).quantize(Decimal("0.000001"))


@pytest.mark.parametrize("version", ["23.02.7", "24.05.0"])
def test_a_23_02_and_a_24_05_line_of_one_job_give_the_same_figures(
    fixtures_dir: Path, tmp_path: Path, version: str
) -> None:
    """One task holding 4 GPUs at 60 % and 20,000 MiB each: before 24.05.1 sacct recorded one
    GPU (60, 20000M), from 24.05.1 their sum (240, 80000M); per GPU both are 60 % and
    20000 / 1024 GiB, each read with its cluster's slurm_version."""
    from trainbudget.ledger import Ledger

    figures = []
    for name, plan_version in (("23.02", version), ("24.05", "24.05.1")):
        book = Ledger.open(tmp_path / f"{name}.duckdb")
        land_sacct(book, fixtures_dir / "gpu_usage" / f"derived_one_task_four_gpus_{name}.psv")
        plan = parse_plan(PLAN + f"cluster: {{slurm_version: '{plan_version}'}}\n")
        jobs, _ = _jobs(book, tmp_path, plan)
        figures.append((jobs["5001"]["gpu_util_pct"], jobs["5001"]["gpu_mem_used_gib"]))
        book.close()
    assert figures[0] == figures[1] == (Decimal(60), Decimal("19.531250"))  # 20000/1024


@pytest.mark.parametrize(("gpus", "tasks", "util"), [(1, 1, 37), (8, 1, 12), (8, 2, 90), (4, 4, 3)])
def test_both_releases_give_one_figure_for_any_shape(ledger, tmp_path, gpus, tasks, util) -> None:
    """`tasks` tasks share `gpus` GPUs, each at `util` %: 23.02 recorded one GPU a task (Ave
    util, Tot tasks × util), 24.05.1 each task's GPUs summed (Ave gpus / tasks × util, Tot
    gpus × util). Per GPU both are `util`, on one ledger read twice with each release."""
    old = f"gres/gpuutil={util}", f"gres/gpuutil={tasks * util}"
    new = f"gres/gpuutil={gpus // tasks * util}", f"gres/gpuutil={gpus * util}"
    path = _write(tmp_path, "shapes.psv", [
        _line("41", gpus=gpus), _line("41.0", gpus=gpus, ave=old[0], tot=old[1]),
        _line("42", gpus=gpus), _line("42.0", gpus=gpus, ave=new[0], tot=new[1]),
    ])  # fmt: skip
    land_sacct(ledger, path)
    before, _ = _jobs(ledger, tmp_path, parse_plan(PLAN + "cluster: {slurm_version: 23.02.7}\n"))
    after, _ = _jobs(ledger, tmp_path, parse_plan(PLAN))
    assert before["41"]["gpu_util_pct"] == after["42"]["gpu_util_pct"] == util


def test_without_a_version_the_sum_is_read_as_24_05_1(ledger, fixtures_dir, tmp_path) -> None:
    land_sacct(ledger, fixtures_dir / "gpu_usage" / "derived_one_task_four_gpus_24.05.psv")
    jobs, _ = _jobs(ledger, tmp_path)
    assert jobs["5001"]["gpu_util_pct"] == Decimal(240) / 4


def test_a_js1_summary_decodes_as_jobstats_documents_it() -> None:
    summary = decode_js1(js1(DOC_SUMMARY))
    assert summary is not None
    assert (summary.gpus, summary.gpus_used) == (1, 1)
    assert summary.util_pct == Decimal("98.6")
    assert summary.mem_max_bytes == 83314868224
    assert decode_js1("JS1:Short") is None and decode_js1("JS1:None") is None
    with pytest.raises(ValueError, match="does not decode"):
        decode_js1("JS1:bm90IGd6aXA=")  # base64 of "not gzip"


def test_idle_and_oversized_evaluation_priced_by_hand(ledger, tmp_path: Path) -> None:
    """Job 7: evaluation, 8 GPUs for 2 h; jobstats: GPUs 0 and 1 at 10 % and 6 %, six at 0 %.
    Mean (10 + 6) / 8 = 2 % < 15 %: idle, 8 × 2 = 16 GPU-hours; 2 GPUs used of 8: oversized,
    (8 − 2) × 2 = 12 GPU-hours. Job 8: main, 4 GPUs for 1 h, one step at 4 × 90 %: neither.
    Job 9: evaluation, 8 GPUs for 3 h whose only step held 4 (sacct, 24.05.1: Tot 360 over 4
    = 90 %): oversized by (8 − 4) × 3 = 12 GPU-hours, not idle. The plan's evaluation line
    (12 jobs × 8 GPUs × 2.5 h = 240) at the most GPUs used, 4: 12 × 4 × 2.5 = 120."""
    gpus = {str(i): Decimal(0) for i in range(8)} | {"0": Decimal(10), "1": Decimal(6)}
    node = {"gpu_utilization": {k: float(v) for k, v in gpus.items()},
            "gpu_used_memory": {k: 2**30 * (3 if k == "0" else 1) for k in gpus},
            "gpu_total_memory": {k: 80 * 2**30 for k in gpus}}  # fmt: skip
    path = _write(tmp_path, "week.psv", [
        _line("7", gpus=8, admin=js1({"gpus": 8, "nodes": {"n1": node}, "total_time": 1})),
        _line("8", gpus=4, hours=1),
        _line("8.0", gpus=4, hours=1, tot="cpu=00:10:00,gres/gpumem=4G,gres/gpuutil=360"),
        _line("9", gpus=8, hours=3),
        _line("9.0", gpus=8, step_gpus=4, hours=3, tot="gres/gpumem=8G,gres/gpuutil=360"),
    ])  # fmt: skip
    land_sacct(ledger, path)
    registry = tmp_path / "registry.csv"
    registry.write_text(
        "job_id,experiment_id,work_class\n7,e7,evaluation\n8,e8,main\n9,e9,evaluation\n",
        encoding="utf-8",
    )
    land_registry(ledger, registry)
    jobs, result = _jobs(ledger, tmp_path, parse_plan(PLAN))
    assert jobs["7"]["gpu_util_pct"] == Decimal(10 + 6) / 8
    assert jobs["7"]["gpu_mem_used_gib"] == 3  # the most any one GPU used
    assert jobs["8"]["gpu_util_pct"] == Decimal(360) / 4
    assert jobs["8"]["gpu_mem_used_gib"] == 1  # 4 GiB over 4 GPUs
    assert jobs["9"]["gpu_util_pct"] == Decimal(360) / 4
    idle = _step(result, "idle-allocations")
    assert (idle["idle_jobs"], idle["idle_gpu_hours"]) == (1, 8 * 2)
    assert [j["job_id"] for j in idle["jobs"]] == ["7"]
    assert "never what decides a job was useful" in idle["summary"]
    oversized = _step(result, "oversized-evaluation")
    assert oversized["oversized_jobs"] == 2
    assert oversized["unused_gpu_hours"] == (8 - 2) * 2 + (8 - 4) * 3
    assert [(j["job_id"], j["priced_gpu_hours"]) for j in oversized["jobs"]] == [
        ("7", 12),
        ("9", 12),
    ]
    right = oversized["right_sized"]
    assert right["gpus_used"] == 4
    assert right["planned_gpu_hours"] == 12 * 8 * Decimal("2.5")
    assert right["right_sized_gpu_hours"] == 12 * 4 * Decimal("2.5")
    assert right["saving_usd"] == (240 - 120) * Decimal("2.40")
    assert "an alternative, not a verdict" in oversized["summary"]
    # The report (what the Prefect UI links): each job, priced, and the caveat.
    from trainbudget.report.gpu_use import gpu_use_section
    from trainbudget.report.markdown import render_table

    lines, tables = gpu_use_section(result)
    assert "16 GPU-hours on 1 idle allocation" in lines[0]
    assert "24 on GPUs that 2 evaluation jobs reserved" in lines[0]
    assert "never what decides a job was useful" in lines[0]
    assert "120 GPU-hours instead of 240 ($288.00 less)" in lines[1]
    unused, sized = (render_table(t) for t in tables)
    assert unused.count("| 7 |") == 2 and "| 9 |" in unused  # 7 is idle and oversized
    assert "never what decides a job was useful" in unused
    assert "| per-checkpoint | 8 | 4 | 240 | 120 |" in sized
    # The weekly report's jobs.csv / jobs.parquet and its jobs table carry the figures.
    import duckdb

    from trainbudget.reconcile.job_files import write_job_files

    largest = write_job_files(tmp_path / "jobs.json", tmp_path, limit=10)
    assert {r["job_id"]: r["gpu_util_pct"] for r in largest}["7"] == 2
    for name in ("jobs.csv", "jobs.parquet"):
        got = duckdb.sql(
            f"SELECT gpu_util_pct::DECIMAL(18, 6), gpu_mem_used_gib::DECIMAL(18, 6) "
            f"FROM '{tmp_path / name}' WHERE job_id = '8'"
        ).fetchall()
        assert got == [(Decimal(90), Decimal(1))], name


def test_an_export_without_usage_columns_writes_nothing(ledger, write_sacct, tmp_path) -> None:
    from .conftest import sacct_line

    land_sacct(ledger, write_sacct([sacct_line("1", submit="2026-11-24T00:00:00",
                                               start="2026-11-24T00:00:00",
                                               end="2026-11-24T01:00:00")]))  # fmt: skip
    assert ledger.con.execute("SELECT count(*) FROM gpu_usage").fetchone() == (0,)
    jobs, result = _jobs(ledger, tmp_path)
    assert jobs["1"]["gpu_util_pct"] is None and jobs["1"]["gpu_mem_used_gib"] is None
    assert list(jobs["1"]).index("gpu_util_pct") > list(jobs["1"]).index("billing")
    assert _step(result, "idle-allocations")["measured_jobs"] == 0


def test_unreadable_values_land_null_with_a_flag_and_relanding_is_a_no_op(
    ledger, tmp_path: Path
) -> None:
    path = _write(tmp_path, "bad.psv", [
        _line("21", gpus=2, admin="JS1:bm90IGd6aXA="),
        _line("22", gpus=2),
        _line("22.0", gpus=2, tot="gres/gpumem=1G,gres/gpuutil=lots"),
        _line("23", gpus=2, admin="JS1:Short"),
    ])  # fmt: skip
    first = land_sacct(ledger, path)
    assert (first.rows_landed, first.rows_quarantined) == (4, 0)  # the accounting is kept
    rows = dict(ledger.con.execute("SELECT job_id, flags FROM gpu_usage").fetchall())
    assert rows == {"21": ["jobstats-unreadable"], "22": ["tres-usage-unreadable"],
                    "23": ["jobstats-short"]}  # fmt: skip
    assert land_sacct(ledger, path).already_landed
    assert ledger.con.execute("SELECT count(*) FROM gpu_usage").fetchone() == (3,)
    jobs, result = _jobs(ledger, tmp_path)
    assert jobs["21"]["gpu_util_pct"] is None and jobs["22"]["gpu_util_pct"] is None
    assert jobs["22"]["gpu_mem_used_gib"] == Decimal("0.5")  # 1 GiB over 2 GPUs still reads
    assert _step(result, "idle-allocations")["usage_unreadable_jobs"] == 2  # Short is none


def test_a_sum_read_as_one_gpu_a_task_is_flagged(ledger, fixtures_dir, tmp_path) -> None:
    """The 24.05 line (240 over one task's 4 GPUs) under slurm_version 23.02.7 reads Ave =
    240 % a GPU: impossible, so the job is flagged and the finding names the plan's key."""
    land_sacct(ledger, fixtures_dir / "gpu_usage" / "derived_one_task_four_gpus_24.05.psv")
    plan = parse_plan(PLAN + "cluster: {slurm_version: 23.02.7}\n")
    jobs, result = _jobs(ledger, tmp_path, plan)
    assert jobs["5001"]["gpu_util_pct"] == 240
    idle = _step(result, "idle-allocations")
    assert idle["over_100_pct_jobs"] == 1 and "cluster.slurm_version" in idle["summary"]


def test_a_later_export_replaces_the_usage_of_its_lines(ledger, tmp_path: Path) -> None:
    lines = [_line("31", gpus=2), _line("31.0", gpus=2, tot="gres/gpuutil=20")]
    land_sacct(ledger, _write(tmp_path, "a.psv", lines))
    lines[1] = _line("31.0", gpus=2, tot="gres/gpuutil=100")
    land_sacct(ledger, _write(tmp_path, "b.psv", lines))
    jobs, _ = _jobs(ledger, tmp_path)
    assert jobs["31"]["gpu_util_pct"] == 50  # the newer line's 100 over 2 GPUs, not both


def test_a_real_export_reads_its_gpu_figures(ledger, fixtures_dir: Path, tmp_path) -> None:
    """hb-jobinfo's real export (Hábrók, V100s): job 7965768's batch step has one GPU at
    gres/gpuutil=90 and gres/gpumem=20500736K; its extern step (0 %) runs nothing."""
    path = fixtures_dir / "sacct" / "hb-jobinfo_sacct_snowman.txt"
    land_sacct(ledger, path, fields=HB_FIELDS.split(","))
    with ledger.transaction():
        result = review(ledger, None)
        write_jobs(ledger, result, tmp_path / "jobs.json")
    rows = json.loads((tmp_path / "jobs.json").read_text(), parse_float=Decimal)
    job = next(r for r in rows if r["job_id"] == "7965768")
    assert job["gpu_util_pct"] == 90
    assert job["gpu_mem_used_gib"] == (Decimal(20500736) / 2**20).quantize(Decimal("0.000001"))
