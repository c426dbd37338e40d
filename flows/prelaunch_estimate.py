"""Pre-launch estimation (triggered): pilot → traces → scaling gain → estimate → gates → report.

Seed 004's procedure and seed 001's admission. Each task is a step of `trainbudget.prelaunch`
(`trainbudget prelaunch` runs the same steps without Prefect): trace ranks are summarized one
task per file on the task runner, and the scaling fit runs beside the landing. The landing and
the decisions share one ledger transaction.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

from prefect import flow, task
from prefect.cache_policies import NO_CACHE
from prefect.runtime import flow_run

from flow_support import IO_RETRIES, finished, publish, say_when_refused, task_runner
from ledger_slot import ledger_slot
from trainbudget import prelaunch
from trainbudget.ledger import Ledger
from trainbudget.ledger.retry import retrying
from trainbudget.plan import load_plan
from trainbudget.trace.summary import summarize_rank

prepare = task(prelaunch.prepare, name="prepare", cache_policy=NO_CACHE)
summarize = task(summarize_rank, name="summarize-trace-rank", cache_policy=NO_CACHE, **IO_RETRIES)
fit_gain = task(prelaunch.estimate_gain, name="scaling-gain", cache_policy=NO_CACHE, **IO_RETRIES)
# Tasks that write inside the run's open transaction are not retried: a retry would run on
# top of the failed attempt's writes. Pure readers retry on I/O errors.
land = task(prelaunch.land_inputs, name="land-and-check", cache_policy=NO_CACHE)
decide = task(prelaunch.price_and_decide, name="estimate-and-gates", cache_policy=NO_CACHE)
publish_run = task(publish, name="publish-report", cache_policy=NO_CACHE)


def _run_name() -> str:
    return load_plan(flow_run.parameters["plan"]).campaign


@flow(name=prelaunch.FLOW, flow_run_name=_run_name, task_runner=task_runner())
def prelaunch_estimate(
    plan: Path,
    pilot_logs: list[Path],
    traces: list[Path] | None = None,
    ablations: Path | None = None,
    baseline_loss: Decimal | None = None,
    gain: Decimal | None = None,
    gain_uncertainty: Decimal = Decimal(0),
    gain_source: str = "given",
    min_gain: Decimal = Decimal(0),
    expected_interruptions: Decimal = Decimal(1),
    bootstrap: int = 200,
    seed: int = 0,
    ledger: Path | None = None,
    report_root: Path = Path("trainbudget-reports"),
) -> dict:
    """Estimate a campaign from its pilot, traces and ablations; decide admission and worth.

    The predicted gain is the ablations' scaling fit against `baseline_loss`, or `gain` ±
    `gain_uncertainty` as given. Returns the run's summary.json object; the run ends in a
    state named for the verdict (Admitted, Deferred, Over budget, ...).
    """
    inputs = prelaunch.PrelaunchInputs(
        plan, pilot_logs, list(traces or []), ablations, baseline_loss, gain, gain_uncertainty,
        gain_source, min_gain, expected_interruptions, bootstrap, seed, report_root,
    )  # fmt: skip
    prepared = prepare(inputs)
    ranks = summarize.map(prepared.trace_files)
    predicted = fit_gain.submit(prepared)
    docs = prepared.folder / "data-docs"
    refused = say_when_refused(prepared.run_name, f"{prepared.run_name}-verdict", docs)

    def write() -> prelaunch.PrelaunchResult:
        # One transaction; on the team ledger a conflicting commit runs it again whole.
        with Ledger.open(ledger) as book, book.transaction():
            landed = land(book, prepared, [rank.result() for rank in ranks])
            return decide(book, prepared, landed, predicted.result())

    with refused, ledger_slot(ledger):
        result = retrying(write, what="the pre-launch run's ledger writes")
    report = prelaunch.build_report(result)
    summary = prelaunch.summarize(result, (prepared.folder / "report.html").resolve())
    return finished(publish_run(report, summary, prepared.run_name))
