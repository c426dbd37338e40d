"""The one rule that picks a campaign's main-run MFU, used by both flows and their reports.

Measured beats assumed: the calibrated MFU (completed runs of this work class, `calibration`
table) if the ledger has one, else the pilot's measured MFU, else the plan's `main.mfu`, else
the throughput prior's median (published runs of the plan's kind; seed 004's class default
only for cnn/snn, which no published run covers). The pre-launch run stores its choice (table
`mfu_choices`); the weekly review reads it back, so both price the main run with one number.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from trainbudget.base.errors import InputError
from trainbudget.estimate.run import implied_class

if TYPE_CHECKING:
    from trainbudget.estimate.campaign import CampaignEstimate
    from trainbudget.estimate.mtbf import MtbfCurve
    from trainbudget.ledger import Ledger
    from trainbudget.plan import Plan

# Sources that override the plan (measured); the others are what the plan already says.
# `trace` is `campaign --mfu-from trace` (the newest landed profiler trace).
MEASURED = ("calibrated", "pilot", "trace")


@dataclass(frozen=True)
class MfuChoice:
    """The main run's MFU and where it came from: calibrated, pilot, plan, prior or class-default.

    `mfu` is None when the plan fixes the main run's hours and nothing measured re-derives
    them (no MFU is used then; `mfu_source` is "plan-hours").
    """

    mfu: Decimal | None
    mfu_source: str

    @property
    def measured(self) -> bool:
        return self.mfu_source in MEASURED

    def describe(self) -> str:
        """`0.398 (pilot)`, or why no MFU is used: for reports and logs."""
        if self.mfu is None:
            return "none, the plan fixes the main run's hours"
        return f"{self.mfu:.3g} ({self.mfu_source})"

    def as_dict(self) -> dict[str, Any]:
        return {"mfu": self.mfu, "mfu_source": self.mfu_source}


def choose_mfu(
    plan: Plan, *, pilot: Decimal | None = None, calibrated: Decimal | None = None
) -> MfuChoice:
    """calibrated > pilot > the plan's `main.mfu` (or the MFU its `throughput_tflops` is of
    the peak) > the throughput prior's median (the main line's and the forecast's figure)."""
    main = plan.main
    derivable = main.params is not None and (main.tokens is not None or bool(main.phases))
    if not derivable:
        return MfuChoice(None, "plan-hours")
    for source, value in (("calibrated", calibrated), ("pilot", pilot)):
        if value is not None:
            return MfuChoice(value, source)
    if main.hours is not None:
        return MfuChoice(None, "plan-hours")
    if main.mfu is not None:
        return MfuChoice(main.mfu, "plan")
    if main.throughput_tflops is not None:
        from trainbudget.estimate.exact import div, mul
        from trainbudget.estimate.peak import main_peak

        return MfuChoice(div(mul(main.throughput_tflops, 10**12), main_peak(plan)), "plan")
    # No stated or measured throughput: the throughput prior's median, the figure the main
    # line and the forecast use (throughput_prior.assumed_mfu; class default for cnn/snn).
    from trainbudget.estimate.throughput_prior import assumed_mfu

    assumed = assumed_mfu(implied_class(main.model_class, main.flops_method), main.precision)
    return MfuChoice(assumed.mfu, assumed.source)


def estimate_campaign(
    plan: Plan, choice: MfuChoice, ledger_mtbf: MtbfCurve | None = None
) -> CampaignEstimate:
    """The campaign priced with `choice`: a measured MFU re-derives the main run's hours.

    `ledger_mtbf` is the ledger's fitted MTBF(n), needed when the plan says `mtbf: ledger`.
    """
    from trainbudget.estimate.campaign import campaign_estimate

    if choice.measured:
        return campaign_estimate(
            plan, mfu=choice.mfu, mfu_source=choice.mfu_source, ledger_mtbf=ledger_mtbf
        )
    return campaign_estimate(plan, ledger_mtbf=ledger_mtbf)


def calibrated_main_mfu(ledger: Ledger) -> Decimal | None:
    """The ledger's calibrated MFU for the main work class, when exactly one cluster has one."""
    from trainbudget.estimate.mfu_sources import calibrated_mfu

    try:
        return calibrated_mfu(ledger, "main", None).mfu
    except InputError:
        return None


def record_choice(ledger: Ledger, campaign: str, run_id: str, choice: MfuChoice) -> None:
    """Store the run's choice so later runs of the campaign price the plan the same way."""
    ledger.execute(
        "estimate/mfu/record_choice",
        campaign_id=campaign,
        run_id=run_id,
        mfu=None if choice.mfu is None else str(choice.mfu),
        mfu_source=choice.mfu_source,
        chosen_at=datetime.now(UTC),
    )


def stored_choice(ledger: Ledger, plan: Plan) -> MfuChoice:
    """The campaign's newest stored choice, else the rule applied to the plan alone."""
    rows = ledger.query("estimate/mfu/latest_choice", campaign_id=plan.campaign)
    if not rows:
        return choose_mfu(plan)
    mfu, source, _ = rows[0]
    return MfuChoice(None if mfu is None else Decimal(mfu), source)
