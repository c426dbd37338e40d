"""Run folders stay under the report root whatever the campaign is called; summary.json keys."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import orjson
import pytest

from trainbudget.estimate.mfu_rule import MfuChoice
from trainbudget.gates.outcome import GateOutcome
from trainbudget.runs import RunSummary, run_folder, write_summary


@pytest.mark.parametrize(
    "campaign", ["x/../../../../escaped", "..", "/etc", "a\\b", "w*[?]", "", "ok-name_1.2"]
)
def test_a_campaign_name_never_leaves_the_report_root(tmp_path: Path, campaign: str) -> None:
    folder = run_folder(tmp_path, "weekly-review", campaign, "2026-W47")
    assert folder.resolve().parent == tmp_path.resolve()
    assert folder.name.startswith("weekly-review-") and folder.name.endswith("-2026-W47")


def test_summary_has_the_design_keys(tmp_path: Path) -> None:
    report = tmp_path / "report.html"
    gates = [
        GateOutcome("continuation", "continue", None, "ok"),
        GateOutcome("retry", "deny", "x", "no"),
    ]
    body = write_summary(
        RunSummary(
            "weekly-review",
            "c",
            Decimal("1.5"),
            MfuChoice(Decimal("0.4"), "plan"),
            gates,
            report,
            week="2026-W47",
        )
    )
    written = orjson.loads((tmp_path / "summary.json").read_bytes())
    assert list(written)[:7] == ["flow", "campaign", "week", "planned_gpu_hours", "mfu",
                                 "mfu_source", "gates"]  # fmt: skip
    assert written["gates"][1] == {"gate": "retry", "outcome": "deny", "reason": "x"}
    assert written["mfu"] == 0.4 and body["planned_gpu_hours"] == Decimal("1.5")
