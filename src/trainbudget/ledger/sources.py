"""Landing an input file: its provenance (path, sha256, landed-at, parse options), the
sources table that makes re-landing a no-op, and the quarantine of rejected rows."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any


def sha256_of(path: Path) -> str:
    """Hex sha256 of a file's bytes, read in 1 MiB blocks."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def source_options(options: Mapping[str, Any] | None) -> str:
    """The parse options of a source as canonical JSON (sorted keys; '' when there are none)."""
    if not options:
        return ""
    return json.dumps(dict(options), sort_keys=True, separators=(",", ":"), default=str)


@dataclass(frozen=True)
class Source:
    """An input file being landed: the provenance every row from it carries."""

    source_id: int
    kind: str
    source_path: str
    source_sha256: str
    landed_at: datetime

    def provenance(self, line: int | None) -> dict[str, Any]:
        """The provenance columns of one landed row (line = 1-based line or record number)."""
        return {
            "source_id": self.source_id,
            "source_path": self.source_path,
            "source_line": line,
            "source_sha256": self.source_sha256,
            "landed_at": self.landed_at,
        }


class SourceLanding:
    """The Ledger's landing of sources (mixed into trainbudget.ledger.store.Ledger)."""

    def begin_source(
        self,
        path: str | os.PathLike[str],
        kind: str,
        *,
        sha256: str | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> Source | None:
        """Register an input file for landing; None if it was landed before.

        A source is its kind, its content hash and `options`, the parse options that change
        its rows (e.g. the sacct delimiter): the same bytes with other options are another
        source. `sha256` is the digest of the bytes the caller read, when it already hashed
        them (hashed here otherwise). A source whose every row was rejected is not landed:
        landing it again replaces its quarantine rows. Call inside `transaction()` so the
        source row and its data rows land together.
        """
        file_path = Path(path)
        digest = sha256 or sha256_of(file_path)
        identity = source_options(options)
        found = self.query(
            "ledger/find_source", kind=kind, source_sha256=digest, parse_options=identity
        )
        if found and found[0][3] != "rejected":
            return None
        self.claim("source", hashlib.sha256(f"{kind}|{digest}|{identity}".encode()).hexdigest())
        landed_at = _now()
        now = {"source_path": str(file_path), "size_bytes": file_path.stat().st_size,
               "landed_at": landed_at}  # fmt: skip
        if found:
            source_id = found[0][0]
            self.execute("ledger/drop_quarantine", source_id=source_id)
            self.execute("ledger/reuse_source", source_id=source_id, **now)
        else:
            source_id = self.next_id("source_id_seq")
            self.execute(
                "ledger/insert_source", source_id=source_id, kind=kind, source_sha256=digest,
                parse_options=identity, **now,
            )  # fmt: skip
        return Source(source_id, kind, str(file_path), digest, landed_at)

    def finish_source(self, source: Source, rows_landed: int) -> None:
        """Record how many rows a source landed (quarantined rows are counted from the table);
        with none landed its status is 'rejected': it is not landed."""
        self.execute(
            "ledger/count_source_rows", source_id=source.source_id, rows_landed=rows_landed
        )

    def quarantine_rows(
        self, source: Source, rejected: Sequence[tuple[int | None, str | None, str]]
    ) -> None:
        """Keep rejected rows, (line, raw text, reason) each, in one insert."""
        now = _now()
        self.insert_rows(
            "quarantine",
            [
                {
                    "source_id": source.source_id,
                    "source_path": source.source_path,
                    "source_line": line,
                    "raw": raw,
                    "reason": reason,
                    "quarantined_at": now,
                }
                for line, raw, reason in rejected
            ],
        )


def _now() -> datetime:
    return datetime.now(UTC)
