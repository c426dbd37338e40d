"""The forecast's plan keys: accepted, exact, and refused with one line naming the key."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from trainbudget.base.errors import InputError
from trainbudget.plan import parse_plan

# DESIGN.md's forecast example (tests/estimate/test_forecast.py prices the same plan).
DESIGN_PLAN = (
    Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "plans" / "design-176b.plan.yaml"
)

HEAD = """\
campaign: t
unit_of_progress: tokens
prices: {gpu_hour_usd: 2.40}
ceiling: {gpu_hours: 2000}
"""
MAIN = "main: {gpus: 8, gpu: H100-SXM, params: 1e9, tokens: 2e10}\n"
REL = "reliability: {mtbf: fleet, checkpoint_write_minutes: 1}\n"


def test_design_example_keys_are_accepted() -> None:
    text = DESIGN_PLAN.read_text(encoding="utf-8").replace(
        "  checkpoint_write_minutes: 5\n",
        "  checkpoint_write_minutes: 5\n  checkpoint_interval_minutes: 180\n",
    )
    plan = parse_plan(text + "sensitivity: {failure_fraction: [0.05, forecast]}\n")
    assert plan.main.throughput_tflops == 150 and plan.main.flops.vocab == 250880
    assert plan.main.phases[1].gpus is None and plan.main.phases[1].tokens == Decimal("2.66e11")
    assert plan.reliability.checkpoint_interval_minutes == 180
    assert plan.sensitivity.failure_fraction == [Decimal("0.05"), "forecast"]


@pytest.mark.parametrize(
    ("text", "where"),
    [
        (MAIN + "reliability: {checkpoint_write_minutes: 1}\n", ":6: reliability: give exactly"),
        (
            MAIN + "reliability: {mtbf: cloud, checkpoint_write_minutes: 1}\n",
            ":6: reliability.mtbf: must be one of",
        ),
        (MAIN + "reliability: {mtbf: fleet}\n", ":6: reliability: checkpoint_write_minutes"),
        (
            MAIN + "reliability: {mtbf: fleet, checkpoint_write_minutes: 0}\n",
            ":6: reliability: checkpoint_write_minutes: Daly",
        ),
        (
            MAIN + "reliability: {mtbf: fleet, checkpoint_write_minutes: 1, spare_gpus: 1.5}\n",
            ":6: reliability.spare_gpus: must be an integer",
        ),
        (
            MAIN + "reliability: {job_mtbf_hours: -3, checkpoint_write_minutes: 1}\n",
            ":6: reliability.job_mtbf_hours: must be positive",
        ),
        (
            MAIN + "reliability: {mtbf: fleet, checkpoint_write_minutes: 1, mtbf_hours: 3}\n",
            ":6: reliability.mtbf_hours: unknown key",
        ),
        (
            MAIN + "sensitivity: {failure_fraction: [0.05, forecast]}\n",
            ":6: sensitivity.failure_fraction: forecast needs a reliability section",
        ),
        (
            MAIN + REL + "sensitivity: {failure_fraction: [0.05, soon]}\n",
            ":7: sensitivity.failure_fraction.1: must be a number of 0 or more, or forecast",
        ),
        (
            "main: {gpus: 8, gpu: H100-SXM, params: 1e9, tokens: 2e10, mfu: 0.3, "
            "throughput_tflops: 300}\n",
            ":5: main: give mfu or throughput_tflops",
        ),
        (
            "main: {gpus: 8, gpu: H100-SXM, params: 1e9, tokens: 2e10, "
            "flops: {terms: [attention], n_layers: 2}}\n",
            ":5: main.flops: d_model: required by the attention term",
        ),
        (
            "main: {gpus: 8, gpu: H100-SXM, params: 1e9, tokens: 2e10, flops: {terms: [flash]}}\n",
            ":5: main.flops.terms.0: must be one of",
        ),
        (
            "main: {gpus: 8, gpu: H100-SXM, params: 1e9, tokens: 2e10, flops_method: recompute,"
            " flops: {terms: [recompute]}}\n",
            ":5: main: give flops.terms or flops_method",
        ),
        (
            "main: {gpus: 8, gpu: H100-SXM, params: 1e9, phases: [{tokens: 1e10}]}\n",
            ":5: main.phases: phases are priced by the forecast",
        ),
        (
            "main: {gpus: 8, gpu: H100-SXM, params: 1e9, tokens: 3e10, phases: [{tokens: 1e10}]}\n"
            + REL,
            ":5: main.phases: the phases' tokens sum to 10000000000, main.tokens is",
        ),
        (
            "main: {gpus: 8, gpu: H100-SXM, params: 1e9, phases: [{gpus: 4}]}\n" + REL,
            ":5: main.phases.0.tokens: required",
        ),
        (
            "main: {gpus: 8, gpu: H100-SXM, params: 1e9, phases: [{tokens: 1, mfu: 0.3,"
            " throughput_tflops: 9}]}\n" + REL,
            ":5: main.phases.0: give throughput_tflops or mfu",
        ),
        (
            "main: {gpus: 8, hours: 5, phases: [{tokens: 1}]}\n" + REL,
            ":5: main: give hours or phases",
        ),
    ],
)
def test_bad_forecast_keys_are_one_line_naming_the_key(text: str, where: str) -> None:
    with pytest.raises(InputError) as info:
        parse_plan(HEAD + text, "p.yaml")
    message = str(info.value)
    assert message.startswith("p.yaml" + where), message
    assert "\n" not in message


@given(
    spares=st.integers(min_value=0, max_value=10**6),
    mtbf=st.decimals(min_value=Decimal("0.001"), max_value=10**6, places=3),
    minutes=st.decimals(min_value=Decimal("0.001"), max_value=10**4, places=3),
)
def test_reliability_numbers_are_read_exactly(spares: int, mtbf: Decimal, minutes: Decimal) -> None:
    plan = parse_plan(
        HEAD + MAIN + f"reliability: {{spare_gpus: {spares}, job_mtbf_hours: {mtbf}, "
        f"restart_minutes: {minutes}, checkpoint_write_minutes: {minutes}}}\n"
    )
    rel = plan.reliability
    assert (rel.spare_gpus, rel.job_mtbf_hours, rel.restart_minutes) == (spares, mtbf, minutes)
    assert rel.checkpoint_write_minutes == minutes


def test_a_single_failure_fraction_may_be_a_scalar() -> None:
    plan = parse_plan(HEAD + MAIN + REL + "sensitivity: {failure_fraction: forecast}\n")
    assert plan.sensitivity.failure_fraction == ["forecast"]
