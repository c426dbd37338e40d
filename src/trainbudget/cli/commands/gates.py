"""`trainbudget admit` (may a run start?) and `trainbudget decisions` (the audit trail).

Every verdict `admit` gives is written to the ledger's decisions table, in one transaction
with the plan it read (when --plan is given). A defer is a success: exit 0.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from trainbudget.cli import options as parse
from trainbudget.cli.decisions import record_or_emit
from trainbudget.cli.options import (
    JsonOption,
    LedgerOption,
    NoLedgerOption,
    ledger_path,
    value_option,
    whole_option,
)
from trainbudget.cli.output import emit, lazy


def admit(
    ctx: typer.Context,
    estimated_gpu_hours: Annotated[
        str, value_option("--estimated-gpu-hours", "The run's estimated GPU-hours.", "HOURS")
    ],
    expected_interruptions: Annotated[
        str,
        typer.Option(
            "--expected-interruptions",
            help="Interruptions expected during the run (a count, may be fractional).",
            metavar="COUNT",
            show_default=False,
        ),
    ],
    budget_gpu_hours: Annotated[
        str | None,
        value_option(
            "--budget-gpu-hours", "Approved GPU-hours (default: plan gates.admission).", "HOURS"
        ),
    ] = None,
    no_checkpoint: Annotated[
        bool, typer.Option("--no-checkpoint", help="The run cannot resume from a checkpoint.")
    ] = False,
    gpus: Annotated[
        int | None, whole_option("--gpus", "Accelerators requested.", "COUNT", minimum=1)
    ] = None,
    memory_per_gpu_gb: Annotated[
        str | None,
        typer.Option(
            "--memory-per-gpu-gb", help="Memory needed per accelerator, GB.", metavar="GB"
        ),
    ] = None,
    runtime_hours: Annotated[
        str | None,
        value_option(
            "--runtime-hours", "Wall-clock hours requested (default: estimate / --gpus).", "HOURS"
        ),
    ] = None,
    data_snapshot: Annotated[
        str | None,
        typer.Option(
            "--data-snapshot", help="The data snapshot the run trains on.", metavar="SNAPSHOT"
        ),
    ] = None,
    workload: Annotated[
        str,
        typer.Option(
            "--workload", help="experiment or retraining (scheduled).", metavar="WORKLOAD"
        ),
    ] = "experiment",
    priority: Annotated[
        str, typer.Option("--priority", help="normal or high.", metavar="PRIORITY")
    ] = "normal",
    candidate: Annotated[
        str, typer.Option("--candidate", help="exploratory or production.", metavar="KIND")
    ] = "exploratory",
    skip_full_evaluation: Annotated[
        bool,
        typer.Option(
            "--skip-full-evaluation",
            help="Skip full evaluation (exploratory only; the run then cannot be promoted).",
        ),
    ] = False,
    max_gpus: Annotated[
        int | None,
        whole_option("--max-gpus", "Queue limit: accelerators per run.", "COUNT", minimum=0),
    ] = None,
    max_memory_per_gpu_gb: Annotated[
        str | None,
        typer.Option(
            "--max-memory-per-gpu-gb", help="Queue limit: GB per accelerator.", metavar="GB"
        ),
    ] = None,
    max_runtime_hours: Annotated[
        str | None,
        value_option("--max-runtime-hours", "Queue limit: wall-clock hours per run.", "HOURS"),
    ] = None,
    require_data_snapshot: Annotated[
        bool, typer.Option("--require-data-snapshot", help="Defer a run that names no snapshot.")
    ] = False,
    capacity_gpu_hours: Annotated[
        str | None, value_option("--capacity-gpu-hours", "Queue capacity for the period.", "HOURS")
    ] = None,
    committed_gpu_hours: Annotated[
        str | None,
        value_option(
            "--committed-gpu-hours", "Capacity already reserved by admitted runs.", "HOURS"
        ),
    ] = None,
    retraining_reserve_gpu_hours: Annotated[
        str | None,
        value_option(
            "--retraining-reserve-gpu-hours", "Capacity only scheduled retraining may use.", "HOURS"
        ),
    ] = None,
    plan: Annotated[
        Path | None,
        typer.Option(
            "--plan", help="Read limits from the plan's gates.admission section.", metavar="PLAN"
        ),
    ] = None,
    campaign: Annotated[
        str | None,
        typer.Option("--campaign", help="Campaign id (default: the plan's).", metavar="ID"),
    ] = None,
    run_id: Annotated[
        str | None, typer.Option("--run-id", help="The run being admitted.", metavar="ID")
    ] = None,
    estimated_billing_hours: Annotated[
        str | None,
        value_option(
            "--estimated-billing-hours", "The run in the cluster's billing-hours.", "HOURS"
        ),
    ] = None,
    allocation_billing_hours: Annotated[
        str | None,
        value_option(
            "--allocation-billing-hours", "The account's allocation, billing-hours.", "HOURS"
        ),
    ] = None,
    allocation_gpu_hours: Annotated[
        str | None,
        value_option("--allocation-gpu-hours", "The account's allocation, GPU-hours.", "HOURS"),
    ] = None,
    allocation_used: Annotated[
        str | None,
        value_option("--allocation-used", "What the account has used, in its unit.", "HOURS"),
    ] = None,
    sreport: Annotated[
        Path | None,
        typer.Option(
            "--sreport",
            help="The used figure from `sreport -P cluster AccountUtilizationByUser` output.",
            metavar="FILE",
        ),
    ] = None,
    no_ledger: NoLedgerOption = False,
    ledger: LedgerOption = None,
    as_json: JsonOption = False,
) -> None:
    """Admit or defer a run before it occupies shared GPUs; record the verdict in the ledger."""
    render_admission = lazy("trainbudget.cli.render.gates", "render_admission")
    from trainbudget.gates.admission import (
        AdmissionRequest,
        admit_run,
        check_request_words,
        plan_limits,
        requested_budget,
    )

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
        ctx, ledger, no_ledger=no_ledger, decide=lambda _: (outcome, payload),
        campaign_id=campaign_id, run_id=run_id, as_json=as_json, render=render_admission,
        plan=plan,
    )  # fmt: skip


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


def decisions(
    ctx: typer.Context,
    campaign: Annotated[
        str | None,
        typer.Option("--campaign", help="Only this campaign's decisions.", metavar="ID"),
    ] = None,
    gate: Annotated[
        str | None,
        typer.Option("--gate", help="Only this gate (admission, decision, ...).", metavar="GATE"),
    ] = None,
    limit: Annotated[
        int, whole_option("--limit", "Show at most the newest N decisions.", minimum=1)
    ] = 1000,
    ledger: LedgerOption = None,
    as_json: JsonOption = False,
) -> None:
    """List recorded gate decisions, oldest first: time, gate, outcome, reason, sentence."""
    render_decisions = lazy("trainbudget.cli.render.gates", "render_decisions")
    from trainbudget.ledger import Ledger
    from trainbudget.ledger.decisions import list_decisions

    with Ledger.open_existing(ledger_path(ctx, ledger)) as book:
        rows = list_decisions(book, campaign_id=campaign, gate=gate, limit=limit)
    payload = {"decisions": rows, "count": len(rows), "campaign": campaign}

    emit(payload, as_json, lambda console: render_decisions(console, payload))
