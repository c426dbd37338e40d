"""A job's billing in the cluster's own units, as Slurm computes it, and a campaign's lines in
billing-hours (billing × the line's job-hours).

Slurm (doc/html/tres.shtml, "Billing Weights" and "Priority Flags"; src/common/assoc_mgr.c,
`assoc_mgr_tres_weighted`) bills a job from its partition's `TRESBillingWeights`:

- `sum` (the default): the sum of every TRES count × its weight;
- `max_tres` (`PriorityFlags=MAX_TRES`): the largest weighted node TRES (cpu, mem, node, gres)
  plus the sum of the weighted global TRES (licenses, burst buffers);
- `max_tres_gres` (`PriorityFlags=MAX_TRES_GRES`, Slurm 25.05): the weighted GRES (GPUs)
  summed, plus the largest other weighted node TRES, plus the global TRES;

and stores the result as an integer, truncated (a job billed 4.5 is billed 4). Memory weighs per
GiB here (Slurm's `Mem=0.25G`). Exact: Decimal weights, the truncation the only rounding.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from decimal import ROUND_DOWN, Decimal
from typing import TYPE_CHECKING, Any

from trainbudget.estimate.exact import Numeric, div, mul, to_decimal

if TYPE_CHECKING:
    from collections.abc import Mapping

    from trainbudget.estimate.campaign_lines import CampaignLine
    from trainbudget.plan import Plan

NODE_TRES = frozenset({"cpu", "mem_gib", "node"})  # tied to a node, not GRES
GRES_TRES = frozenset({"gpu"})  # GRES/gpu
RULE_FORMULA = {
    "sum": "SUM(TRES × weight)",
    "max_tres": "MAX(node TRES × weight) + SUM(global TRES × weight)",
    "max_tres_gres": "SUM(GRES × weight) + MAX(other node TRES × weight) + SUM(global TRES)",
}


def weighted_tres(
    counts: Mapping[str, Numeric], weights: Mapping[str, Numeric], rule: str = "sum"
) -> Decimal:
    """The billable TRES before Slurm truncates it: `counts` and `weights` by TRES name
    (cpu, mem_gib, gpu, node; any other name is a global TRES, e.g. `license/licA`)."""
    if rule not in RULE_FORMULA:
        raise ValueError(f"unknown billing rule {rule!r}")
    largest_node, gres, global_ = Decimal(0), Decimal(0), Decimal(0)
    for name, count in counts.items():
        value = mul(count, weights.get(name, 0))
        if rule != "sum" and (name in NODE_TRES or name in GRES_TRES):
            if rule == "max_tres_gres" and name in GRES_TRES:
                gres += value
            else:
                largest_node = max(largest_node, value)
        else:
            global_ += value
    return largest_node + gres + global_


def billing(
    counts: Mapping[str, Numeric], weights: Mapping[str, Numeric], rule: str = "sum"
) -> int:
    """The job's `billing` TRES as Slurm stores it: weighted_tres truncated to an integer."""
    return int(weighted_tres(counts, weights, rule).to_integral_value(rounding=ROUND_DOWN))


@dataclass(frozen=True)
class JobShape:
    """What one job of a plan line is allocated: GPUs, CPUs, memory in GiB, nodes."""

    gpus: int
    cpus: Decimal
    mem_gib: Decimal
    nodes: int

    def counts(self) -> dict[str, Decimal | int]:
        return {"cpu": self.cpus, "mem_gib": self.mem_gib, "gpu": self.gpus, "node": self.nodes}


def job_shape(
    gpus: int,
    node_gpus: int | None,
    node_cpus: int | None,
    node_mem_gib: Numeric | None,
    cpus: int | None = None,
    mem_gib: Numeric | None = None,
) -> JobShape:
    """A job of `gpus` GPUs: its CPUs and memory as stated, else its GPU share of the node
    (gpus ÷ node_gpus of node_cpus and node_mem_gib; 0 when the node does not say), on
    ⌈gpus ÷ node_gpus⌉ nodes (1 without a node)."""
    share = div(gpus, node_gpus) if node_gpus else Decimal(0)
    nodes = -(-gpus // node_gpus) if node_gpus else 1
    return JobShape(
        gpus=gpus,
        cpus=to_decimal(cpus) if cpus is not None else mul(share, node_cpus or 0),
        mem_gib=to_decimal(mem_gib) if mem_gib is not None else mul(share, node_mem_gib or 0),
        nodes=nodes,
    )


@dataclass(frozen=True)
class LineBilling:
    """One campaign line in billing units: a job's billing, and billing × job-hours."""

    work_class: str
    name: str
    job_gpus: int
    billing: int
    billing_hours: Decimal
    detail: str


@dataclass(frozen=True)
class CampaignBilling:
    """Every GPU line of a campaign in the cluster's billing units, and their sum."""

    rule: str
    partition: str | None
    weights: dict[str, Decimal]
    lines: list[LineBilling]
    billing_hours: Decimal
    warnings: list[str]


def _shapes(plan: Plan) -> dict[tuple[str, str], tuple[int, int | None, Decimal | None]]:
    """(work class, name) → (GPUs per job, stated CPUs, stated GiB) of each plan line."""
    shapes: dict[tuple[str, str], tuple[int, int | None, Decimal | None]] = {}
    for group in plan.pilots:
        shapes[("pilot", group.name)] = (group.gpus, group.cpus, group.mem_gib)
    spares = plan.reliability.spare_gpus if plan.reliability is not None else 0
    shapes[("main", "main")] = (plan.main.gpus + spares, plan.main.cpus, plan.main.mem_gib)
    for suite in plan.evaluation:
        shapes[("evaluation", suite.name)] = (suite.gpus, suite.cpus, suite.mem_gib)
    for group in plan.diagnostics:
        shapes[("diagnostic", group.name)] = (group.gpus, group.cpus, group.mem_gib)
    for retry in plan.retries:
        shapes[("retry", retry.name)] = (retry.gpus, retry.cpus, retry.mem_gib)
    return shapes


def _num(value: Decimal | int) -> str:
    return str(value) if isinstance(value, int) else f"{value.normalize():f}"


def _arithmetic(shape: JobShape, weights: Mapping[str, Decimal], rule: str) -> str:
    """`64 cpu × 1 + 512 GiB × 0.25 + 8 gpu × 2` (the weighed TRES), under the rule's name."""
    units = {"cpu": "cpu", "mem_gib": "GiB", "gpu": "gpu", "node": "node"}
    terms = [
        f"{_num(count)} {units[name]} × {_num(weights[name])}"
        for name, count in shape.counts().items()
        if name in weights
    ]
    joined = " + ".join(terms)
    return joined if rule == "sum" else f"{rule}({', '.join(terms)})"


def campaign_billing(plan: Plan, lines: list[CampaignLine]) -> CampaignBilling | None:
    """Each GPU line of `lines` in billing-hours: a job's billing (Slurm's, truncated) × the
    line's job-hours (its GPU-hours ÷ a job's GPUs); None without `cluster.billing`."""
    cluster = plan.cluster
    if cluster is None or cluster.billing is None:
        return None
    section = cluster.billing.weights_for(cluster.partition)
    assert section is not None  # plan/cluster.py refuses a partition without weights
    weights, rule, node = section.given(), cluster.billing.rule, cluster.node
    shapes = _shapes(plan)
    warnings = []
    if any(p.gpus is not None and p.gpus != plan.main.gpus for p in plan.main.phases):
        warnings.append(
            f"cluster.billing: the main run's phases use other GPU counts; each main GPU-hour "
            f"is billed at the {plan.main.gpus}-GPU job's share"
        )
    billed = []
    for line in lines:
        if line.work_class not in ("pilot", "main", "evaluation", "diagnostic", "retry"):
            continue
        gpus, cpus, mem = shapes[(line.work_class, line.name)]
        shape = job_shape(
            gpus,
            node.gpus if node else None,
            node.cpus if node else None,
            node.mem_gib if node else None,
            cpus,
            mem,
        )
        units = billing(shape.counts(), weights, rule)
        job_hours = div(line.gpu_hours, gpus)
        hours = mul(units, job_hours)
        billed.append(
            LineBilling(
                work_class=line.work_class,
                name=line.name,
                job_gpus=gpus,
                billing=units,
                billing_hours=hours,
                detail=f"billing {units} = ⌊{_arithmetic(shape, weights, rule)}⌋ × "
                f"{float(job_hours):,.6g} job-h",
            )
        )
    return CampaignBilling(
        rule=rule,
        partition=cluster.partition,
        weights=weights,
        lines=billed,
        billing_hours=sum((b.billing_hours for b in billed), Decimal(0)),
        warnings=warnings,
    )


def billing_payload(payload: dict[str, Any], result: CampaignBilling) -> dict[str, Any]:
    """`campaign --json` with billing: each GPU line gains `billing` (a job's) and
    `billing_hours`, a line without GPUs (storage) `billing_hours` null; the total
    `billing_hours` and a `billing` object (rule, partition, weights, each line's arithmetic)
    follow `planned_gpu_hours`."""
    by_line = {(b.work_class, b.name): b for b in result.lines}
    lines = []
    for line in payload["lines"]:
        billed = by_line.get((line["work_class"], line["name"]))
        lines.append(
            line
            | {
                "billing": None if billed is None else billed.billing,
                "billing_hours": None if billed is None else billed.billing_hours,
            }
        )
    out: dict[str, Any] = {}
    for key, value in payload.items():
        out[key] = lines if key == "lines" else value
        if key == "planned_gpu_hours":
            out["billing_hours"] = result.billing_hours
            out["billing"] = {
                "rule": result.rule,
                "formula": RULE_FORMULA[result.rule],
                "partition": result.partition,
                "weights": result.weights,
                "truncated": "a job's billing is an integer, truncated (Slurm)",
                "lines": [asdict(b) for b in result.lines],
            }
    return out
