"""The docs/validation.md table: each published campaign's naive, forecast and actual GPU-hours.

Runs `trainbudget campaign PLAN --json` on every `examples/published/*.plan.yaml` and
`trainbudget estimate --json` for the naive figure (6·N·T at the published throughput or MFU,
nothing else), reads the actual figures from `examples/published/actuals.csv`, and prints the
markdown table. A plan the campaign command refuses, or whose payload has no `forecast` (before
the forecast existed), gets a naive figure and an empty forecast column.

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


def load_actuals(path: Path) -> dict[str, dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as handle:
        return {r["campaign"]: r for r in csv.DictReader(handle)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    parser.add_argument("--folder", type=Path, default=PUBLISHED, help="published plans folder")
    args = parser.parse_args(argv)
    actuals = load_actuals(args.folder / "actuals.csv")
    rows = [row(path, actuals) for path in sorted(args.folder.glob("*.plan.yaml"))]
    for r in rows:
        if r["note"]:
            print(f"{r['campaign']}: {r['note']}", file=sys.stderr)
    if args.json:
        print(json.dumps(rows, default=str, indent=1))
    else:
        print(markdown(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
