"""Read sacct text exports (any delimiter) through the typed staging view `sacct_parsed`.

DuckDB reads and splits the text file and does all field parsing
(sql/reconcile/land/sacct_*.sql); Python only looks at the header and at the rare line whose
free text holds the delimiter.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

from trainbudget.base.errors import InputError, naming
from trainbudget.base.limits import MAX_NAME_CHARS
from trainbudget.files.literal import duckdb_path
from trainbudget.files.text import TextScan
from trainbudget.quality.rules import SACCT_ROWS
from trainbudget.reconcile.sacct_format import (
    FREE_TEXT_FIELDS,
    SLURM_STATES,
    STAGE_COLUMNS,
    TextLayout,
    detect_layout,
)

if TYPE_CHECKING:
    from trainbudget.ledger import Ledger

# Python twins of the SQL checks, used only to choose how to rejoin an over-long line.
_CHECKS = {
    "jobid": re.compile(r"^\d+(?:_(?:\d+|\[[^\]]*\]))?(?:\+\d+)?(?:\.[A-Za-z0-9_-]+)?$"),
    "jobidraw": re.compile(r"^(?:\d+(?:\.[A-Za-z0-9_-]+)?)?$"),
    "state": re.compile(r"^[A-Z_]+(?:\+| by \S+)?$"),
    "exitcode": re.compile(r"^(?:\d+:\d+)?$"),
    "elapsed": re.compile(r"^(?:(?:\d+-)?(?:\d+:)?\d+:\d+(?:\.\d+)?)?$"),
    "elapsedraw": re.compile(r"^\d*$"),
    "submit": re.compile(r"^(?:\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d|None|Unknown)?$"),
    "start": re.compile(r"^(?:\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d|None|Unknown)?$"),
    "end": re.compile(r"^(?:\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d|None|Unknown)?$"),
    "nnodes": re.compile(r"^\d*$"),
    "alloccpus": re.compile(r"^\d*$"),
}
_TYPED = {"jobid", "jobidraw", "state", "exitcode", "elapsed", "elapsedraw", "submit", "start",
          "end", "nnodes", "alloccpus", "alloctres", "reqtres"}  # fmt: skip


@dataclass(frozen=True)
class Rejected:
    """A line that could not be read: its number, text and the reason."""

    line: int
    raw: str
    reason: str


@dataclass(frozen=True)
class FileBytes:
    """What one pass over an export's bytes tells: its sha256 (the ledger's content key),
    whether it is `sacct --json`, and what the line-numbering check needs."""

    sha256: str
    is_json: bool  # the first byte that is not white space is "{"
    size: int
    awkward: bool  # holds \r (CRLF line ends) or \x1e (the one-column read's delimiter)
    newlines_at_end: int


def _read(handle: BinaryIO, path: Path) -> bytes:
    try:
        return handle.read(1 << 24)
    except OSError as exc:
        raise naming(exc, path) from None


def scan_bytes(path: Path) -> FileBytes:
    """Hash the file, tell JSON from text and look for awkward bytes in the same read (one
    pass, 16 MiB blocks)."""
    digest, is_json, awkward, size, tail = hashlib.sha256(), False, False, 0, b""
    text = TextScan(path)  # refuses a file that is not UTF-8, naming the line
    with path.open("rb") as handle:
        while block := _read(handle, path):
            digest.update(block)
            text.feed(block)
            if not size:
                is_json = block.lstrip().startswith(b"{")
            # `in` scans with memchr and stops at the first hit: far cheaper than counting.
            awkward = awkward or b"\r" in block or b"\x1e" in block
            size += len(block)
            tail = block
    text.finish()
    # A line over read_csv's limit makes its streaming read fail: take the whole-file read.
    awkward = awkward or text.long_line
    newlines_at_end = len(tail) - len(tail.rstrip(b"\n"))
    return FileBytes(digest.hexdigest(), is_json, size, awkward, newlines_at_end)


def stage_text(
    ledger: Ledger,
    path: Path,
    scanned: FileBytes,
    delimiter: str | None = None,
    fields: list[str] | None = None,
) -> tuple[dict[str, Any], TextLayout]:
    """Number the lines of an sacct text export (`sacct_lines`); return the split parameters
    for normalize_stage and the layout its over-long lines are rejoined with."""
    with path.open(encoding="utf-8", errors="replace") as handle:
        first = handle.readline()
    if not first.strip():
        raise InputError(f"{path}:1: empty sacct file")
    layout = detect_layout(first, str(path), delimiter, fields)
    _load_lines(ledger, path, scanned)
    split = {
        "first_data_line": 2 if layout.has_header else 1,
        "field_count": len(layout.fields) + (1 if layout.trailing_delimiter else 0),
        "delim": layout.delimiter,
        **{f"i_{column}": layout.index_of(column) for column in STAGE_COLUMNS},
    }
    return split, layout


def _load_lines(ledger: Ledger, path: Path, scanned: FileBytes) -> None:
    """Fill `sacct_raw` with the file's lines (the view `sacct_lines` numbers them): DuckDB's
    streaming read when its numbering is provably exact (no awkward bytes, the rows account
    for every byte of the file, their rowids run without a gap), else the whole-file split."""
    first_rowid = None
    with duckdb_path(path) as literal:  # `week*.psv` is one file, not a pattern
        if not scanned.awkward:
            ledger.execute("reconcile/land/sacct_read_csv", path=literal, nul="\x1e")
            # read_csv gives no rows for blank lines at the very end, and a file without a final
            # newline is one byte short.
            expected = scanned.size - max(scanned.newlines_at_end - 1, -1)
            bytes_read, first, consecutive = ledger.query("reconcile/land/sacct_raw_check")[0]
            if bytes_read == expected and consecutive:
                first_rowid = first
        if first_rowid is None:
            ledger.execute("reconcile/land/sacct_read_text", path=literal)
    number_lines(ledger, first_rowid)


def number_lines(ledger: Ledger, first_rowid: int | None = None) -> None:
    """Define the view `sacct_lines` over `sacct_raw`; `first_rowid` when its rows are numbered
    by rowid, None when they carry their own lineno."""
    ledger.execute("reconcile/land/sacct_first_rowid", rowid=first_rowid)
    ledger.execute("reconcile/land/sacct_lines")


def rejoin_free_text(line: str, layout: TextLayout) -> tuple[list[str] | None, str]:
    """Split a line whose free-text field contains the delimiter; (parts, "") or (None, why).

    The extra pieces are rejoined into one free-text field; when several free-text fields
    could take them, the choice must not change any typed field, else the line is ambiguous.
    """
    delim, names = layout.delimiter, layout.fields
    parts = _fields_of(line, layout)
    extra = len(parts) - len(names)
    if extra < 0:
        return None, f"has {len(parts)} fields, the header has {len(names)}"
    candidates = []
    for i, name in enumerate(names):
        if name not in FREE_TEXT_FIELDS:
            continue
        merged = [*parts[:i], delim.join(parts[i : i + extra + 1]), *parts[i + extra + 1 :]]
        if all(_field_ok(n, v) for n, v in zip(names, merged, strict=True)):
            candidates.append(merged)
    typed = {tuple(v for n, v in zip(names, c, strict=True) if n in _TYPED) for c in candidates}
    if not candidates:
        return None, (
            f"has {len(parts)} fields, the header has {len(names)}, and no free-text field "
            "can hold the extra delimiters"
        )
    if len(typed) > 1:
        return None, f"has {len(parts)} fields; the delimiter in free text is ambiguous"
    chosen = candidates[0]
    return ([*chosen, ""] if layout.trailing_delimiter else chosen), ""


def _fields_of(line: str, layout: TextLayout) -> list[str]:
    delim = layout.delimiter
    body = line[: -len(delim)] if layout.trailing_delimiter and line.endswith(delim) else line
    return body.split(delim)


def _field_ok(name: str, value: str) -> bool:
    check = _CHECKS.get(name)
    return check is None or bool(check.match(value.strip()))


def normalize_stage(
    ledger: Ledger,
    split: dict[str, Any],
    cluster: str,
    cluster_tz: str,
    layout: TextLayout | None = None,
    *,
    rejoin: bool = True,
) -> list[Rejected]:
    """Define the view `sacct_parsed` over `sacct_lines`: the SQL does all field parsing and
    the range checks of quality.rules.SACCT_ROWS (GPU count, elapsed, End after Start).

    One scan (`sacct_strings`) finds the distinct AllocTRES, State and ExitCode strings, parsed
    once (`sacct_lookup`), and the lines whose field count is not the header's; those are
    rejoined with `layout` (`sacct_repaired`) or returned as rejected; with `rejoin` False
    (a headerless file whose columns nobody named) they are rejected: which field took the
    extra delimiter would be a guess on top of a guess.
    """
    gpus, elapsed = SACCT_ROWS.rule("gpus"), SACCT_ROWS.rule("elapsed_seconds")
    # The GPU count comes from AllocTRES; `gpu_fields` may name ReqTRES in its place.
    split = {"i_gputres": split["i_alloctres"], "gpus_flag": None, **split}
    ledger.execute(
        "reconcile/land/sacct_split_params",
        cluster=cluster,
        tz=cluster_tz,
        states=list(SLURM_STATES),
        min_gpus=gpus.ge,
        max_gpus=gpus.le,
        min_elapsed=elapsed.ge,
        max_text=MAX_NAME_CHARS,
        **split,
    )
    ledger.execute("reconcile/land/sacct_strings")
    rejected, repaired = [], []
    for lineno, line in ledger.query("reconcile/land/sacct_overlong_lines"):
        if layout is not None and not rejoin:
            parts = None
            found, default = len(_fields_of(line, layout)), len(layout.fields)
            reason = f"has {found} fields, the default order has {default}"
        else:
            parts, reason = (
                rejoin_free_text(line, layout) if layout else (None, "wrong field count")
            )
        if parts is None:
            rejected.append(Rejected(lineno, line, reason))
        else:
            repaired.append((lineno, line, parts))
    ledger.execute(
        "reconcile/land/sacct_repaired",
        linenos=[r[0] for r in repaired],
        lines=[r[1] for r in repaired],
        parts=[r[2] for r in repaired],
    )
    ledger.execute("reconcile/land/sacct_lookup")
    ledger.execute("reconcile/land/sacct_normalize")
    return rejected
