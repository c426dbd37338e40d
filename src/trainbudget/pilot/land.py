"""Read pilot step logs, summarize them, and land steps, rejects and statistics in the ledger.

Everything is read and checked before anything is written; the writes of one call are one
transaction. A file whose exact content was landed before adds no rows again, and an analysis
with the same inputs and options as an earlier one is not stored twice.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson
import polars as pl

from trainbudget.base.exact_json import dumps
from trainbudget.ledger import sha256_of
from trainbudget.pilot.ingest import COLUMNS, RejectedRow, StepLog, read_step_log
from trainbudget.pilot.summary import PilotOptions, PilotSummary, summarize_pilot

if TYPE_CHECKING:
    from trainbudget.estimate.catalog import Accelerator
    from trainbudget.ledger import Ledger  # DuckDB: imported by the caller that opens one

SOURCE_KIND = "pilot_steps"


@dataclass(frozen=True)
class LoadedLog:
    """A step log read for this run: its content hash, valid rows and rejected rows."""

    path: Path
    sha256: str
    steps: pl.DataFrame
    rejected: tuple[RejectedRow, ...]
    duplicate_of: Path | None = None  # same bytes as an earlier file in this run: not reused


@dataclass(frozen=True)
class PilotResult:
    """The outcome of `land_pilot`: the files, the summary and what reached the ledger."""

    logs: list[LoadedLog]
    summary: PilotSummary
    analysis_key: str
    landed_files: list[Path]
    analysis_landed: bool

    def to_payload(self) -> dict[str, Any]:
        files = [
            {
                "path": str(log.path),
                "steps": 0 if log.duplicate_of else log.steps.height,
                "rejected": len(log.rejected),
                "landed": log.path in self.landed_files,
                "duplicate_of": log.duplicate_of,
            }
            for log in self.logs
        ]
        rejected = [
            {"path": str(log.path), "line": r.line, "reason": r.reason}
            for log in self.logs
            for r in log.rejected
        ]
        return {
            "files": files,
            "rejected_rows": rejected,
            **self.summary.to_payload(),
            "analysis_key": self.analysis_key,
            "analysis_landed": self.analysis_landed,
        }


def load_step_logs(paths: Sequence[str | Path]) -> list[LoadedLog]:
    """Read every file (any file-level fault raises before anything is used).

    A (run_id, step) already seen in an earlier file is rejected in the later one, and a file
    whose bytes repeat an earlier file is skipped, so no step is counted twice.
    """
    logs: list[LoadedLog] = []
    seen_hash: dict[str, Path] = {}
    seen_steps = pl.DataFrame(schema={"run_id": pl.String, "step": pl.Int64, "_at": pl.String})
    for path in paths:
        file_path = Path(path)
        log: StepLog = read_step_log(file_path)
        digest = sha256_of(file_path)
        if digest in seen_hash:
            logs.append(LoadedLog(file_path, digest, log.steps.clear(), (), seen_hash[digest]))
            continue
        seen_hash[digest] = file_path
        clash = log.steps.join(seen_steps, on=["run_id", "step"], how="inner")
        rejected = list(log.rejected) + [
            RejectedRow(
                r["source_line"],
                orjson.dumps({k: r[k] for k in COLUMNS}).decode(),
                f"duplicate step: run_id {r['run_id']!r} step {r['step']} is already in {r['_at']}",
            )
            for r in clash.iter_rows(named=True)
        ]
        steps = log.steps.join(seen_steps, on=["run_id", "step"], how="anti")
        seen_steps = pl.concat(
            [seen_steps, steps.select("run_id", "step", pl.lit(str(file_path)).alias("_at"))]
        )
        rejected.sort(key=lambda r: r.line)
        logs.append(LoadedLog(file_path, digest, steps, tuple(rejected)))
    return logs


def all_steps(logs: Sequence[LoadedLog]) -> pl.DataFrame:
    """The valid rows of every log, one frame."""
    return pl.concat([log.steps for log in logs if log.duplicate_of is None])


def analysis_key(logs: Sequence[LoadedLog], options: PilotOptions) -> str:
    """sha256 of the sorted input hashes and the options: equal analyses share a key."""
    basis = {"inputs": sorted({log.sha256 for log in logs}), "options": options.as_record()}
    return hashlib.sha256(orjson.dumps(basis, option=orjson.OPT_SORT_KEYS)).hexdigest()


def land_pilot(
    ledger: Ledger | None,
    paths: Sequence[str | Path],
    options: PilotOptions,
    accelerator: Accelerator | None = None,
) -> PilotResult:
    """Read, summarize and (with a ledger) land step logs and their statistics in one go."""
    logs = load_step_logs(paths)
    summary = summarize_pilot(all_steps(logs), options, accelerator)
    key = analysis_key(logs, options)
    landed: list[Path] = []
    analysis_landed = False
    if ledger is not None:
        with ledger.transaction():
            landed = land_step_logs(ledger, logs)
            analysis_landed = land_summary(ledger, key, logs, summary)
    return PilotResult(logs, summary, key, landed, analysis_landed)


def land_step_logs(ledger: Ledger, logs: Sequence[LoadedLog]) -> list[Path]:
    """Land each new file's rows with provenance and quarantine its rejects; return those landed."""
    landed = []
    with ledger.transaction():
        for log in logs:
            if log.duplicate_of is not None:
                continue
            source = ledger.begin_source(log.path, SOURCE_KIND, sha256=log.sha256)
            if source is None:
                continue
            provenance = source.provenance(None)
            rows = log.steps.with_columns(
                *(pl.lit(v).alias(k) for k, v in provenance.items() if k != "source_line")
            )
            ledger.insert_frame("pilot_steps", rows)
            ledger.quarantine_rows(source, [(r.line, r.raw, r.reason) for r in log.rejected])
            ledger.finish_source(source, log.steps.height)
            landed.append(log.path)
    return landed


def land_summary(
    ledger: Ledger, key: str, logs: Sequence[LoadedLog], summary: PilotSummary
) -> bool:
    """Store the summary and its buckets unless this exact analysis is already there."""
    if ledger.query("pilot/find_analysis", analysis_key=key):
        return False
    ledger.claim("pilot-analysis", key)
    payload = summary.to_payload()
    checkpoint = summary.checkpoint
    used = [log for log in logs if log.duplicate_of is None]
    row = {
        "analysis_key": key,
        "analyzed_at": datetime.now(UTC),
        "source_paths": [str(log.path) for log in used],
        "source_sha256s": [log.sha256 for log in used],
        "options_json": orjson.dumps(summary.options.as_record()).decode(),
        "steps": summary.steps,
        "runs": summary.runs,
        "shape_mix_source": summary.mix.source,
        "mix_coverage": float(summary.mix.coverage),
        "worst_case_measured": (
            summary.mix.worst_case_measured if summary.mix.worst_case else None
        ),
        "tokens_per_gpu_second": float(summary.tokens_per_gpu_second),
        "params": _float(summary.options.params),
        "gpu": payload["gpu"],
        "precision": summary.options.precision,
        "mfu": _float(summary.mfu),
        "mfu_source": payload["mfu_source"],
        "memory_headroom_bytes": summary.min_headroom_bytes(),
        "checkpoint_writes": checkpoint.writes if checkpoint else 0,
        "checkpoint_median_seconds": _float(checkpoint.median_seconds) if checkpoint else None,
        "checkpoint_max_bytes": checkpoint.max_bytes if checkpoint else None,
        "projected_gpu_hours": _float(summary.projected_gpu_hours),
        "warnings": list(summary.warnings),
        "summary_json": dumps(payload).decode(),
    }
    ledger.insert_rows("pilot_analyses", [row])
    bucket_rows = [
        {"analysis_key": key, **{k: _plain(b[k]) for k in _BUCKET_COLUMNS}}
        for b in payload["buckets"]
    ]
    ledger.insert_rows("pilot_buckets", bucket_rows)
    return True


_BUCKET_COLUMNS = (
    "seq_len", "batch_size", "gpus", "steps", "runs", "tokens", "median_step_seconds",
    "p95_step_seconds", "max_step_seconds", "tokens_per_step", "tokens_per_second",
    "tokens_per_gpu_second", "peak_memory_bytes", "memory_headroom_bytes", "mfu",
    "mix_fraction", "worst_case",
)  # fmt: skip


def _float(value: Any) -> float | None:
    return None if value is None else float(value)


def _plain(value: Any) -> Any:
    """Decimals become floats for DOUBLE columns; ints, bools and None pass through."""
    return value if value is None or isinstance(value, bool | int) else float(value)


def latest_pilot_mfu(ledger: Ledger, gpu: str | None = None) -> dict[str, Any] | None:
    """The newest measured pilot MFU (optionally for one GPU), for the estimator.

    Returns a dict with `mfu` (Decimal), `mfu_source` ("pilot"), `gpu`, `precision`, `params`,
    `tokens_per_gpu_second`, `mix_coverage`, `worst_case_measured`, `source_paths`,
    `analyzed_at`, `analysis_key`; None when no pilot with an MFU was landed.
    """
    rows = ledger.records("pilot/latest_mfu", gpu=gpu)
    if not rows:
        return None
    found = rows[0]
    # Stored as DOUBLE; handed back as the Decimal of its shortest text, like any measurement.
    found["mfu"] = Decimal(repr(found["mfu"]))
    return found
