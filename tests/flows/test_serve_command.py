"""`trainbudget serve` refuses bad input before it starts serving (exit 2, one line)."""

from __future__ import annotations

from pathlib import Path

from trainbudget.demo_data import demo_inputs


def test_missing_plan_is_named(cli, tmp_path: Path) -> None:
    result = cli("serve", "--plan", str(tmp_path / "nope.yaml"), cwd=tmp_path)
    assert result.code == 2
    assert result.stderr.strip() == (
        f"trainbudget: error: {tmp_path / 'nope.yaml'}: cannot read plan: No such file or directory"
    )
    assert result.stdout == ""


def test_review_needs_a_plan_and_scheduler_records(cli, tmp_path: Path) -> None:
    assert "--plan" in cli("serve", cwd=tmp_path).stderr
    result = cli("serve", "--plan", str(demo_inputs().plan), cwd=tmp_path)
    assert result.code == 2
    assert "--sacct: give sacct exports, or --live-sacct" in result.stderr
