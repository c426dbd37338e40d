"""Bounded work on plan files (issue 15): size, nesting, alias expansion, binary and encoding.

Each hostile plan must be refused with one line naming the file (and line) within a fraction
of a second; before the fix a billion-laughs plan ran for minutes at 100 % CPU.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trainbudget.base.errors import InputError
from trainbudget.plan import load_plan, parse_plan
from trainbudget.plan.limits import MAX_PLAN_BYTES_ENV

GOOD = """\
campaign: demo-7b
unit_of_progress: tokens
prices: {gpu_hour_usd: 2.40, storage_gb_month_usd: 0.023}
ceiling: {gpu_hours: 2000}
main: {gpus: 8, hours: 120}
"""


def _alias_bomb(levels: int, width: int, key: str = "x_laughs") -> str:
    lines = [f"{key}:", "  l0: &l0 [" + ", ".join(['"lol"'] * width) + "]"]
    for level in range(1, levels):
        lines.append(f"  l{level}: &l{level} [" + ", ".join([f"*l{level - 1}"] * width) + "]")
    return GOOD + "\n".join(lines) + "\n"


def _refused(text: str) -> tuple[str, float]:
    start = time.perf_counter()
    with pytest.raises(InputError) as info:
        parse_plan(text, "plan.yaml")
    message = str(info.value)
    assert "\n" not in message
    return message, time.perf_counter() - start


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # 9^9 ≈ 3.9e8 nodes once expanded; l0 is line 7, l5 (597,871 nodes) is line 12.
        (_alias_bomb(9, 9), r"^plan.yaml:12: refused: the plan holds more than 100,000 YAML nodes"),
        # 10^7 nodes under an unknown key: refused for its size, before the key is looked at.
        (_alias_bomb(7, 10, "not_a_section"), r"^plan.yaml:11: refused: .* more than 100,000"),
        (GOOD + "x: " + "[" * 5000 + "]" * 5000 + "\n", r"^plan.yaml:6: refused: .*deeper than 64"),
        (GOOD + "".join("  " * i + f"k{i}:\n" for i in range(70)), r"refused: .*deeper than 64"),
        (GOOD + "x: &c [*c]\n", r"^plan.yaml:6: refused: a YAML alias refers to a node that"),
        (GOOD + "a: &a [1]\n" + "".join(f"a{i}: &a{i} [*a{'' if i == 1 else i - 1}]\n"
                                        for i in range(1, 80)),
         r"refused: the plan nests deeper than 64 levels"),
        (GOOD + "x: \x07\n", r"^plan.yaml:6: not valid YAML: character #x0007 is not allowed"),
    ],
    ids=["billion-laughs", "1e7-unknown-key", "deep-5000", "deep-block", "recursive", "alias-chain",
         "control-char"],
)  # fmt: skip
def test_hostile_plan_is_refused_fast(text: str, expected: str) -> None:
    message, seconds = _refused(text)
    assert __import__("re").search(expected, message), message
    assert seconds < 2.0


def test_aliases_within_the_bound_still_work() -> None:
    text = GOOD.replace(
        "main: {gpus: 8, hours: 120}\n",
        "main:\n  <<: {gpus: 8, hours: 120}\n  gpus: 16\n",
    )
    plan = parse_plan(text, "plan.yaml")
    assert (plan.main.gpus, plan.main.hours) == (16, 120)


def test_size_limit_and_its_environment_variable(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "big.yaml"
    path.write_text(GOOD + "# pad\n" * 200_000, encoding="utf-8")  # 1.2 MB
    with pytest.raises(
        InputError,
        match=r"big\.yaml: refused: a plan file is larger than "
        r"1,048,576 bytes \(raise the limit with \$TRAINBUDGET_PLAN_MAX_BYTES\)$",
    ):
        load_plan(path)
    monkeypatch.setenv(MAX_PLAN_BYTES_ENV, str(2 << 20))
    assert load_plan(path).campaign == "demo-7b"
    monkeypatch.setenv(MAX_PLAN_BYTES_ENV, "lots")
    with pytest.raises(InputError, match=r"TRAINBUDGET_PLAN_MAX_BYTES: expected a positive"):
        load_plan(path)


def test_a_device_or_pipe_is_refused_without_reading_it() -> None:
    # /dev/zero never ends and a pipe may never answer: only regular files are plans.
    with pytest.raises(InputError, match=r"/dev/zero: cannot read plan: not a regular file"):
        load_plan("/dev/zero")


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (bytes(range(256)) * 4, r"bin\.yaml:1: not a YAML plan: the file is binary \(a NUL byte\)"),
        ((GOOD + "# caf\xe9\n").encode("latin-1"),
         r"bin\.yaml:6: not a YAML plan: byte 161 is not UTF-8 \(0xe9\)"),
        (b"\xff\xfe" + GOOD.encode("utf-16-le"), r"bin\.yaml:1: not a YAML plan: the file is"),
    ],
    ids=["binary", "latin-1", "utf-16"],
)  # fmt: skip
def test_binary_or_non_utf8_plan_is_one_clear_line(tmp_path: Path, data: bytes, expected: str):
    path = tmp_path / "bin.yaml"
    path.write_bytes(data)
    with pytest.raises(InputError, match=expected):
        load_plan(path)


def test_command_line_refuses_a_bomb_with_exit_2(tmp_path: Path, cli) -> None:
    path = tmp_path / "bomb.yaml"
    path.write_text(_alias_bomb(9, 9), encoding="utf-8")
    result = cli("campaign", str(path))
    assert (result.code, result.stdout) == (2, "")
    assert result.stderr.startswith(f"trainbudget: error: {path}:12: refused: the plan holds")
    assert result.stderr.count("\n") == 1


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 12), st.integers(1, 12))
def test_expansion_bound_is_exact(levels: int, width: int) -> None:
    """Refused exactly when the document, aliases expanded, holds over 100,000 nodes."""
    # GOOD: the root, then campaign 2 + unit_of_progress 2 + prices 6 + ceiling 4 + main 6.
    total = 1 + 20 + 2  # + the x_laughs key and its mapping
    size = 1 + width  # l0: the list and its scalars
    for level in range(levels):
        if level:
            size = 1 + width * size
        total += 1 + size  # the key l<level> and its (expanded) list
    message, _ = _refused(_alias_bomb(levels, width))
    if total > 100_000:
        assert "more than 100,000 YAML nodes" in message
    else:  # within the bound the plan is read, and x_laughs is not a plan section
        assert "x_laughs: unknown key" in message
