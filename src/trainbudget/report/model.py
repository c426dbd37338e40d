"""What a run's report says, independent of how it is rendered (HTML file, markdown artifact).

A report opens with its verdicts (one line each, with the reason), then tables, then charts.
Numbers stay exact in the model; the renderers round them for display only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

from trainbudget.report.format import Column, Formatter, number


@dataclass(frozen=True)
class Verdict:
    """A decision the run reached: what was decided (`outcome`) and why, in one sentence."""

    subject: str
    outcome: str
    reason: str
    # good: nothing to do; warn: a person should look; bad: blocked or failed.
    tone: str = "good"


@dataclass(frozen=True)
class Table:
    """A titled table; `rows` are lists aligned with `columns` (headers in words, with units);
    `formats` (aligned too, or empty) say how each column's cells show."""

    title: str
    columns: list[str]
    rows: list[list[Any]]
    note: str = ""
    formats: tuple[Formatter | None, ...] = ()
    links: tuple[tuple[str, str], ...] = ()  # (label, href) shown under the table
    flagged: tuple[int, ...] = ()  # indices of rows to show flagged (e.g. over plan)

    @classmethod
    def of(
        cls,
        title: str,
        records: list[dict[str, Any]],
        columns: list[Column],
        note: str = "",
        links: tuple[tuple[str, str], ...] = (),
        flagged: tuple[int, ...] = (),
    ) -> Table:
        """A table of `records` showing `columns` (key, header, formatter) in that order; a
        column with no value in any record is left out."""
        columns = [c for c in columns if any(r.get(c.key) not in (None, "") for r in records)]
        rows = [[r.get(c.key) for c in columns] for r in records]
        formats = tuple(c.fmt for c in columns)
        return cls(title, [c.header for c in columns], rows, note, formats, links, flagged)

    def cell(self, row: list[Any], index: int) -> str:
        """Cell `index` of `row` as a person reads it."""
        fmt = self.formats[index] if index < len(self.formats) else None
        value = row[index]
        return display(value) if fmt is None or value is None else fmt(value)

    @classmethod
    def from_records(cls, title: str, records: list[dict[str, Any]], note: str = "") -> Table:
        """A table whose columns are the keys of the first record."""
        columns = list(records[0]) if records else []
        return cls(title, columns, [[r.get(c) for c in columns] for r in records], note)


@dataclass(frozen=True)
class Chart:
    """A PNG chart with a caption (the caption doubles as the image's alt text)."""

    title: str
    png: bytes
    caption: str = ""


@dataclass
class Report:
    """One run's report: title, verdicts first, then summary lines, tables, charts and links."""

    title: str
    subtitle: str
    verdicts: list[Verdict] = field(default_factory=list)
    summary: list[str] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)
    charts: list[Chart] = field(default_factory=list)
    links: dict[str, str] = field(default_factory=dict)


def display(value: Any) -> str:
    """A cell as a person reads it: separators, 2 decimals (integral values bare), '' for None."""
    if value is None:
        return ""
    if isinstance(value, bool | int | float | Decimal | Fraction):
        return number(value)
    if isinstance(value, Path):
        return str(value)
    return str(value)
