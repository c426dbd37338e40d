"""The campaign plan file: the seed's scenario parses; bad plans name file, line and field."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from trainbudget.base.errors import InputError
from trainbudget.plan import load_plan, parse_plan

REPO_ROOT = Path(__file__).resolve().parents[2]
PLAN = REPO_ROOT / "examples" / "demo-7b.plan.yaml"

GOOD = """\
campaign: demo-7b
unit_of_progress: tokens
prices: {gpu_hour_usd: 2.40, storage_gb_month_usd: 0.023}
ceiling: {gpu_hours: 2000}
pilots: [{name: lr-sweep, runs: 6, gpus: 4, hours: 3}]
main:
  gpus: 8
  hours: 120
retries: [{attempts: 2, gpus: 8, hours: 10}]
evaluation: [{name: per-checkpoint, jobs: 12, gpus: 2, hours: 2.5}]
checkpoints: {count: 18, size_gb: 180, retention_months: 2}
sensitivity: {attempts: [1, 2], failure_fraction: [0.05, 0.20]}
"""


def test_example_plan_parses_with_exact_decimals() -> None:
    plan = load_plan(PLAN)
    assert plan.campaign == "demo-7b"
    assert plan.prices.gpu_hour_usd == Decimal("2.40")
    assert plan.evaluation[0].hours == Decimal("2.5")
    assert plan.sensitivity.failure_fraction == [Decimal("0.05"), Decimal("0.20")]
    assert plan.main.gpus == 8 and plan.main.hours == 120


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        (
            "  gpus: 8\n",
            "  gpus: -8\n",
            "plan.yaml:7: main.gpus: must be a positive integer, got -8",
        ),
        ("  hours: 120\n", "  hourz: 120\n", "plan.yaml:8: main.hourz: unknown key"),
        ("ceiling: {gpu_hours: 2000}\n", "", "plan.yaml:1: ceiling: required, but missing"),
        ("runs: 6", "runs: six", "plan.yaml:5: pilots.0.runs: must be an integer, got 'six'"),
        ("unit_of_progress: tokens", "unit_of_progress: epochs", "plan.yaml:2: unit_of_progress"),
        ("gpu_hour_usd: 2.40", "gpu_hour_usd: -2.40", "plan.yaml:3: prices.gpu_hour_usd: must be"),
        ("jobs: 12, ", "", "plan.yaml:10: evaluation.0: give either jobs, or checkpoints"),
        ("  hours: 120\n", "", "plan.yaml:6: main: give hours, or params, tokens and gpu"),
        ("attempts: [1, 2]", "attempts: [1, 0]", "plan.yaml:12: sensitivity.attempts.1: must be"),
    ],
)
def test_bad_plan_names_file_line_and_field(old: str, new: str, expected: str) -> None:
    assert old in GOOD
    with pytest.raises(InputError) as info:
        parse_plan(GOOD.replace(old, new, 1), "plan.yaml")
    message = str(info.value)
    assert message.startswith(expected), message
    assert "\n" not in message


def test_invalid_yaml_is_reported_with_its_line() -> None:
    with pytest.raises(InputError, match=r"^plan.yaml:5: not valid YAML"):
        parse_plan(
            GOOD.replace("ceiling: {gpu_hours: 2000}", "ceiling: {gpu_hours: 2000"), "plan.yaml"
        )


def test_a_plan_that_is_not_a_mapping() -> None:
    with pytest.raises(InputError, match=r"^plan.yaml:1: a plan must be a YAML mapping"):
        parse_plan("- just\n- a list\n", "plan.yaml")


def test_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"nope.yaml: cannot read plan"):
        load_plan(tmp_path / "nope.yaml")


def test_duplicate_key_is_refused_not_last_wins() -> None:
    with pytest.raises(InputError, match=r"^plan.yaml:9: main.hours: duplicate key$"):
        parse_plan(GOOD.replace("  hours: 120\n", "  hours: 120\n  hours: 12\n"), "plan.yaml")


def test_negative_decimal_says_positive_not_integer() -> None:
    with pytest.raises(InputError, match=r"^plan.yaml:8: main.hours: must be positive, got -120$"):
        parse_plan(GOOD.replace("  hours: 120", "  hours: -120"), "plan.yaml")


# --- two ways to say one quantity are refused at the second key's line (docs/plan.md) ---------

_DUAL_HEAD = """\
campaign: dual
unit_of_progress: tokens
prices: {gpu_hour_usd: 2.40}
ceiling: {gpu_hours: 100000}
main:
  gpus: 256
  gpu: H100-SXM
"""


@pytest.mark.parametrize(
    ("lines", "where"),
    [
        # hours, then the model keys with a rate: the second way is complete at `hours`.
        ("  hours: 100\n  params: 7e9\n  tokens: 2e12\n  mfu: 0.4\n",
         r"<plan>:8: main\.hours: 100 h and the model keys \(params, tokens, mfu\)"),
        ("  params: 7e9\n  tokens: 2e12\n  throughput_tflops: 400\n  hours: 100\n",
         r"<plan>:11: main\.hours: 100 h and the model keys \(params, tokens, throughput_tflops\)"),
        ("  params: 7e9\n  tokens: 2e12\n  mfu: 0.4\n  gpu_tflops: 989\n",
         r"<plan>:11: main\.gpu_tflops: gpu H100-SXM .*two ways to say one GPU's peak"),
        ("  params: 7e9\n  tokens: 2e12\n  mfu: 0.4\n  d_model: 4096\n"
         "  flops: {terms: [attention], n_layers: 32, d_model: 4096, seq_len: 2048}\n",
         r"<plan>:11: main\.d_model: given in main and in main\.flops"),
    ],
)  # fmt: skip
def test_two_ways_to_say_one_quantity_are_refused_at_the_line(lines: str, where: str) -> None:
    with pytest.raises(InputError, match=where):
        parse_plan(_DUAL_HEAD + lines)


def test_hours_with_params_and_tokens_but_no_rate_is_one_way() -> None:
    # params and tokens alone are the scaling fit's target; only hours says the duration.
    plan = parse_plan(_DUAL_HEAD + "  hours: 100\n  params: 7e9\n  tokens: 2e12\n")
    assert plan.main.hours == 100 and plan.main.params == Decimal("7e9")
