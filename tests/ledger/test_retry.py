"""A run whose team-ledger commit conflicts is retried whole, bounded, and says so; the
migrations lose on DuckLake exactly the keys, indexes and sequences it cannot hold."""

from __future__ import annotations

import pytest

from trainbudget.base.errors import InputError, LedgerConflict
from trainbudget.ledger import TeamLocation, resolve_location
from trainbudget.ledger import retry as retry_module
from trainbudget.ledger.retry import retrying
from trainbudget.ledger.team import team_ddl


@pytest.fixture(autouse=True)
def _no_sleep(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    waits: list[float] = []
    monkeypatch.setattr(retry_module.time, "sleep", waits.append)
    return waits


def test_a_conflicting_run_is_run_again_from_the_start_and_says_so(capsys, _no_sleep) -> None:
    calls = []

    def run() -> str:
        calls.append(1)
        if len(calls) < 3:
            raise LedgerConflict("ledger x: another run committed a conflicting change")
        return "done"

    assert retrying(run, what="the command") == "done"
    assert len(calls) == 3
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 2
    assert "retrying the command from the start" in lines[0] and "attempt 2 of 6" in lines[0]
    # Backoff: each wait is the first (0.5 s) times 2^k, within the ±50 % jitter.
    assert 0.25 <= _no_sleep[0] <= 0.75 and 0.5 <= _no_sleep[1] <= 1.5


def test_retries_are_bounded(capsys) -> None:
    calls = []

    def run() -> None:
        calls.append(1)
        raise LedgerConflict("conflict")

    with pytest.raises(LedgerConflict, match="gave up after 3 attempts"):
        retrying(run, attempts=3)
    assert len(calls) == 3


def test_other_errors_are_not_retried() -> None:
    calls = []

    def run() -> None:
        calls.append(1)
        raise InputError("bad input")

    with pytest.raises(InputError):
        retrying(run)
    assert len(calls) == 1


def test_team_ddl_drops_keys_indexes_and_sequences_only() -> None:
    sql = """-- a comment with UNIQUE (in it)
CREATE SEQUENCE IF NOT EXISTS thing_id_seq START 1;
CREATE TABLE things (
    thing_id BIGINT PRIMARY KEY DEFAULT nextval('thing_id_seq'),
    name     VARCHAR NOT NULL UNIQUE,
    kind     VARCHAR NOT NULL DEFAULT 'x',
    PRIMARY KEY (thing_id),
    UNIQUE (name, kind)
);
CREATE UNIQUE INDEX things_name ON things (name);
"""
    text, sequences = team_ddl(sql)
    assert sequences == ["thing_id_seq"]
    assert " ".join(text.split()) == (
        "CREATE TABLE things ( thing_id BIGINT, name VARCHAR NOT NULL, "
        "kind VARCHAR NOT NULL DEFAULT 'x' );"
    )


def test_locations(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRAINBUDGET_LEDGER_DATA", "/shared/ledger/")
    found = resolve_location("ducklake:postgres:dbname=tb host=db user=tb")
    assert found == TeamLocation("dbname=tb host=db user=tb", "/shared/ledger/")
    assert str(found) == "ducklake:postgres:dbname=tb host=db user=tb"
    with pytest.raises(InputError, match="ducklake:postgres:<libpq connection string>"):
        resolve_location("ducklake:sqlite:meta.db")
    assert str(resolve_location("budget.duckdb")) == "budget.duckdb"


def test_a_password_in_the_location_is_never_shown() -> None:
    found = resolve_location("ducklake:postgres:host=db password=s3cr3t user=tb")
    assert str(found) == "ducklake:postgres:host=db password=*** user=tb"
    assert found.text == "ducklake:postgres:host=db password=s3cr3t user=tb"
