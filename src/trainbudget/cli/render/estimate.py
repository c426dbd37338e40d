"""The estimate stage on the terminal: `estimate` and `campaign` tables from their payloads.

Figures are rounded here, for display only; --json keeps them exact.
"""

from __future__ import annotations

from typing import Any

from rich.table import Table

from trainbudget.cli.render.text import number_column, print_table

_GIB = 1024**3


def _gib(value: Any) -> str:
    return f"{float(value) / _GIB:,.1f}"


def _mfu_text(payload: dict[str, Any]) -> str:
    """The MFU as given by the user, or a measured one to 4 significant digits (exact: --json)."""
    return f"{float(payload['mfu']):.4g}" if payload.get("mfu_from") else str(payload["mfu"])


def _model_mfu_text(payload: dict[str, Any]) -> str:
    """`, i.e. 0.31 on model FLOPs 6·N·T` when the MFU counts more than 6·N·T."""
    if not payload.get("flops_terms") and payload.get("method") not in ("attention", "recompute"):
        return ""
    return f", i.e. {float(payload['model_flops_mfu']):.3g} on model FLOPs 6·N·T"


def render_estimate(console: Any, payload: dict[str, Any]) -> None:
    """The small table of seed 004 (FLOPs, wall hours, days, GPU-hours, $) and its assumptions."""
    table = Table(title="training run estimate", show_header=True)
    table.add_column("quantity")
    table.add_column("value", justify="right")
    table.add_row("FLOPs", f"{float(payload['flops']):.4g}")
    table.add_row("wall seconds", f"{float(payload['wall_seconds']):,.0f}")
    table.add_row("wall hours", f"{float(payload['wall_hours']):,.1f}")
    table.add_row("wall days", f"{float(payload['wall_days']):,.1f}")
    table.add_row("GPU-hours", f"{float(payload['gpu_hours']):,.1f}")
    table.add_row("dollars", f"${float(payload['dollar_cost']):,.2f}")
    console.print(table)
    gpu = payload["gpu"] or "GPU"
    console.print(
        f"assumptions: FLOPs = {payload['formula']}; "
        f"{payload['gpus']} × {gpu} at {float(payload['peak_flops_per_second']):.4g} FLOP/s "
        f"({payload['precision']} dense peak, {payload['peak_source']}); "
        f"MFU {_mfu_text(payload)} on {payload['flops_basis']} ({payload['mfu_source']})"
        f"{_model_mfu_text(payload)}; "
        f"${payload['price_usd_per_gpu_hour']} per GPU-hour."
    )
    if payload.get("mfu_from"):
        console.print(f"MFU from the ledger: {payload['mfu_from']['note']}")
    console.print(
        "wall time = FLOPs / (GPUs · peak · MFU); dollars = wall hours · GPUs · $/GPU-hour. "
        "Exact values: --json. Estimates are a lower bound on cost."
    )
    memory = payload["memory"]
    if memory:
        verdict = {True: "fits", False: "DOES NOT FIT", None: "no capacity to compare"}
        console.print(
            f"memory per GPU: weights {_gib(memory['weights_bytes'])} + gradients "
            f"{_gib(memory['gradients_bytes'])} + optimizer {_gib(memory['optimizer_bytes'])} + "
            f"activations {_gib(memory['activations_bytes'])} = "
            f"{_gib(memory['total_bytes'])} GiB; {verdict[memory['fits']]}"
            + (
                f" (headroom {_gib(memory['headroom_bytes'])} GiB)"
                if memory["headroom_bytes"] is not None
                else ""
            )
        )
    render_layout(console, payload)  # with --global-batch: the bubble and the most loaded rank


def _n(value: Any, places: int = 1) -> str:
    return f"{float(value):,.{places}f}"


def render_billing(console: Any, payload: dict[str, Any]) -> None:
    """The GPU lines in the cluster's billing units (cluster.billing; estimate/billing.py)."""
    billing = payload["billing"]
    where = f" in partition {billing['partition']}" if billing["partition"] else ""
    table = Table(title=f"billing units ({billing['rule']}: {billing['formula']}){where}")
    table.add_column("line")
    number_column(table, "billing-hours")
    table.add_column("arithmetic")
    for line in billing["lines"]:
        table.add_row(
            f"{line['work_class']}: {line['name']}", _n(line["billing_hours"]), line["detail"]
        )
    console.print(table)
    console.print(
        f"planned [bold]{_n(payload['billing_hours'])} billing-hours[/bold] beside "
        f"{_n(payload['planned_gpu_hours'])} GPU-hours ({billing['truncated']})"
    )


def render_campaign(console: Any, payload: dict[str, Any]) -> None:
    """Lines, totals, storage, sensitivity grid, cadence, capacity and the ceiling verdict."""
    lines = Table(title=f"campaign {payload['campaign']}: GPU-hours by work class")
    lines.add_column("line")
    number_column(lines, "GPU-hours")
    number_column(lines, "$")
    lines.add_column("arithmetic")
    for kind in ("planned", "contingency"):
        rows = [
            ln for ln in payload["lines"] if ln["kind"] == kind and ln["work_class"] != "storage"
        ]
        for i, line in enumerate(rows):
            lines.add_row(
                f"{line['work_class']}: {line['name']}",
                _n(line["gpu_hours"]),
                _n(line["usd"], 2),
                line["detail"],
                end_section=i == len(rows) - 1,
            )
    console.print(lines)
    if payload.get("mfu_from"):
        console.print(f"main-run MFU from the ledger: {payload['mfu_from']['note']}")
    console.print(
        f"planned work {_n(payload['planned_work_gpu_hours'])} + contingency (retries) "
        f"{_n(payload['contingency_gpu_hours'])} = [bold]{_n(payload['planned_gpu_hours'])} "
        f"GPU-hours[/bold]; compute ${_n(payload['compute_usd'], 2)} at "
        f"${payload['gpu_hour_usd']}/GPU-hour"
    )
    if payload.get("billing"):
        render_billing(console, payload)
    storage = [ln for ln in payload["lines"] if ln["work_class"] == "storage"]
    console.print(
        f"storage exposure: {storage[0]['detail'] + ' = ' if storage else ''}"
        f"{_n(payload['storage_gb_months'], 0)} GB-months × "
        f"${payload['storage_gb_month_usd']}/GB-month = ${_n(payload['storage_usd'], 2)} "
        "(before replicas or version overhead); "
        f"compute + storage ${_n(payload['total_usd'], 2)}"
    )

    grid = Table(
        title="sensitivity: P + n·T·(1 + f) + E",
        caption="replaces the retry line, never added to it",
    )
    for column in ("n", "f", "f from", "GPU-hours", "$", "to ceiling"):
        number_column(grid, column)
    for case in payload["sensitivity"]:
        margin = float(case["margin_gpu_hours"])
        grid.add_row(
            str(case["attempts"]),
            f"{float(case['failure_fraction']):.2%}",
            case["failure_fraction_source"],
            _n(case["gpu_hours"]),
            _n(case["compute_usd"], 2),
            f"{-margin:,.1f} OVER" if margin < 0 else f"{margin:,.1f} left",
        )
    print_table(console, grid, ("f from", "$"))

    cadence = payload["cadence"]
    if cadence:
        console.print(
            f"checkpoint cadence: job MTBF {_n(cadence['mtbf_hours'])} h; interval Young "
            f"{_n(float(cadence['young_interval_hours']) * 60)} min, Daly "
            f"{_n(float(cadence['daly_interval_hours']) * 60)} min; write overhead "
            f"{float(cadence['write_overhead_fraction']):.2%} + lost work and restarts "
            f"{float(cadence['lost_fraction']):.2%} = f {float(cadence['overhead_fraction']):.2%}"
            " (the grid's 'cadence' column)"
        )
    if payload.get("forecast") and "lines" in payload["forecast"]:
        render_forecast(console, payload["forecast"])
    elif payload.get("forecast"):  # a band alone (on the main line): no table; the layout
        render_layout(console, payload["forecast"])
    if payload["capacity"]:
        capacity = Table(title="capacity options, expected (restarts, lost work, delay)")
        capacity.add_column("option", no_wrap=True)
        for column in ("$/GPU-h", "interrupts", "wall h", "overhead GPU-h", "delay $", "total $"):
            number_column(capacity, column)
        for cost in payload["capacity"]:
            capacity.add_row(
                cost["name"],
                str(cost["gpu_hour_usd"]),
                _n(cost["expected_interruptions"]),
                _n(cost["expected_wall_hours"]),
                _n(cost["overhead_gpu_hours"]),
                _n(cost["delay_usd"], 2),
                _n(cost["total_usd"], 2),
            )
        # A narrow terminal loses the expected counts first; the dollars stay.
        print_table(console, capacity, ("interrupts", "wall h", "overhead GPU-h", "delay $"))

    ceiling = payload["ceiling"]
    verdict = "WITHIN" if ceiling["within"] else "OVER"
    console.print(
        f"ceiling: [bold]{verdict}[/bold] — planned {_n(ceiling['planned_gpu_hours'])} of "
        f"{_n(ceiling['ceiling_gpu_hours'])} GPU-hours, margin {_n(ceiling['margin_gpu_hours'])} "
        f"({float(ceiling['margin_fraction']):.1%}); worst sensitivity case "
        f"{_n(ceiling['worst_case_gpu_hours'])}; {ceiling['cases_over_ceiling']} of "
        f"{len(payload['sensitivity'])} cases over the ceiling"
    )
    if ceiling["ceiling_usd"] is not None:
        state = "within" if ceiling["within_usd"] else "OVER"
        console.print(
            f"dollar ceiling: ${_n(ceiling['total_usd'], 2)} of ${_n(ceiling['ceiling_usd'], 2)}"
            f" ({state})"
        )


def render_forecast(console: Any, forecast: dict[str, Any]) -> None:
    """The main-run forecast: compute and each overhead line with its arithmetic, then ETTR."""
    table = Table(title="main-run forecast: expected GPU-hours by line")
    table.add_column("line")
    table.add_column("GPU-hours", justify="right")
    table.add_column("arithmetic", overflow="fold")
    for row in forecast["lines"]:
        table.add_row(row["line"].replace("_", " "), _n(row["gpu_hours"], 0), row["detail"])
    table.add_row("main run", _n(forecast["main_gpu_hours"], 0), "allocated, spares included")
    console.print(table)
    interval = forecast.get("ettr_interval")
    spread = (
        f" (interval {float(interval[0]):.3f}–{float(interval[1]):.3f} from the MTBF's)"
        if interval
        else ""
    )
    source = "Daly's optimum" if forecast["checkpoint_interval_source"] == "daly" else "the plan's"
    console.print(
        f"ETTR {float(forecast['ettr']):.3f}{spread}; wall {_n(forecast['main_wall_hours'])} h "
        f"({float(forecast['main_wall_hours']) / 24:,.1f} days); "
        f"{_n(forecast['interruptions'])} expected interruptions at job MTBF "
        f"{float(forecast['mtbf_hours']):,.2f} h ({forecast['mtbf_note']}); checkpoint every "
        f"{_n(forecast['checkpoint_interval_minutes'])} min ({source} interval)"
    )
    band = forecast.get("main_gpu_hours_band")
    if band:
        console.print(
            f"band (p10–p50–p90): {_n(band['p10'], 0)} – {_n(band['p50'], 0)} – "
            f"{_n(band['p90'], 0)} GPU-hours, p90/p10 "
            f"{float(band['p90']) / float(band['p10']):.2f}; throughput "
            f"{forecast['throughput_source']}; moved most by "
            f"{forecast['band_detail']['moved_most_by']}"
        )
    render_layout(console, forecast)


def render_layout(console: Any, forecast: dict[str, Any]) -> None:
    """With main.parallel (estimate: --global-batch): the bubble and the most loaded rank."""
    if "memory_most_loaded_rank" in forecast:
        memory = forecast["memory_most_loaded_rank"]
        fits = {True: "fits", False: "DOES NOT FIT", None: "no accelerator to check"}
        console.print(
            f"layout: pipeline bubble {float(forecast['pipeline_bubble_share']):.1%} of the "
            f"step; most loaded rank {float(memory['bytes']) / 2**30:,.1f} GiB "
            f"({fits[memory['fits']]})"
        )
