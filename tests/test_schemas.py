"""The Pandera models of the ledger tables hold the declared rules, and the DuckDB tables are
validated in place against them (issue 14, item 3)."""

from __future__ import annotations

from datetime import datetime

import pandera.polars as pa
import polars as pl
import pytest

from trainbudget.quality.relation import relation_violations
from trainbudget.quality.rules import (
    JOB_ACCOUNTING_RULES,
    MANIFEST_RULES,
    MAX_GPUS_PER_JOB,
    PILOT_STEP_RULES,
    PROGRESS_EVENTS_RULES,
    REGISTRY_RULES,
    SACCT_ROWS,
    TRACE_RANK_RULES,
)
from trainbudget.schemas import (
    JobAccounting,
    ManifestRow,
    PilotStep,
    ProgressEvent,
    RegistryRow,
    SacctRow,
    TraceRank,
    rules_of,
)


@pytest.mark.parametrize(
    ("model", "rules"),
    [
        (SacctRow, SACCT_ROWS),
        (ProgressEvent, PROGRESS_EVENTS_RULES),
        (RegistryRow, REGISTRY_RULES),
        (ManifestRow, MANIFEST_RULES),
        (JobAccounting, JOB_ACCOUNTING_RULES),
        (TraceRank, TRACE_RANK_RULES),
        (PilotStep, PILOT_STEP_RULES),
    ],
)
def test_each_model_declares_exactly_its_table_rules(model, rules) -> None:
    assert {r.column: r for r in rules_of(model)} == {r.column: r for r in rules.fields}


def test_the_trace_rank_rules_refuse_what_the_model_refuses(ledger) -> None:
    """The landing checks trace_ranks in DuckDB (no Pandera); the model's frame check and the
    row rule refuse the same row: a category longer than the busy time."""
    row = {"rank": 0, "gpu_busy_ns": 10, "gpu_idle_ns": 0, "computation_ns": 11,
           "communication_ns": 0, "memory_ns": 0, "other_ns": 0, "comm_comp_overlap_pct": None,
           "memory_peak_bytes": None, "dataloader_ns": 0, "wall_ns": 10}  # fmt: skip
    frame = pl.DataFrame([row], schema={k: pl.Float64 if k == "comm_comp_overlap_pct"
                                        else pl.Int64 for k in row})  # fmt: skip
    with pytest.raises(pa.errors.SchemaError, match="categories within busy time"):
        TraceRank.validate(frame)
    ledger.con.execute("CREATE TEMP TABLE ranks AS SELECT * FROM frame")
    found = relation_violations(ledger.con, TRACE_RANK_RULES, "ranks")
    assert [(v.rule, v.rows) for v in found] == [("categories within busy time", 1)]


def test_the_gpu_bound_reaches_the_model() -> None:
    (gpus,) = [r for r in rules_of(SacctRow) if r.column == "gpus"]
    assert (gpus.ge, gpus.le, gpus.nullable) == (0, MAX_GPUS_PER_JOB, False)


def _sacct_frame(**changes: object) -> pl.DataFrame:
    row = {
        "cluster": "c", "job_id": "1", "step": None, "job_id_raw": "1", "name": "t",
        "account": "p", "partition": "gpu", "state": "COMPLETED", "state_text": "COMPLETED",
        "exit_status": 0, "exit_signal": 0, "elapsed_seconds": 3600, "elapsed_text": "01:00:00",
        "submit_time": datetime(2026, 11, 23), "start_time": datetime(2026, 11, 23),
        "end_time": datetime(2026, 11, 23, 1), "gpus": 8, "gpu_type": None,
        "alloc_mem_bytes": 1, "alloc_cpus": 8, "nnodes": 1, "alloc_tres": "gres/gpu=8",
        "req_tres": None, "source_id": 1, "source_line": 2, "time_flags": None,
        "run_end_time": datetime(2026, 11, 23, 1),
    }  # fmt: skip
    row.update(changes)
    schema = {k: pl.String for k, v in row.items() if v is None}
    schema["time_flags"] = pl.List(pl.String)
    return pl.DataFrame([row], schema_overrides=schema)


def test_sacct_model_refuses_a_frame_the_landing_would_quarantine() -> None:
    SacctRow.validate(_sacct_frame())
    for bad in ({"gpus": -8}, {"elapsed_seconds": -3600}, {"gpus": MAX_GPUS_PER_JOB + 1},
                {"state": "EXPLODED"}, {"end_time": datetime(2026, 11, 22)}):  # fmt: skip
        with pytest.raises(pa.errors.SchemaError):
            SacctRow.validate(_sacct_frame(**bad))


def test_a_missing_or_undeclared_column_is_named(ledger) -> None:
    ledger.con.execute("CREATE TEMP TABLE job_accounting AS SELECT 1 AS alloc_id")
    missing = {v.rule for v in relation_violations(ledger.con, JOB_ACCOUNTING_RULES)}
    assert "missing column gpus" in missing
    ledger.con.execute("ALTER TABLE sacct_rows ADD COLUMN surprise INTEGER")
    found = [v.rule for v in relation_violations(ledger.con, SACCT_ROWS)]
    assert found == ["undeclared column surprise"]
