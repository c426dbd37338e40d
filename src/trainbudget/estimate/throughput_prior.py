"""The throughput prior: the MFU published runs of the same kind reached, as a distribution.

The rule (docs/forecast.md, "Throughput prior"), for a plan of kind k (dense or MoE) trained
in precision group g (16-bit or fp8), from `published_runs.toml`:
  1. the points of kind k, each MFU moved to group g (× FP8_MFU_FACTOR = 0.7 from 16-bit to
     fp8, ÷ 0.7 the other way: estimate/run.py's cited factor);
  2. ln MFU is normal: μ = the mean of the points' ln MFU; σ = the pooled standard deviation
     of ln MFU about each kind's own mean, over every point (one spread for all kinds: MoE
     has too few points to estimate its own);
  3. the prior's MFU is e^μ (its median), p10 and p90 are e^(μ ∓ 1.2816·σ).
A strictly pre-launch prior (docs/validation.md) keeps only points published before the
launch and leaves out the campaign's own; with fewer than 3 points left in all, σ is the
full data's (and the prior says so). The file is read once, on first use.
"""

from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from functools import cache
from pathlib import Path
from typing import Any

from trainbudget.base.errors import InputError

RUNS_FILE = Path(__file__).with_name("published_runs.toml")
Z90 = 1.2815515655446004  # the standard normal's 90th percentile
MIN_POINTS_FOR_SPREAD = 3


@dataclass(frozen=True)
class PublishedRun:
    """One published run's MFU (model FLOPs, against its precision's dense peak)."""

    name: str
    kind: str
    group: str
    mfu: float
    published: date
    source: str


@dataclass(frozen=True)
class ThroughputPrior:
    """ln MFU ~ N(mu, sigma²) for one kind and precision group; `points` are the names used."""

    kind: str
    group: str
    mu: float
    sigma: float
    points: tuple[str, ...]
    sigma_points: int
    note: str

    @property
    def median(self) -> Decimal:
        """The prior's MFU: e^μ, to 4 significant digits (a prior, not a measurement)."""
        return Decimal(f"{math.exp(self.mu):.4g}")

    def quantile(self, z: float) -> float:
        return math.exp(self.mu + z * self.sigma)


@cache
def published_runs() -> tuple[PublishedRun, ...]:
    """The points of published_runs.toml, in file order."""
    with RUNS_FILE.open("rb") as handle:
        data = tomllib.load(handle)
    return tuple(
        PublishedRun(r["name"], r["kind"], r["group"], float(r["mfu"]), r["published"], r["source"])
        for r in data["run"]
    )


def precision_group(precision: str) -> str:
    """`fp8` for fp8, `16-bit` for bf16/fp16 (and wider formats, priced as 16-bit)."""
    return "fp8" if precision.lower() == "fp8" else "16-bit"


def _moved(run: PublishedRun, group: str) -> float:
    from trainbudget.estimate.run import FP8_MFU_FACTOR

    if run.group == group:
        return run.mfu
    factor = float(FP8_MFU_FACTOR)
    return run.mfu * factor if group == "fp8" else run.mfu / factor


def _pooled_sigma(runs: list[PublishedRun], group: str) -> float:
    by_kind: dict[str, list[float]] = {}
    for run in runs:
        by_kind.setdefault(run.kind, []).append(math.log(_moved(run, group)))
    squares = sum((x - sum(xs) / len(xs)) ** 2 for xs in by_kind.values() for x in xs)
    freedom = sum(len(xs) for xs in by_kind.values()) - len(by_kind)
    return math.sqrt(squares / freedom) if freedom > 0 else 0.0


def throughput_prior(
    kind: str,
    precision: str,
    *,
    before: date | None = None,
    exclude: tuple[str, ...] = (),
) -> ThroughputPrior:
    """The prior MFU distribution for a `kind` (dense, moe) run in `precision` (module rule)."""
    kind = "moe" if kind == "moe" else "dense"
    group = precision_group(precision)
    allowed = [
        r
        for r in published_runs()
        if r.name not in exclude and (before is None or r.published < before)
    ]
    same = [r for r in allowed if r.kind == kind]
    if not same:
        when = f" published before {before}" if before else ""
        raise InputError(f"throughput prior: no published {kind} run{when} to take an MFU from")
    mu = sum(math.log(_moved(r, group)) for r in same) / len(same)
    spread_from = allowed if len(allowed) >= MIN_POINTS_FOR_SPREAD else list(published_runs())
    sigma = _pooled_sigma(spread_from, group)
    moved = "" if all(r.group == group for r in same) else " (other precisions × 0.7 per step)"
    note = (
        f"prior: {len(same)} published {kind} run(s){moved}, MFU median {math.exp(mu):.3g}, "
        f"p10 {math.exp(mu - Z90 * sigma):.3g}, p90 {math.exp(mu + Z90 * sigma):.3g} "
        f"(log-normal, σ {sigma:.3f} pooled over {len(spread_from)} points; "
        "estimate/published_runs.toml)"
    )
    if spread_from is not allowed:
        note += "; the spread is the full data's (fewer than 3 earlier points)"
    return ThroughputPrior(
        kind, group, mu, sigma, tuple(r.name for r in same), len(spread_from), note
    )


@dataclass(frozen=True)
class AssumedMfu:
    """The MFU of a run that states none: the prior's median (source `prior`), or for a kind
    no published run covers (cnn, snn) seed 004's class default, labelled `class-default`."""

    mfu: Decimal
    source: str
    prior: ThroughputPrior
    note: str


def assumed_mfu(model_class: str, precision: str, **prior_options: Any) -> AssumedMfu:
    """The one rule for a run with no stated or measured throughput (campaign, estimate, the
    MFU rule): transformer kinds (dense, moe) take the throughput prior's median; the prior's
    spread σ goes with it either way."""
    from trainbudget.estimate.run import default_mfu

    kind = model_class.lower()
    prior = throughput_prior(kind, precision, **prior_options)
    if kind in ("dense", "moe"):
        return AssumedMfu(prior.median, "prior", prior, prior.note)
    value = default_mfu(kind, precision)
    note = (
        f"class-default: no published {kind} run to take an MFU from, so seed 004's class "
        f"default {value:f} (its spread σ {prior.sigma:.3f} is the transformer prior's)"
    )
    return AssumedMfu(value, "class-default", prior, note)
