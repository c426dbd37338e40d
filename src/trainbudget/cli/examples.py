"""The examples that end each command's help (cli/help.py), by command path.

Each is a real command line that runs from a source checkout (files under examples/ and
tests/fixtures/); keep them under 76 characters a line so they read at 80 columns.
"""

from __future__ import annotations

PLAN = "examples/demo-7b.plan.yaml"
RECONCILE = "examples/reconcile"
DEMO = "src/trainbudget/demo_data"

EXAMPLES: dict[str, list[str]] = {
    "": [
        "trainbudget estimate --params 7e9 --tokens 1e11 --gpus 8 --gpu A100-80GB \\\n"
        "      --mfu 0.4 --price 1.50",
        f"trainbudget campaign {PLAN}",
    ],
    "estimate": [
        "trainbudget estimate --params 7e9 --tokens 1e11 --gpus 8 --gpu A100-80GB \\\n"
        "      --mfu 0.4 --price 1.50",
        "trainbudget estimate --params 7e9 --tokens 1e11 --gpus 8 --gpu H100-SXM \\\n"
        "      --price 2.40 --micro-batch 1 --n-layers 32 --d-model 4096 \\\n"
        "      --heads 32 --seq-len 4096 --json",
    ],
    "campaign": [
        f"trainbudget campaign {PLAN}",
        f"trainbudget campaign {PLAN} --record \\\n      --ledger team.duckdb",
    ],
    "pilot": [
        "trainbudget pilot examples/pilot-7b.steps.csv --params 7e9 \\\n"
        "      --gpu H100-SXM --shape-mix 4096=0.8 --shape-mix 16384=0.2 \\\n"
        "      --no-ledger",
    ],
    "trace": [
        "trainbudget trace tests/fixtures/traces/hta_sampled_2rank_a100 \\\n"
        "      --hta-compatible --gpu A100-80GB --precision tf32 --no-ledger",
    ],
    "fit": [
        f"trainbudget fit {DEMO}/ablations.csv \\\n"
        "      --target-params 1e9 --target-tokens 2e10 --baseline-loss 2.73 \\\n"
        "      --no-ledger",
        f"trainbudget fit {DEMO}/ablations.csv \\\n"
        "      --target-params 1e9 --target-tokens 2e10 --plot fit.png \\\n"
        "      --json > fit.json",
    ],
    "admit": [
        "trainbudget admit --estimated-gpu-hours 18.5 --budget-gpu-hours 23 \\\n"
        "      --expected-interruptions 2",
        f"trainbudget admit --plan {PLAN} \\\n"
        "      --estimated-gpu-hours 1252 --expected-interruptions 2 --no-ledger",
    ],
    "decide": [
        "trainbudget decide --params 7e9 --tokens 1e11 --gpus 8 --gpu A100-80GB \\\n"
        "      --mfu 0.4 --price 1.50 --gain 0.05 --gain-uncertainty 0.02 \\\n"
        "      --min-gain 0.03 --no-ledger",
        "trainbudget decide --params 1e9 --tokens 2e10 --gpus 8 --gpu A100-80GB \\\n"
        "      --price 1.50 --fit fit.json --baseline-loss 2.73 --min-gain 0.01",
    ],
    "stop-rules": [
        "trainbudget stop-rules --wall-hours 10 --spent-usd 5 --max-wall-hours 8",
        "trainbudget stop-rules --wall-hours 30 --spent-usd 900 \\\n"
        "      --dev-metric dev_loss --early-stop-metric dev_loss --patience 2 \\\n"
        "      --metric dev_loss=2.9,2.8,2.8,2.8 --no-ledger",
    ],
    "prelaunch": [
        f"trainbudget prelaunch {DEMO}/demo-1b.plan.yaml \\\n"
        f"      --pilot-log {DEMO}/pilot/pilot-main-shape.csv \\\n"
        f"      --trace {DEMO}/traces \\\n"
        f"      --ablations {DEMO}/ablations.csv \\\n"
        "      --baseline-loss 2.73",
        f"trainbudget prelaunch {DEMO}/demo-1b.plan.yaml \\\n"
        f"      --pilot-log {DEMO}/pilot/pilot-main-shape.csv \\\n"
        "      --gain 0.05 --gain-uncertainty 0.01",
    ],
    "reconcile": [
        f"trainbudget reconcile --sacct {RECONCILE}/sacct.psv \\\n"
        f"      --plan {PLAN} --week 2026-W48",
        f"trainbudget reconcile --live --week 2026-W48 \\\n      --plan {PLAN}",
    ],
    "decisions": [
        "trainbudget decisions",
        "trainbudget decisions --campaign demo-7b --gate admission --limit 20",
    ],
    "demo": ["trainbudget demo", "trainbudget demo --out /tmp/trainbudget-demo --json"],
    "serve": [
        "trainbudget serve --demo",
        f"trainbudget serve --plan {PLAN} --live-sacct \\\n      --cluster-tz Europe/Paris",
    ],
    "ledger": ["trainbudget ledger init", "trainbudget ledger info --ledger team.duckdb"],
    "ledger init": [
        "trainbudget ledger init",
        "trainbudget ledger init --ledger /shared/team.duckdb --json",
    ],
    "ledger info": [
        "trainbudget ledger info",
        "trainbudget ledger info --ledger team.duckdb --json",
    ],
    "ledger export": [
        "trainbudget ledger export exports/2026-12-01 --ledger team.duckdb",
    ],
    "ledger import": [
        "trainbudget ledger import exports/2026-12-01 --ledger restored.duckdb",
    ],
    "ledger maintain": [
        "trainbudget ledger maintain --json",
        "trainbudget ledger maintain --retention-days 14 --safe-age-days 7",
    ],
    "gpus": ["trainbudget gpus", "trainbudget gpus --sources --json"],
    "reliability": [
        "trainbudget reliability --campaign demo-1b",
        "trainbudget reliability --cluster demo-cluster --bootstrap 200 --json",
    ],
    "ui": ["trainbudget ui --demo", "trainbudget ui --port 4300"],
}
