"""The plan keys of the main-run forecast (DESIGN.md, "Forecasting the main run").

`main.flops` says what a throughput or MFU counts, `main.phases` splits the main run, and the
top-level `reliability` section says how the run fails and recovers. All are optional.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PlainValidator,
    field_validator,
    model_validator,
)

PositiveInt = Annotated[int, Field(gt=0, strict=True)]
NonNegativeInt = Annotated[int, Field(ge=0, strict=True)]
PositiveDecimal = Annotated[Decimal, Field(gt=Decimal(0), allow_inf_nan=False)]
NonNegativeDecimal = Annotated[Decimal, Field(ge=Decimal(0), allow_inf_nan=False)]
Fraction01 = Annotated[Decimal, Field(gt=0, le=1, allow_inf_nan=False)]
FlopsTerm = Literal["recompute", "attention", "logits"]


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class FlopsSpec(_Section):
    """What the main run's throughput (or MFU) counts on top of 6·N·T, and the model shape."""

    terms: list[FlopsTerm] = Field(default_factory=list)
    n_layers: PositiveInt | None = None
    d_model: PositiveInt | None = None
    seq_len: PositiveInt | None = None
    vocab: PositiveInt | None = None

    @field_validator("terms")
    @classmethod
    def _distinct(cls, terms: list[str]) -> list[str]:
        if len(set(terms)) != len(terms):
            raise ValueError(f"a term is listed twice: {', '.join(terms)}")
        return terms

    @model_validator(mode="after")
    def _shapes(self) -> FlopsSpec:
        from trainbudget.estimate.flops_basis import TERM_NEEDS

        for term in self.terms:
            for name in TERM_NEEDS[term]:
                if getattr(self, name) is None:
                    raise ValueError(f"{name}: required by the {term} term")
        return self


class Phase(_Section):
    """One part of the main run (ramp-up, context extension); unset keys inherit from `main`."""

    tokens: PositiveDecimal
    name: str | None = None
    gpus: PositiveInt | None = None
    throughput_tflops: PositiveDecimal | None = None
    mfu: Fraction01 | None = None
    seq_len: PositiveInt | None = None

    @model_validator(mode="after")
    def _one_rate(self) -> Phase:
        if self.throughput_tflops is not None and self.mfu is not None:
            raise ValueError("give throughput_tflops or mfu, not both")
        return self


class Reliability(_Section):
    """How the main run fails and recovers: MTBF source, restart, checkpoint writes, spares."""

    spare_gpus: NonNegativeInt = 0
    job_mtbf_hours: PositiveDecimal | None = None
    mtbf: Literal["ledger", "fleet"] | None = None
    restart_minutes: NonNegativeDecimal = Decimal(0)
    checkpoint_write_minutes: NonNegativeDecimal | None = None
    checkpoint_interval_minutes: PositiveDecimal | None = None

    @model_validator(mode="after")
    def _complete(self) -> Reliability:
        if (self.job_mtbf_hours is None) == (self.mtbf is None):
            raise ValueError(
                "give exactly one of job_mtbf_hours (the job's MTBF at main.gpus) "
                "or mtbf (ledger or fleet)"
            )
        if self.checkpoint_write_minutes is None:
            raise ValueError(
                "checkpoint_write_minutes: required (the blocking part of one checkpoint write)"
            )
        if self.checkpoint_write_minutes == 0 and self.checkpoint_interval_minutes is None:
            raise ValueError(
                "checkpoint_write_minutes: Daly's optimum interval needs a positive write time; "
                "or give checkpoint_interval_minutes"
            )
        return self


def failure_fractions(value: Any) -> Any:
    """A single failure fraction (a number or `forecast`) as a one-item list."""
    return value if isinstance(value, list) else [value]


def _failure_fraction(value: Any) -> Decimal | str:
    if value == "forecast":
        return value
    if isinstance(value, str):  # a plan stored in the ledger keeps its Decimals as text
        try:
            value = Decimal(value.strip())
        except ArithmeticError:
            raise ValueError(f"must be a number of 0 or more, or forecast; got {value!r}") from None
    if isinstance(value, bool) or not isinstance(value, int | float | Decimal):
        raise ValueError(f"must be a number of 0 or more, or forecast; got {value!r}")
    number = Decimal(str(value)) if isinstance(value, float) else Decimal(value)
    if not number.is_finite() or number < 0:
        raise ValueError(f"must be a number of 0 or more, or forecast; got {value}")
    return number


# A sensitivity f: a number, or `forecast` (the forecast's overhead ÷ compute).
FailureFraction = Annotated[Decimal | str, PlainValidator(_failure_fraction)]


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
