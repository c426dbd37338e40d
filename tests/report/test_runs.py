"""Run folders stay under the report root whatever the campaign is called; summary.json keys."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import orjson
import pytest

from trainbudget.estimate.mfu_rule import MfuChoice
from trainbudget.gates.outcome import GateOutcome
from trainbudget.report.runs import RunSummary, run_folder, write_summary


@pytest.mark.parametrize(
    "campaign", ["x/../../../../escaped", "..", "/etc", "a\\b", "w*[?]", "", "ok-name_1.2"]
)
def test_a_campaign_name_never_leaves_the_report_root(tmp_path: Path, campaign: str) -> None:
    folder = run_folder(tmp_path, "weekly-review", campaign, "2026-W47")
    assert folder.resolve().parent == tmp_path.resolve()
    assert folder.name.startswith("weekly-review-") and folder.name.endswith("-2026-W47")


def test_summary_has_the_design_keys(tmp_path: Path) -> None:
    (tmp_path / "run").mkdir()
    report = tmp_path / "run" / "report.html"
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
    written = orjson.loads((tmp_path / "run" / "summary.json").read_bytes())
    assert list(written)[:7] == ["flow", "campaign", "week", "planned_gpu_hours", "mfu",
                                 "mfu_source", "gates"]  # fmt: skip
    assert written["gates"][1] == {"gate": "retry", "outcome": "deny", "reason": "x"}
    assert written["mfu"] == 0.4 and body["planned_gpu_hours"] == Decimal("1.5")


def test_each_summary_refreshes_the_report_roots_index(tmp_path: Path) -> None:
    for campaign in ("first-run", "second-run"):
        folder = run_folder(tmp_path, "prelaunch", campaign)
        folder.mkdir()
        (folder / "report.html").write_text("<p>report</p>", encoding="utf-8")
        gates = [GateOutcome("admission", "admit", None, "fits")]
        summary = RunSummary(
            "prelaunch-estimate", campaign, Decimal(2), MfuChoice(Decimal("0.4"), "plan"),
            gates, folder / "report.html",
        )  # fmt: skip
        write_summary(summary)
        index = (tmp_path / "index.html").read_text(encoding="utf-8")
        assert f'href="prelaunch-{campaign}/report.html"' in index
    assert "first-run" in index  # the second refresh still lists the first run
    assert [p.name for p in tmp_path.iterdir() if p.is_file()] == ["index.html"]  # no partial
