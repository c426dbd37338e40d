"""Hypothesis properties of the plan parser (issue 15): any text is a Plan or one InputError.

The parser feeds the ledger (`campaign --record`), so whatever a hand edit produces must end
as a validated plan or one error line naming the source, never another exception.
"""

from __future__ import annotations

from decimal import Decimal

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from trainbudget.base.errors import InputError
from trainbudget.plan import parse_plan
from trainbudget.plan.fields import keys_of
from trainbudget.plan.sections import Plan

GOOD = """\
campaign: demo-7b
unit_of_progress: tokens
prices: {gpu_hour_usd: 2.40, storage_gb_month_usd: 0.023}
ceiling: {gpu_hours: 2000}
pilots: [{name: lr-sweep, runs: 6, gpus: 4, hours: 3}]
main: {gpus: 8, hours: 120}
retries: [{attempts: 2, gpus: 8, hours: 10}]
evaluation: [{name: per-checkpoint, jobs: 12, gpus: 2, hours: 2.5}]
checkpoints: {count: 18, size_gb: 180, retention_months: 2}
sensitivity: {attempts: [1, 2], failure_fraction: [0.05, 0.20]}
"""
SOURCE = "corpus-plan.yaml"
PROPERTIES = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _parse_or_error(text: str):
    """The plan, or the InputError's message; any other exception fails the test."""
    try:
        return parse_plan(text, SOURCE)
    except InputError as exc:
        message = str(exc)
        assert message.startswith(SOURCE), message
        assert "\n" not in message, message
        return message


@PROPERTIES
@given(text=st.text(max_size=300))
@example("\x00\x01\x02")
@example("a: &a [1]\nb: *a\n")
@example("[" * 200 + "]" * 200)
@example("main: {gpus: 8, gpus: 9}")
def test_any_text_is_a_plan_or_one_error_line(text: str) -> None:
    _parse_or_error(text)


_NUMBERS = st.one_of(
    st.integers(-(10**40), 10**40).map(str),
    st.decimals(allow_nan=False, allow_infinity=False, places=3).map(str),
    st.sampled_from([".nan", ".inf", "-.inf", "1e308", "1e400", "-0", "0", "1_000", "0x10", "nan"]),
    st.text(alphabet="0123456789.e-+_", min_size=1, max_size=12),
)


@PROPERTIES
@given(hours=_NUMBERS, gpus=_NUMBERS)
def test_any_main_numbers_price_finitely_or_name_their_field(hours: str, gpus: str) -> None:
    text = GOOD.replace("main: {gpus: 8, hours: 120}", f"main: {{gpus: {gpus}, hours: {hours}}}")
    result = _parse_or_error(text)
    if isinstance(result, str):
        assert "main" in result, result
        return
    assert result.main.gpus >= 1 and result.main.hours > 0
    total = Decimal(result.main.gpus) * Decimal(result.main.hours)
    assert total.is_finite()


_KEY = st.from_regex(r"[a-z_]{1,12}", fullmatch=True)
_KNOWN = set(keys_of(Plan))


@PROPERTIES
@given(key=_KEY.filter(lambda k: k not in _KNOWN))
def test_an_unknown_top_key_is_named(key: str) -> None:
    message = _parse_or_error(GOOD + f"{key}: 1\n")
    assert isinstance(message, str) and key in message and ":11:" in message


@PROPERTIES
@given(section=st.sampled_from(["prices", "ceiling", "main", "checkpoints"]))
def test_a_repeated_section_is_refused_not_last_wins(section: str) -> None:
    message = _parse_or_error(GOOD + f"{section}: {{}}\n")
    assert isinstance(message, str) and "duplicate" in message and section in message
