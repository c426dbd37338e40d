"""Validate a DuckDB table in place against its declared rules (`quality.rules`).

The same declarations the Pandera models of `trainbudget.schemas` are built from become one
aggregate query (a count of bad rows per rule, one scan), so a million landed rows are checked
without moving them into Python, and without importing Pandera (~0.6 s) on the landing path.
Only when a rule fails is a second query run, to name each bad row with its reason.

The SQL is composed from the rules, which are constants of this package: column names are
quoted identifiers, numbers come from the declarations, and allowed values are parameters.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import duckdb

from trainbudget.quality.rules import FieldRule, TableRules


@dataclass(frozen=True)
class Violation:
    """One rule that some rows of a relation break, and how many rows."""

    table: str
    rule: str
    rows: int


class RelationError(ValueError):
    """A table handed on between stages breaks its declared rules (a defect, not bad input)."""

    def __init__(self, violations: list[Violation]) -> None:
        named = "; ".join(f"{v.table}: {v.rule} ({v.rows} rows)" for v in violations[:5])
        super().__init__(f"schema check failed: {named}")
        self.violations = violations


def _ident(name: str) -> str:
    if not name.replace("_", "").isalnum():
        raise ValueError(f"not a plain column or table name: {name!r}")
    return f'"{name}"'


def _number(value: int | float) -> str:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"a bound must be a number, got {value!r}")
    return repr(value)


def _checks(rule: FieldRule, param: str) -> list[tuple[str, str, str]]:
    """(label, condition true on a bad row, reason expression) for each check of a column."""
    col = _ident(rule.column)
    found = f"CAST({col} AS VARCHAR)"
    out = []
    if not rule.nullable:
        out.append((f"{rule.column}: not null", f"{col} IS NULL",
                    f"'{rule.column}: required, but missing'"))  # fmt: skip
    for bound, op, words in (("ge", "<", "at least"), ("gt", "<=", "greater than"),
                             ("le", ">", "at most")):  # fmt: skip
        value = getattr(rule, bound)
        if value is not None:
            text = f"{rule.column}: must be {words} {_number(value)}"
            out.append((text, f"{col} {op} {_number(value)}", f"concat('{text}, found ', {found})"))
    if rule.isin is not None:
        text = f"{rule.column}: must be one of {', '.join(rule.isin)}"
        out.append((text, f"NOT list_contains(${param}, {col})",
                    f"concat('{text}, found \"', {found}, '\"')"))  # fmt: skip
    if rule.min_length is not None:
        text = f"{rule.column}: must be at least {rule.min_length} characters long"
        out.append((text, f"length({col}) < {_number(rule.min_length)}",
                    f"concat('{text}, found \"', {found}, '\"')"))  # fmt: skip
    if rule.finite:
        text = f"{rule.column}: must be a finite number"
        out.append((text, f"NOT isfinite({col})", f"concat('{text}, found ', {found})"))
    return out


def _all_checks(rules: TableRules) -> tuple[list[tuple[str, str, str]], dict[str, Any]]:
    checks, params = [], {}
    for i, rule in enumerate(rules.fields):
        if rule.isin is not None:
            params[f"allowed_{i}"] = list(rule.isin)
        checks.extend(_checks(rule, f"allowed_{i}"))
    checks.extend((row.name, row.fails_when, row.reason_sql) for row in rules.rows)
    return checks, params


def relation_violations(
    con: duckdb.DuckDBPyConnection,
    rules: TableRules,
    relation: str | None = None,
    where: str = "TRUE",
    params: dict[str, Any] | None = None,
) -> list[Violation]:
    """Every rule of `rules` that rows of `relation` (default: the rules' table) break, counted
    in one aggregate query; `where` narrows the rows (e.g. "source_id = $source_id")."""
    table = _ident(relation or rules.table)
    present = [d[0] for d in con.execute(f"SELECT * FROM {table} LIMIT 0").description]
    declared = [r.column for r in rules.fields]
    shape = [Violation(rules.table, f"missing column {c}", 0) for c in declared
             if c not in present]  # fmt: skip
    if rules.strict:
        shape += [Violation(rules.table, f"undeclared column {c}", 0) for c in present
                  if c not in declared]  # fmt: skip
    if shape:
        return shape
    checks, bound = _all_checks(rules)
    counts = ", ".join(f"count(*) FILTER (WHERE {cond})" for _, cond, _ in checks)
    row = con.execute(f"SELECT {counts} FROM {table} WHERE {where}", {**bound, **(params or {})})
    values = row.fetchone() or ()
    return [
        Violation(rules.table, label, n)
        for (label, _, _), n in zip(checks, values, strict=True)
        if n
    ]


def invalid_rows(
    con: duckdb.DuckDBPyConnection,
    rules: TableRules,
    relation: str | None = None,
    where: str = "TRUE",
    params: dict[str, Any] | None = None,
) -> list[tuple[int, str]]:
    """(source_line, reason) of each row breaking a rule, the first rule it breaks named."""
    table = _ident(relation or rules.table)
    checks, bound = _all_checks(rules)
    reason = "CASE " + " ".join(f"WHEN {c} THEN {r}" for _, c, r in checks) + " END"
    query = (
        f"SELECT source_line, reason FROM (SELECT source_line, {reason} AS reason FROM {table}"
        f" WHERE {where}) WHERE reason IS NOT NULL ORDER BY source_line"
    )
    return con.execute(query, {**bound, **(params or {})}).fetchall()


def require_valid(
    con: duckdb.DuckDBPyConnection,
    rules: TableRules,
    relation: str | None = None,
    where: str = "TRUE",
    params: dict[str, Any] | None = None,
) -> None:
    """Raise RelationError naming every broken rule; return when the relation holds them all."""
    violations = relation_violations(con, rules, relation, where, params)
    if violations:
        raise RelationError(violations)


def take_invalid_rows(
    con: duckdb.DuckDBPyConnection, rules: TableRules, source_id: int
) -> list[tuple[int, str, str]]:
    """Remove the rows one source landed in `rules.table` that break a rule; return them as
    (source_line, raw row as JSON, reason) for the quarantine. Counts first (one scan): when
    every row holds, nothing else runs."""
    where, params = "source_id = $source_id", {"source_id": source_id}
    if not relation_violations(con, rules, where=where, params=params):
        return []
    bad = dict(invalid_rows(con, rules, where=where, params=params))
    table = _ident(rules.table)
    chosen = "source_id = $source_id AND list_contains($lines, source_line)"
    lines = {**params, "lines": list(bad)}
    raws = con.execute(
        f"SELECT source_line, CAST(to_json(t) AS VARCHAR) FROM {table} t WHERE {chosen}", lines
    ).fetchall()
    con.execute(f"DELETE FROM {table} WHERE {chosen}", lines)
    return [(line, raw, bad[line]) for line, raw in sorted(raws)]
