"""The pre-launch procedure (seed 004, seed 001): pilot → traces → scaling gain → estimate → gates.

Plain Python from typed inputs to a typed result. `run_prelaunch` is the sequence, written
once: `trainbudget prelaunch` runs it with the inline step runner, flows/prelaunch_estimate.py
with Prefect's (traces one task per rank, the scaling fit beside the landing;
trainbudget.runner.steps).
The plan is parsed once, in `prepare`; the landing and the decisions are one ledger
transaction, so a failed step leaves the ledger as it was.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trainbudget.base.errors import InputError
from trainbudget.estimate.campaign import main_peak
from trainbudget.estimate.catalog import get_accelerator
from trainbudget.estimate.invariants import check_estimate
from trainbudget.estimate.mfu_rule import (
    calibrated_main_mfu,
    choose_mfu,
    estimate_campaign,
    record_choice,
    stored_choice,
)
from trainbudget.estimate.run_payload import estimate_payload
from trainbudget.gates.admission_plan import admit_planned_run
from trainbudget.gates.decision import PredictedGain, decide_run
from trainbudget.gates.worth import CostBasis
from trainbudget.ledger.decisions import record_decision
from trainbudget.plan import land_plan, load_plan
from trainbudget.reliability import plan_ledger_curve
from trainbudget.report.prelaunch import build_prelaunch_report, scaling_figures
from trainbudget.report.quarantine import QuarantinedFile, QuarantineSummary, with_quarantine
from trainbudget.report.runs import RunSummary, run_folder
from trainbudget.runner import log as said
from trainbudget.runner.steps import INLINE, StepRunner

if TYPE_CHECKING:
    from trainbudget.estimate.campaign import CampaignEstimate
    from trainbudget.estimate.catalog import Accelerator
    from trainbudget.estimate.mfu_rule import MfuChoice
    from trainbudget.gates.outcome import GateOutcome
    from trainbudget.ledger import Ledger
    from trainbudget.pilot.land import PilotResult
    from trainbudget.plan import Plan
    from trainbudget.quality.checkpoint import QualityReport
    from trainbudget.report.model import Report
    from trainbudget.report.prelaunch import ScalingFigures
    from trainbudget.trace.summary import RankSummary

FLOW = "prelaunch-estimate"
RUN_ID = "prelaunch"
# Two-sided confidence of the bootstrap interval of the predicted loss (and so of the gain).
CONFIDENCE = 0.9


@dataclass(frozen=True)
class PrelaunchInputs:
    """One pre-launch run's inputs. The gain is given (`gain` ± `gain_uncertainty`) or fitted
    from `ablations` against `baseline_loss` at the plan's main.params and main.tokens."""

    plan: Path
    pilot_logs: list[Path]
    traces: list[Path] = field(default_factory=list)
    ablations: Path | None = None
    baseline_loss: Decimal | None = None
    gain: Decimal | None = None
    gain_uncertainty: Decimal = Decimal(0)
    gain_source: str = "given"
    min_gain: Decimal = Decimal(0)
    expected_interruptions: Decimal = Decimal(1)
    bootstrap: int = 200
    seed: int = 0
    report_root: Path = Path("trainbudget-reports")
    # The data snapshot the run trains on, checked and recorded by admission as `admit
    # --data-snapshot` does (against the plan's gates.admission.data_snapshots).
    data_snapshot: str | None = None


@dataclass(frozen=True)
class Prepared:
    """The inputs checked, the plan parsed once, and where the run writes."""

    inputs: PrelaunchInputs
    plan: Plan
    trace_files: list[Path]
    accelerator: Accelerator | None
    folder: Path

    @property
    def run_name(self) -> str:
        return f"{self.plan.campaign}-prelaunch"


@dataclass(frozen=True)
class Gain:
    """The predicted gain the worth gate judges, and the fit behind it (None when given)."""

    predicted: PredictedGain
    scaling: ScalingFigures | None


@dataclass(frozen=True)
class Landed:
    """What the run landed: the pilot, its data-quality report, the combined traces."""

    pilot: PilotResult
    quality: QualityReport
    trace_payload: dict[str, Any] | None
    trace_warnings: list[str]


@dataclass(frozen=True)
class PrelaunchResult:
    """Everything the report, the summary and the Prefect artifacts show."""

    prepared: Prepared
    landed: Landed
    gain: Gain
    mfu: MfuChoice
    estimate: CampaignEstimate
    gates: list[GateOutcome]

    def __post_init__(self) -> None:
        check_estimate(self.estimate)  # every identity the report prints (BrokenIdentity)

    @property
    def quarantine(self) -> QuarantineSummary:
        """The pilot rows this run rejected (quarantined in the ledger), file by file."""
        return QuarantineSummary.of(
            QuarantinedFile(str(log.path), "pilot", len(log.rejected),
                            f"line {log.rejected[0].line}: {log.rejected[0].reason}")
            for log in self.landed.pilot.logs if log.rejected
        )  # fmt: skip


def prepare(inputs: PrelaunchInputs) -> Prepared:
    """Check the inputs and parse the plan; InputError naming the field that is missing."""
    # The trace, scaling, pilot and quality modules load numpy, polars or pandas: imported by
    # the steps that use them, so `decide --plan` (weighed_cost) pays for none of them.
    from trainbudget.trace.ranks import trace_files

    if inputs.gain is not None and inputs.ablations is not None:
        raise InputError("gain: give either a gain or ablations to fit, not both")
    if inputs.gain is None and (inputs.ablations is None or inputs.baseline_loss is None):
        raise InputError("gain: give gain (with gain_uncertainty), or ablations and baseline_loss")
    plan = load_plan(inputs.plan)
    if inputs.gain is None and (plan.main.params is None or plan.main.tokens is None):
        raise InputError(f"{inputs.plan}: main.params and main.tokens are the scaling fit's target")
    return Prepared(
        inputs=inputs,
        plan=plan,
        trace_files=trace_files(inputs.traces) if inputs.traces else [],
        accelerator=get_accelerator(plan.main.gpu) if plan.main.gpu else None,
        folder=run_folder(inputs.report_root, "prelaunch", plan.campaign),
    )


def estimate_gain(prepared: Prepared) -> Gain:
    """The gain as given, or baseline − the scaling fit's loss at the plan's target (exact)."""
    inputs = prepared.inputs
    if inputs.gain is not None:
        return Gain(
            PredictedGain.plus_minus(inputs.gain, inputs.gain_uncertainty, inputs.gain_source),
            None,
        )
    from trainbudget.scaling.bootstrap import bootstrap_fits
    from trainbudget.scaling.fit import fit_scaling_law
    from trainbudget.scaling.gain import predict_gain, predict_loss
    from trainbudget.scaling.load import read_ablations

    assert inputs.ablations is not None and inputs.baseline_loss is not None  # prepare checked
    points = read_ablations(inputs.ablations)
    law = fit_scaling_law(points.params, points.tokens, points.loss)
    fits = bootstrap_fits(
        points.params, points.tokens, points.loss, law, inputs.bootstrap, inputs.seed
    )
    main = prepared.plan.main
    target = predict_loss(law.params, fits, float(main.params), float(main.tokens), CONFIDENCE)
    source = f"scaling fit of {inputs.ablations.name}, {CONFIDENCE:.0%} bootstrap interval"
    predicted = predict_gain(target, inputs.baseline_loss, source)
    return Gain(predicted, scaling_figures(points, law, target, fits, CONFIDENCE))


def land_inputs(ledger: Ledger, prepared: Prepared, summaries: list[RankSummary]) -> Landed:
    """Land the plan, the pilot step logs and the trace summaries; check the pilot's quality."""
    from trainbudget.pilot.land import land_pilot
    from trainbudget.pilot.summary import PilotOptions
    from trainbudget.quality.landed import check_pilot_inputs, require_quality
    from trainbudget.trace.combine import assign_ranks, choose_peak, combine_ranks
    from trainbudget.trace.land import land_summaries

    plan = prepared.plan
    with ledger.transaction():
        land_plan(ledger, prepared.inputs.plan, plan)
        main = plan.main
        options = PilotOptions(params=main.params, gpu=main.gpu, precision=main.precision)
        pilot = land_pilot(ledger, prepared.inputs.pilot_logs, options, prepared.accelerator)
        docs = prepared.folder / "data-docs"
        quality = require_quality(check_pilot_inputs(ledger, docs, prepared.run_name))
        payload, warnings = None, []
        if summaries:
            tflops = None if main.gpu_tflops is None else Fraction(main.gpu_tflops)
            peak = choose_peak(
                summaries, accelerator=prepared.accelerator, tflops=tflops, gpu=main.gpu,
                precision=main.precision,
            )  # fmt: skip
            payload, warnings = combine_ranks(summaries, hta_compatible=False, peak=peak)
            ranks, _ = assign_ranks(summaries)
            land_summaries(ledger, summaries, ranks, hta_compatible=False)
    return Landed(pilot, quality, payload, warnings)


def price_and_decide(
    ledger: Ledger, prepared: Prepared, landed: Landed, gain: Gain
) -> PrelaunchResult:
    """Choose the MFU, price the campaign, admit it and weigh its gain; record the decisions."""
    plan, summary = prepared.plan, landed.pilot.summary
    with ledger.transaction():
        mfu = choose_mfu(plan, pilot=summary.mfu, calibrated=calibrated_main_mfu(ledger))
        record_choice(ledger, plan.campaign, RUN_ID, mfu)
        estimate = estimate_campaign(plan, mfu, plan_ledger_curve(ledger, plan))
        admission = admit_planned_run(
            plan,
            estimate.planned_gpu_hours,
            prepared.inputs.expected_interruptions,
            checkpoint_supported=summary.checkpoint is not None,
            memory_per_gpu_gb=pilot_memory_gb(landed.pilot),
            runtime_hours=main_wall_hours(estimate, plan),
            data_snapshot=prepared.inputs.data_snapshot,
            planned_billing_hours=(
                estimate.billing.billing_hours if estimate.billing is not None else None
            ),
        )
        worth = decide_run(estimate.compute_usd, gain.predicted, prepared.inputs.min_gain)
        gates = [admission, worth]
        for outcome in gates:
            record_decision(ledger, outcome, campaign_id=plan.campaign, run_id=RUN_ID)
    return PrelaunchResult(prepared, landed, gain, mfu, estimate, gates)


def main_wall_hours(estimate: CampaignEstimate, plan: Plan) -> Decimal:
    """The main run's wall-clock hours: its GPU-hours over its GPUs (the queue's runtime limit
    applies to that job, not to the whole campaign); with a forecast, its expected wall time
    (the main line then counts spares, which add GPU-hours but no wall clock)."""
    if estimate.forecast is not None:
        return estimate.forecast.main_wall_hours
    main = sum((ln.gpu_hours for ln in estimate.lines if ln.work_class == "main"), Decimal(0))
    return main / plan.main.gpus


def pilot_memory_gb(pilot: PilotResult) -> Decimal | None:
    """The pilot's largest peak memory per GPU in GB (10⁹ bytes), when the step logs carry it."""
    peaks = [b.peak_memory_bytes for b in pilot.summary.buckets if b.peak_memory_bytes is not None]
    return Decimal(max(peaks)) / 10**9 if peaks else None


def build_report(result: PrelaunchResult) -> Report:
    """The pre-launch report of the run (verdicts first)."""
    landed = result.landed
    report = build_prelaunch_report(
        result.estimate,
        result.gates,
        landed.pilot.summary,
        landed.trace_payload,
        result.gain.scaling,
        landed.quality,
        result.prepared.folder,
        result.mfu,
    )
    return with_quarantine(report, result.quarantine)


def summarize(result: PrelaunchResult, report_html: Path) -> RunSummary:
    """The run's summary.json figures."""
    return RunSummary(
        flow=FLOW,
        campaign=result.prepared.plan.campaign,
        planned_gpu_hours=result.estimate.planned_gpu_hours,
        mfu=result.mfu,
        gates=result.gates,
        report=report_html,
        extra={"quarantined": result.quarantine.payload()},
    )


def run_prelaunch(
    inputs: PrelaunchInputs, ledger: Ledger, steps: StepRunner = INLINE
) -> tuple[PrelaunchResult, dict[str, Any]]:
    """The pre-launch procedure: what `trainbudget prelaunch` (inline steps) and the
    prelaunch-estimate flow (Prefect tasks) both run.

    Returns the result and the summary.json object written beside report.html.
    """
    from trainbudget.trace.summary import summarize_rank

    prepared = steps.run("prepare", prepare, inputs, says=said.prelaunch_prepared)
    steps.name_run(prepared.plan.campaign)
    ranks = steps.map(
        "summarize-trace-rank",
        summarize_rank,
        prepared.trace_files,
        says=said.prelaunch_rank,
        io=True,
    )
    gain = steps.submit("scaling-gain", estimate_gain, prepared, says=said.prelaunch_gain, io=True)
    docs = prepared.folder / "data-docs"
    # Steps that write inside the run's open transaction are not retried (io=False): a retry
    # would run on top of the failed attempt's writes.
    refused = steps.refused(prepared.run_name, f"{prepared.run_name}-verdict", docs)
    with refused, ledger.transaction():
        landed = steps.run(
            "land-and-check", land_inputs, ledger, prepared, ranks, says=said.prelaunch_landed
        )
        result = steps.run(
            "estimate-and-gates", price_and_decide, ledger, prepared, landed, gain.result(),
            says=said.prelaunch_decided,
        )  # fmt: skip
    summary = summarize(result, (prepared.folder / "report.html").resolve())
    return result, steps.publish(build_report(result), summary, prepared.run_name)


def weighed_cost(plan: Plan, ledger: Ledger | None) -> tuple[CostBasis, dict[str, Any]]:
    """What `decide --plan` weighs a gain against: the campaign's cost as the pre-launch run
    prices it (the campaign's recorded MFU choice, else the plan's rule; the ledger's MTBF fit
    when the plan says `mtbf: ledger`), and the plan's main run priced alone, from which the
    cheaper alternatives are priced (an `estimate --json` payload)."""
    main = plan.main
    if main.params is None or main.tokens is None:
        raise InputError(
            "main.params: decide --plan prices the alternatives from the main run's params and "
            "tokens, and this plan fixes only its hours"
        )
    choice = stored_choice(ledger, plan) if ledger is not None else choose_mfu(plan)
    curve = plan_ledger_curve(ledger, plan) if ledger is not None else None
    campaign = estimate_campaign(plan, choice, curve)
    wall_days = main_wall_hours(campaign, plan) / 24
    cost = CostBasis("campaign", campaign.compute_usd, campaign.planned_gpu_hours, wall_days)
    clean = estimate_payload(
        params=main.params, tokens=main.tokens, gpus=main.gpus, price=plan.prices.gpu_hour_usd,
        accelerator=get_accelerator(main.gpu) if main.gpu else None,
        peak_flops_per_second=main_peak(plan), peak_source="plan main", precision=main.precision,
        mfu=choice.mfu, model_class=main.model_class,
    )  # fmt: skip
    return cost, clean
