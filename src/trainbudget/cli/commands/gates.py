"""`trainbudget admit` (may a run start?) and `trainbudget decisions` (the audit trail).

Every verdict `admit` gives is written to the ledger's decisions table, in one transaction
with the plan it read (when --plan is given). A defer is a success: exit 0.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from trainbudget.cli import options as parse
from trainbudget.cli.decisions import record_or_emit
from trainbudget.cli.help import command
from trainbudget.cli.options import (
    flag_option,
    json_option,
    ledger_option,
    ledger_path,
    no_ledger_option,
    path_option,
    text_option,
    value_option,
    whole_option,
)
from trainbudget.cli.output import emit, lazy


@command("admit")
@value_option("--estimated-gpu-hours", "The run's estimated GPU-hours.", "HOURS", required=True)
@value_option(
    "--expected-interruptions",
    "Interruptions expected during the run (a count, may be fractional).",
    "COUNT",
    required=True,
)
@value_option("--budget-gpu-hours", "Approved GPU-hours (default: plan gates.admission).", "HOURS")
@flag_option("--no-checkpoint", "The run cannot resume from a checkpoint.")
@whole_option("--gpus", "Accelerators requested.", "COUNT", minimum=1)
@value_option("--memory-per-gpu-gb", "Memory needed per accelerator, GB.", "GB")
@value_option(
    "--runtime-hours", "Wall-clock hours requested (default: estimate / --gpus).", "HOURS"
)
@text_option("--data-snapshot", "The data snapshot the run trains on.", "SNAPSHOT")
@text_option(
    "--workload", "experiment or retraining (scheduled).", "WORKLOAD", default="experiment"
)
@text_option("--priority", "normal or high.", "PRIORITY", default="normal")
@text_option("--candidate", "exploratory or production.", "KIND", default="exploratory")
@flag_option(
    "--skip-full-evaluation",
    "Skip full evaluation (exploratory only; the run then cannot be promoted).",
)
@whole_option("--max-gpus", "Queue limit: accelerators per run.", "COUNT", minimum=0)
@value_option("--max-memory-per-gpu-gb", "Queue limit: GB per accelerator.", "GB")
@value_option("--max-runtime-hours", "Queue limit: wall-clock hours per run.", "HOURS")
@flag_option("--require-data-snapshot", "Defer a run that names no snapshot.")
@value_option("--capacity-gpu-hours", "Queue capacity for the period.", "HOURS")
@value_option("--committed-gpu-hours", "Capacity already reserved by admitted runs.", "HOURS")
@value_option(
    "--retraining-reserve-gpu-hours", "Capacity only scheduled retraining may use.", "HOURS"
)
@path_option("--plan", "Read limits from the plan's gates.admission section.", "PLAN")
@text_option("--campaign", "Campaign id (default: the plan's).", "ID")
@text_option("--run-id", "The run being admitted.", "ID")
@value_option("--estimated-billing-hours", "The run in the cluster's billing-hours.", "HOURS")
@value_option("--allocation-billing-hours", "The account's allocation, billing-hours.", "HOURS")
@value_option("--allocation-gpu-hours", "The account's allocation, GPU-hours.", "HOURS")
@value_option("--allocation-used", "What the account has used, in its unit.", "HOURS")
@path_option(
    "--sreport", "The used figure from `sreport -P cluster AccountUtilizationByUser`.", "FILE"
)
@no_ledger_option
@ledger_option
@json_option
@click.pass_context
def admit(
    ctx: click.Context,
    estimated_gpu_hours: str,
    expected_interruptions: str,
    budget_gpu_hours: str | None,
    no_checkpoint: bool,
    gpus: int | None,
    memory_per_gpu_gb: str | None,
    runtime_hours: str | None,
    data_snapshot: str | None,
    workload: str,
    priority: str,
    candidate: str,
    skip_full_evaluation: bool,
    max_gpus: int | None,
    max_memory_per_gpu_gb: str | None,
    max_runtime_hours: str | None,
    require_data_snapshot: bool,
    capacity_gpu_hours: str | None,
    committed_gpu_hours: str | None,
    retraining_reserve_gpu_hours: str | None,
    plan: Path | None,
    campaign: str | None,
    run_id: str | None,
    estimated_billing_hours: str | None,
    allocation_billing_hours: str | None,
    allocation_gpu_hours: str | None,
    allocation_used: str | None,
    sreport: Path | None,
    no_ledger: bool,
    ledger: str | None,
    as_json: bool,
) -> None:
    """Admit or defer a run before it occupies shared GPUs; record the verdict in the ledger."""
    render_admission = lazy("trainbudget.cli.render.gates", "render_admission")
    from trainbudget.gates.admission import AdmissionRequest, admit_run, check_request_words
    from trainbudget.gates.admission_plan import plan_limits, requested_budget

    check_request_words(workload=workload, priority=priority, candidate=candidate)

    loaded_plan = None
    if plan is not None:
        from trainbudget.plan import load_plan

        loaded_plan = load_plan(plan)
    limits, _ = plan_limits(
        loaded_plan,
        {
            "max_gpus": max_gpus,
            "max_memory_per_gpu_gb": parse.size(
                "--max-memory-per-gpu-gb", max_memory_per_gpu_gb, "GB"
            ),
            "max_runtime_hours": parse.duration("--max-runtime-hours", max_runtime_hours, "hours"),
            "capacity_gpu_hours": parse.amount("--capacity-gpu-hours", capacity_gpu_hours),
            "committed_gpu_hours": parse.amount("--committed-gpu-hours", committed_gpu_hours),
            "retraining_reserve_gpu_hours": parse.amount(
                "--retraining-reserve-gpu-hours", retraining_reserve_gpu_hours
            ),
            "require_data_snapshot": require_data_snapshot or None,
        },
    )
    limits = _with_allocation(
        limits,
        allocation_billing_hours,
        allocation_gpu_hours,
        allocation_used,
        sreport,
    )
    budget = requested_budget(parse.amount("--budget-gpu-hours", budget_gpu_hours), loaded_plan)
    request = AdmissionRequest(
        estimated_gpu_hours=parse.amount("--estimated-gpu-hours", estimated_gpu_hours),
        budget_gpu_hours=budget,
        expected_interruptions=parse.amount("--expected-interruptions", expected_interruptions),
        checkpoint_supported=not no_checkpoint,
        gpus=gpus,
        memory_per_gpu_gb=parse.size("--memory-per-gpu-gb", memory_per_gpu_gb, "GB"),
        runtime_hours=parse.duration("--runtime-hours", runtime_hours, "hours"),
        data_snapshot=data_snapshot,
        workload=workload,
        priority=priority,
        candidate=candidate,
        full_evaluation=not skip_full_evaluation,
        estimated_billing_hours=parse.amount("--estimated-billing-hours", estimated_billing_hours),
    )
    outcome = admit_run(request, limits)
    campaign_id = campaign or (loaded_plan.campaign if loaded_plan else None)
    payload = {
        "state": outcome.outcome,
        "reason": outcome.reason,
        "reserved_gpu_hours": outcome.details["reserved_gpu_hours"],
        "reasons": outcome.details["reasons"],
        "sentence": outcome.sentence,
        "promotable_on_completion": outcome.details["promotable_on_completion"],
        "campaign": campaign_id,
        "run_id": run_id,
        "decision_id": None,
    }
    record_or_emit(
        ctx,
        ledger,
        no_ledger=no_ledger,
        decide=lambda _: (outcome, payload),
        campaign_id=campaign_id,
        run_id=run_id,
        as_json=as_json,
        render=render_admission,
        plan=plan,
    )


def _with_allocation(
    limits: Any,
    billing_hours: str | None,
    gpu_hours: str | None,
    used: str | None,
    sreport: Path | None,
) -> Any:
    """The limits with the account's allocation from the options (gates/allocation.py): the
    plan's cluster.allocation, each figure replaced by an option; `--sreport FILE` reads the
    used figure from sreport's parsable output (reconcile/sreport.py)."""
    from dataclasses import replace

    from trainbudget.gates.allocation import allocation_from_options

    if sreport is not None and used is not None:
        from trainbudget.base.errors import InputError

        raise InputError("--allocation-used, --sreport: give one (the used figure)")
    given_used, source = parse.amount("--allocation-used", used), "option"
    allocation = allocation_from_options(
        limits.allocation,
        billing_hours=parse.amount("--allocation-billing-hours", billing_hours),
        gpu_hours=parse.amount("--allocation-gpu-hours", gpu_hours),
    )
    if sreport is not None:
        from trainbudget.base.errors import InputError
        from trainbudget.reconcile.sreport import read_sreport_usage, used_for

        if allocation is None:
            raise InputError("--sreport: give the allocation too (--allocation-billing-hours …)")
        usage = read_sreport_usage(sreport)
        given_used = used_for(usage, allocation.unit, sreport)
        source = f"{usage.source} (account {usage.account})"
    allocation = allocation_from_options(allocation, used=given_used, used_source=source)
    return replace(limits, allocation=allocation)


@command("decisions")
@text_option("--campaign", "Only this campaign's decisions.", "ID")
@text_option("--gate", "Only this gate (admission, decision, ...).", "GATE")
@whole_option("--limit", "Show at most the newest N decisions.", minimum=1, default=1000)
@ledger_option
@json_option
@click.pass_context
def decisions(
    ctx: click.Context,
    campaign: str | None,
    gate: str | None,
    limit: int,
    ledger: str | None,
    as_json: bool,
) -> None:
    """List recorded gate decisions, oldest first: time, gate, outcome, reason, sentence."""
    render_decisions = lazy("trainbudget.cli.render.gates", "render_decisions")
    from trainbudget.ledger import Ledger
    from trainbudget.ledger.decisions import list_decisions

    with Ledger.open_existing(ledger_path(ctx, ledger)) as book:
        rows = list_decisions(book, campaign_id=campaign, gate=gate, limit=limit)
    payload = {"decisions": rows, "count": len(rows), "campaign": campaign}

    emit(payload, as_json, lambda console: render_decisions(console, payload))
