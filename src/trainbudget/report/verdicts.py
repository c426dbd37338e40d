"""Turn gate outcomes into report verdicts, with a tone a reader sees at a glance."""

from __future__ import annotations

from trainbudget.gates.outcome import GateOutcome
from trainbudget.report.model import Verdict

# Outcomes that block or end work are "bad"; those that let work proceed are "good"; the
# rest (expire, hold, unknown new outcomes) ask a person to look.
_BAD = {"defer", "stop", "deny", "refuse", "reject", "fail", "failed", "breach"}
_GOOD = {"admit", "continue", "authorize", "promote", "keep", "retain", "go", "worth-it", "run"}


def tone_of(outcome: str) -> str:
    """good / warn / bad for a gate outcome word."""
    word = outcome.lower()
    if word in _BAD or word.startswith(("defer", "stop", "not-")):
        return "bad"
    return "good" if word in _GOOD else "warn"


def verdict_of(outcome: GateOutcome) -> Verdict:
    """The report line of one gate decision: gate, outcome, and its one-sentence reason."""
    reason = outcome.sentence if not outcome.reason else f"{outcome.sentence} ({outcome.reason})"
    return Verdict(outcome.gate, outcome.outcome, reason, tone_of(outcome.outcome))
