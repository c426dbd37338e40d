"""MFU read from the ledger for the next estimate: calibrated, pilot or trace (issues 3, 5, 7).

Each reader returns the MFU as a Decimal with `mfu_source` and where it came from (table, row,
spread, number of runs), so a user can check the number by hand. A missing measurement is an
InputError naming the ledger and the command that would produce one. `offers` lists what the
ledger could supply when the user gave no MFU: the estimator only suggests, never switches.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trainbudget.base.errors import InputError
from trainbudget.estimate.exact import div, to_decimal

if TYPE_CHECKING:
    from trainbudget.ledger import Ledger

MFU_FROM = ("calibrated", "pilot", "trace")
# Seed 004: training MFU is 0.1–0.5 by model class; a trace below this profiled a small batch.
TRACE_LOW_MFU = Decimal("0.1")


@dataclass(frozen=True)
class LedgerMfu:
    """An MFU taken from the ledger: value, mfu_source, and the rows it was read from."""

    mfu: Decimal
    mfu_source: str
    detail: dict[str, Any]
    note: str
    warnings: list[str] = field(default_factory=list)

    def to_payload(self) -> dict[str, Any]:
        """The `mfu_from` object of the estimate JSON: source, note and the row's fields."""
        return {"mfu_source": self.mfu_source, "note": self.note, **self.detail}


def _measured(value: float) -> Decimal:
    """A DOUBLE from the ledger as the Decimal of its shortest text (0.32 stays 0.32)."""
    return to_decimal(float(value))


def _check_range(mfu: Decimal, where: str, hint: str) -> None:
    if not mfu.is_finite() or mfu <= 0 or mfu > 1:
        raise InputError(f"{where}: MFU {mfu:.4g} is outside (0, 1]; {hint}")


def calibrated_mfu(ledger: Ledger, work_class: str, cluster: str | None) -> LedgerMfu:
    """The runtime calibration's MFU for one work class (and cluster) from table `calibration`.

    mfu_calibrated = mean over completed runs of (estimated MFU ÷ actual/estimated runtime),
    stored by `trainbudget reconcile`; the spread is that of the runtime ratio.
    """
    rows = ledger.records("estimate/calibrated_mfu", work_class=work_class, cluster=cluster)
    if not rows:
        known = [
            f"{r['work_class']}@{r['cluster']}"
            for r in ledger.records("estimate/calibrated_classes")
        ]
        where = f"work class {work_class!r}" + (f" on cluster {cluster!r}" if cluster else "")
        have = f"; calibrated: {', '.join(known)}" if known else ""
        raise InputError(
            f"mfu_from calibrated: ledger {ledger.path} has no runtime calibration for "
            f"{where}{have} (land estimates with `estimate --run-id`, then run "
            "`reconcile --registry … --plan …` once those runs complete)"
        )
    if len(rows) > 1:
        clusters = ", ".join(r["cluster"] for r in rows)
        raise InputError(
            f"cluster: work class {work_class!r} is calibrated on clusters {clusters}; pick one"
        )
    row = rows[0]
    mfu = _measured(row["mfu_calibrated"])
    where = f"calibration {row['work_class']}@{row['cluster']}"
    _check_range(
        mfu,
        where,
        f"its runs took {row['ratio_mean']:.3g} × their estimated time, so the estimates it "
        "audits were off by more than utilisation can explain; check their run ids, or give an MFU",
    )
    detail = {
        "table": "calibration",
        "work_class": row["work_class"],
        "cluster": row["cluster"],
        "quantity": row["quantity"],
        "runs": row["runs"],
        "ratio_mean": row["ratio_mean"],
        "ratio_stddev": row["ratio_stddev"],
        "ratio_min": row["ratio_min"],
        "ratio_max": row["ratio_max"],
        "computed_at": row["computed_at"],
    }
    spread = (
        "one run, no spread"
        if row["ratio_stddev"] is None
        else f"sd {row['ratio_stddev']:.3g}, range {row['ratio_min']:.3g}–{row['ratio_max']:.3g}"
    )
    note = (
        f"{where}: {row['runs']} completed run(s), actual ÷ estimated runtime "
        f"{row['ratio_mean']:.3g} ({spread}); computed {row['computed_at']:%Y-%m-%d %H:%M}"
    )
    return LedgerMfu(mfu, "calibrated", detail, note)


def pilot_mfu(ledger: Ledger, gpu: str | None, precision: str) -> LedgerMfu:
    """The newest landed pilot analysis's measured MFU (for `gpu`, when named)."""
    rows = ledger.records("estimate/pilot_mfu", gpu=gpu)
    if not rows:
        other = ledger.records("estimate/pilot_mfu", gpu=None) if gpu else []
        have = f"; the newest pilot measured {other[0]['gpu']}" if other else ""
        on = f" on {gpu}" if gpu else ""
        raise InputError(
            f"mfu_from pilot: ledger {ledger.path} has no pilot MFU{on}{have} "
            "(run `trainbudget pilot STEPLOG --params N --gpu NAME`)"
        )
    row = rows[0]
    mfu = _measured(row["mfu"])
    _check_range(mfu, f"pilot {row['analysis_key'][:12]}", "give an MFU")
    detail = {
        "table": "pilot_analyses",
        "analysis_key": row["analysis_key"],
        "analyzed_at": row["analyzed_at"],
        "gpu": row["gpu"],
        "precision": row["precision"],
        "steps": row["steps"],
        "runs": row["runs"],
        "buckets": row["buckets"],
        "bucket_mfu_min": row["bucket_mfu_min"],
        "bucket_mfu_max": row["bucket_mfu_max"],
        "mix_coverage": row["mix_coverage"],
        "worst_case_measured": row["worst_case_measured"],
        "source_paths": row["source_paths"],
    }
    warnings = []
    if row["precision"] and row["precision"].lower() != precision.lower():
        warnings.append(
            f"the pilot measured MFU against the {row['precision']} peak; this estimate uses "
            f"{precision.lower()}"
        )
    spread = (
        f"shape buckets {row['bucket_mfu_min']:.3g}–{row['bucket_mfu_max']:.3g}"
        if row["buckets"]
        else "no per-shape MFU"
    )
    note = (
        f"pilot {row['analysis_key'][:12]} on {row['gpu']} ({row['precision']}): {row['steps']} "
        f"steps in {row['runs']} run(s), {spread}; analysed {row['analyzed_at']:%Y-%m-%d %H:%M}"
    )
    return LedgerMfu(mfu, "pilot", detail, note, warnings)


def _family(gpu: str) -> str:
    """The part family a catalog name shares with a device name: A100-80GB → A100."""
    return gpu.split("-")[0].upper()


def trace_mfu(ledger: Ledger, peak_flops_per_second: Decimal, gpu: str | None) -> LedgerMfu:
    """MFU of the newest landed trace: mean per-rank achieved FLOP/s over this estimate's peak.

    Achieved FLOP/s of a rank = FLOPs from recorded shapes ÷ its wall time (the sum of its
    ProfilerStep durations), as `trainbudget trace` reports it (docs/trace.md).
    """
    rows = ledger.records("estimate/trace_ranks")
    if not rows:
        raise InputError(
            f"mfu_from trace: ledger {ledger.path} has no landed trace "
            "(run `trainbudget trace TRACE_FOLDER` with this ledger)"
        )
    rates = [
        Fraction(int(r["flops"]) * 10**9, r["wall_ns"])
        for r in rows
        if r["flops"] and r["wall_ns"] > 0
    ]
    folder = str(Path(rows[0]["source_path"]).parent)
    if not rates:
        raise InputError(
            f"mfu_from trace: the newest trace ({folder}) counted no FLOPs from recorded "
            "shapes (profile with record_shapes=True)"
        )
    mean_rate = sum(rates, Fraction(0)) / len(rates)
    mfu = div(mean_rate.numerator, mean_rate.denominator * to_decimal(peak_flops_per_second))
    _check_range(mfu, f"trace {folder}", "the peak given is below what the trace achieved")
    devices = sorted({r["device_name"] for r in rows if r["device_name"]})
    warnings = []
    if gpu and devices and not any(_family(gpu) in d.upper() for d in devices):
        warnings.append(
            f"the trace ran on {', '.join(devices)}, this estimate is for {gpu}: "
            "its MFU may not carry over"
        )
    if mfu < TRACE_LOW_MFU:
        warnings.append(
            f"trace MFU {mfu:.3g} is below {TRACE_LOW_MFU}, under any training range of "
            "seed 004: a profile of a small batch understates a full run"
        )
    achieved = div(mean_rate.numerator, mean_rate.denominator)
    detail = {
        "table": "trace_ranks",
        "folder": folder,
        "ranks": len(rows),
        "ranks_with_flops": len(rates),
        "hta_compatible": rows[0]["hta_compatible"],
        "device_names": devices,
        "flops": sum(int(r["flops"]) for r in rows),
        "achieved_flops_per_second": achieved,
        "source_ids": [r["source_id"] for r in rows],
        "landed_at": max(r["landed_at"] for r in rows),
    }
    note = (
        f"trace {folder}: {len(rates)} rank(s), mean {float(achieved) / 1e12:,.4g} TFLOP/s "
        f"achieved ÷ {float(peak_flops_per_second) / 1e12:,.4g} TFLOP/s peak"
    )
    return LedgerMfu(mfu, "trace", detail, note, warnings)


def open_existing(path: Path) -> Ledger:
    """Open a ledger that must already exist (reading an MFU never creates an empty one)."""
    from trainbudget.ledger import Ledger

    return Ledger.open_existing(path)


def read_mfu(
    ledger_file: Path | None,
    kind: str,
    *,
    gpu: str | None,
    precision: str,
    peak_flops_per_second: Decimal | None,
    work_class: str,
    cluster: str | None,
) -> LedgerMfu:
    """The MFU of `kind` (calibrated, pilot or trace), read from the ledger file."""
    if kind not in MFU_FROM:
        raise InputError(f"mfu_from: must be one of {', '.join(MFU_FROM)}, got {kind!r}")
    with open_existing(ledger_file) as ledger:
        if kind == "calibrated":
            return calibrated_mfu(ledger, work_class, cluster)
        if kind == "pilot":
            return pilot_mfu(ledger, gpu, precision)
        if peak_flops_per_second is None:
            raise InputError("mfu_from trace: the main run needs a gpu or gpu_tflops")
        return trace_mfu(ledger, peak_flops_per_second, gpu)


def offers(ledger_file: Path, *, gpu: str | None, work_class: str) -> list[dict[str, Any]]:
    """What the ledger could supply instead of the throughput prior: one dict per measurement,
    with `mfu_from` (calibrated, pilot, trace) and what selects and describes it;
    LedgerBusyError while another process holds the ledger."""
    from trainbudget.ledger import ledger_exists

    if not ledger_exists(ledger_file):
        return []
    found: list[dict[str, Any]] = []
    with open_existing(ledger_file) as ledger:
        for row in ledger.records("estimate/calibrated_mfu", work_class=work_class, cluster=None):
            found.append(
                {
                    "mfu_from": "calibrated",
                    "work_class": work_class,
                    "cluster": row["cluster"],
                    "mfu": row["mfu_calibrated"],
                    "runs": row["runs"],
                }
            )
        pilot = ledger.records("estimate/pilot_mfu", gpu=gpu)
        if pilot:
            found.append({"mfu_from": "pilot", "mfu": pilot[0]["mfu"], "gpu": pilot[0]["gpu"]})
        if ledger.records("estimate/trace_ranks"):
            found.append({"mfu_from": "trace"})
    return found
