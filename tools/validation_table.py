"""The docs/validation.md tables: each published campaign's naive, forecast and actual GPU-hours,
strictly pre-launch and with hindsight, and every input with its source.

With hindsight: runs `trainbudget campaign PLAN --json` on every
`examples/published/*.plan.yaml`, and `trainbudget estimate --json` for the naive figure
(6·N·T at the published throughput or MFU, nothing else), reads the actual figures from
`examples/published/actuals.csv`, and prints the markdown table. A plan the campaign command
refuses, or whose payload has no `forecast`, gets a naive figure and an empty forecast column.

Strictly pre-launch: every `examples/published/prelaunch/*.plan.yaml` (no throughput, the
fleet MTBF prior, planned tokens) is forecast in-process with the throughput prior narrowed
to the points published before the campaign's launch, its own left out
(`prelaunch/launch.csv`; the CLI has no flag for that narrowing), and its band is compared
with the actual.

    python -m tools.validation_table            # markdown on stdout
    python -m tools.validation_table --json     # the rows, exact numbers as strings
"""

from __future__ import annotations

import argparse
import csv
import json
import subprocess
import sys
from decimal import Decimal
from pathlib import Path
from typing import Any

import yaml

REPO_ROOT = Path(__file__).resolve().parents[1]
PUBLISHED = REPO_ROOT / "examples" / "published"
LINES = ("checkpoint_writes", "lost_progress", "restarts", "spares")
HEADER = (
    "| campaign | actual GPU-h | naive 6·N·T | forecast | error naive | error forecast "
    "| the line explaining most of the gap |\n| --- | ---: | ---: | ---: | ---: | ---: | --- |"
)


def trainbudget(*args: str) -> tuple[int, dict[str, Any] | None, str]:
    """Run the CLI as a user would; (exit code, the JSON object or None, stderr)."""
    proc = subprocess.run(
        [sys.executable, "-m", "trainbudget", *args], capture_output=True, text=True, check=False
    )
    payload = json.loads(proc.stdout, parse_float=Decimal) if proc.returncode == 0 else None
    return proc.returncode, payload, proc.stderr.strip()


def naive_gpu_hours(main: dict[str, Any]) -> Decimal:
    """6·N·T at the plan's stated throughput (or MFU of the catalog peak), via `estimate`."""
    args = ["estimate", "--params", str(main["params"]), "--tokens", str(main["tokens"])]
    args += ["--gpus", str(main["gpus"]), "--price", "0", "--json"]
    if "throughput_tflops" in main:
        args += ["--gpu-tflops", str(main["throughput_tflops"]), "--mfu", "1"]
    else:
        args += ["--gpu", main["gpu"], "--precision", main.get("precision", "bf16")]
        args += ["--mfu", str(main["mfu"])]
    code, payload, err = trainbudget(*args)
    if payload is None:
        raise SystemExit(f"estimate failed ({code}): {err}")
    return Decimal(payload["gpu_hours"])


def row(plan_file: Path, actuals: dict[str, dict[str, str]]) -> dict[str, Any]:
    """One campaign: actual, naive, forecast (or None), their errors, the largest overhead."""
    plan = yaml.safe_load(plan_file.read_text(encoding="utf-8"))
    name = plan["campaign"]
    actual_row = actuals.get(name)
    actual = Decimal(actual_row["actual_gpu_hours"]) if actual_row else None
    naive = naive_gpu_hours(plan["main"])
    code, payload, err = trainbudget("campaign", str(plan_file), "--json")
    forecast = (payload or {}).get("forecast")
    if forecast and "lines" not in forecast:
        forecast = None  # a band alone (no reliability section): no forecast to compare
    found: dict[str, Any] = {"campaign": name, "actual": actual, "naive": naive}
    found["note"] = None if forecast else f"no forecast (campaign exit {code}: {err or 'no key'})"
    found["forecast"] = found["largest_line"] = None
    if forecast:
        lines = {k: Decimal(v) for k, v in forecast["overhead_gpu_hours"].items() if k in LINES}
        total = Decimal(forecast["main_gpu_hours"])
        if actual_row and actual_row["includes_spares"].strip().lower() == "false":
            total -= lines.pop("spares", Decimal(0))  # compare like with like
        lines["flops basis"] = Decimal(forecast["compute_gpu_hours"]) - naive
        found["forecast"] = total
        found["largest_line"] = max(lines.items(), key=lambda item: item[1])
    found["error_naive"] = _error(naive, actual)
    found["error_forecast"] = _error(found["forecast"], actual)
    return found


def _error(value: Decimal | None, actual: Decimal | None) -> Decimal | None:
    return None if value is None or not actual else (value - actual) / actual


def markdown(rows: list[dict[str, Any]]) -> str:
    """The table, rounded for reading (the --json rows keep every digit)."""
    out = [HEADER]
    for r in rows:
        line = "—"
        if r["largest_line"]:
            key, hours = r["largest_line"]
            line = f"{key}: {_hours(hours)} GPU-h"
        cells = [
            r["campaign"],
            _hours(r["actual"]),
            _hours(r["naive"]),
            _hours(r["forecast"]),
            _percent(r["error_naive"]),
            _percent(r["error_forecast"]),
            line,
        ]
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out)


def _hours(value: Decimal | None) -> str:
    return "—" if value is None else f"{value:,.0f}"


def _percent(value: Decimal | None) -> str:
    return "—" if value is None else f"{value * 100:+.1f} %"


PRELAUNCH_HEADER = (
    "| campaign | actual GPU-h | prior MFU (points) | forecast p50 | band p10 – p90 | p90/p10 "
    "| inside? | error p50 | with hindsight | error hindsight |\n"
    "| --- | ---: | --- | ---: | ---: | ---: | :---: | ---: | ---: | ---: |"
)


def prelaunch_row(
    plan_file: Path, actuals: dict[str, dict[str, str]], launch: dict[str, dict[str, str]]
) -> dict[str, Any]:
    """One campaign forecast from pre-launch inputs only, with its band against the actual."""
    from datetime import date

    from trainbudget.base.errors import InputError
    from trainbudget.estimate.forecast import campaign_forecast
    from trainbudget.plan import load_plan

    plan = load_plan(plan_file)
    meta = launch[plan.campaign]
    exclude = tuple(filter(None, [meta["own_point"]]))
    options: dict[str, Any] = {"before": date.fromisoformat(meta["launch"]), "exclude": exclude}
    note = None
    try:
        forecast = campaign_forecast(plan, prior_options=options)
    except InputError:  # no point of the kind published before launch: all the others
        options = {"exclude": exclude}
        forecast = campaign_forecast(plan, prior_options=options)
        note = "no earlier point of its kind: the prior uses every other published run"
    actual_row = actuals[plan.campaign]
    actual = Decimal(actual_row["actual_gpu_hours"])
    band = forecast.band
    share = Decimal(1)
    if actual_row["includes_spares"].strip().lower() == "false":
        spares = forecast.overhead_gpu_hours["spares"]
        share = 1 - spares / forecast.main_gpu_hours  # compare like with like
    p10, p50, p90 = (v * share for v in (band.p10, band.p50, band.p90))
    prior = forecast.prior
    return {
        "campaign": plan.campaign,
        "actual": actual,
        "prior_mfu": prior.median,
        "prior_points": len(prior.points),
        "prior_note": prior.note,
        "p10": p10,
        "p50": p50,
        "p90": p90,
        "width": band.p90 / band.p10,
        "inside": p10 <= actual <= p90,
        "error": (p50 - actual) / actual,
        "moved_most_by": band.moved_most_by,
        "note": note,
    }


def prelaunch_markdown(rows: list[dict[str, Any]], hindsight: dict[str, dict[str, Any]]) -> str:
    """The strictly pre-launch table beside the with-hindsight forecast, and the summary."""
    out = [PRELAUNCH_HEADER]
    for r in rows:
        h = hindsight.get(r["campaign"], {})
        mark = " †" if r["note"] else ""
        cells = [
            r["campaign"],
            _hours(r["actual"]),
            f"{r['prior_mfu']:.3f} ({r['prior_points']}){mark}",
            _hours(r["p50"]),
            f"{_hours(r['p10'])} – {_hours(r['p90'])}",
            f"{r['width']:.2f}",
            "yes" if r["inside"] else "**no**",
            _percent(r["error"]),
            _hours(h.get("forecast")),
            _percent(h.get("error_forecast")),
        ]
        out.append("| " + " | ".join(cells) + " |")
    inside = sum(1 for r in rows if r["inside"])
    widths = sorted(r["width"] for r in rows)
    out.append("")
    out.append(
        f"Inside the band: {inside} of {len(rows)}. Band width p90/p10: median "
        f"{widths[len(widths) // 2]:.2f}, widest {widths[-1]:.2f}. † no point of its kind was "
        "published before its launch: the prior uses every other published run."
    )
    return "\n".join(out)


def inputs_markdown(path: Path) -> str:
    """Every input of every campaign, with its source and whether a team had it before launch."""
    with path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    out = []
    for campaign in dict.fromkeys(r["campaign"] for r in rows):
        out.append(f"**{campaign}**\n")
        out.append("| input | value | source | before launch? |\n| --- | --- | --- | --- |")
        for r in rows:
            if r["campaign"] == campaign:
                out.append(
                    f"| {r['input']} | {r['value']} | {r['source']} | {r['before_launch']} |"
                )
        out.append("")
    return "\n".join(out)


def load_actuals(path: Path) -> dict[str, dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as handle:
        return {r["campaign"]: r for r in csv.DictReader(handle)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    parser.add_argument("--folder", type=Path, default=PUBLISHED, help="published plans folder")
    parser.add_argument(
        "--part", choices=("all", "hindsight", "prelaunch", "inputs"), default="all",
        help="which table to print (default: all, in the order of docs/validation.md)",
    )  # fmt: skip
    args = parser.parse_args(argv)
    actuals = load_actuals(args.folder / "actuals.csv")
    rows = [row(path, actuals) for path in sorted(args.folder.glob("*.plan.yaml"))]
    for r in rows:
        if r["note"]:
            print(f"{r['campaign']}: {r['note']}", file=sys.stderr)
    pre_folder = args.folder / "prelaunch"
    launch = load_actuals(pre_folder / "launch.csv") if pre_folder.exists() else {}
    pre = [prelaunch_row(p, actuals, launch) for p in sorted(pre_folder.glob("*.plan.yaml"))]
    if args.json:
        print(json.dumps({"hindsight": rows, "prelaunch": pre}, default=str, indent=1))
        return 0
    parts = []
    if args.part in ("all", "prelaunch") and pre:
        parts.append(prelaunch_markdown(pre, {r["campaign"]: r for r in rows}))
    if args.part in ("all", "hindsight"):
        parts.append(markdown(rows))
    if args.part in ("all", "inputs") and (args.folder / "inputs.csv").exists():
        parts.append(inputs_markdown(args.folder / "inputs.csv"))
    print("\n\n".join(parts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
