"""Display formatting: plurals, integers bare, separators, GiB, ms / s, dollars to the cent."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import given
from hypothesis import strategies as st

from trainbudget.report.format import duration_us, gib, number, percent, plural, usd


def test_plural_takes_the_singular_only_for_one() -> None:
    assert plural(1, "attempt") == "1 attempt"
    assert plural(2, "attempt") == "2 attempts"
    assert plural(0, "job") == "0 jobs"
    assert plural(1, "replica") == "1 replica"
    assert plural(1024, "GPU") == "1,024 GPUs"
    assert plural(3, "entry") == "3 entries" and plural(2, "day") == "2 days"
    assert plural(2, "process") == "2 processes"
    assert plural(Decimal(1), "month") == "1 month"
    assert plural(2, "person", "people") == "2 people"


def test_integers_show_without_decimals_and_others_to_two_places() -> None:
    assert number(12000) == "12,000"
    assert number(Decimal("48.000000000000")) == "48"
    assert number(5.0) == "5"
    assert number(Decimal("0.5")) == "0.50"
    assert number(Decimal("1252.125")) == "1,252.12"
    assert number(2.000001) == "2"  # shows as 2.00 at two places, so bare
    assert number(True) == "yes" and number(None) == ""


def test_memory_is_gib_and_trace_times_ms_or_s() -> None:
    # 61,200,000,000 bytes / 2^30 = 56.9969… GiB
    assert gib(61_200_000_000) == "57.00 GiB"
    assert gib(2**30) == "1.00 GiB"
    assert duration_us(730_168) == "730.2 ms"
    assert duration_us(38_302_324) == "38.30 s"
    assert duration_us(999_999) == "1,000.0 ms"
    assert duration_us(1_000_000) == "1.00 s"


def test_dollars_are_to_the_cent_and_percentages_carry_their_sign() -> None:
    assert usd(Decimal("132")) == "$132.00"
    assert usd(Decimal("-195.7344")) == "-$195.73"
    assert usd(1570.93) == "$1,570.93"
    assert percent(Decimal("0.4531")) == "45.3 %"
    assert percent(Decimal("0.05")) == "5 %"


@given(st.integers(min_value=-(10**15), max_value=10**15))
def test_an_integer_reads_back_from_its_display(value: int) -> None:
    text = number(value)
    assert "." not in text and int(text.replace(",", "")) == value
    assert number(Decimal(value)) == text


@given(st.integers(min_value=0, max_value=10**9), st.sampled_from(["job", "attempt", "GPU"]))
def test_plural_starts_with_the_count_and_is_singular_exactly_at_one(count: int, word: str) -> None:
    text = plural(count, word)
    assert text.startswith(f"{count:,} ")
    assert text.endswith(f" {word}") == (count == 1)


def test_expectations_read_in_words() -> None:
    from trainbudget.report.tables import check_words

    assert check_words("expect_column_values_to_not_be_null(job_id)") == "job_id is never empty"
    assert check_words("expect_compound_columns_to_be_unique(cluster,job_id,submit_time)") == (
        "each (cluster, job_id, submit_time) appears once"
    )
    assert check_words("expect_table_row_count_to_be_between") == "has rows"
    assert check_words("expect_something_new(x)") == ""
