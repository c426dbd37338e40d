"""Pre-launch estimation (triggered): pilot → traces → scaling gain → estimate → gates → report.

Seed 004's procedure and seed 001's admission, one task per step. Trace files are summarized
one task per rank on the flow's task runner: threads by default, a Dask cluster when
TRAINBUDGET_DASK_ADDRESS names a scheduler (`local` starts a local Dask cluster). All ledger
writes of the run share one transaction.
"""

from __future__ import annotations

import os
from decimal import Decimal
from pathlib import Path

from prefect import flow, get_run_logger, task
from prefect.cache_policies import INPUTS, NO_CACHE
from prefect.runtime import flow_run
from prefect.task_runners import ThreadPoolTaskRunner

import flow_support
from flow_support import emit_gate_event, prefetch_modules, publish_report, retry_on_io_error
from trainbudget.errors import InputError
from trainbudget.estimate.campaign import campaign_estimate
from trainbudget.estimate.catalog import get_accelerator
from trainbudget.gates.admission import AdmissionRequest, admit_run
from trainbudget.gates.audit import record_decision
from trainbudget.gates.decision import PredictedGain, decide_run
from trainbudget.ledger import Ledger
from trainbudget.pilot.land import land_pilot
from trainbudget.pilot.summary import PilotOptions
from trainbudget.plan import land_plan, load_plan
from trainbudget.quality.landed import check_pilot_inputs, require_quality
from trainbudget.report.prelaunch import build_prelaunch_report, scaling_figures
from trainbudget.scaling.bootstrap import bootstrap_fits
from trainbudget.scaling.fit import fit_scaling_law
from trainbudget.scaling.gain import predict_loss
from trainbudget.scaling.load import read_ablations
from trainbudget.trace.combine import Peak, assign_ranks, combine_ranks
from trainbudget.trace.land import land_summaries
from trainbudget.trace.ranks import trace_files
from trainbudget.trace.summary import summarize_rank

# The data-quality step imports Great Expectations (seconds): start it now.
prefetch_modules("trainbudget.quality.gx", "matplotlib.figure")
DASK_ADDRESS_ENV = "TRAINBUDGET_DASK_ADDRESS"
# Two-sided confidence of the bootstrap interval of the predicted loss (and so of the gain).
CONFIDENCE = 0.9


def task_runner() -> object:
    """Threads, or prefect-dask's DaskTaskRunner when TRAINBUDGET_DASK_ADDRESS is set."""
    address = os.environ.get(DASK_ADDRESS_ENV)
    if not address:
        return ThreadPoolTaskRunner(max_workers=os.cpu_count() or 1)
    import cloudpickle
    from prefect_dask import DaskTaskRunner

    # Dask workers have trainbudget installed but not this flows/ folder: ship the helper
    # module the tasks reference (their retry condition) by value.
    cloudpickle.register_pickle_by_value(flow_support)
    if address == "local":
        return DaskTaskRunner(cluster_kwargs={"n_workers": 2, "threads_per_worker": 1})
    return DaskTaskRunner(address=address)


# Landing reads files: retry on I/O errors only. Tasks that take the open ledger or frames do
# not hash their inputs (NO_CACHE).
_IO = {"retries": 2, "retry_delay_seconds": 2, "retry_condition_fn": retry_on_io_error}
land_plan_task = task(land_plan, name="land-plan", cache_policy=NO_CACHE, **_IO)
land_pilot_task = task(land_pilot, name="land-pilot-step-logs", cache_policy=NO_CACHE, **_IO)
check_quality = task(check_pilot_inputs, name="data-quality-checkpoint", cache_policy=NO_CACHE)
summarize = task(summarize_rank, name="summarize-trace-rank", cache_policy=NO_CACHE, **_IO)
combine = task(combine_ranks, name="combine-ranks", cache_policy=NO_CACHE)
land_traces = task(land_summaries, name="land-trace-summaries", cache_policy=NO_CACHE)
read_points = task(read_ablations, name="read-ablations", cache_policy=NO_CACHE, **_IO)
# The fit and its bootstrap are deterministic in their (small) inputs: cached by input value,
# results persisted, so a re-run on the same ablations skips the seconds they take.
fit_law = task(fit_scaling_law, name="scaling-fit", cache_policy=INPUTS, persist_result=True)
resample = task(bootstrap_fits, name="scaling-bootstrap", cache_policy=INPUTS, persist_result=True)
predict = task(predict_loss, name="predict-loss-at-target", cache_policy=NO_CACHE)
estimate = task(campaign_estimate, name="estimate-campaign", cache_policy=NO_CACHE)
admit = task(admit_run, name="admission", cache_policy=NO_CACHE)
decide = task(decide_run, name="gain-versus-cost", cache_policy=NO_CACHE)


def _run_name() -> str:
    return load_plan(flow_run.parameters["plan"]).campaign


@flow(name="prelaunch-estimate", flow_run_name=_run_name, task_runner=task_runner())
def prelaunch_estimate(
    plan: Path,
    pilot_logs: list[Path],
    traces: list[Path] | None = None,
    ablations: Path | None = None,
    baseline_loss: float | None = None,
    gain: float | None = None,
    gain_uncertainty: float | None = None,
    gain_source: str = "given",
    min_gain: float = 0.0,
    expected_interruptions: int = 1,
    bootstrap: int = 200,
    seed: int = 0,
    ledger: Path | None = None,
    report_root: Path = Path("trainbudget-reports"),
) -> dict:
    """Estimate a campaign from its pilot, traces and ablations; decide admission and worth.

    The predicted gain comes from the ablations' scaling fit against `baseline_loss`, or is
    given directly as `gain` ± `gain_uncertainty`.
    """
    logger = get_run_logger()
    if gain is None and (ablations is None or baseline_loss is None):
        raise InputError("give gain (with gain_uncertainty), or ablations and baseline_loss")
    the_plan = load_plan(plan)
    if gain is None and (the_plan.main.params is None or the_plan.main.tokens is None):
        raise InputError(f"{plan}: main.params and main.tokens are the scaling fit's target")
    campaign = the_plan.campaign
    folder = Path(report_root) / f"prelaunch-{campaign}"
    accelerator = get_accelerator(the_plan.main.gpu) if the_plan.main.gpu else None
    files = trace_files(traces) if traces else []
    # Work that needs no ledger runs on the task runner (threads or Dask) while the pilot
    # lands and is checked: one task per trace rank, and the scaling fit with its bootstrap.
    rank_futures = summarize.map(files) if files else []
    if gain is None:
        points = read_points(ablations)
        law_future = fit_law.submit(points.params, points.tokens, points.loss)
        fits_future = resample.submit(
            points.params, points.tokens, points.loss, law_future, bootstrap, seed
        )
    book = Ledger.open(ledger)
    try:
        with book.transaction():
            land_plan_task(book, plan)
            options = PilotOptions(params=the_plan.main.params, gpu=the_plan.main.gpu)
            pilot = land_pilot_task(book, pilot_logs, options, accelerator)
            quality = require_quality(
                check_quality(book, folder / "data-docs", f"{campaign}-prelaunch")
            )
            summaries = [future.result() for future in rank_futures]
            trace_payload = None
            if summaries:
                peak = None
                if accelerator is not None:
                    flops = accelerator.peak_flops_per_second(options.precision)
                    peak = Peak(accelerator.name, options.precision, flops)
                trace_payload, notes = combine(summaries, hta_compatible=False, peak=peak)
                for note in notes:
                    logger.warning("trace: %s", note)
                ranks, _ = assign_ranks(summaries)
                land_traces(book, summaries, ranks, hta_compatible=False)
            scaling = None
            if gain is not None:
                predicted = PredictedGain.plus_minus(
                    Decimal(str(gain)), Decimal(str(gain_uncertainty or 0)), gain_source
                )
            else:
                law = law_future.result()
                target = predict(
                    law.params,
                    fits_future.result(),
                    float(the_plan.main.params),
                    float(the_plan.main.tokens),
                    CONFIDENCE,
                )
                scaling = scaling_figures(points, law, target)
                predicted = PredictedGain.from_loss(
                    Decimal(str(baseline_loss)),
                    Decimal(str(target.predicted_loss)),
                    tuple(Decimal(str(v)) for v in target.interval),
                    f"scaling fit of {Path(ablations).name}, {CONFIDENCE:.0%} bootstrap interval",
                )
            mfu = pilot.summary.mfu
            budget = estimate(the_plan, mfu=mfu, mfu_source="pilot" if mfu is not None else None)
            admission = admit(
                AdmissionRequest(
                    estimated_gpu_hours=budget.planned_gpu_hours,
                    budget_gpu_hours=the_plan.ceiling.gpu_hours,
                    expected_interruptions=Decimal(expected_interruptions),
                    checkpoint_supported=pilot.summary.checkpoint is not None,
                    gpus=the_plan.main.gpus,
                )
            )
            verdict = decide(budget.compute_usd, predicted, Decimal(str(min_gain)))
            gates = [admission, verdict]
            for outcome in gates:
                record_decision(book, outcome, campaign_id=campaign, run_id="prelaunch")
    finally:
        book.close()
    for outcome in gates:
        emit_gate_event(outcome, campaign)
        logger.info("%s: %s — %s", outcome.gate, outcome.outcome, outcome.sentence)
    report = build_prelaunch_report(
        budget, gates, pilot.summary, trace_payload, scaling, quality, folder
    )
    written = publish_report(report, folder, f"{campaign}-prelaunch")
    logger.info("pre-launch estimate %s: report at %s", campaign, written.html.resolve())
    return {
        "campaign": campaign,
        "report": str(written.html.resolve()),
        "planned_gpu_hours": float(budget.planned_gpu_hours),
        "gates": {g.gate: g.outcome for g in gates},
    }
