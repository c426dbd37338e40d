"""A main-run phase's compute before failures: FLOPs on the stated basis at the stated rate.

compute GPU-hours = tokens · FLOPs per token (estimate/flops_basis.py) ÷ (rate · 3600), the
per-GPU rate being `throughput_tflops` · 10¹² or peak · MFU (phase's own, else a measured
override, else main's, else the throughput prior's median MFU for the kind and precision,
estimate/throughput_prior.py, an MFU on model FLOPs 6·N: on a basis with more terms its rate
is × FLOPs per token ÷ 6·N). A phase's peak is its own `gpu`/`precision` when it sets one.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from trainbudget.base.errors import InputError
from trainbudget.estimate.exact import Numeric, as_plain, div, mul, to_decimal

if TYPE_CHECKING:
    from trainbudget.estimate.flops_basis import FlopsBasis
    from trainbudget.estimate.throughput_prior import ThroughputPrior
    from trainbudget.plan import Plan
    from trainbudget.plan.forecast import Phase

SECONDS_PER_HOUR = 3600
TERA = 10**12
# The throughput sources that are an assumed MFU on model FLOPs, not the plan's own basis.
ASSUMED = ("prior", "class-default")
# The MFU sources on model FLOPs (6·N per token), moved onto a plan basis that counts more:
# the prior's and a pilot's (pilot/mfu.py measures 6·N·tokens). A trace counts its kernels'
# FLOPs and a calibration is on the estimate's own basis: both are taken as they are.
ON_MODEL_FLOPS = (*ASSUMED, "pilot")


@dataclass(frozen=True)
class PhaseWork:
    """A phase's compute before failures."""

    name: str
    gpus: int
    compute_wall_hours: Decimal
    tokens: Decimal | None = None
    flops: Decimal | None = None
    flops_basis: str = "hours given (no FLOPs)"
    rate_source: str = "main.hours"
    throughput_tflops: Decimal | None = None
    mfu: Decimal | None = None
    model_flops_mfu: Decimal | None = None
    # plan, pilot, calibrated or prior (DESIGN.md); the prior's distribution when it is one.
    throughput_source: str = "plan"
    prior: ThroughputPrior | None = None
    gpu: str | None = None
    precision: str | None = None


def plan_basis(plan: Plan) -> FlopsBasis:
    """The FLOPs basis the plan's throughput counts: `flops_method` plus `main.flops.terms`,
    with the attention width (n_heads × head_dim) and tied embeddings when the shape says so."""
    from trainbudget.estimate.run import run_basis

    main = plan.main
    spec = main.flops
    shape = spec if spec is not None else main
    basis = run_basis(
        main.flops_method,
        tuple(spec.terms) if spec is not None else (),
        n_layers=shape.n_layers,
        d_model=shape.d_model,
        seq_len=shape.seq_len,
        vocab=spec.vocab if spec is not None else None,
        where="main.flops.",
    )
    if spec is not None and (spec.n_heads is not None or spec.tied_embeddings):
        width = None if spec.n_heads is None else spec.n_heads * spec.head_dim
        basis = replace(basis, attention_width=width, tied_embeddings=spec.tied_embeddings)
    return basis


def throughput_source_of(mfu_source: str | None) -> str:
    """A measured override's source in DESIGN.md's words: pilot (a trace too), calibrated, plan."""
    if mfu_source in ("pilot", "trace"):
        return "pilot"
    return "calibrated" if mfu_source == "calibrated" else "plan"


def _phase_peak(plan: Plan, phase: Phase | None, main_peak_value: Decimal) -> Decimal:
    """The phase's dense peak: its own gpu/precision when it sets one, else the main run's."""
    from trainbudget.estimate.catalog import get_accelerator

    if phase is None or (phase.gpu is None and phase.precision is None):
        return main_peak_value
    gpu = phase.gpu or plan.main.gpu
    if gpu is None:
        raise InputError("main.phases: a phase's precision needs main.gpu (a catalog name)")
    return get_accelerator(gpu).peak_flops_per_second(phase.precision or plan.main.precision)


def phase_work(
    plan: Plan,
    mfu: Numeric | None,
    mfu_source: str | None,
    warnings: list[str],
    prior_options: dict[str, Any] | None = None,
) -> list[PhaseWork]:
    """Each phase's compute; `prior_options` (before, exclude) narrow the throughput prior's
    points (docs/validation.md's strictly pre-launch column)."""
    from trainbudget.estimate.peak import main_peak
    from trainbudget.estimate.run import implied_class, plausible_mfu_high

    main = plan.main
    if main.params is None or (main.hours is not None and mfu is None):
        return [PhaseWork("main", main.gpus, to_decimal(main.hours), gpu=main.gpu)]
    basis = plan_basis(plan)
    moe = main.flops_method == "moe"
    if moe and main.active_params is None:
        raise InputError("main.active_params: required by the moe FLOPs method")
    work_params = as_plain(main.active_params if moe else main.params)
    main_peak_value = main_peak(plan)
    model_class = implied_class(main.model_class, main.flops_method)
    phases = main.phases or [None]
    works = []
    for index, phase in enumerate(phases):
        where = "main" if phase is None else f"main.phases[{index}]"
        name = "main" if phase is None else phase.name or f"phase {index + 1}"
        tokens = main.tokens if phase is None else phase.tokens
        gpus = main.gpus if phase is None or phase.gpus is None else phase.gpus
        seq_len = None if phase is None else phase.seq_len
        per_token = basis.per_token(work_params, seq_len)
        flops = mul(per_token, tokens)
        peak = _phase_peak(plan, phase, main_peak_value)
        precision = main.precision if phase is None or phase.precision is None else phase.precision
        rate, source, tflops, kind, prior = _rate(
            plan, phase, mfu, mfu_source, peak, model_class, precision, prior_options or {}
        )
        if kind in ASSUMED or source == "mfu (pilot)":
            # The prior's or a pilot's MFU is on model FLOPs (6·N per token): the same work in
            # the same time is a higher rate on a basis that counts more (recompute, attention,
            # logits).
            rate = mul(rate, div(per_token, mul(6, work_params)))
        if rate > peak:
            raise InputError(
                f"{where}.throughput_tflops: {tflops:f} TFLOP/s is above the GPU's dense peak "
                f"of {peak / TERA:f} TFLOP/s"
            )
        basis_mfu = div(rate, peak)
        model_mfu = div(mul(basis_mfu, 6, work_params), per_token)
        high = plausible_mfu_high(model_class, precision)
        if tflops is not None and not basis.terms and model_mfu > high:
            warnings.append(
                f"{where}.throughput_tflops: {tflops:f} TFLOP/s is MFU {model_mfu:.3g} on model "
                f"FLOPs 6·N·T, above the plausible {high} for {model_class} {main.precision}: "
                "if it counts hardware FLOPs, say so in main.flops.terms"
            )
        gpu_hours = div(flops, mul(rate, SECONDS_PER_HOUR))
        works.append(
            PhaseWork(
                name=name,
                gpus=gpus,
                compute_wall_hours=div(gpu_hours, gpus),
                tokens=to_decimal(tokens),
                flops=flops,
                flops_basis=basis.describe(),
                rate_source=source,
                throughput_tflops=tflops,
                mfu=basis_mfu,
                model_flops_mfu=model_mfu,
                throughput_source=kind,
                prior=prior,
                gpu=main.gpu if phase is None or phase.gpu is None else phase.gpu,
                precision=precision,
            )
        )
    return works


def _rate(
    plan: Plan,
    phase: Phase | None,
    mfu: Numeric | None,
    mfu_source: str | None,
    peak: Decimal,
    model_class: str,
    precision: str,
    prior_options: dict[str, Any],
) -> tuple[Decimal, str, Decimal | None, str, ThroughputPrior | None]:
    """Per-GPU FLOP/s on the basis, where it came from, the TFLOP/s if given as one, the
    throughput_source and, at the prior, its distribution (estimate/throughput_prior.py)."""
    main = plan.main
    if phase is not None and phase.throughput_tflops is not None:
        tflops = phase.throughput_tflops
        return mul(tflops, TERA), "phase throughput_tflops", tflops, "plan", None
    if phase is not None and phase.mfu is not None:
        return mul(peak, phase.mfu), "phase mfu", None, "plan", None
    if mfu is not None:
        source = f"mfu ({mfu_source or 'user'})"
        return mul(peak, mfu), source, None, throughput_source_of(mfu_source), None
    if main.throughput_tflops is not None:
        tflops = main.throughput_tflops
        return mul(tflops, TERA), "main.throughput_tflops", tflops, "plan", None
    if main.mfu is not None:
        return mul(peak, main.mfu), "main.mfu", None, "plan", None
    from trainbudget.estimate.throughput_prior import assumed_mfu

    assumed = assumed_mfu(model_class, precision, **prior_options)
    prior, value = assumed.prior, assumed.mfu
    if assumed.source == "prior":
        source = f"prior mfu {value} ({prior.kind}, {prior.group}; published runs)"
    else:
        source = f"class-default mfu {value} (no published {model_class} run)"
        # The spread is the transformer prior's; the note says the value is a class default.
        prior = replace(prior, note=assumed.note)
    # A class default (cnn, snn: no published run) is still an assumption made before launch:
    # DESIGN's throughput_source says `prior`; the source line names which.
    return mul(peak, value), source, None, "prior", prior
