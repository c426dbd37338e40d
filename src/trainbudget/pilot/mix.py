"""The declared shape mix: which share of the training tokens runs at which shape.

A user declares it as `SEQ_LEN[xBATCH]=FRACTION` entries (fractions of training tokens,
summing to 1; `10%` is accepted). It is matched against the pilot's shape buckets; the shape
with the longest sequence (then the largest batch) is the worst case, and a mix whose worst
case the pilot never ran is flagged, because short pilot shapes understate long-tail cost
(seed 001, "Estimate cost from a pilot").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from trainbudget.base.errors import InputError
from trainbudget.pilot.stats import BucketStats, Shape, observed_token_mix

_ENTRY = re.compile(r"^\s*(\d+)\s*(?:[xX*]\s*(\d+))?\s*=\s*([0-9.eE+-]+)\s*(%?)\s*$")


@dataclass(frozen=True)
class MixEntry:
    """One declared shape and its share of the training tokens."""

    seq_len: int
    batch_size: int | None
    fraction: Decimal

    @property
    def label(self) -> str:
        batch = "" if self.batch_size is None else f" x batch {self.batch_size}"
        return f"seq_len {self.seq_len}{batch}"


@dataclass(frozen=True)
class ResolvedMix:
    """A shape mix matched to pilot buckets.

    `weights` are over the measured buckets and sum to 1 (renormalised when part of the declared
    mix was never measured); `coverage` is the declared share the pilot did measure.
    """

    source: str  # "declared" or "pilot"
    weights: dict[Shape, Decimal]
    matches: tuple[tuple[MixEntry, Shape | None], ...]
    coverage: Decimal
    worst_case: MixEntry | None
    worst_case_measured: bool

    @property
    def unmeasured(self) -> list[MixEntry]:
        return [entry for entry, shape in self.matches if shape is None]


def parse_shape_mix(texts: Sequence[str]) -> tuple[MixEntry, ...]:
    """Parse shape-mix entries such as `2048=0.9`, `8192x4=10%`; fractions must sum to 1."""
    entries: list[MixEntry] = []
    for text in texts:
        match = _ENTRY.match(text)
        if not match:
            raise InputError(
                f"shape_mix: {text!r} is not SEQ_LEN[xBATCH]=FRACTION (e.g. 2048=0.9, 8192x4=10%)"
            )
        seq_len, batch, number, percent = match.groups()
        try:
            fraction = Decimal(number) / (100 if percent else 1)
        except InvalidOperation:
            raise InputError(f"shape_mix: {text!r}: {number!r} is not a number") from None
        if not fraction.is_finite() or not 0 < fraction <= 1:
            raise InputError(f"shape_mix: {text!r}: the fraction must be in (0, 1]")
        entry = MixEntry(int(seq_len), int(batch) if batch else None, fraction)
        if any((e.seq_len, e.batch_size) == (entry.seq_len, entry.batch_size) for e in entries):
            raise InputError(f"shape_mix: {entry.label} is declared twice")
        entries.append(entry)
    total = sum((e.fraction for e in entries), Decimal(0))
    if entries and total != 1:
        raise InputError(f"shape_mix: the fractions sum to {total}, they must sum to 1")
    return tuple(entries)


def resolve_mix(entries: Sequence[MixEntry], buckets: Sequence[BucketStats]) -> ResolvedMix:
    """Match declared entries to buckets; with no entries, use the pilot's own token mix."""
    if not entries:
        return ResolvedMix("pilot", observed_token_mix(buckets), (), Decimal(1), None, False)
    matches = tuple((entry, _match(entry, buckets)) for entry in entries)
    measured = [(entry, shape) for entry, shape in matches if shape is not None]
    coverage = sum((entry.fraction for entry, _ in measured), Decimal(0))
    if not measured:
        ran = "; ".join(b.shape.label for b in buckets) or "no shape"
        declared = ", ".join(entry.label for entry in entries)
        raise InputError(
            f"shape_mix: the pilot never ran any declared shape ({declared}); it ran {ran}: "
            "declare at least one measured shape"
        )
    weights: dict[Shape, Decimal] = {}
    for entry, shape in measured:
        weights[shape] = weights.get(shape, Decimal(0)) + entry.fraction / coverage
    worst_entry, worst_shape = max(
        matches,
        key=lambda m: (m[0].seq_len, m[0].batch_size or (m[1].batch_size if m[1] else 0)),
    )
    return ResolvedMix("declared", weights, matches, coverage, worst_entry, worst_shape is not None)


def _match(entry: MixEntry, buckets: Sequence[BucketStats]) -> Shape | None:
    """The one bucket an entry names; None if the pilot never ran it; ambiguous is an error."""
    found = [
        b.shape
        for b in buckets
        if b.shape.seq_len == entry.seq_len
        and (entry.batch_size is None or b.shape.batch_size == entry.batch_size)
    ]
    if len(found) > 1:
        shapes = "; ".join(s.label for s in found)
        hint = "name the batch size, e.g. " if entry.batch_size is None else "pass one GPU count: "
        example = f"{entry.seq_len}x{found[0].batch_size}={entry.fraction}"
        raise InputError(
            f"shape_mix: {entry.label} matches {len(found)} pilot shapes ({shapes}); "
            f"{hint}{example if entry.batch_size is None else 'give step logs of one GPU count'}"
        )
    return found[0] if found else None
