"""The plan keys of the main-run forecast (DESIGN.md, "Forecasting the main run").

`main.flops` says what a throughput or MFU counts, `main.phases` splits the main run, and the
top-level `reliability` section says how the run fails and recovers. All are optional.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Literal

from trainbudget.base.vocabulary import FLOPS_TERM_NEEDS, FLOPS_TERMS
from trainbudget.plan.checks import (
    FRACTION_01,
    NON_NEGATIVE_DECIMAL,
    NON_NEGATIVE_INT,
    POSITIVE_DECIMAL,
    POSITIVE_INT,
    TEXT,
    boolean,
    choice,
    integer,
    list_of,
    nested,
    optional,
    to_decimal,
)
from trainbudget.plan.fields import (
    Invalid,
    Location,
    Section,
    section,
    spec,
)

FlopsTerm = Literal["recompute", "attention", "logits"]


def integer_in(low: int, high: int) -> Any:
    """An integer from `low` to `high`."""
    inner = integer(ge=low)

    def check(value: Any, loc: Location) -> int:
        number = inner(value, loc)
        if number > high:
            raise Invalid(loc, f"must be at most {high}, got {number}")
        return number

    return check


def _distinct(terms: list[str], _: dict[str, Any]) -> str | None:
    return f"a term is listed twice: {', '.join(terms)}" if len(set(terms)) != len(terms) else None


@section
class FlopsSpec(Section):
    """What the main run's throughput (or MFU) counts on top of 6·N·T, and the model shape."""

    terms: list[FlopsTerm] = spec(list_of(choice(*FLOPS_TERMS)), factory=list, after=_distinct)
    n_layers: int | None = spec(optional(POSITIVE_INT), None)
    d_model: int | None = spec(optional(POSITIVE_INT), None)
    seq_len: int | None = spec(optional(POSITIVE_INT), None)
    vocab: int | None = spec(optional(POSITIVE_INT), None)
    # The attention shape (its FLOPs use n_heads × head_dim, not d_model) and the embedding.
    n_heads: int | None = spec(optional(POSITIVE_INT), None, omit_default=True)
    n_kv_heads: int | None = spec(optional(POSITIVE_INT), None, omit_default=True)
    head_dim: int | None = spec(optional(POSITIVE_INT), None, omit_default=True)
    tied_embeddings: bool = spec(boolean(), False, omit_default=True)

    def check(self) -> str | None:
        for term in self.terms:
            for name in FLOPS_TERM_NEEDS[term]:
                if getattr(self, name) is None:
                    return f"{name}: required by the {term} term"
        if (self.n_heads is None) != (self.head_dim is None):
            return "give n_heads and head_dim together (attention width = n_heads × head_dim)"
        if self.n_kv_heads is not None:
            if self.n_heads is None:
                return "n_kv_heads: needs n_heads and head_dim"
            if self.n_heads % self.n_kv_heads:
                return f"n_kv_heads: {self.n_kv_heads} does not divide n_heads {self.n_heads}"
        return None


@section
class Phase(Section):
    """One part of the main run (ramp-up, context extension); unset keys inherit from `main`."""

    tokens: Decimal = spec(POSITIVE_DECIMAL)
    name: str | None = spec(optional(TEXT), None)
    gpus: int | None = spec(optional(POSITIVE_INT), None)
    throughput_tflops: Decimal | None = spec(optional(POSITIVE_DECIMAL), None)
    mfu: Decimal | None = spec(optional(FRACTION_01), None)
    seq_len: int | None = spec(optional(POSITIVE_INT), None)
    # A phase may change hardware, precision and recovery (unset: main's and reliability's).
    gpu: str | None = spec(optional(TEXT), None, omit_default=True)
    precision: str | None = spec(
        optional(choice("fp32", "tf32", "bf16", "fp16", "fp8")), None, omit_default=True
    )
    spare_gpus: int | None = spec(optional(NON_NEGATIVE_INT), None, omit_default=True)
    restart_minutes: Decimal | None = spec(optional(NON_NEGATIVE_DECIMAL), None, omit_default=True)
    checkpoint_write_minutes: Decimal | None = spec(
        optional(NON_NEGATIVE_DECIMAL), None, omit_default=True
    )

    def check(self) -> str | None:
        if self.throughput_tflops is not None and self.mfu is not None:
            return "give throughput_tflops or mfu, not both"
        return None


@section
class Rollbacks(Section):
    """Divergence rollbacks and non-failure outages: count × wall hours lost each."""

    count: int = spec(NON_NEGATIVE_INT)
    lost_hours: Decimal = spec(NON_NEGATIVE_DECIMAL)


@section
class Parallel(Section):
    """The main run's parallel layout (Megatron-LM's names): memory per rank and the bubble."""

    global_batch: int = spec(POSITIVE_INT)  # sequences per optimizer step
    tp: int = spec(POSITIVE_INT, 1)
    pp: int = spec(POSITIVE_INT, 1)
    ep: int = spec(POSITIVE_INT, 1)
    micro_batch: int = spec(POSITIVE_INT, 1)
    virtual_stages: int = spec(POSITIVE_INT, 1)
    sequence_parallel: bool = spec(boolean(), False)
    recompute: Literal["none", "selective", "full"] = spec(
        choice("none", "selective", "full"), "none"
    )
    zero_stage: int = spec(integer_in(0, 3), 0)
    expert_params: Decimal | None = spec(optional(POSITIVE_DECIMAL), None)

    def check(self) -> str | None:
        if self.virtual_stages > 1 and self.pp == 1:
            return "virtual_stages: an interleaved schedule needs pp > 1"
        return None


@section
class Reliability(Section):
    """How the main run fails and recovers: MTBF source, restart, checkpoint writes, spares."""

    spare_gpus: int = spec(NON_NEGATIVE_INT, 0)
    job_mtbf_hours: Decimal | None = spec(optional(POSITIVE_DECIMAL), None)
    mtbf: Literal["ledger", "fleet"] | None = spec(optional(choice("ledger", "fleet")), None)
    restart_minutes: Decimal = spec(NON_NEGATIVE_DECIMAL, Decimal(0))
    checkpoint_write_minutes: Decimal | None = spec(optional(NON_NEGATIVE_DECIMAL), None)
    checkpoint_interval_minutes: Decimal | None = spec(optional(POSITIVE_DECIMAL), None)
    rollbacks: Rollbacks | None = spec(optional(nested(Rollbacks)), None, omit_default=True)

    def check(self) -> str | None:
        if (self.job_mtbf_hours is None) == (self.mtbf is None):
            return (
                "give exactly one of job_mtbf_hours (the job's MTBF at main.gpus) "
                "or mtbf (ledger or fleet)"
            )
        if self.checkpoint_write_minutes is None:
            return "checkpoint_write_minutes: required (the blocking part of one checkpoint write)"
        if self.checkpoint_write_minutes == 0 and self.checkpoint_interval_minutes is None:
            return (
                "checkpoint_write_minutes: Daly's optimum interval needs a positive write time; "
                "or give checkpoint_interval_minutes"
            )
        return None


def failure_fractions(value: Any, loc: Location) -> list[Decimal | str]:
    """The sensitivity's f values: a list, or a single one (a number or `forecast`)."""
    return _FRACTIONS(value if isinstance(value, list) else [value], loc)


def _failure_fraction(value: Any, loc: Location) -> Decimal | str:
    if value == "forecast":
        return value
    # A plan stored in the ledger keeps its Decimals as text.
    number = to_decimal(value.strip() if isinstance(value, str) else value)
    if number is None:
        raise Invalid(loc, f"must be a number of 0 or more, or forecast; got {value!r}")
    if not number.is_finite() or number < 0:
        shown = number if isinstance(value, str) else value
        raise Invalid(loc, f"must be a number of 0 or more, or forecast; got {shown}")
    return number


_FRACTIONS = list_of(_failure_fraction, min_length=1)


def cross_section_problem(plan: Any) -> tuple[tuple[Any, ...], str] | None:
    """The first problem between sections (location, message), or None; `plan` is a Plan."""
    main = plan.main
    if main.phases and plan.reliability is None:
        return ("main", "phases"), "phases are priced by the forecast: give a reliability section"
    if "forecast" in plan.sensitivity.failure_fraction and plan.reliability is None:
        return (
            ("sensitivity", "failure_fraction"),
            "forecast needs a reliability section (the forecast's overhead is that f)",
        )
    if plan.reliability is not None and main.params is None and main.hours is None:
        return ("main",), "the forecast needs hours, or params and tokens"
    if main.parallel is not None:
        problem = _parallel_problem(main)
        if problem is not None:
            return ("main", "parallel"), problem
    if main.phases:
        if main.params is None:
            return ("main", "phases"), "phases need params (their hours are derived)"
        total = sum((phase.tokens for phase in main.phases), Decimal(0))
        if main.tokens is not None and total != main.tokens:
            return (
                ("main", "phases"),
                f"the phases' tokens sum to {total:f}, main.tokens is {main.tokens:f}",
            )
    return None


def _parallel_problem(main: Any) -> str | None:
    """What a parallel layout lacks against the main run's GPUs and shape, or None."""
    layout, shape = main.parallel, main.flops
    if main.params is None:
        return "the layout's memory needs main.params"
    missing = [
        name
        for name in ("n_layers", "d_model", "seq_len")
        if shape is None or getattr(shape, name) is None
    ]
    if missing:
        return f"the layout's memory needs main.flops.{missing[0]} (the model's shape)"
    if main.gpus % (layout.tp * layout.pp):
        return f"main.gpus {main.gpus} is not a multiple of tp × pp = {layout.tp * layout.pp}"
    dp = main.gpus // (layout.tp * layout.pp)
    if layout.global_batch % (layout.micro_batch * dp):
        return (
            f"global_batch {layout.global_batch} is not a multiple of micro_batch × dp = "
            f"{layout.micro_batch} × {dp}"
        )
    if (layout.tp * dp) % layout.ep:
        return f"ep {layout.ep} does not divide tp × dp = {layout.tp * dp}"
    if layout.ep > 1 and main.active_params is None and layout.expert_params is None:
        return "ep > 1 needs expert_params, or main.active_params to bound them"
    return None
