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

from trainbudget.output import fmt_number


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
    """A titled table; `rows` are lists aligned with `columns`."""

    title: str
    columns: list[str]
    rows: list[list[Any]]
    note: str = ""

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
    """A cell as a person reads it: numbers rounded to 2 places with separators, '' for None."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float | Decimal | Fraction):
        return fmt_number(value, 2)
    if isinstance(value, Path):
        return str(value)
    return str(value)
