"""A review's session over the relations of reconcile/relations.py, checked as it goes.

`reconcile.review.review` builds the relations through a `Session`, which refuses to build or
read a relation before what it depends on exists, so two steps put in the wrong order fail
with a sentence instead of reading a stale or missing table. The one relation that outlives the
review, `job_accounting` (its per-job rows, which `write_jobs` copies to JSON after the
commit), is handed on as a `RelationHandle` inside the `Review`; nothing finds it by name.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from trainbudget.reconcile.relations import RELATIONS, Relation

if TYPE_CHECKING:
    from datetime import datetime

    import duckdb

    from trainbudget.ledger import Ledger


class RelationError(RuntimeError):
    """A relation was built or read out of order, or used after its session ended."""


def _reads(query: str) -> list[str]:
    """The relations a query consumes, as declared above."""
    return [r.name for r in RELATIONS.values() if query in r.consumers]


@dataclass(frozen=True)
class RelationHandle:
    """A relation a finished review left in its session; `check` it before reading it."""

    relation: Relation
    connection: duckdb.DuckDBPyConnection = field(repr=False, compare=False)

    def check(self, ledger: Ledger) -> None:
        """Raise RelationError unless `ledger` is the connection the review ran on, still open."""
        name = self.relation.name
        if ledger.con is not self.connection:
            raise RelationError(
                f"{name} was built by the review on another ledger connection; "
                "read it through the ledger the review ran on, before closing it"
            )
        # Bound, not listed: duckdb_tables() reads the team ledger's whole catalog (0.2-1 s).
        if not ledger.has_table(f"temp.main.{name}"):
            raise RelationError(f"{name} is gone from the ledger session; run the review again")


class Session:
    """The relations one review builds on one ledger, checked against RELATIONS as it goes."""

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger
        self.built: list[str] = []
        # Whether the review reads closed jobs' rows (closed_jobs.py); without, a relation
        # with a `plain` producer is built by it.
        self.reads_closed = False

    def build(self, name: str, *, whole: bool = False, **params: Any) -> None:
        """Run the producer of relation `name` once everything it needs is built; `whole`:
        its producer for a review of everything landed (Relation.whole), which needs nothing."""
        relation = RELATIONS[name]
        if whole:
            if relation.whole is None:
                raise RelationError(f"{name} has no producer for everything landed")
            self.ledger.execute(relation.whole, **params)
        else:
            self._require(relation.producer, relation.needs)
            plain = relation.plain is not None and not self.reads_closed
            self.ledger.execute(relation.plain if plain else relation.producer, **params)
        self.built.append(name)

    def fill(self, name: str, rows: Sequence[Mapping[str, Any]]) -> None:
        """Insert Python rows into relation `name` (built, and declared as filled by Python)."""
        if RELATIONS[name].filled_by is None or name not in self.built:
            raise RelationError(f"{name} is not a built relation that Python fills")
        self.ledger.insert_rows(name, rows)

    def records(self, query: str, **params: Any) -> list[dict[str, Any]]:
        """Run `query` once every relation it consumes is built; rows as dicts."""
        self._require(query, _reads(query))
        return self.ledger.records(query, **params)

    def query(self, query: str, **params: Any) -> list[tuple[Any, ...]]:
        """Run `query` once every relation it consumes is built; rows as tuples."""
        self._require(query, _reads(query))
        return self.ledger.query(query, **params)

    def execute(self, query: str, **params: Any) -> None:
        """Run `query` (no rows back) once every relation it consumes is built."""
        self._require(query, _reads(query))
        self.ledger.execute(query, **params)

    def handle(self, name: str) -> RelationHandle:
        """The handle of a built relation, for a consumer after the review."""
        self._require(f"the handle of {name}", (name,))
        return RelationHandle(RELATIONS[name], self.ledger.con)

    def _require(self, what: str, needs: Sequence[str]) -> None:
        missing = [n for n in needs if n not in self.built]
        if missing:
            producers = ", ".join(f"{n} ({RELATIONS[n].producer})" for n in missing)
            raise RelationError(f"{what} reads {producers}, not built yet in this review")


def build_allocations(session: Session, week: tuple[datetime, datetime] | None) -> None:
    """Build the review's lines, allocations and registry links: of the jobs that ran in (or
    started in) `week` and the tracked ones not closed (review_keys.sql), or of everything
    landed (None), read straight from the ledger's tables, with no join. A review of some weeks
    has brought the tracked jobs' lines and the closed jobs up to date first (closed_keys)."""
    if week is None:
        session.build("review_rows", whole=True)
        session.build("review_records", whole=True)
    else:
        session.build("review_keys", week_start=week[0], week_end=week[1])
        session.build("review_rows")
        session.build("review_records")
    for name in ("job_lines", "allocation_records", "allocations", "registry_links"):
        session.build(name)
