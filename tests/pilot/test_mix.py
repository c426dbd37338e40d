"""The declared shape mix: parsing, matching to pilot shapes, the worst-case check."""

from __future__ import annotations

from decimal import Decimal

import pytest

from trainbudget.base.errors import InputError
from trainbudget.pilot.mix import MixEntry, parse_shape_mix, resolve_mix
from trainbudget.pilot.stats import BucketStats, Shape

D = Decimal


def bucket(seq_len: int, batch_size: int = 8, gpus: int = 8, tokens: int = 1000) -> BucketStats:
    one = D(1)
    return BucketStats(
        Shape(seq_len, batch_size, gpus), 1, 1, tokens, one, one, one, one, one, one, None
    )


def test_parse_fractions_and_percentages() -> None:
    entries = parse_shape_mix(["2048=0.85", "8192x2=15%"])
    assert entries == (MixEntry(2048, None, D("0.85")), MixEntry(8192, 2, D("0.15")))


@pytest.mark.parametrize(
    ("texts", "message"),
    [
        (["2048"], "is not SEQ_LEN[xBATCH]=FRACTION"),
        (["2048=0.5"], "the fractions sum to 0.5, they must sum to 1"),
        (["2048=0", "4096=1"], "must be in (0, 1]"),
        (["2048=1.5"], "must be in (0, 1]"),
        (["2048=0.5", "2048=0.5"], "seq_len 2048 is declared twice"),
        (["2048=1e"], "is not a number"),
    ],
)
def test_bad_mixes_are_one_clear_error(texts, message) -> None:
    with pytest.raises(InputError) as error:
        parse_shape_mix(texts)
    assert message in str(error.value)
    assert str(error.value).startswith("shape_mix: ")


def test_no_declared_mix_uses_the_pilot_token_shares() -> None:
    mix = resolve_mix((), [bucket(2048, tokens=3000), bucket(4096, tokens=1000)])
    assert mix.source == "pilot"
    assert mix.weights == {Shape(2048, 8, 8): D("0.75"), Shape(4096, 8, 8): D("0.25")}
    assert mix.worst_case is None


def test_a_measured_worst_case() -> None:
    entries = parse_shape_mix(["2048=0.9", "8192=0.1"])
    mix = resolve_mix(entries, [bucket(2048), bucket(8192)])
    assert mix.worst_case == MixEntry(8192, None, D("0.1"))
    assert mix.worst_case_measured
    assert mix.coverage == 1
    assert mix.weights == {Shape(2048, 8, 8): D("0.9"), Shape(8192, 8, 8): D("0.1")}


def test_an_unmeasured_worst_case_is_flagged_and_the_rest_renormalised() -> None:
    entries = parse_shape_mix(["2048=0.6", "4096=0.2", "8192=0.2"])
    mix = resolve_mix(entries, [bucket(2048), bucket(4096)])
    assert mix.worst_case == MixEntry(8192, None, D("0.2"))
    assert not mix.worst_case_measured
    assert mix.coverage == D("0.8")
    assert mix.unmeasured == [MixEntry(8192, None, D("0.2"))]
    assert mix.weights == {Shape(2048, 8, 8): D("0.75"), Shape(4096, 8, 8): D("0.25")}


def test_an_ambiguous_entry_asks_for_the_batch_size() -> None:
    entries = parse_shape_mix(["2048=1"])
    with pytest.raises(InputError, match=r"matches 2 pilot shapes .* e\.g\. 2048x4=1"):
        resolve_mix(entries, [bucket(2048, batch_size=4), bucket(2048, batch_size=8)])
    exact = resolve_mix(parse_shape_mix(["2048x8=1"]), [bucket(2048, 4), bucket(2048, 8)])
    assert exact.weights == {Shape(2048, 8, 8): 1}
