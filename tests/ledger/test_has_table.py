"""Ledger.has_table answers from the catalog on the file and by binding the name on the team
ledger (where duckdb_tables() reads DuckLake's whole catalog): the same answers on both, for
ledger tables, views and the session's temp tables, and a missing one leaves the run's
transaction usable."""

from __future__ import annotations

import pytest

from trainbudget.ledger import Ledger


def test_names_of_each_form_are_found_or_not(ledger: Ledger) -> None:
    ledger.con.execute("CREATE TEMP TABLE review_probe AS SELECT 1 AS x")
    found = {
        name: ledger.has_table(name)
        for name in (
            "sources", '"sources"', "main.sources", "sacct_records",  # a table, a view
            "review_probe", "temp.main.review_probe", 'temp.main."review_probe"',
            "main.review_probe",  # DuckDB finds `main` in the temp catalog too
            "no_such_table", "temp.main.sources", "temp.sacct_records",
        )
    }  # fmt: skip
    assert found == {
        "sources": True, '"sources"': True, "main.sources": True, "sacct_records": True,
        "review_probe": True, "temp.main.review_probe": True, 'temp.main."review_probe"': True,
        "main.review_probe": True,
        "no_such_table": False, "temp.main.sources": False, "temp.sacct_records": False,
    }  # fmt: skip


def test_a_missing_table_inside_a_transaction_leaves_it_usable(ledger: Ledger) -> None:
    with ledger.transaction():
        assert not ledger.has_table("main.run_estimates_not_here")
        ledger.con.execute("CREATE TEMP TABLE after_probe AS SELECT 1 AS x")
    assert ledger.has_table("after_probe")


@pytest.mark.parametrize("name", ["a;b", "x.y.z.w", "", "bad name", "t'--"])
def test_a_name_that_is_no_plain_name_is_refused(ledger: Ledger, name: str) -> None:
    with pytest.raises(ValueError, match="not a plain table name"):
        ledger.has_table(name)
