"""Pre-launch estimation (triggered): pilot → traces → scaling gain → estimate → gates → report.

Seed 004's procedure and seed 001's admission, written once in `trainbudget.prelaunch`
(`trainbudget prelaunch` runs it in-process): this flow hands it the Prefect step runner, so
each step is a task, trace ranks are summarized one task per file on the task runner and the
scaling fit runs beside the landing. The flow holds the ledger's slot for its run.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

from prefect import flow

from prefect_steps import run_procedure, task_runner
from trainbudget import prelaunch


@flow(name=prelaunch.FLOW, task_runner=task_runner())
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
    data_snapshot: str | None = None,
    ledger: Path | None = None,
    report_root: Path = Path("trainbudget-reports"),
) -> dict:
    """Estimate a campaign from its pilot, traces and ablations; decide admission and worth.

    The predicted gain is the ablations' scaling fit against `baseline_loss`, or `gain` ±
    `gain_uncertainty` as given; `data_snapshot` is checked against the plan's known
    snapshots by admission. Returns the run's summary.json object; the run ends in a state
    named for the verdict (Admitted, Deferred, Over budget, ...) and is named for the plan's
    campaign.
    """
    inputs = prelaunch.PrelaunchInputs(
        plan=plan,
        pilot_logs=list(pilot_logs),
        traces=list(traces or []),
        ablations=ablations,
        baseline_loss=baseline_loss,
        gain=gain,
        gain_uncertainty=gain_uncertainty,
        gain_source=gain_source,
        min_gain=min_gain,
        expected_interruptions=expected_interruptions,
        bootstrap=bootstrap,
        seed=seed,
        data_snapshot=data_snapshot,
        report_root=report_root,
    )
    return run_procedure(
        prelaunch.run_prelaunch, inputs, ledger, "the pre-launch run's ledger writes"
    )
