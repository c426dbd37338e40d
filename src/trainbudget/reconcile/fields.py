"""Field readers shared by the registry, progress and manifest loaders.

Each returns the typed value or raises ValueError with a message that names what was
expected and what was found; the loader turns that into a quarantine reason with the line.
"""

from __future__ import annotations

import csv
from datetime import UTC, date, datetime
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

import orjson

from trainbudget.base.errors import InputError

BIGINT_MAX = 2**63 - 1  # the ledger's BIGINT columns (step, size_bytes)
_TRUE = {"true", "yes", "1", "y", "t"}
_FALSE = {"false", "no", "0", "n", "f"}
# A blank JSONL line holds JSON's own whitespace only (RFC 8259); the progress loader agrees.
_JSON_WHITESPACE = " \t\r\n"


def read_bool(value: Any, field: str) -> bool | None:
    """true / false / empty (None: not judged)."""
    if value is None or isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text == "":
        return None
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise ValueError(f"{field}: expected true, false or empty, got {value!r}")


def read_int(value: Any, field: str, *, required: bool = True) -> int | None:
    """A non-negative integer that fits the ledger's BIGINT (an integral 800.0 is accepted)."""
    if value is None or (isinstance(value, str) and value.strip() == ""):
        if required:
            raise ValueError(f"{field}: required, but missing")
        return None
    if isinstance(value, bool):
        raise ValueError(f"{field}: expected an integer, got {value!r}")
    try:
        number = Decimal(value) if isinstance(value, int) else Decimal(str(value).strip())
    except (InvalidOperation, ValueError):
        raise ValueError(f"{field}: expected an integer, got {value!r}") from None
    if not number.is_finite() or number != number.to_integral_value():
        raise ValueError(f"{field}: expected a whole number, got {value!r}")
    if not 0 <= number <= BIGINT_MAX:
        raise ValueError(f"{field}: expected an integer from 0 to {BIGINT_MAX}, got {value!r}")
    return int(number)


def read_time(value: Any, field: str, *, zone_required: bool) -> datetime:
    """An ISO-8601 time; with zone_required a time without a zone is an error, else UTC."""
    if isinstance(value, datetime):
        parsed = value
    elif isinstance(value, date):
        parsed = datetime(value.year, value.month, value.day)
    else:
        text = str(value or "").strip()
        if not text:
            raise ValueError(f"{field}: required, but missing")
        try:
            parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
        except ValueError:
            raise ValueError(f"{field}: expected an ISO-8601 time, got {value!r}") from None
    if parsed.tzinfo is None:
        if zone_required:
            raise ValueError(f"{field}: time {value!r} has no zone (add +00:00 or Z)")
        parsed = parsed.replace(tzinfo=UTC)
    try:
        return parsed.astimezone(UTC)
    except OverflowError:
        raise ValueError(f"{field}: time {value!r} is outside the years 1 to 9999 in UTC") from None


def read_date(value: Any, field: str) -> date | None:
    if value is None or str(value).strip() == "":
        return None
    if isinstance(value, date):
        return value if not isinstance(value, datetime) else value.date()
    try:
        return date.fromisoformat(str(value).strip()[:10])
    except ValueError:
        raise ValueError(f"{field}: expected a date YYYY-MM-DD, got {value!r}") from None


def read_records(path: Path) -> list[tuple[int, dict[str, Any] | str, str]]:
    """(line, record, raw text) from a CSV, YAML list or JSONL file; a record that cannot be
    read is the reason instead (the loader quarantines it).

    CSV lines count the header as line 1.
    """
    suffix = path.suffix.lower()
    try:
        if suffix in {".jsonl", ".ndjson", ".json"}:
            return _jsonl_records(path)
        if suffix in {".yaml", ".yml"}:
            return _yaml_records(path)
        return _csv_records(path)
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise InputError(f"{path}: cannot read: {str(exc).splitlines()[0]}") from None


def _csv_records(path: Path) -> list[tuple[int, dict[str, Any] | str, str]]:
    """Rows as dicts of strings (an empty field is None; a short row is padded with None)."""
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.reader(handle)
        header = next(reader, None)
        if header is None:
            return []
        records = []
        for row in reader:
            if not row:
                continue
            if len(row) > len(header):
                reason = f"{len(row)} fields, the header has {len(header)}"
                records.append((reader.line_num, reason, ",".join(row)))
                continue
            values = [v if v != "" else None for v in row]
            values += [None] * (len(header) - len(values))
            records.append((reader.line_num, dict(zip(header, values, strict=True)), ",".join(row)))
    return records


def _jsonl_records(path: Path) -> list[tuple[int, dict[str, Any] | str, str]]:
    records = []
    # Lines end at LF alone, as the progress loader splits them: a lone CR is inside a line.
    with path.open(encoding="utf-8", newline="\n") as handle:
        for lineno, line in enumerate(handle, start=1):
            if not line.strip(_JSON_WHITESPACE):
                continue
            try:
                value = orjson.loads(line)
            except orjson.JSONDecodeError:
                value = None
            record = value if isinstance(value, dict) else "not a JSON object"
            records.append((lineno, record, line.rstrip("\r\n")))
    return records


def _yaml_records(path: Path) -> list[tuple[int, dict[str, Any] | str, str]]:
    import yaml  # only a YAML registry or manifest needs it (saves ~60 ms on every run)

    text = path.read_text(encoding="utf-8")
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f":{mark.line + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise InputError(f"{path}{line}: not valid YAML: {problem}") from None
    if data is None:
        return []
    if not isinstance(data, list) or root is None:
        raise InputError(f"{path}:1: expected a YAML list of records")
    return [
        (node.start_mark.line + 1, item if isinstance(item, dict) else "not a mapping", str(item))
        for node, item in zip(root.value, data, strict=True)
    ]
