"""The tracked jobs' lines kept apart (tracked_lines, migration 019), brought up to date by
each review of some weeks before it reads them.

The campaign to date's tracked jobs have lines in every week's row groups, so finding them
in sacct_rows scans the whole ledger, four times for the four ways a name links a job
(review_keys.sql), and every query after it scans it again. Here only what landed since the
last review is matched: the new names against every line (bounded by the job ids they can
link, which zone maps prune), and the new sacct files' lines against every name.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from trainbudget.ledger import Ledger

_LAST = chr(0x10FFFF)  # the largest code point


def catch_up(ledger: Ledger) -> None:
    """Copy into tracked_lines the lines of the jobs that names landed since the last review
    link, and the newly landed lines of named jobs; then mark those names and files matched."""
    ledger.execute("reconcile/track/new_sources")  # new_names reads the new files only
    ledger.execute("reconcile/track/new_names")
    ((names, sources),) = ledger.query("reconcile/track/new_counts")
    if not names and not sources:
        return
    # On the team ledger two reviews catching up at once would copy the same lines twice, and
    # a landing deleting a replaced line could miss the copy a review makes of it: both claim.
    ledger.claim("tracked", "lines")
    lo, hi = name_bounds([n for (n,) in ledger.query("reconcile/track/new_name_list")])
    ledger.execute("reconcile/track/add_keys", lo=lo, hi=hi or "", open=hi is None)
    ledger.execute("reconcile/track/lines_insert")
    ledger.execute("reconcile/track/names_insert")
    ledger.execute("reconcile/track/sources_insert")


def name_bounds(names: list[str]) -> tuple[str, str | None]:
    """[lo, hi): every string equal to a name or starting with one (an array task `12_3` of
    the name `12`) lies in it; ('', '') for no names; hi None (no bound above) when a name
    has no prefix successor (it is empty or all U+10FFFF)."""
    if not names:
        return "", ""
    successors = [_prefix_successor(n) for n in names]
    return min(names), None if None in successors else max(successors)


def _prefix_successor(name: str) -> str | None:
    """The least string greater than every string that starts with `name` (None: none is)."""
    stem = name.rstrip(_LAST)
    if not stem:
        return None
    following = ord(stem[-1]) + 1
    if 0xD800 <= following <= 0xDFFF:  # surrogates are no characters (UTF-8 has none)
        following = 0xE000
    return stem[:-1] + chr(following)
