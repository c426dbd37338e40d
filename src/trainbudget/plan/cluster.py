"""The plan's `cluster` section: the cluster's own billing units, its nodes, the allocation.

```yaml
cluster:
  node: {gpus: 8, cpus: 64, mem_gib: 512}        # a job's CPUs and memory: its GPU share
  partition: gpu-a100                             # the partition the plan's jobs run in
  billing:
    rule: sum                                     # sum | max_tres | max_tres_gres
    weights: {cpu: 1.0, mem_gib: 0.25, gpu: 2.0}  # TRESBillingWeights (Mem=…G: per GiB)
    partitions: {gpu-a100: {gpu: 4.0, cpu: 0.5}}  # per partition, when they differ
  allocation: {billing_hours: 50000, used_billing_hours: 12000, ends: 2027-03-31}
  slurm_version: 23.02.7                          # how sacct counted GPU usage (default: 24.05.1+)
```

The weights are Slurm's `TRESBillingWeights` (doc/html/tres.shtml) for the TRES a training job
is allocated: `cpu`, `mem_gib` (Slurm's `Mem` weight with the `G` suffix: per GiB), `gpu`
(`GRES/gpu`) and `node`; `rule` is `PriorityFlags` (`MAX_TRES`, `MAX_TRES_GRES` or neither).
The arithmetic is estimate/billing.py's.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Any, Literal

from trainbudget.plan.checks import (
    NON_NEGATIVE_DECIMAL,
    POSITIVE_DECIMAL,
    POSITIVE_INT,
    TEXT,
    choice,
    nested,
    optional,
)
from trainbudget.plan.fields import Check, Invalid, Location, Section, section, spec

_OPT_WEIGHT = optional(NON_NEGATIVE_DECIMAL)
_OPT_POS = optional(POSITIVE_DECIMAL)
RULES = ("sum", "max_tres", "max_tres_gres")


@section
class TresWeights(Section):
    """Billing weight per unit of each TRES: a CPU, a GiB of memory, a GPU, a node."""

    cpu: Decimal | None = spec(_OPT_WEIGHT, None)
    mem_gib: Decimal | None = spec(_OPT_WEIGHT, None)
    gpu: Decimal | None = spec(_OPT_WEIGHT, None)
    node: Decimal | None = spec(_OPT_WEIGHT, None)

    def check(self) -> str | None:
        if all(getattr(self, k) is None for k in ("cpu", "mem_gib", "gpu", "node")):
            return "give at least one weight: cpu, mem_gib, gpu or node"
        return None

    def given(self) -> dict[str, Decimal]:
        """The weights given, by TRES name (a TRES left out weighs nothing, as in Slurm)."""
        return {k: v for k, v in self.as_dict().items() if v is not None}


def _weights_by_partition(value: Any, loc: Location) -> dict[str, TresWeights]:
    """A mapping of partition name to its weights."""
    if not isinstance(value, dict):
        raise Invalid(loc, f"must be a mapping of partition name to weights, got {value!r}")
    result = {}
    for name, weights in value.items():
        key = TEXT(name, loc)
        result[key] = TresWeights.validate(weights, (*loc, key))
    return result


@section
class Billing(Section):
    """How the cluster bills a job: Slurm's rule and weights, per partition when given."""

    rule: Literal["sum", "max_tres", "max_tres_gres"] = spec(choice(*RULES), "sum")
    weights: TresWeights | None = spec(optional(nested(TresWeights)), None)
    partitions: dict[str, TresWeights] = spec(_weights_by_partition, factory=dict)

    def check(self) -> str | None:
        if self.weights is None and not self.partitions:
            return "give weights, or partitions (each partition's weights)"
        return None

    def weights_for(self, partition: str | None) -> TresWeights | None:
        """The weights of `partition` (the default weights when it has none of its own)."""
        if partition is not None and partition in self.partitions:
            return self.partitions[partition]
        return self.weights


@section
class Node(Section):
    """One GPU node: a job's CPUs and memory are its GPU share of these."""

    gpus: int = spec(POSITIVE_INT)
    cpus: int | None = spec(optional(POSITIVE_INT), None)
    mem_gib: Decimal | None = spec(_OPT_POS, None)


def _iso_date(value: Any, loc: Location) -> str:
    """A calendar date (YAML's 2027-03-31, or its text), kept as ISO text."""
    if isinstance(value, date):
        return value.isoformat()[:10]
    if isinstance(value, str):
        try:
            return date.fromisoformat(value).isoformat()
        except ValueError:
            pass
    raise Invalid(loc, f"must be a date (YYYY-MM-DD), got {value!r}")


ISO_DATE: Check = _iso_date


@section
class Allocation(Section):
    """The account's allocation, in billing-hours or GPU-hours, what is used, when it ends."""

    billing_hours: Decimal | None = spec(_OPT_POS, None)
    gpu_hours: Decimal | None = spec(_OPT_POS, None)
    used_billing_hours: Decimal | None = spec(optional(NON_NEGATIVE_DECIMAL), None)
    used_gpu_hours: Decimal | None = spec(optional(NON_NEGATIVE_DECIMAL), None)
    ends: str | None = spec(optional(ISO_DATE), None)

    def check(self) -> str | tuple[str, str] | None:
        if (self.billing_hours is None) == (self.gpu_hours is None):
            return "give billing_hours or gpu_hours (the allocation's unit), exactly one"
        unit = "billing_hours" if self.billing_hours is not None else "gpu_hours"
        other = "gpu_hours" if unit == "billing_hours" else "billing_hours"
        if getattr(self, f"used_{other}") is not None:
            return (f"used_{other}", f"the allocation is in {unit}: give used_{unit}")
        if self.used > self.size:
            return (f"used_{unit}", f"{self.used} used is more than the allocation's {self.size}")
        return None

    @property
    def unit(self) -> str:
        """`billing_hours` or `gpu_hours`."""
        return "billing_hours" if self.billing_hours is not None else "gpu_hours"

    @property
    def size(self) -> Decimal:
        value = self.billing_hours if self.billing_hours is not None else self.gpu_hours
        assert value is not None  # check() holds one
        return value

    @property
    def used(self) -> Decimal:
        value = getattr(self, f"used_{self.unit}")
        return Decimal(0) if value is None else value


def _slurm_version(value: Any, loc: Location) -> str:
    """A Slurm release, YY.MM.N (23.02.7) or YY.MM; 24.05 alone is refused: 24.05.1 changed
    what TRESUsageIn* gres/gpuutil and gres/gpumem count (summed over the step's GPUs)."""
    text = str(value).strip() if isinstance(value, str | int | float | Decimal) else ""
    parts = text.split(".")
    if not (2 <= len(parts) <= 3 and all(p.isdigit() for p in parts)):
        raise Invalid(loc, f"must be a Slurm version such as 24.11.1, got {value!r}")
    if len(parts) == 2 and (int(parts[0]), int(parts[1])) == (24, 5):
        raise Invalid(loc, "give the release: 24.05.0 and 24.05.1+ count GPU usage differently")
    return text


SLURM_VERSION: Check = _slurm_version


def sums_gpu_usage(version: str | None) -> bool:
    """True when a Slurm of `version` records TRESUsageIn* gres/gpuutil and gres/gpumem summed
    over the step's GPUs (24.05.1 and later; CHANGELOG/slurm-24.05.md); None: a current one."""
    if version is None:
        return True
    numbers = [int(p) for p in version.split(".")] + [0]
    return tuple(numbers[:3]) >= (24, 5, 1)


@section
class Cluster(Section):
    """The cluster's own units: its node, the partition the plan runs in, billing, allocation;
    and the Slurm release its sacct exports come from (how GPU usage is counted)."""

    node: Node | None = spec(optional(nested(Node)), None)
    partition: str | None = spec(optional(TEXT), None)
    billing: Billing | None = spec(optional(nested(Billing)), None)
    allocation: Allocation | None = spec(optional(nested(Allocation)), None)
    slurm_version: str | None = spec(optional(SLURM_VERSION), None)

    def check(self) -> str | tuple[str, str] | None:
        billing = self.billing
        if billing is None:
            if self.allocation is not None and self.allocation.billing_hours is not None:
                return ("allocation", "an allocation in billing_hours needs billing (its weights)")
            return None
        if billing.weights_for(self.partition) is None:
            known = ", ".join(billing.partitions)
            return (
                "partition",
                f"{self.partition!r} has no weights in billing.partitions ({known}) and "
                "billing has no default weights",
            )
        every = [billing.weights, *billing.partitions.values()]
        needs_node = any(w is not None and (w.cpu or w.mem_gib) for w in every)
        if needs_node and self.node is None:
            return (
                "node",
                "required with cpu or mem_gib billing weights: a job's CPUs and memory are "
                "its GPU share of a node ({gpus, cpus, mem_gib})",
            )
        for weight, key in (("cpu", "cpus"), ("mem_gib", "mem_gib")):
            weighed = any(w is not None and getattr(w, weight) for w in every)
            if weighed and self.node is not None and getattr(self.node, key) is None:
                return ("node", f"give {key}: the billing weighs {weight}, a job's share of it")
        return None
