"""The sane bounds on what a gate takes (limits.GATE_BOUNDS): one table for options, plan
fields and gate arguments (issue 23)."""

from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path

import pytest

from trainbudget.base.errors import InputError
from trainbudget.base.limits import GATE_BOUNDS, gate_bound, within_gate_bound
from trainbudget.gates.admission import AdmissionRequest, QueueLimits, admit_run
from trainbudget.gates.outcome import GATES
from trainbudget.gates.stop_rules import declare_stop_rules

SRC = Path(__file__).resolve().parents[2] / "src" / "trainbudget"


@pytest.mark.parametrize(
    "name", ["budget_gpu_hours", "gates.admission.budget_gpu_hours", "--budget-gpu-hours"]
)
def test_a_quantity_is_found_by_field_plan_path_or_option(name: str) -> None:
    assert gate_bound(name) == (Decimal("1e12"), "GPU-hours")


@pytest.mark.parametrize(
    ("name", "value", "refused"),
    [
        ("--estimated-gpu-hours", Decimal("1e12"), False),  # the bound itself is taken
        ("--estimated-gpu-hours", Decimal("1000000000000.000001"), True),
        ("--expected-interruptions", Decimal("1e9"), False),
        ("--expected-interruptions", Decimal("1e300"), True),
        ("max_gpus", 10**7, False),
        ("max_gpus", 10**7 + 1, True),
        ("gates.retention.final_days", 10**6 + 1, True),
        ("--gain", Decimal("1e300"), False),  # no bound of its own here
        ("budget_gpu_hours", None, False),
    ],
)
def test_values_above_their_bound_are_refused(name: str, value, refused: bool) -> None:
    if refused:
        with pytest.raises(InputError, match=re.escape(f"{name}: must be at most")):
            within_gate_bound(name, value)
    else:
        assert within_gate_bound(name, value) == value


def test_the_gate_itself_refuses_what_no_option_checked() -> None:
    """A flow or a script calling the gate directly meets the same bound."""
    request = AdmissionRequest(Decimal(1), Decimal("1e300"), Decimal(0))
    with pytest.raises(InputError, match=r"^budget_gpu_hours: must be at most 1,000,000,000,000"):
        admit_run(request)
    with pytest.raises(InputError, match=r"^capacity_gpu_hours: must be at most"):
        admit_run(AdmissionRequest(Decimal(1), Decimal(2), Decimal(0)),
                  QueueLimits(capacity_gpu_hours=Decimal("2e12")))  # fmt: skip
    with pytest.raises(InputError, match=r"^stop_rules\.spend_limit_usd: must be at most"):
        declare_stop_rules(development_metrics=[], spend_limit_usd=Decimal("1e16"))


def test_the_bound_table_names_real_units() -> None:
    assert all(maximum > 0 and unit for maximum, unit in GATE_BOUNDS.values())


def test_every_gate_a_module_names_is_known() -> None:
    """GATES (what `decisions --gate` accepts) holds every gate name the gates write."""
    named = set()
    for path in (SRC / "gates").glob("*.py"):
        text = path.read_text(encoding="utf-8")
        named |= set(re.findall(r'gate="([a-z-]+)"', text))
        named |= set(re.findall(r'GateOutcome\(\s*"([a-z-]+)"', text))
        named |= set(re.findall(r'_unpromotable\(\s*"([a-z-]+)"', text))
    assert named and named <= set(GATES), named - set(GATES)
