"""An account's used allocation from `sreport`'s parsable output (a file).

What a user runs (sreport(1); tests/fixtures/sreport/SOURCES.md):

    sreport -P cluster AccountUtilizationByUser Accounts=ACCOUNT Start=… End=… -T billing -t Hours

With its header (no `-n`) sreport prints a banner whose line `Usage reported in TRES Hours`
(or `CPU Minutes`, …) says the unit, then the `|`-separated header of the fields and a row per
account and user; the account's own row has an empty `Login`, and it is that row (exactly one
account) that is read. `Used` is in the banner's time unit; with `-T` a `TRES Name` column says
which TRES (`billing`, `gres/gpu`); without it the TRES is CPU.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path

from trainbudget.base.errors import InputError

_UNIT = re.compile(r"^Usage reported in (TRES|CPU) (Seconds|Minutes|Hours)\s*$")
_PER_HOUR = {"Seconds": 3600, "Minutes": 60, "Hours": 1}


@dataclass(frozen=True)
class SreportUsage:
    """The account's used TRES-hours in the report's period, and which TRES and account."""

    account: str
    tres: str
    used_hours: Decimal
    source: str


def read_sreport_usage(path: Path) -> SreportUsage:
    """The used TRES-hours of the one account in an `sreport -P cluster
    AccountUtilizationByUser` file; InputError naming the file and line otherwise."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot read the sreport file: {exc}") from None
    lines = text.splitlines()
    unit = tres_word = None
    header_at = None
    for number, line in enumerate(lines, start=1):
        found = _UNIT.match(line)
        if found:
            tres_word, unit = found.groups()
        elif "|" in line and unit is not None:
            header_at = number
            break
    if unit is None:
        if any("Percentage of Total" in line for line in lines):
            raise InputError(f"{path}: usage is in percent (-t percent); run sreport with -t Hours")
        raise InputError(
            f"{path}: no 'Usage reported in … Minutes|Hours|Seconds' line: run sreport -P "
            "without -n/--noheader, so the file says its unit"
        )
    if header_at is None:
        raise InputError(f"{path}: no '|'-separated header after the banner (run sreport -P)")
    header = [h.strip() for h in lines[header_at - 1].rstrip("|").split("|")]
    for needed in ("Account", "Login", "Used"):
        if needed not in header:
            raise InputError(f"{path}:{header_at}: the header has no {needed!r} column")
    accounts: dict[str, tuple[str, Decimal]] = {}
    for number, line in enumerate(lines[header_at:], start=header_at + 1):
        if not line.strip():
            continue
        cells = line.rstrip("|").split("|") if line.endswith("|") else line.split("|")
        if len(cells) != len(header):
            raise InputError(f"{path}:{number}: {len(cells)} fields, the header has {len(header)}")
        row = dict(zip(header, cells, strict=True))
        if row["Login"].strip():
            continue  # a user's share of the account
        tres = row.get("TRES Name", "cpu" if tres_word == "CPU" else "").strip() or "cpu"
        try:
            used = Decimal(row["Used"].strip())
        except InvalidOperation:
            raise InputError(
                f"{path}:{number}: Used: must be a number, got {row['Used']!r}"
            ) from None
        if not used.is_finite() or used < 0:
            raise InputError(f"{path}:{number}: Used: must be a number ≥ 0, got {row['Used']!r}")
        key = f"{row['Account'].strip()}|{tres}"
        accounts[key] = (tres, accounts.get(key, (tres, Decimal(0)))[1] + used)
    names = sorted({key.split("|")[0] for key in accounts})
    if len(names) != 1:
        shown = ", ".join(names) or "none"
        raise InputError(
            f"{path}: the file must report one account (Accounts=ACCOUNT), found {shown}"
        )
    if len(accounts) > 1:
        kinds = ", ".join(sorted(t for t, _ in accounts.values()))
        raise InputError(f"{path}: the file reports several TRES ({kinds}): give -T one TRES")
    ((tres, used),) = accounts.values()
    return SreportUsage(names[0], tres, used / _PER_HOUR[unit], f"sreport file {path.name}")


# The TRES whose hours each allocation unit counts.
TRES_OF_UNIT = {"billing_hours": "billing", "gpu_hours": "gres/gpu"}


def used_for(usage: SreportUsage, unit: str, path: Path) -> Decimal:
    """The usage as the allocation's `unit`; InputError when the file reports another TRES."""
    want = TRES_OF_UNIT[unit]
    if usage.tres.lower() != want:
        raise InputError(
            f"{path}: reports {usage.tres} hours and the allocation is in {unit.replace('_', '-')}"
            f": run sreport with -T {want}"
        )
    return usage.used_hours
