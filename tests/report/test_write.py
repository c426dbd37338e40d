"""write_report puts report.html and report.md side by side with the same verdict."""

from __future__ import annotations

from pathlib import Path

from trainbudget.report.model import Report, Verdict
from trainbudget.report.write import write_report


def test_both_files_carry_the_verdict(tmp_path: Path) -> None:
    report = Report("t", "s", verdicts=[Verdict("admission", "admit", "within budget")])
    files = write_report(report, tmp_path / "run")
    assert files.html == tmp_path / "run" / "report.html"
    for path in (files.html, files.markdown):
        assert "within budget" in path.read_text(encoding="utf-8")
