"""A job's billing as Slurm computes it (estimate/billing.py), against Slurm's own documents,
and a campaign priced in billing units whose lines sum back to its total.

Oracles, quoted from SchedMD/slurm at 284c3b95f08a (2026-08-20):

doc/html/tres.shtml, "Billing Weights" and "Priority Flags", for a partition with
TRESBillingWeights="CPU=1.0,Mem=0.25G,GRES/gpu=2.0,license/licA=1.5" and a job allocated 1 CPU
and 8 GiB of memory:
    (1*1.0) + (8*0.25) + (0*2.0) + (0*1.5) = 3.0
    (1*1.0) + (8*0.25) + (0*2.0) + (1*1.5) = 4.5 => 4           (a license added)
    (1*1.0) + (10*0.25) + (0*2.0) + (1*1.5) = 5.0 => 5          (10 GiB and a license)
    MAX_TRES:       MAX(1*1.0, 8*0.25, 0*2.0) + (0*1.5) = 2.0
    MAX_TRES_GRES:  (0*2.0) + MAX(1*1.0, 8*0.25) + (0*1.5) = 2.0
                    (1*2.0) + MAX(1*1.0, 8*0.25) + (0*1.5) = 3.0   (a GPU added)
  The last line's own terms add to 2.0 + MAX(1.0, 2.0) + 0 = 4.0, not the 3.0 printed; Slurm's
  code (src/common/assoc_mgr.c, assoc_mgr_tres_weighted: billable_gres += value, then
  to_bill_node += billable_gres) computes 4.0 too, so the test holds the terms (4), and says so.

doc/html/priority_multifactor.shtml, TRESBillingWeights=CPU=1.0,Mem=0.25G on 16 CPU, 64 GiB nodes:
    Job1: (1 *1.0) + (60*0.25) = (1 + 15) = 16
    Job2: (16*1.0) + (1 *0.25) = (16+.25) = 16.25
    Job3: (16*1.0) + (60*0.25) = (16+ 15) = 31
  and with MAX_TRES (the page writes Job2 with 15 CPUs and Job3 with 64 GiB there):
    Job1: MAX((1 *1.0), (60*0.25)) = 15
    Job2: MAX((15*1.0), (1 *0.25)) = 15
    Job3: MAX((16*1.0), (64*0.25)) = 16
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from trainbudget.base.errors import InputError
from trainbudget.estimate.billing import billing, job_shape, weighted_tres
from trainbudget.estimate.campaign import campaign_estimate
from trainbudget.plan import parse_plan

TRES_DOC_WEIGHTS = {
    "cpu": Decimal("1.0"),
    "mem_gib": Decimal("0.25"),
    "gpu": Decimal("2.0"),
    "license/licA": Decimal("1.5"),
}


@pytest.mark.parametrize(
    ("counts", "rule", "weighted", "billed"),
    [
        ({"cpu": 1, "mem_gib": 8, "gpu": 0, "license/licA": 0}, "sum", "3.0", 3),
        ({"cpu": 1, "mem_gib": 8, "gpu": 0, "license/licA": 1}, "sum", "4.5", 4),
        ({"cpu": 1, "mem_gib": 10, "gpu": 0, "license/licA": 1}, "sum", "5.0", 5),
        ({"cpu": 1, "mem_gib": 8, "gpu": 0, "license/licA": 0}, "max_tres", "2.0", 2),
        ({"cpu": 1, "mem_gib": 8, "gpu": 0, "license/licA": 0}, "max_tres_gres", "2.0", 2),
        # The page prints 3.0 for these terms; they add to 4.0 (see the module docstring).
        ({"cpu": 1, "mem_gib": 8, "gpu": 1, "license/licA": 0}, "max_tres_gres", "4.0", 4),
    ],
)
def test_tres_shtml_examples(counts, rule, weighted, billed) -> None:
    assert weighted_tres(counts, TRES_DOC_WEIGHTS, rule) == Decimal(weighted)
    assert billing(counts, TRES_DOC_WEIGHTS, rule) == billed


def test_max_tres_counts_a_license_as_global() -> None:
    # MAX(1*1.0, 8*0.25, 0*2.0) + (1*1.5) = 3.5 => 3: the license is summed, not maxed.
    counts = {"cpu": 1, "mem_gib": 8, "gpu": 0, "license/licA": 1}
    assert weighted_tres(counts, TRES_DOC_WEIGHTS, "max_tres") == Decimal("3.5")
    assert billing(counts, TRES_DOC_WEIGHTS, "max_tres") == 3


MULTIFACTOR = {"cpu": Decimal("1.0"), "mem_gib": Decimal("0.25")}


@pytest.mark.parametrize(
    ("cpus", "mem", "rule", "weighted", "billed"),
    [
        (1, 60, "sum", "16", 16),
        (16, 1, "sum", "16.25", 16),  # stored truncated
        (16, 60, "sum", "31", 31),
        (1, 60, "max_tres", "15", 15),
        (15, 1, "max_tres", "15", 15),
        (16, 64, "max_tres", "16", 16),
    ],
)
def test_priority_multifactor_examples(cpus, mem, rule, weighted, billed) -> None:
    counts = {"cpu": cpus, "mem_gib": mem}
    assert weighted_tres(counts, MULTIFACTOR, rule) == Decimal(weighted)
    assert billing(counts, MULTIFACTOR, rule) == billed


def test_an_unweighted_tres_bills_nothing_and_an_unknown_rule_is_refused() -> None:
    assert billing({"cpu": 4, "node": 1}, {"cpu": Decimal(1)}) == 4
    with pytest.raises(ValueError, match="unknown billing rule"):
        weighted_tres({"cpu": 1}, {"cpu": 1}, "max")


def test_a_job_is_its_gpu_share_of_the_node_unless_it_says() -> None:
    # 2 of 8 GPUs: a quarter of 64 CPUs and 512 GiB, on one node; 12 GPUs take two nodes.
    shape = job_shape(2, 8, 64, Decimal(512))
    assert (shape.cpus, shape.mem_gib, shape.nodes) == (16, 128, 1)
    assert job_shape(12, 8, 64, 512).nodes == 2
    stated = job_shape(2, 8, 64, 512, cpus=4, mem_gib=Decimal(40))
    assert (stated.cpus, stated.mem_gib) == (4, 40)


PLAN = """\
campaign: t
unit_of_progress: tokens
prices: {gpu_hour_usd: 2.40}
ceiling: {gpu_hours: 2000}
pilots:     [{name: lr-sweep, runs: 6, gpus: 4, hours: 3}]
main:       {gpus: 8, hours: 120}
retries:    [{attempts: 2, gpus: 8, hours: 10}]
evaluation: [{name: per-checkpoint, jobs: 12, gpus: 2, hours: 2.5, cpus: 4}]
cluster:
  node: {gpus: 8, cpus: 64, mem_gib: 512}
  billing: {rule: RULE, weights: {cpu: 1.0, mem_gib: 0.25, gpu: 2.0}}
"""


def _lines(rule: str) -> dict[str, tuple[int, Decimal]]:
    result = campaign_estimate(parse_plan(PLAN.replace("RULE", rule)))
    assert result.billing is not None
    return {b.work_class: (b.billing, b.billing_hours) for b in result.billing.lines}


def test_seed_plan_in_billing_units_sum_rule() -> None:
    # Per job, sum: 4 GPUs = 32 CPU·1 + 256 GiB·0.25 + 4·2 = 32 + 64 + 8 = 104;
    # 8 GPUs = 64 + 128 + 16 = 208; evaluation (4 CPUs stated, 128 GiB) = 4 + 32 + 4 = 40.
    # Job-hours: pilots 6·3 = 18, main 120, retries 2·10 = 20, evaluation 12·2.5 = 30.
    lines = _lines("sum")
    assert lines == {
        "pilot": (104, 104 * 18),
        "main": (208, 208 * 120),
        "retry": (208, 208 * 20),
        "evaluation": (40, 40 * 30),
    }
    result = campaign_estimate(parse_plan(PLAN.replace("RULE", "sum")))
    assert result.billing.billing_hours == 1872 + 24960 + 4160 + 1200
    assert result.billing.billing_hours == sum(b.billing_hours for b in result.billing.lines)


def test_seed_plan_in_billing_units_max_rules() -> None:
    # max_tres, 8 GPUs: MAX(64·1, 512·0.25, 8·2) = 128; 4 GPUs: MAX(32, 64, 8) = 64;
    # evaluation: MAX(4, 32, 4) = 32. max_tres_gres adds the GPUs: 128 + 16, 64 + 8, 32 + 4.
    assert {k: v[0] for k, v in _lines("max_tres").items()} == {
        "pilot": 64, "main": 128, "retry": 128, "evaluation": 32,
    }  # fmt: skip
    assert {k: v[0] for k, v in _lines("max_tres_gres").items()} == {
        "pilot": 72, "main": 144, "retry": 144, "evaluation": 36,
    }  # fmt: skip


def test_partition_weights_and_truncation_per_job() -> None:
    # 1 GPU of 8 at gpu: 0.3, cpu: 0.01 on 64 CPUs: 8·0.01 + 0.3 = 0.38 => 0 per job.
    text = PLAN.replace("RULE", "sum").replace(
        "  billing: {rule: sum, weights: {cpu: 1.0, mem_gib: 0.25, gpu: 2.0}}",
        "  partition: tiny\n  billing:\n"
        "    weights: {cpu: 1.0, mem_gib: 0.25, gpu: 2.0}\n"
        "    partitions: {tiny: {gpu: 0.3, cpu: 0.01}}",
    )
    text = text.replace("main:       {gpus: 8, hours: 120}", "main:       {gpus: 1, hours: 120}")
    billed = campaign_estimate(parse_plan(text)).billing
    assert billed.partition == "tiny"
    assert {b.work_class: b.billing for b in billed.lines}["main"] == 0


@pytest.mark.parametrize(
    ("cluster", "where"),
    [
        ("  billing: {weights: {cpu: 1, mem: 0.25}}\n", "cluster.billing.weights.mem"),
        ("  billing: {rule: max, weights: {gpu: 1}}\n", "cluster.billing.rule"),
        ("  billing: {weights: {cpu: 1}}\n", "cluster.node"),
        ("  partition: p\n  billing: {partitions: {q: {gpu: 1}}}\n", "cluster.partition"),
        ("  allocation: {billing_hours: 10}\n", "cluster.allocation"),
        ("  allocation: {gpu_hours: 10, used_gpu_hours: 11}\n", "used_gpu_hours"),
        ("  allocation: {gpu_hours: 10, ends: 2027-13-31}\n", "cluster.allocation.ends"),
        ("  allocation: {gpu_hours: 10, billing_hours: 5}\n", "cluster.allocation"),
    ],
)
def test_bad_cluster_sections_name_their_line_and_field(cluster: str, where: str) -> None:
    head = PLAN.split("cluster:")[0]
    with pytest.raises(InputError) as caught:
        parse_plan(head + "cluster:\n" + cluster, source="p.yaml")
    message = str(caught.value)
    assert message.startswith("p.yaml:") and where in message
    assert "\n" not in message


def test_a_plan_without_cluster_has_no_billing_keys() -> None:
    head = PLAN.split("cluster:")[0]
    result = campaign_estimate(parse_plan(head))
    assert result.billing is None


def test_campaign_json_and_table_carry_billing_hours(tmp_path) -> None:
    import json
    import subprocess
    import sys

    plan = tmp_path / "p.yaml"
    plan.write_text(PLAN.replace("RULE", "sum"), encoding="utf-8")
    run = [sys.executable, "-m", "trainbudget", "campaign", str(plan)]
    out = subprocess.run([*run, "--json"], capture_output=True, text=True, check=True)
    payload = json.loads(out.stdout, parse_float=Decimal)
    by_class = {line["work_class"]: line for line in payload["lines"]}
    assert by_class["main"]["billing"] == 208 and by_class["main"]["billing_hours"] == 24960
    assert payload["billing_hours"] == 32192  # 1872 + 24960 + 4160 + 1200, worked above
    assert payload["billing"]["rule"] == "sum"
    table = subprocess.run(run, capture_output=True, text=True, check=True).stdout
    assert "32,192.0 billing-hours" in table
