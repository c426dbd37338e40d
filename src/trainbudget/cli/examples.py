"""The examples that end each command's help (cli/help.py), by command path.

Each is a real command line that runs from a source checkout (files under examples/ and
tests/fixtures/); keep them under 76 characters a line so they read at 80 columns.
"""

from __future__ import annotations

PLAN = "examples/demo-7b.plan.yaml"
RECONCILE = "examples/reconcile"

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
        "      --price 2.40 --micro-batch 1 --n-layers 32 --d-model 4096 --heads 32 \\\n"
        "      --seq-len 4096 --json",
    ],
    "campaign": [
        f"trainbudget campaign {PLAN}",
        f"trainbudget campaign {PLAN} --record \\\n      --ledger team.duckdb",
    ],
    "pilot": [
        "trainbudget pilot examples/pilot-7b.steps.csv --params 7e9 --gpu H100-SXM \\\n"
        "      --shape-mix 4096=0.8 --shape-mix 16384=0.2 --no-ledger",
    ],
    "trace": [
        "trainbudget trace tests/fixtures/traces/hta_sampled_2rank_a100 \\\n"
        "      --hta-compatible --gpu A100-80GB --precision tf32 --no-ledger",
    ],
    "fit": [
        "trainbudget fit ablations.csv --target-params 7e9 --target-tokens 1.4e11 \\\n"
        "      --baseline-loss 2.25 --no-ledger",
        "trainbudget fit ablations.csv --target-params 7e9 --target-tokens 1.4e11 \\\n"
        "      --plot fit.png --json > fit.json",
    ],
    "admit": [
        "trainbudget admit --estimated-gpu-hours 18.5 --budget-gpu-hours 23 \\\n"
        "      --expected-interruptions 2",
        f"trainbudget admit --plan {PLAN} --estimated-gpu-hours 1252 \\\n"
        "      --expected-interruptions 2 --no-ledger",
    ],
    "decide": [
        "trainbudget decide --params 7e9 --tokens 1e11 --gpus 8 --gpu A100-80GB \\\n"
        "      --mfu 0.4 --price 1.50 --gain 0.05 --gain-uncertainty 0.02 \\\n"
        "      --min-gain 0.03 --no-ledger",
        "trainbudget decide --params 7e9 --tokens 1.4e11 --gpus 8 --gpu A100-80GB \\\n"
        "      --price 1.50 --fit fit.json --baseline-loss 2.25 --min-gain 0.03",
    ],
    "stop-rules": [
        "trainbudget stop-rules --wall-hours 10 --spent-usd 5 --max-wall-hours 8",
        "trainbudget stop-rules --wall-hours 30 --spent-usd 900 --plan plan.yaml \\\n"
        "      --metric dev_loss=2.9,2.8,2.8,2.8",
    ],
    "prelaunch": [
        "trainbudget prelaunch plan.yaml --pilot-log pilot.csv --trace traces/ \\\n"
        "      --ablations ablations.csv --baseline-loss 2.73",
        "trainbudget prelaunch plan.yaml --pilot-log pilot.csv --gain 0.05 \\\n"
        "      --gain-uncertainty 0.01",
    ],
    "reconcile": [
        f"trainbudget reconcile --sacct {RECONCILE}/sacct.psv \\\n"
        f"      --plan {PLAN} --week 2026-W48",
        f"trainbudget reconcile --live --week 2026-W48 --plan {PLAN}",
    ],
    "decisions": [
        "trainbudget decisions",
        "trainbudget decisions --campaign demo-7b --gate admission --limit 20 --json",
    ],
    "demo": ["trainbudget demo", "trainbudget demo --out /tmp/trainbudget-demo --json"],
    "serve": [
        "trainbudget serve --demo",
        f"trainbudget serve --plan {PLAN} --live-sacct --cluster-tz Europe/Paris",
    ],
    "ledger": ["trainbudget ledger init", "trainbudget ledger info --ledger team.duckdb"],
    "ledger init": [
        "trainbudget ledger init",
        "trainbudget ledger init --ledger /shared/team.duckdb --json",
    ],
    "ledger info": ["trainbudget ledger info", "trainbudget --ledger team.duckdb ledger info"],
}
