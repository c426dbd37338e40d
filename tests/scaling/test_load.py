"""Reading ablation CSVs: column options, tokens from FLOPs, outlier rule, clear errors."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trainbudget.base.errors import InputError
from trainbudget.scaling.load import AblationColumns, read_ablations

CHINCHILLA = AblationColumns(params="Model Size", flops="Training FLOP")


def _write(tmp_path, text: str):
    path = tmp_path / "ablations.csv"
    path.write_text(text, encoding="utf-8")
    return path


GOOD = "params,tokens,loss\n1e7,1e9,4.0\n2e7,1e9,3.8\n4e7,1e9,3.6\n8e7,1e9,3.4\n1.6e8,1e9,3.3\n"


def test_reads_default_columns_with_line_numbers(tmp_path) -> None:
    got = read_ablations(_write(tmp_path, GOOD))
    assert got.params.tolist() == [1e7, 2e7, 4e7, 8e7, 1.6e8]
    assert got.tokens.tolist() == [1e9] * 5
    assert got.loss.tolist() == [4.0, 3.8, 3.6, 3.4, 3.3]
    assert got.lines.tolist() == [2, 3, 4, 5, 6]
    assert got.raw[0] == "1e7,1e9,4.0"


def test_tokens_from_flops_are_c_over_6n(tmp_path) -> None:
    text = "N,C,L\n" + "".join(
        f"{n},{6 * n * 2e9},{3 + i / 10}\n" for i, n in enumerate([1e7, 2e7, 3e7, 4e7, 5e7])
    )
    got = read_ablations(_write(tmp_path, text), AblationColumns(params="N", flops="C", loss="L"))
    assert np.allclose(got.tokens, 2e9, rtol=1e-15)


def test_chinchilla_fixture_with_flags_and_epoch_outlier_rule(chinchilla_path) -> None:
    got = read_ablations(chinchilla_path, CHINCHILLA, drop_highest_loss=5)
    # SOURCES.md: 245 rows; the replication keeps loss < sorted(loss)[-5], leaving 240.
    assert len(got.loss) == 240
    assert len(got.dropped_lines) == 5
    everything = np.concatenate([got.loss, got.dropped_points[:, 2]])
    assert got.dropped_points[:, 2].min() >= np.sort(everything)[-5]
    assert got.loss.max() < got.dropped_points[:, 2].min()
    # N and C ranges from SOURCES.md (before dropping: spans 5.7e7 to 1.6e10).
    assert got.params.min() > 5e7 and got.params.max() < 1.7e10


def test_ties_with_the_kth_highest_loss_are_dropped_too(tmp_path) -> None:
    text = "params,tokens,loss\n" + "".join(
        f"{n},1e9,{loss}\n"
        for n, loss in zip([1, 2, 3, 4, 5, 6, 7], [5, 5, 4, 3, 2.9, 2.8, 2.7], strict=True)
    )
    got = read_ablations(_write(tmp_path, text), drop_highest_loss=1)
    assert got.dropped_lines.tolist() == [2, 3]
    assert got.loss.tolist() == [4, 3, 2.9, 2.8, 2.7]


@pytest.mark.parametrize(
    ("row", "expected"),
    [
        ("0,1e9,3.0", ":3: params: must be a positive number, found '0'"),
        ("1e7,-1e9,3.0", ":3: tokens: must be a positive number, found '-1e9'"),
        ("1e7,1e9,nan", ":3: loss: must be a positive number, found 'nan'"),
        ("1e7,1e9,abc", ":3: loss: expected a number, found 'abc'"),
        ("1e7,1e9", ":3: 2 fields, the header has 3"),
    ],
)
def test_bad_values_name_file_line_and_column(tmp_path, row: str, expected: str) -> None:
    path = _write(tmp_path, f"params,tokens,loss\n1e7,2e9,3.1\n{row}\n2e7,1e9,3\n")
    with pytest.raises(InputError) as caught:
        read_ablations(path)
    assert str(caught.value) == f"{path}{expected}"


def test_missing_column_lists_the_columns(tmp_path) -> None:
    path = _write(tmp_path, "Model Size,Training FLOP,loss\n1,2,3\n")
    with pytest.raises(
        InputError, match=r":1: no column 'params' \(columns are Model Size, Training FLOP, loss\)"
    ):
        read_ablations(path)


def test_fewer_than_five_distinct_points_is_an_error(tmp_path) -> None:
    # Six rows but only four distinct (N, D) pairs.
    text = (
        "params,tokens,loss\n1e7,1e9,4\n1e7,1e9,4.1\n2e7,1e9,3.8\n3e7,1e9,3.6\n"
        "4e7,1e9,3.5\n4e7,1e9,3.4\n"
    )
    with pytest.raises(InputError, match="4 distinct \\(params, tokens\\) points"):
        read_ablations(_write(tmp_path, text))


def test_missing_file_and_empty_file(tmp_path) -> None:
    with pytest.raises(InputError, match="no such file"):
        read_ablations(tmp_path / "nope.csv")
    with pytest.raises(InputError, match=":1: empty file"):
        read_ablations(_write(tmp_path, ""))


positive = st.floats(min_value=1e-3, max_value=1e15, allow_nan=False, allow_infinity=False)


@settings(max_examples=40, deadline=None)
@given(
    rows=st.lists(
        st.tuples(positive, positive, positive),
        min_size=5,
        max_size=30,
        unique_by=lambda r: (r[0], r[1]),
    ),
    names=st.permutations(["n_params", "n_tokens", "final loss"]),
)
def test_any_positive_table_round_trips_whatever_the_column_order(
    tmp_path_factory, rows, names
) -> None:
    path = tmp_path_factory.mktemp("csv") / "a.csv"
    order = {"n_params": 0, "n_tokens": 1, "final loss": 2}
    lines = [",".join(names)] + [",".join(repr(r[order[name]]) for name in names) for r in rows]
    path.write_text("\n".join(lines) + "\n")
    got = read_ablations(
        path, AblationColumns(params="n_params", tokens="n_tokens", loss="final loss")
    )
    assert got.params.tolist() == [r[0] for r in rows]
    assert got.tokens.tolist() == [r[1] for r in rows]
    assert got.loss.tolist() == [r[2] for r in rows]
    assert all(math.isfinite(v) for v in got.flops)
