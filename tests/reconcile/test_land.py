"""Validation at the landing: a bad sacct line is quarantined, whoever lands it (issue 14).

Every case is an sacct line as `sacct --parsable2` prints it, or the same job as `sacct --json`
prints it, with one field broken; the week's totals must stay those of the good lines.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from trainbudget.ledger import Ledger
from trainbudget.quality.relation import RelationError, relation_violations, require_valid
from trainbudget.quality.rules import (
    JOB_ACCOUNTING_RULES,
    MANIFEST_RULES,
    MAX_GPUS_PER_JOB,
    PROGRESS_EVENTS_RULES,
    REGISTRY_RULES,
    SACCT_ROWS,
)
from trainbudget.reconcile.land import land_manifest, land_progress, land_registry, land_sacct
from trainbudget.reconcile.review import review
from trainbudget.reconcile.week import week_bounds

from .conftest import HEADER, sacct_line

GOOD = sacct_line("500", tres="cpu=64,gres/gpu=8,mem=512G,node=1")  # 8 GPUs x 1 h
GOOD_GPU_SECONDS = 8 * 3600

BAD_TEXT = [
    ("negative ElapsedRaw", sacct_line("501", elapsed_raw="-3600"),
     "ElapsedRaw: must be at least 0 seconds, found -3600"),
    ("negative gres/gpu", sacct_line("502", tres="cpu=64,gres/gpu=-8,node=1"),
     "AllocTRES: gres/gpu must be from 0 to 1000000 GPUs, found -8"),
    ("negative typed gres/gpu", sacct_line("503", tres="cpu=64,gres/gpu:h100=-8,node=1"),
     "AllocTRES: gres/gpu must be from 0 to 1000000 GPUs, found -8"),
    ("gres/gpu in exponent form", sacct_line("504", tres="cpu=64,gres/gpu=1e30,node=1"),
     'AllocTRES: gres/gpu is not a whole number: "1e30"'),
    ("gres/gpu over the bound", sacct_line("505", tres="gres/gpu=99999999999"),
     "AllocTRES: gres/gpu must be from 0 to 1000000 GPUs, found 99999999999"),
    ("gres/gpu past 64 bits", sacct_line("506", tres="gres/gpu=99999999999999999999"),
     'AllocTRES: gres/gpu is not a whole number: "99999999999999999999"'),
    ("End before Start", sacct_line("507", start="2026-11-23T02:00:00",
                                    end="2026-11-23T01:00:00"),
     'End: "2026-11-23T01:00:00" is before Start "2026-11-23T02:00:00"'),
    ("ElapsedRaw not whole", sacct_line("508", elapsed_raw="3600.5"),
     'ElapsedRaw: not a whole number of seconds: "3600.5"'),
    # DuckDB's cast reads these as 16, 1000 and 5: only ASCII digits are whole seconds.
    ("ElapsedRaw in hex", sacct_line("509", elapsed_raw="0x10"),
     'ElapsedRaw: not a whole number of seconds: "0x10"'),
    ("ElapsedRaw with an underscore", sacct_line("510", elapsed_raw="1_000"),
     'ElapsedRaw: not a whole number of seconds: "1_000"'),
    ("ElapsedRaw with a sign", sacct_line("511", elapsed_raw="+5"),
     'ElapsedRaw: not a whole number of seconds: "+5"'),
    # Start + this many seconds is past DuckDB's timestamp range (found by the property below).
    ("ElapsedRaw past the calendar", sacct_line("512", elapsed_raw="9222000000000"),
     f"elapsed_seconds: must be at most {366 * 86400}, found 9222000000000"),  # a leap year
]  # fmt: skip


def _number(n: int) -> dict:
    return {"set": True, "infinite": False, "number": n}


def _json_job(job_id: int, *, gpus: object = 8, elapsed: int = 3600, start: int = 1795392000,
              end: int | None = None) -> dict:  # fmt: skip
    """One job as sacct --json (data_parser v0.0.40) prints it; 1795392000 = 2026-11-23 UTC."""
    return {
        "job_id": job_id, "name": "train", "account": "proj", "partition": "gpu",
        "state": {"current": ["COMPLETED"]},
        "exit_code": {"status": ["SUCCESS"], "return_code": _number(0)},
        "time": {"elapsed": elapsed, "submission": start, "start": start,
                 "end": start + 3600 if end is None else end},
        "tres": {"allocated": [{"type": "cpu", "name": "", "count": 64},
                               {"type": "gres", "name": "gpu", "count": gpus}]},
    }  # fmt: skip


BAD_JSON = [
    ("negative elapsed", _json_job(601, elapsed=-3600),
     "ElapsedRaw: must be at least 0 seconds, found -3600"),
    ("negative GPUs", _json_job(602, gpus=-8),
     "AllocTRES: gres/gpu must be from 0 to 1000000 GPUs, found -8"),
    # Two wrongs made +8 GPU-hours before (issue 15): -4 GPUs x -7200 s.
    ("negative GPUs and elapsed", _json_job(603, gpus=-4, elapsed=-7200),
     "ElapsedRaw: must be at least 0 seconds, found -7200"),
    ("absurd GPUs", _json_job(604, gpus=1e30),
     'AllocTRES: gres/gpu is not a whole number: "1e+30"'),
    ("GPUs as a wrapped number", _json_job(605, gpus=_number(2_000_000)),
     "AllocTRES: gres/gpu must be from 0 to 1000000 GPUs, found 2000000"),
    ("End before Start", _json_job(606, start=1795392000, end=1795388400),
     'End: "2026-11-22T23:00:00" is before Start "2026-11-23T00:00:00"'),
]  # fmt: skip


def _quarantine(ledger: Ledger) -> list[tuple[int, str]]:
    return ledger.con.execute(
        "SELECT source_line, reason FROM quarantine ORDER BY source_line"
    ).fetchall()


def _gpu_seconds(ledger: Ledger) -> tuple[int, int]:
    """(allocation lines landed, their GPU-seconds), test-only SQL over our own table."""
    return ledger.con.execute(
        "SELECT count(*), coalesce(sum(gpus * elapsed_seconds), 0) FROM sacct_rows "
        "WHERE step IS NULL"
    ).fetchone()


@pytest.mark.parametrize(("case", "line", "reason"), BAD_TEXT, ids=[c[0] for c in BAD_TEXT])
def test_bad_text_line_is_quarantined_with_its_reason(ledger, write_sacct, case, line, reason):
    landed = land_sacct(ledger, write_sacct([GOOD, line]))
    assert (landed.rows_landed, landed.rows_quarantined) == (1, 1)
    assert _quarantine(ledger) == [(3, reason)]  # header = line 1, GOOD = line 2
    (raw,) = ledger.con.execute("SELECT raw FROM quarantine").fetchone()
    assert raw == line
    assert _gpu_seconds(ledger) == (1, GOOD_GPU_SECONDS)


@pytest.mark.parametrize(("case", "job", "reason"), BAD_JSON, ids=[c[0] for c in BAD_JSON])
def test_bad_json_record_is_quarantined_with_its_reason(ledger, tmp_path, case, job, reason):
    path = tmp_path / "sacct.json"
    path.write_text(json.dumps({"jobs": [_json_job(600), job]}), encoding="utf-8")
    landed = land_sacct(ledger, path)
    assert (landed.rows_landed, landed.rows_quarantined) == (1, 1)
    assert _quarantine(ledger) == [(2, reason)]  # records are numbered from 1
    assert _gpu_seconds(ledger) == (1, GOOD_GPU_SECONDS)


def test_a_row_breaking_a_declared_rule_is_caught_after_parsing(ledger, write_sacct) -> None:
    # mem=-5G parses to negative bytes; no parsing rule names it, the rules check does. It
    # must not replace the row the first export landed for the same job.
    land_sacct(ledger, write_sacct([sacct_line("700", tres="gres/gpu=2,mem=5G")], "a.psv"))
    again = land_sacct(ledger, write_sacct([sacct_line("700", tres="gres/gpu=2,mem=-5G")], "b.psv"))
    assert (again.rows_landed, again.rows_quarantined) == (0, 1)
    assert _quarantine(ledger) == [(2, f"alloc_mem_bytes: must be at least 0, found {-5 * 2**30}")]
    (mem,) = ledger.con.execute("SELECT alloc_mem_bytes FROM sacct_rows").fetchone()
    assert mem == 5 * 2**30


def _bad_file(tmp_path: Path) -> Path:
    path = tmp_path / "bad.psv"
    lines = [HEADER, GOOD, *(line for _, line, _ in BAD_TEXT)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_cli_and_flow_landing_quarantine_the_same_rows(cli, tmp_path: Path) -> None:
    path = _bad_file(tmp_path)
    cli_ledger = tmp_path / "cli.duckdb"
    result = cli(
        "reconcile", "--sacct", str(path), "--week", "2026-W48", "--ledger", str(cli_ledger),
        "--json",
    )  # fmt: skip
    assert result.code == 0, result.stderr
    totals = result.json()["totals"]
    # Only GOOD lands: 8 GPUs x 1 h; every class non-negative.
    assert totals["allocated_gpu_hours"] == GOOD_GPU_SECONDS / 3600
    assert all(v >= 0 for k, v in totals.items() if k.endswith("_gpu_hours"))
    # The weekly flow's task wraps land_sacct; land the same file the same way.
    with Ledger.open(tmp_path / "flow.duckdb") as book:
        land_sacct(book, path, cluster="default", cluster_tz="UTC")
        flow_rows = book.con.execute(
            "SELECT source_line, raw, reason FROM quarantine ORDER BY source_line"
        ).fetchall()
    with Ledger.open(cli_ledger) as book:
        cli_rows = book.con.execute(
            "SELECT source_line, raw, reason FROM quarantine ORDER BY source_line"
        ).fetchall()
    assert cli_rows == flow_rows
    assert [(line, reason) for line, _, reason in cli_rows] == [
        (n, reason) for n, (_, _, reason) in enumerate(BAD_TEXT, start=3)
    ]


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(elapsed_raw=st.text(alphabet="0123456789 +-_.xe\u0663", max_size=6))
def test_elapsed_raw_lands_only_as_ascii_digits(ledger, tmp_path, elapsed_raw: str) -> None:
    # ElapsedRaw lands when, without its spaces, it is empty (Elapsed 01:00:00 is used, 3600 s)
    # or ASCII digits only; anything else is quarantined naming ElapsedRaw.
    path = tmp_path / "one.psv"
    path.write_text(f"{HEADER}\n{sacct_line('810', elapsed_raw=elapsed_raw)}\n", encoding="utf-8")
    ledger.con.execute("DELETE FROM sources; DELETE FROM sacct_rows; DELETE FROM quarantine")
    landed = land_sacct(ledger, path)
    text = elapsed_raw.strip(" ")
    whole = text == "" or all(c in "0123456789" for c in text)
    assert (landed.rows_landed, landed.rows_quarantined) == ((1, 0) if whole else (0, 1))
    if whole:
        (seconds,) = ledger.con.execute("SELECT elapsed_seconds FROM sacct_rows").fetchone()
        assert seconds == (int(text) if text else 3600)
    else:
        (reason,) = ledger.con.execute("SELECT reason FROM quarantine").fetchone()
        assert reason.startswith("ElapsedRaw: ")


# --- the landed tables hold their declared rules (validated in place) -------------------


def test_landed_tables_and_job_accounting_hold_their_rules(ledger, campaign) -> None:
    land_sacct(ledger, campaign["sacct"])
    land_registry(ledger, campaign["registry"])
    land_progress(ledger, campaign["progress"])
    land_manifest(ledger, campaign["manifest"])
    for rules in (SACCT_ROWS, PROGRESS_EVENTS_RULES, REGISTRY_RULES, MANIFEST_RULES):
        require_valid(ledger.con, rules)
    review(ledger, None, week_bounds("2026-W48"), 300)
    require_valid(ledger.con, JOB_ACCOUNTING_RULES)


def test_a_broken_rule_is_counted_and_named(ledger, campaign) -> None:
    land_sacct(ledger, campaign["sacct"])
    # Test-only writes that no landing would make: two rows break two rules.
    ledger.con.execute("UPDATE sacct_rows SET gpus = -1 WHERE job_id = '201'")
    ledger.con.execute(
        "UPDATE sacct_rows SET end_time = start_time - INTERVAL 1 HOUR "
        "WHERE job_id = '401' AND step IS NULL"
    )
    found = {(v.rule, v.rows) for v in relation_violations(ledger.con, SACCT_ROWS)}
    assert found == {("gpus: must be at least 0", 1), ("end not before start", 1)}
    with pytest.raises(RelationError, match="sacct_rows: gpus: must be at least 0 \\(1 rows\\)"):
        require_valid(ledger.con, SACCT_ROWS)


# --- any text in the numeric fields: quarantined with a reason, or landed within range -----

_NUMBERISH = st.one_of(
    st.text(alphabet="0123456789-+.eE_x, =:", max_size=24),
    st.integers(min_value=-(10**22), max_value=10**22).map(str),
    st.text(max_size=12),
)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(gpus=_NUMBERISH, elapsed_raw=_NUMBERISH)
def test_any_gpu_and_elapsed_text_lands_in_range_or_is_quarantined(
    ledger, tmp_path, gpus: str, elapsed_raw: str
) -> None:
    # The free text must not hold the delimiter or a line break (another line, not a field).
    gpus, elapsed_raw = (v.replace("|", "").replace("\n", "").replace("\r", "")
                         for v in (gpus, elapsed_raw))  # fmt: skip
    path = tmp_path / "one.psv"
    line = sacct_line("800", tres=f"cpu=8,gres/gpu={gpus}", elapsed_raw=elapsed_raw)
    path.write_text(f"{HEADER}\n{line}\n", encoding="utf-8")
    ledger.con.execute("DELETE FROM sources; DELETE FROM sacct_rows; DELETE FROM quarantine")
    landed = land_sacct(ledger, path)
    assert landed.rows_landed + landed.rows_quarantined == 1
    if landed.rows_landed:
        got = ledger.con.execute("SELECT gpus, elapsed_seconds FROM sacct_rows").fetchone()
        assert 0 <= got[0] <= MAX_GPUS_PER_JOB and got[1] >= 0
    else:
        (reason,) = ledger.con.execute("SELECT reason FROM quarantine").fetchone()
        # A parse failure names the sacct field; a value out of the landing rule's range
        # (quality/rules.py, e.g. ElapsedRaw above 366 days) names the rule's column.
        assert reason.split(":")[0] in {"AllocTRES", "ElapsedRaw", "Elapsed", "gpus",
                                        "elapsed_seconds"}  # fmt: skip


def test_a_later_export_replaces_only_its_keys_whatever_their_submit_time(
    ledger, write_sacct
) -> None:
    """sacct_delete_replaced searches only the new file's submit span: a row is replaced when
    cluster, job id, step and submit time (an unknown submit alike) match, and no other."""
    old = write_sacct([
        sacct_line("900", submit="2026-11-20T00:00:00", elapsed_raw="3600"),
        sacct_line("900.batch", raw="900.batch", submit="2026-11-20T00:00:00"),
        sacct_line("901", submit="Unknown", elapsed_raw="3600"),
        sacct_line("902", submit="2026-10-01T00:00:00", elapsed_raw="3600"),
        sacct_line("904", submit="2026-11-21T00:00:00", elapsed_raw="3600"),
    ], "old.psv")  # fmt: skip
    new = write_sacct([
        sacct_line("900", submit="2026-11-20T00:00:00", elapsed_raw="7200"),
        sacct_line("901", submit="Unknown", elapsed_raw="7200"),
        sacct_line("903", submit="2026-11-22T00:00:00", elapsed_raw="7200"),
        # 904 again, but submitted at another time: another record, not a replacement.
        sacct_line("904", submit="2026-11-21T00:00:01", elapsed_raw="7200"),
    ], "new.psv")  # fmt: skip
    first = land_sacct(ledger, old).source_id
    second = land_sacct(ledger, new).source_id
    rows = ledger.con.execute(
        "SELECT job_id, step, source_id, elapsed_seconds FROM sacct_rows ORDER BY ALL NULLS LAST"
    ).fetchall()
    assert rows == [
        ("900", "batch", first, 3600),
        ("900", None, second, 7200),
        ("901", None, second, 7200),
        ("902", None, first, 3600),
        ("903", None, second, 7200),
        ("904", None, first, 3600),
        ("904", None, second, 7200),
    ]
