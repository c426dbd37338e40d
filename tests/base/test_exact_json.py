"""Exact numbers in --json: Decimal digits kept, Fractions exact where finite, no silent null."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from decimal import Decimal
from fractions import Fraction

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from trainbudget.base.exact_json import FRACTION_DIGITS, dumps, fraction_to_decimal

from ..reconcile.conftest import HEADER, sacct_line


def _exact(data: bytes):
    return json.loads(data, parse_float=Decimal)


def test_21_gpu_seconds_are_not_rounded_to_six_places() -> None:
    hours = Decimal(21) / 3600  # 0.005833... at 28 significant digits
    text = dumps({"gpu_hours": hours})
    assert text == b'{"gpu_hours":0.005833333333333333333333333333}'
    assert _exact(text)["gpu_hours"] == hours
    assert _exact(text)["gpu_hours"] != Decimal("0.005833")


def test_fractions_exact_when_finite_else_fifty_digits() -> None:
    assert _exact(dumps({"x": Fraction(-7, 40)}))["x"] == Decimal("-0.175")
    third = _exact(dumps({"x": Fraction(1, 3)}))["x"]
    assert third == Decimal("0." + "3" * FRACTION_DIGITS)
    assert abs(Fraction(third) - Fraction(1, 3)) < Fraction(1, 10**FRACTION_DIGITS)


def test_big_integers_are_exact_and_non_finite_is_refused() -> None:
    assert dumps({"flops": 2 * 10**36}) == b'{"flops":2' + b"0" * 36 + b"}"
    assert orjson.loads(dumps([2**64 - 1, -(2**63)])) == [2**64 - 1, -(2**63)]
    for bad in (float("inf"), float("nan"), Decimal("Infinity"), Decimal("NaN")):
        with pytest.raises(ValueError, match="not a finite number"):
            dumps({"x": [bad]})


@given(st.decimals(allow_nan=False, allow_infinity=False))
def test_any_finite_decimal_round_trips(value: Decimal) -> None:
    back = _exact(dumps({"v": value}))["v"]
    assert Decimal(back) == value


@given(st.fractions(max_denominator=10**6))
def test_fraction_decimal_is_exact_for_2_and_5_denominators(value: Fraction) -> None:
    as_decimal = fraction_to_decimal(value)
    d = value.denominator
    while d % 2 == 0:
        d //= 2
    while d % 5 == 0:
        d //= 5
    if d == 1:
        assert Fraction(as_decimal) == value
    else:
        assert abs(Fraction(as_decimal) - value) <= abs(value) / 10 ** (FRACTION_DIGITS - 1)


def test_json_numbers_are_valid_json_for_strict_parsers() -> None:
    text = dumps({"a": Decimal("7E+9"), "b": Decimal("0E-12"), "c": Decimal("-0.00")})
    assert json.loads(text) == {"a": 7e9, "b": 0.0, "c": -0.0}


def test_reconcile_jobs_carry_exact_gpu_seconds_that_sum_to_the_totals(cli, tmp_path) -> None:
    rows = []
    for job, (gpus, seconds) in enumerate([(1, 21), (3, 7), (7, 1), (8, 36000)], start=501):
        end = (datetime(2026, 11, 23, 10) + timedelta(seconds=seconds)).isoformat()
        rows.append(
            sacct_line(
                str(job), name="t", elapsed="", elapsed_raw=str(seconds),
                submit="2026-11-23T10:00:00", start="2026-11-23T10:00:00", end=end,
                tres=f"gres/gpu={gpus}",
            )
        )  # fmt: skip
    sacct = tmp_path / "week.psv"
    sacct.write_text("\n".join([HEADER, *rows]) + "\n", encoding="utf-8")
    result = cli("--ledger", str(tmp_path / "l.duckdb"), "reconcile", "--sacct", str(sacct),
                 "--json")  # fmt: skip
    assert result.code == 0, result.stderr
    out = _exact(result.stdout.encode())
    jobs = {job["job_id"]: job for job in out["jobs"]}
    expected_seconds = {"501": 21, "502": 21, "503": 7, "504": 288000}
    assert {j: jobs[j]["allocated_gpu_seconds"] for j in jobs} == expected_seconds
    assert isinstance(jobs["501"]["allocated_gpu_seconds"], int)
    # 21 GPU-seconds = 0.00583333… h: 12 decimals, rounded half up, never 0.005833.
    assert jobs["501"]["allocated_gpu_hours"] == Decimal("0.005833333333")
    assert jobs["503"]["allocated_gpu_hours"] == Decimal("0.001944444444")
    for key in ("allocated", "useful", "recovery", "lost", "unverified"):
        total = sum(job[f"{key}_gpu_seconds"] for job in out["jobs"])
        assert total == out["totals"][f"{key}_gpu_seconds"], key
    assert out["totals"]["allocated_gpu_seconds"] == 288049
    assert out["totals"]["allocated_gpu_hours"] == Decimal(288049) / 3600
    for key in ("jobs", "totals", "variance", "diagnosis"):  # DESIGN.md public contract
        assert key in out
    for key in ("job_id", "state", "gpus", "allocated_gpu_hours", "useful_gpu_hours",
                "recovery_gpu_hours", "lost_gpu_hours", "unverified_gpu_hours"):  # fmt: skip
        assert key in out["jobs"][0]
