"""Check what a run landed in the ledger: read each table by its sql/quality/ query, validate.

Called inside the run's transaction, so the rows just landed are visible here and a failed
check can roll them back with everything else the run wrote.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from trainbudget.base.errors import InputError
from trainbudget.quality.checkpoint import QualityReport, run_quality_checks
from trainbudget.quality.expectations import pilot_suite, progress_suite, sacct_suite

if TYPE_CHECKING:
    from trainbudget.ledger import Ledger


class DataQualityError(InputError):
    """Landed data failed its expectations: the run must not report from it."""

    def __init__(self, report: QualityReport) -> None:
        super().__init__(f"data quality: {report.summary()}")
        self.report = report


def check_weekly_inputs(
    ledger: Ledger, week: tuple[datetime, datetime], docs_dir: Path | None, run_name: str
) -> QualityReport:
    """Validate landed sacct allocations and progress events for the review week."""
    suites = [sacct_suite(week)]
    frames = {"sacct": ledger.execute("quality/sacct_allocations").df()}
    progress = ledger.execute("quality/progress_events").df()
    if len(progress):
        # Progress is optional input; when none was ever landed there is nothing to check.
        suites.append(progress_suite(week))
        frames["progress"] = progress
    return run_quality_checks(frames, suites, docs_dir, run_name)


def check_pilot_inputs(ledger: Ledger, docs_dir: Path | None, run_name: str) -> QualityReport:
    """Validate the landed pilot step rows."""
    frames = {"pilot": ledger.execute("quality/pilot_steps").df()}
    return run_quality_checks(frames, [pilot_suite()], docs_dir, run_name)


def require_quality(report: QualityReport) -> QualityReport:
    """Return the report if every expectation held; else raise DataQualityError naming them."""
    if not report.success:
        raise DataQualityError(report)
    return report
