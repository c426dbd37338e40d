"""The account's allocation in admission (gates/allocation.py) and sreport's used figure
(reconcile/sreport.py, tests/fixtures/sreport/SOURCES.md)."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from trainbudget.base.errors import InputError
from trainbudget.gates.admission import AdmissionRequest, QueueLimits, admit_run
from trainbudget.gates.admission_plan import admit_planned_run
from trainbudget.gates.allocation import Allocation, allocation_block, allocation_from_options
from trainbudget.plan import parse_plan
from trainbudget.reconcile.sreport import read_sreport_usage, used_for

SREPORT = Path(__file__).resolve().parents[1] / "fixtures" / "sreport"
D = Decimal


@pytest.mark.parametrize(
    ("allocation", "gpu_hours", "billing_hours", "blocked"),
    [
        (Allocation("gpu_hours", D(100), D(90)), D(10), None, False),  # exactly what is left
        (Allocation("gpu_hours", D(100), D(90)), D("10.01"), None, True),
        (Allocation("billing_hours", D(50000), D(12000)), D(1), D(38000), False),
        (Allocation("billing_hours", D(50000), D(12000)), D(1), D(38001), True),
        (None, D(10**6), None, False),
    ],
)
def test_a_run_defers_when_it_exceeds_what_is_left(allocation, gpu_hours, billing_hours, blocked):
    block = allocation_block(allocation, gpu_hours, billing_hours)
    assert (block is not None) == blocked
    if blocked:
        assert block[0] == "allocation"


def test_a_billing_allocation_needs_the_estimate_in_billing_hours() -> None:
    with pytest.raises(InputError, match="--estimated-billing-hours"):
        allocation_block(Allocation("billing_hours", D(10)), D(1), None)


def test_admission_defers_with_the_allocation_beside_the_budget() -> None:
    request = AdmissionRequest(D(120), D(100), D(0))
    limits = QueueLimits(allocation=Allocation("gpu_hours", D(500), D(450), "2027-03-31"))
    outcome = admit_run(request, limits)
    assert outcome.outcome == "defer" and outcome.reason == "budget"
    assert [r["reason"] for r in outcome.details["reasons"]] == ["budget", "allocation"]
    clause = outcome.details["reasons"][1]["sentence"]
    assert "50 of 500 (450 used, from the plan, ending 2027-03-31)" in clause
    within = admit_run(AdmissionRequest(D(40), D(100), D(0)), limits)
    assert within.outcome == "admit"
    assert within.inputs["limits"]["allocation"]["remaining"] == 50


PLAN = """\
campaign: t
unit_of_progress: tokens
prices: {gpu_hour_usd: 2}
ceiling: {gpu_hours: 10000}
main: {gpus: 8, hours: 100}
cluster:
  allocation: {gpu_hours: 1000, used_gpu_hours: 300, ends: 2027-03-31}
"""


def test_a_plans_allocation_enters_its_admission() -> None:
    plan = parse_plan(PLAN)
    # 800 GPU-hours planned, 700 left of the 1,000-hour allocation: defer on the allocation.
    outcome = admit_planned_run(plan, D(800), D(0), checkpoint_supported=True)
    assert (outcome.outcome, outcome.reason) == ("defer", "allocation")
    assert admit_planned_run(plan, D(700), D(0), checkpoint_supported=True).outcome == "admit"


def test_options_replace_the_plans_figures() -> None:
    base = Allocation("gpu_hours", D(1000), D(300), "2027-03-31")
    assert allocation_from_options(base, used=D(900)).remaining == 100
    moved = allocation_from_options(base, billing_hours=D(5000))
    assert (moved.unit, moved.used, moved.ends) == ("billing_hours", 0, "2027-03-31")
    with pytest.raises(InputError, match="give one"):
        allocation_from_options(None, billing_hours=D(1), gpu_hours=D(1))
    with pytest.raises(InputError, match="--allocation-used: give the allocation"):
        allocation_from_options(None, used=D(1))


def test_sreport_the_man_pages_example() -> None:
    # sreport(1)'s example: account main used 148 CPU-minutes (its own row, empty Login).
    usage = read_sreport_usage(SREPORT / "derived_man_account_by_user.psv")
    assert (usage.account, usage.tres, usage.used_hours) == ("main", "cpu", D(148) / 60)
    with pytest.raises(InputError, match="-T billing"):
        used_for(usage, "billing_hours", SREPORT / "derived_man_account_by_user.psv")


def test_sreport_billing_hours() -> None:
    path = SREPORT / "derived_billing_hours.psv"
    usage = read_sreport_usage(path)
    assert (usage.tres, usage.used_hours) == ("billing", 148)  # the account row, not 148 + 2 + 146
    assert used_for(usage, "billing_hours", path) == 148


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("Cluster|Account|Login|Used\nc|main||3\n", "no 'Usage reported in"),
        ("Usage reported in TRES Hours\nCluster|Account|Login|TRES Name|Used\n"
         "c|main||billing|x\n", ":3: Used: must be a number"),
        ("Usage reported in TRES Hours\nCluster|Account|Login|TRES Name|Used\n"
         "c|a||billing|1\nc|b||billing|2\n", "one account (Accounts=ACCOUNT), found a, b"),
        ("Usage reported in Percentage of Total\nCluster|Account|Login|Used\nc|a||5%\n",
         "-t percent"),
    ],
)  # fmt: skip
def test_sreport_files_that_say_too_little_are_refused(tmp_path, text, message) -> None:
    path = tmp_path / "u.psv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace(")", r"\)")):
        read_sreport_usage(path)


def test_admit_command_reads_the_allocation_from_options_and_sreport(cli) -> None:
    base = ["admit", "--estimated-gpu-hours", "50", "--budget-gpu-hours", "1000",
            "--expected-interruptions", "0", "--no-ledger", "--json"]  # fmt: skip
    sreport = str(SREPORT / "derived_billing_hours.psv")
    over = cli(*base, "--allocation-billing-hours", "200", "--sreport", sreport,
               "--estimated-billing-hours", "60").json()  # fmt: skip
    assert (over["state"], over["reason"]) == ("defer", "allocation")  # 60 > 200 − 148
    assert over["reserved_gpu_hours"] == 0
    fits = cli(*base, "--allocation-billing-hours", "200", "--sreport", sreport,
               "--estimated-billing-hours", "52").json()  # fmt: skip
    assert fits["state"] == "admit"
    bad = cli(*base, "--allocation-gpu-hours", "100", "--sreport", sreport)
    assert bad.code == 2 and bad.stdout == ""
    assert "reports billing hours" in bad.stderr and "-T gres/gpu" in bad.stderr
