"""Validate a Polars frame against its declared rules (`quality.rules`), without Pandera.

The pilot's step rows are a Polars frame between stages; Pandera would check them
(`schemas.PilotStep` holds the same rules), but importing it imports pandas whenever pandas is
installed (pandera 0.35.0's `__init__`, ~0.5 s), on every pilot run. Here each rule is a
Polars expression, all evaluated in one `select`, and a failing row is named with the reasons
Pandera's failure cases read as (pilot/ingest's words), in the order it reports them: per
column, null (or NaN) first, then the bounds, the length and finiteness; row rules last. The
model and these checks are compared row by row in tests/quality/test_frame.py.
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from trainbudget.quality.rules import FieldRule, TableRules


class FrameError(ValueError):
    """A frame handed on between stages breaks its declared rules (a defect, not bad input)."""


@dataclass(frozen=True)
class _Check:
    column: str | None  # None: a rule across columns
    fails: pl.Expr  # true on a row that breaks the rule (never null)
    words: str | None  # what the row must be; None: the reason is `reason` as given
    reason: pl.Expr | None = None


def _number_checks(rule: FieldRule, col: pl.Expr) -> list[_Check]:
    out = []
    for bound, words, fails in (
        (rule.gt, "must be greater than", lambda v: col <= v),
        (rule.ge, "must be at least", lambda v: col < v),
        (rule.le, "must be at most", lambda v: col > v),
    ):
        if bound is not None:
            out.append(_Check(rule.column, fails(bound).fill_null(False), f"{words} {bound}"))
    return out


def _field_checks(rule: FieldRule, dtype: pl.DataType) -> list[_Check]:
    col = pl.col(rule.column)
    floating = dtype.is_float()
    out = []
    if not rule.nullable:
        out.append(_Check(rule.column, col.is_null(), None, pl.lit("required, but empty")))
        if floating:  # Pandera counts a NaN as a null, and names it
            nan = "must be a finite number, found NaN"
            out.append(_Check(rule.column, col.is_nan().fill_null(False), None, pl.lit(nan)))
    out += _number_checks(rule, col)
    if rule.isin is not None:
        allowed = pl.Series(list(rule.isin), dtype=pl.String)
        fails = (~col.is_in(allowed)).fill_null(False)
        out.append(_Check(rule.column, fails, f"must be one of {', '.join(rule.isin)}"))
    if rule.min_length is not None:
        words = ("must not be empty" if rule.min_length == 1
                 else f"must be at least {rule.min_length} characters")  # fmt: skip
        out.append(_Check(rule.column, (col.str.len_chars() < rule.min_length).fill_null(False),
                          words))  # fmt: skip
    if rule.finite and floating:
        out.append(_Check(rule.column, (~col.is_finite()).fill_null(False),
                          "must be a finite number"))  # fmt: skip
    return out


def _checks(frame: pl.DataFrame, rules: TableRules) -> list[_Check]:
    checks = []
    for rule in rules.fields:
        checks += _field_checks(rule, frame.schema[rule.column])
    for row in rules.rows:
        fails = pl.sql_expr(row.fails_when).fill_null(False)
        checks.append(_Check(None, fails, None, pl.sql_expr(row.reason_sql)))
    return checks


def _shape(frame: pl.DataFrame, rules: TableRules) -> list[str]:
    declared = [r.column for r in rules.fields]
    faults = [f"missing column {c}" for c in declared if c not in frame.columns]
    if rules.strict:
        faults += [f"undeclared column {c}" for c in frame.columns if c not in declared]
    return faults


def frame_failures(frame: pl.DataFrame, rules: TableRules) -> dict[int, list[str]]:
    """Row index → every reason that row breaks `rules` (e.g. `gpus: must be greater than 0,
    found 0`), for the rows that break any; {} when every row holds. Columns the frame has
    besides the declared ones are ignored; a declared one missing is a FrameError."""
    missing = [fault for fault in _shape(frame, rules) if fault.startswith("missing")]
    if missing:
        raise FrameError(f"{rules.table}: {'; '.join(missing)}")
    checks = _checks(frame, rules)
    flags = frame.select(
        *(c.fails.alias(f"_f{i}") for i, c in enumerate(checks)),
    ).with_row_index("_i")
    bad = flags.filter(pl.any_horizontal(pl.exclude("_i")))
    if bad.height == 0:
        return {}
    rows = frame.with_row_index("_i").filter(pl.col("_i").is_in(bad["_i"].implode()))
    found = rows.select(
        *((c.reason if c.reason is not None else pl.col(c.column).cast(pl.String))
          .alias(f"_r{i}") for i, c in enumerate(checks)),
    )  # fmt: skip
    out: dict[int, list[str]] = {}
    for k, index in enumerate(bad["_i"]):
        reasons = []
        for i, check in enumerate(checks):
            if not bad[f"_f{i}"][k]:
                continue
            text = found[f"_r{i}"][k]
            if check.words is not None:
                text = f"{check.words}, found {text}"
            reasons.append(text if check.column is None else f"{check.column}: {text}")
        out[index] = list(dict.fromkeys(reasons))
    return out


def require_valid_frame(frame: pl.DataFrame, rules: TableRules) -> pl.DataFrame:
    """Return `frame` when it has the declared columns (exactly, if strict) and every row holds
    every rule; else raise FrameError naming the first faults."""
    faults = _shape(frame, rules)
    if not faults:
        failures = frame_failures(frame, rules)
        faults = [f"row {i}: {'; '.join(r)}" for i, r in list(failures.items())[:5]]
    if faults:
        raise FrameError(f"schema check failed: {rules.table}: {'; '.join(faults[:5])}")
    return frame
