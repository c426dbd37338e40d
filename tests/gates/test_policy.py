"""The plan's gates: section: thresholds parse exactly; bad ones name file, line and field."""

from __future__ import annotations

from decimal import Decimal as D
from pathlib import Path

import pytest

from trainbudget.base.errors import InputError
from trainbudget.gates.admission_plan import plan_limits
from trainbudget.gates.retention import retention_policy
from trainbudget.gates.stop_rules import planned_stop_rules
from trainbudget.plan import parse_plan

REPO_ROOT = Path(__file__).resolve().parents[2]
BASE = (REPO_ROOT / "examples" / "demo-7b.plan.yaml").read_text()

GATES = """\
gates:
  admission: {budget_gpu_hours: 1400, max_gpus: 8, max_runtime_hours: 168,
              require_data_snapshot: true, data_snapshots: [snap-2026-11],
              capacity_gpu_hours: 5000, retraining_reserve_gpu_hours: 800}
  correctness_floor: 0.62
  cheap_suite_floor: 0.40
  stop_rules:
    development_metrics: [val_loss]
    holdout_metrics: [test_acc]
    max_wall_hours: 130
    spend_limit_usd: 3000
    max_failed_steps: 50
    early_stop: {metric: val_loss, mode: min, patience: 3, min_delta: 0.001}
  retry: {max_attempts: 2}
  retention: {recovery_days: 14, recovery_keep_last: 2, promoted_days: 180}
"""


def test_gates_section_parses_into_gate_arguments() -> None:
    plan = parse_plan(BASE + GATES)
    gates = plan.gates
    limits, budget = plan_limits(plan, {"committed_gpu_hours": D(100)})
    assert limits.max_gpus == 8 and limits.known_data_snapshots == frozenset({"snap-2026-11"})
    assert limits.retraining_reserve_gpu_hours == 800 and limits.committed_gpu_hours == 100
    assert budget == D(1400)
    rules = planned_stop_rules(gates.stop_rules)
    assert rules.spend_limit_usd == D(3000) and rules.early_stop.min_delta == D("0.001")
    assert gates.correctness_floor == D("0.62")
    assert retention_policy(gates.retention).final_days == 730  # default kept
    assert gates.retry.max_attempts == 2


def test_a_plan_without_gates_still_parses() -> None:
    assert parse_plan(BASE).gates is None


def _error(text: str) -> str:
    with pytest.raises(InputError) as caught:
        parse_plan(BASE + text, "plan.yaml")
    return str(caught.value)


def test_a_holdout_early_stop_is_refused_naming_the_line() -> None:
    bad = GATES.replace("early_stop: {metric: val_loss", "early_stop: {metric: test_acc")
    message = _error(bad)
    assert message.startswith("plan.yaml:")
    assert "gates.stop_rules" in message and "final holdout" in message


def test_an_unknown_early_stop_metric_is_refused() -> None:
    message = _error(GATES.replace("early_stop: {metric: val_loss", "early_stop: {metric: ppl"))
    assert "unknown metric 'ppl'" in message


def test_a_negative_retention_period_names_the_field_and_line() -> None:
    message = _error(GATES.replace("promoted_days: 180", "promoted_days: -1"))
    line = (
        len(BASE.splitlines())
        + GATES.splitlines().index(next(x for x in GATES.splitlines() if "retention" in x))
        + 1
    )
    assert message.startswith(f"plan.yaml:{line}: gates.retention.promoted_days:")
    assert "-1" in message


def test_a_misspelt_gate_key_is_refused() -> None:
    assert "unknown key" in _error(GATES.replace("max_gpus", "max_gpu"))
