"""Read a pilot step log (CSV, Parquet or JSONL) into validated rows and rejected rows.

File-level faults (unreadable, unknown format, a required column missing, no usable row) raise
InputError; a bad row is rejected with its line and reason so it can be quarantined, and the
rest of the file is still used. Line numbers are those of the file: CSV lines counted by the
csv module (quoted newlines included, header = line 1), JSONL lines, Parquet record numbers.
"""

from __future__ import annotations

import csv
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
import polars as pl

from trainbudget.base.errors import InputError
from trainbudget.base.limits import MAX_NAME_CHARS
from trainbudget.quality.frame import FrameError, frame_failures, require_valid_frame
from trainbudget.quality.rules import PILOT_STEP_RULES

REQUIRED = ("run_id", "step", "wall_seconds", "seq_len", "batch_size", "gpus", "peak_memory_bytes")
OPTIONAL = ("tokens", "samples", "checkpoint_seconds", "checkpoint_bytes")
COLUMNS = (*REQUIRED, *OPTIONAL)
INT_COLUMNS = (
    "step",
    "tokens",
    "samples",
    "seq_len",
    "batch_size",
    "gpus",
    "peak_memory_bytes",
    "checkpoint_bytes",
)
FLOAT_COLUMNS = ("wall_seconds", "checkpoint_seconds")
FORMATS = {
    ".csv": "csv",
    ".parquet": "parquet",
    ".pq": "parquet",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
}


@dataclass(frozen=True)
class RejectedRow:
    """A step-log row that was not used: where it was, what it held, and why."""

    line: int
    raw: str
    reason: str


@dataclass(frozen=True)
class StepLog:
    """One step-log file: its valid rows (a PilotStep frame) and the rows it rejected."""

    path: Path
    steps: pl.DataFrame
    rejected: tuple[RejectedRow, ...]


def read_step_log(path: str | Path) -> StepLog:
    """Read, type and validate one step log; bad rows are returned as rejected, not dropped."""
    file_path = Path(path)
    fmt = FORMATS.get(file_path.suffix.lower())
    if fmt is None:
        known = ", ".join(sorted(FORMATS))
        raise InputError(f"{file_path}: unknown step-log format {file_path.suffix!r}; use {known}")
    if not file_path.is_file():
        raise InputError(
            f"{file_path}: no such file" + (" (a folder)" if file_path.is_dir() else "")
        )
    reader = {"csv": _read_csv, "jsonl": _read_jsonl, "parquet": _read_parquet}[fmt]
    try:
        columns, text, rejected = reader(file_path)
    except OSError as exc:
        raise InputError(f"{file_path}: cannot read: {exc.strerror or exc}") from None
    if text.height == 0 and not rejected:
        raise InputError(f"{file_path}: no step rows")
    _check_columns(file_path, columns)
    steps, more = _typed_rows(text)
    rejected.extend(more)
    steps, more = _within_caps(steps)
    rejected.extend(more)
    steps, more = _validated(steps)
    rejected.extend(more)
    steps, more = _without_duplicates(steps)
    rejected.extend(more)
    rejected.sort(key=lambda r: r.line)
    if steps.height == 0:
        first = f"; first: line {rejected[0].line}: {rejected[0].reason}" if rejected else ""
        raise InputError(f"{file_path}: no valid step rows ({len(rejected)} rejected{first})")
    return StepLog(file_path, steps, tuple(rejected))


# --- format readers: (columns, text frame with source_line, rows rejected while reading) -----

Read = tuple[set[str], pl.DataFrame, list[RejectedRow]]


def _text_frame(columns: dict[str, list[str | None]], lines: list[int]) -> pl.DataFrame:
    """Every step-log column as text (absent ones null) plus the source line of each row."""
    data = {c: columns.get(c, [None] * len(lines)) for c in COLUMNS}
    schema = {**dict.fromkeys(COLUMNS, pl.String), "source_line": pl.Int64}
    return pl.DataFrame({**data, "source_line": lines}, schema=schema)


def _read_csv(path: Path) -> Read:
    """Fast path: Polars, when no quote, blank line or ragged row can shift rows off their lines."""
    data = path.read_bytes()
    plain = b'"' not in data and b"\n\n" not in data and b"\n\r\n" not in data
    if plain and _is_utf8(data) and len({line.count(b",") for line in data.splitlines()}) == 1:
        try:
            frame = pl.read_csv(data, infer_schema=False)
        except (pl.exceptions.PolarsError, ValueError):
            frame = None  # let the csv module say exactly where and what
        if frame is not None:
            frame = frame.rename({c: c.strip() for c in frame.columns})
            present = [c for c in COLUMNS if c in frame.columns]
            text = frame.select(
                pl.col(c).str.strip_chars().replace("", None).alias(c) for c in present
            )
            lines = list(range(2, frame.height + 2))  # header = line 1
            return set(frame.columns), _text_frame(text.to_dict(as_series=False), lines), []
    return _read_csv_exactly(path)


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _read_csv_exactly(path: Path) -> Read:
    """The csv module: quoted newlines and blank lines keep every row on its own line."""
    lines, rows, rejected = [], [], []
    try:
        with path.open(newline="", encoding="utf-8") as handle:
            reader = csv.reader(handle)
            header = next(reader, None)
            if header is None:
                raise InputError(f"{path}:1: empty file, expected a header line")
            header = [h.strip() for h in header]
            for row in reader:
                if not row or all(not cell.strip() for cell in row):
                    continue
                line = reader.line_num - sum(cell.count("\n") for cell in row)
                if len(row) != len(header):
                    reason = f"{len(row)} fields, header has {len(header)}"
                    rejected.append(RejectedRow(line, ",".join(row), reason))
                    continue
                lines.append(line)
                rows.append([cell.strip() or None for cell in row])
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except csv.Error as exc:
        raise InputError(f"{path}: not valid CSV: {exc}") from None
    columns = {name: [row[i] for row in rows] for i, name in enumerate(header) if name in COLUMNS}
    return set(header), _text_frame(columns, lines), rejected


def _read_jsonl(path: Path) -> Read:
    lines, records, rejected = [], [], []
    with path.open("rb") as handle:
        for number, text in enumerate(handle, start=1):
            if not text.strip():
                continue
            raw = text.decode("utf-8", errors="replace").rstrip("\r\n")
            try:
                value = orjson.loads(text)
            except orjson.JSONDecodeError as exc:
                rejected.append(RejectedRow(number, raw, f"invalid JSON: {exc.msg}"))
                continue
            if not isinstance(value, dict):
                rejected.append(RejectedRow(number, raw, "expected a JSON object per line"))
                continue
            lines.append(number)
            records.append(value)
    found = set().union(*(r.keys() for r in records)) if records else set(COLUMNS)
    columns = {c: [_as_text(r.get(c)) for r in records] for c in COLUMNS if c in found}
    return found, _text_frame(columns, lines), rejected


def _read_parquet(path: Path) -> Read:
    try:
        frame = pl.read_parquet(os.path.abspath(path), glob=False)  # literal: `a[1].parquet`
    except Exception as exc:  # polars raises several kinds for a file that is not Parquet
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise InputError(f"{path}: not a readable Parquet file ({first})") from None
    present = [c for c in COLUMNS if c in frame.columns]
    text = frame.select(pl.col(c).cast(pl.String) for c in present)
    lines = list(range(1, frame.height + 1))  # record numbers
    return set(frame.columns), _text_frame(text.to_dict(as_series=False), lines), []


def _check_columns(path: Path, columns: set[str]) -> None:
    """A column absent from the whole file is a file error (a null in one row is a row error)."""
    missing = [c for c in REQUIRED if c not in columns]
    if "tokens" not in columns and "samples" not in columns:
        missing.append("tokens (or samples)")
    if missing:
        raise InputError(
            f"{path}: missing column(s) {', '.join(missing)}; "
            f"a step log has {', '.join(REQUIRED)}, tokens or samples"
        )


# --- typing and validation -------------------------------------------------------------------


def _typed_rows(raw: pl.DataFrame) -> tuple[pl.DataFrame, list[RejectedRow]]:
    """Cast text values to the PilotStep types; a value that does not convert rejects its row."""
    raw = raw.with_columns(pl.struct(*COLUMNS).struct.json_encode().alias("_raw"))
    casts = [pl.col("run_id")]
    for name in INT_COLUMNS:
        as_float = pl.col(name).cast(pl.Float64, strict=False)
        casts.append(
            pl.coalesce(
                pl.col(name).cast(pl.Int64, strict=False),
                pl.when(as_float == as_float.round(0)).then(as_float).cast(pl.Int64, strict=False),
            ).alias(name)
        )
    casts += [pl.col(name).cast(pl.Float64, strict=False).alias(name) for name in FLOAT_COLUMNS]
    typed = raw.select([*casts, "source_line", "_raw"])
    failed = pl.lit(False)
    for name in (*INT_COLUMNS, *FLOAT_COLUMNS):
        failed = failed | (raw[name].is_not_null() & typed[name].is_null())
    bad = typed.with_row_index("_i").filter(failed)
    rejected = []
    for row in bad.iter_rows(named=True):
        i = row["_i"]
        wrong = [
            f"{name}: {'not a whole number' if name in INT_COLUMNS else 'not a number'}: "
            f"{raw[name][i]!r}"
            for name in (*INT_COLUMNS, *FLOAT_COLUMNS)
            if raw[name][i] is not None and typed[name][i] is None
        ]
        rejected.append(RejectedRow(row["source_line"], row["_raw"], "; ".join(wrong)))
    return typed.filter(~failed), rejected


def _as_text(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    return orjson.dumps(value).decode()


def _within_caps(typed: pl.DataFrame) -> tuple[pl.DataFrame, list[RejectedRow]]:
    """Rows whose run_id is longer than limits.MAX_NAME_CHARS are rejected (quarantined)."""
    over = pl.col("run_id").str.len_chars() > MAX_NAME_CHARS
    bad = typed.filter(over.fill_null(False))
    rejected = [
        RejectedRow(
            r["source_line"], r["_raw"],
            f"run_id: longer than {MAX_NAME_CHARS:,} characters ({len(r['run_id']):,})",
        )
        for r in bad.iter_rows(named=True)
    ]  # fmt: skip
    return (typed.filter(~over.fill_null(False)) if rejected else typed), rejected


def _validated(typed: pl.DataFrame) -> tuple[pl.DataFrame, list[RejectedRow]]:
    """Check ranges and cross-field rules (quality.rules.PILOT_STEP_RULES, the rules of
    schemas.PilotStep) with Polars; failing rows are rejected with every reason they break."""
    try:
        reasons = frame_failures(typed, PILOT_STEP_RULES)
    except FrameError as exc:
        raise InputError(f"step log: {exc}") from None
    if not reasons:
        return typed, []
    rows = typed.with_row_index("_i")
    bad = rows.filter(pl.col("_i").is_in(list(reasons)))
    rejected = [
        RejectedRow(r["source_line"], r["_raw"], "; ".join(reasons[r["_i"]]))
        for r in bad.iter_rows(named=True)
    ]
    return rows.filter(~pl.col("_i").is_in(list(reasons))).drop("_i"), rejected


def _without_duplicates(steps: pl.DataFrame) -> tuple[pl.DataFrame, list[RejectedRow]]:
    """Keep the first row of each (run_id, step); later ones are rejected as duplicates."""
    steps = steps.with_columns(pl.col("source_line").min().over("run_id", "step").alias("_first"))
    dup = steps.filter(pl.col("source_line") != pl.col("_first"))
    rejected = [
        RejectedRow(
            r["source_line"],
            r["_raw"],
            f"duplicate step: run_id {r['run_id']!r} step {r['step']} "
            f"is already at line {r['_first']}",
        )
        for r in dup.iter_rows(named=True)
    ]
    kept = steps.filter(pl.col("source_line") == pl.col("_first")).select(*COLUMNS, "source_line")
    return require_valid_frame(kept, PILOT_STEP_RULES), rejected
