"""Plans as the ledger stores them: JSON written by the pydantic models still reads back.

tests/fixtures/plan_json/ holds `model_dump_json()` of plans dumped by the last pydantic
version (its README says how); to_json() must write those exact bytes again.
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trainbudget.gates.retention import RetentionPolicy, retention_policy
from trainbudget.plan import load_plan
from trainbudget.plan.fields import Invalid
from trainbudget.plan.sections import Plan

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures" / "plan_json"


def _source(stored: Path) -> Path:
    name = f"{stored.stem}.plan.yaml"
    for folder in (FIXTURES, REPO / "examples", REPO / "examples" / "published"):
        if (folder / name).exists():
            return folder / name
    raise AssertionError(f"no plan for {stored.name}")


STORED = sorted(FIXTURES.glob("*.json"))


def test_every_fixture_has_its_plan() -> None:
    assert len(STORED) == 9 and all(_source(path).exists() for path in STORED)


@pytest.mark.parametrize("stored", STORED, ids=lambda path: path.stem)
def test_a_stored_plan_reads_back_as_its_file_and_dumps_the_same_bytes(stored: Path) -> None:
    text = stored.read_text(encoding="utf-8").removesuffix("\n")
    plan = Plan.from_json(text)
    assert plan == load_plan(_source(stored))
    assert plan.to_json() == text
    assert load_plan(_source(stored)).to_json() == text


def test_stored_decimals_come_back_exact_from_text() -> None:
    plan = Plan.from_json((FIXTURES / "full.json").read_text(encoding="utf-8"))
    assert plan.prices.gpu_hour_usd == Decimal("2.40") and str(plan.prices.gpu_hour_usd) == "2.40"
    assert plan.sensitivity.failure_fraction == [Decimal("0.05"), "forecast", Decimal("0.200")]
    assert plan.main.phases[1].tokens == Decimal("1.5E+12")
    assert plan.pilots[0].name == 'lr "sweep" ünï\ttab'
    assert plan.gates is not None and plan.gates.stop_rules is not None
    assert plan.gates.stop_rules.early_stop is not None
    assert plan.gates.stop_rules.early_stop.min_delta == Decimal("0.001")


def test_a_section_is_frozen_and_compares_by_value() -> None:
    plan = load_plan(REPO / "examples" / "demo-7b.plan.yaml")
    with pytest.raises(AttributeError):
        plan.main.gpus = 9  # type: ignore[misc]
    assert plan == Plan.from_json(plan.to_json()) and plan != Plan.from_json(
        plan.to_json().replace('"gpus":8', '"gpus":9')
    )


def test_a_stored_plan_is_checked_like_a_file() -> None:
    text = (FIXTURES / "demo-7b.json").read_text(encoding="utf-8")
    with pytest.raises(Invalid) as caught:
        Plan.from_json(text.replace('"gpus":8', '"gpus":"8"'))
    assert caught.value.loc == ("main", "gpus")
    assert caught.value.message == "must be an integer, got '8'"


def test_retention_policy_reads_the_section_as_a_dict() -> None:
    plan = Plan.from_json((FIXTURES / "full.json").read_text(encoding="utf-8"))
    assert plan.gates is not None
    policy = retention_policy(plan.gates.retention)
    assert policy == RetentionPolicy(
        recovery_days=7,
        recovery_keep_last=None,
        promoted_days=90,
        final_days=365,
        evaluation_days=1,
    )


_DECIMALS = st.decimals(allow_nan=False, allow_infinity=False, min_value=Decimal("1e-6"),
                        max_value=Decimal("1e15"), places=None)  # fmt: skip


@settings(max_examples=60, deadline=None)
@given(
    hours=_DECIMALS,
    price=_DECIMALS,
    gpus=st.integers(min_value=1, max_value=2**40),
    name=st.text(max_size=30),
    fractions=st.lists(_DECIMALS | st.just("forecast"), min_size=1, max_size=4),
)
def test_a_plan_reads_back_from_its_json_unchanged(
    hours: Decimal, price: Decimal, gpus: int, name: str, fractions: list[Decimal | str]
) -> None:
    plan = Plan.validate(
        {
            "campaign": "c",
            "unit_of_progress": "tokens",
            "prices": {"gpu_hour_usd": price},
            "ceiling": {"gpu_hours": hours},
            "main": {"gpus": gpus, "hours": hours},
            "pilots": [{"name": name, "runs": 1, "gpus": gpus, "hours": hours}],
            "sensitivity": {"failure_fraction": fractions},
        }
    )
    text = plan.to_json()
    assert Plan.from_json(text) == plan
    assert json.loads(text)["pilots"][0]["name"] == name
    assert json.loads(text)["prices"]["gpu_hour_usd"] == str(price)
