"""Where a ledger is, decided before DuckDB sees the name; and whether a ledger file is whole.

DuckDB reads some names as instructions: `md:x` loads the MotherDuck extension (downloading
it, with DNS look-ups, into ~/.duckdb), `s3://…` loads httpfs. A ledger location is therefore
classified first (`classify_ledger_location`), and only a local path reaches `duckdb.connect`
(docs/cli.md, *The ledger*):

- a name of the form `scheme:…` (letters, digits, `+ - .`, then a colon: `md:x`, `s3://b/l`,
  `https://…`, `c:ledger`) is a URL or a DuckDB prefix, not a path, unless that path exists
  or a `/` comes before the colon (`./c:ledger`, `/data/a:b.duckdb` are paths: paths are
  literal, so write `./NAME` for a new file whose name has a colon);
- `ducklake:…` is reserved for the team ledger (DuckLake on PostgreSQL);
- every other scheme is refused, exit 2, nothing written.

A ledger file cut short (a copy that stopped half-way, a full disk) is reported as
"ledger FILE is damaged or truncated", exit 2: a size that is not whole DuckDB blocks is
refused when it is opened, and DuckDB's read errors (short reads, checksums) at the open, its
first read and any later one are reported the same way (`damaged_ledger`).
"""

from __future__ import annotations

import os
import re
import struct
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Literal

from trainbudget.base.errors import InputError

TEAM_PREFIX = "ducklake:"
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*):")

LocationKind = Literal["file", "team"]


def classify_ledger_location(location: str | os.PathLike[str]) -> LocationKind:
    """`file` for a local path, `team` for the team ledger (`ducklake:…`); InputError naming
    the location for any other `scheme:` or `scheme://` form (never looked up, never
    downloaded). The one place that decides what a ledger name means."""
    text = os.fspath(location)
    found = _SCHEME.match(text)
    if found is None or Path(text).exists():
        return "file"
    if text.startswith(TEAM_PREFIX):
        return "team"
    literal = "" if "/" in text else f"; `./{text}` names a file of that name"
    raise InputError(
        f"ledger {text}: not a local path (`{found.group(1)}:` is a URL scheme or a DuckDB "
        f"prefix); a ledger is a file path or the team ledger `{TEAM_PREFIX}postgres:…`{literal}"
    )


def duckdb_file_name(path: Path) -> str:
    """`path` as the name to give duckdb.connect: `./md:x`, never `md:x` (which DuckDB would
    read as a prefix), for a file classified as a path."""
    text = os.fspath(path)
    return f"./{text}" if _SCHEME.match(text) else text


# The DuckDB file layout (storage version 64+, DuckDB 0.10 to 2.x): a 4 KiB main header whose
# bytes 8..12 are b"DUCK", two 4 KiB database headers (a checksum, then iteration, meta_block,
# free_list, block_count, block_alloc_size as little-endian uint64), then whole blocks of
# block_alloc_size bytes. DuckDB writes and trims the file in whole blocks, so a size that is
# not headers + whole blocks was cut short. (The header's block_count is no size check: free
# blocks at the end are trimmed from the file and still counted.)
_HEADER_BYTES = 4096
_MAGIC = b"DUCK"


def truncation(path: Path) -> str | None:
    """Why the DuckDB file at `path` was cut short (None: its size is whole, or it is no DuckDB
    file this layout describes, which DuckDB itself then reports)."""
    try:
        with path.open("rb") as handle:
            head = handle.read(3 * _HEADER_BYTES)
            size = os.fstat(handle.fileno()).st_size
    except OSError:
        return None  # unreadable: the open that follows names the failure
    if head[8:12] != _MAGIC:
        return None
    headers_end = 3 * _HEADER_BYTES
    if len(head) < headers_end:
        return f"the file is {size:,} bytes, less than DuckDB's {headers_end:,} of headers"
    headers = [struct.unpack_from("<5Q", head, n * _HEADER_BYTES + 8) for n in (1, 2)]
    block_bytes = max(headers)[4]  # the newer header's (the larger iteration)
    if not 4096 <= block_bytes <= 1 << 30 or block_bytes & (block_bytes - 1):
        return None  # not a layout this check knows: leave it to DuckDB
    if (size - headers_end) % block_bytes:
        return (
            f"the file is {size:,} bytes, not {headers_end:,} bytes of headers and whole blocks "
            f"of {block_bytes:,}"
        )
    return None


_DAMAGE_TEXTS = (
    "could not read enough bytes",
    "checksum",
    "corrupt",
    "is not a valid duckdb database file",
    "failed to read database header",
)


def damage_reason(text: str) -> str | None:
    """DuckDB's words for a damaged file (`Could not read enough bytes`, a checksum mismatch),
    as the part of `text` to quote; None when `text` reports something else."""
    lowered = text.lower()
    if any(words in lowered for words in _DAMAGE_TEXTS):
        return " ".join(text.split())[:300]
    return None


def damaged_ledger(path: Path | str, why: str) -> InputError:
    """The one refusal of a damaged ledger, exit 2: names the file and what was found."""
    return InputError(f"ledger {path} is damaged or truncated ({why}); restore it from a copy")


_FILE_IN_TEXT = re.compile(r'file "([^"]+)"')


def damaged_file_in(text: str) -> str | None:
    """The file a DuckDB damage message names (`… from file "/x/ledger.duckdb" …`), if any."""
    found = _FILE_IN_TEXT.search(text)
    return found.group(1) if found else None


@contextmanager
def damage_reported(path: Path | str) -> Iterator[None]:
    """Inside: a DuckDB error that reports a damaged file becomes `damaged_ledger(path)`."""
    import duckdb

    try:
        yield
    except duckdb.Error as exc:
        why = damage_reason(str(exc))
        if why is None:
            raise
        raise damaged_ledger(path, why) from None
