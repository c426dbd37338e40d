"""Registry, progress and manifest loaders: contract columns, extra columns kept, quarantine."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from trainbudget.base.errors import InputError
from trainbudget.reconcile.fields import BIGINT_MAX, read_bool, read_date, read_int, read_time
from trainbudget.reconcile.land import land_manifest, land_progress, land_registry
from trainbudget.reconcile.live import sacct_command
from trainbudget.reconcile.registry import WORK_CLASSES
from trainbudget.reconcile.week import week_bounds
from trainbudget.schemas import WORK_CLASSES as SCHEMA_WORK_CLASSES


def test_registry_work_classes_match_the_schema_module() -> None:
    assert WORK_CLASSES == SCHEMA_WORK_CLASSES


def test_registry_rows_and_quarantine(ledger, tmp_path: Path) -> None:
    path = tmp_path / "registry.csv"
    path.write_text(
        "job_id,cluster,experiment_id,work_class,result_valid,cause_addressed,owner\n"
        "1,,e1,main,true,,ana\n"
        "2,alpha,e1,MAIN,no,yes,bo\n"
        "3,,e1,training,,,cy\n"
        "4,,,main,,,dee\n"
        "5,,e2,pilot,maybe,,ed\n",
        encoding="utf-8",
    )
    landed = land_registry(ledger, path)
    assert (landed.rows_landed, landed.rows_quarantined) == (2, 3)
    reasons = ledger.con.execute("SELECT source_line, reason FROM quarantine ORDER BY 1").fetchall()
    assert [line for line, _ in reasons] == [4, 5, 6]
    assert reasons[0][1].startswith("work_class: must be one of")
    assert reasons[1][1] == "experiment_id: required, but missing"
    assert reasons[2][1].startswith("result_valid:")
    got = ledger.con.execute(
        "SELECT job_id, cluster, work_class, result_valid, cause_addressed, extra_json->>'owner' "
        "FROM registry ORDER BY job_id"
    ).fetchall()
    assert got == [
        ("1", None, "main", True, None, "ana"),
        ("2", "alpha", "main", False, True, "bo"),
    ]


def test_registry_yaml(ledger, tmp_path: Path) -> None:
    path = tmp_path / "registry.yaml"
    path.write_text("- {job_id: 7, experiment_id: e, work_class: evaluation}\n- oops\n")
    landed = land_registry(ledger, path)
    assert (landed.rows_landed, landed.rows_quarantined) == (1, 1)


def test_registry_yaml_that_does_not_parse_is_one_error_line(ledger, tmp_path: Path) -> None:
    path = tmp_path / "registry.yaml"
    path.write_text("- {job_id: 7, experiment_id: e\n- [unclosed\n")
    with pytest.raises(InputError) as caught:
        land_registry(ledger, path)
    message = str(caught.value)
    # The YAML parser's mark names the line it stopped at (the unclosed flow mapping).
    assert re.match(re.escape(str(path)) + r":\d+: not valid YAML: ", message), message
    assert "\n" not in message
    assert ledger.con.execute("SELECT count(*) FROM registry").fetchone() == (0,)


def test_both_jsonl_loaders_skip_only_json_whitespace(ledger, tmp_path: Path) -> None:
    # RFC 8259 whitespace (space, tab, CR) makes a blank line; U+001F is whitespace to
    # Python's str.strip but not to JSON, so that line is a line and is quarantined by both.
    # A line ends at LF alone: a lone CR is JSON whitespace inside the fourth line's object.
    files = {}
    for name, first, fourth in (
        ("progress.jsonl", '"time": "2026-11-23T01:00:00Z", "event": "start"',
         '"time": "2026-11-23T02:00:00Z", "event": "step", "step": 5'),
        ("registry.jsonl", '"experiment_id": "e", "work_class": "main"',
         '"experiment_id": "e", "work_class": "main"'),
    ):  # fmt: skip
        files[name] = tmp_path / name
        text = f'{{"job_id": "1", {first}}}\n \t \n\x1f\n{{"job_id": "2",\r{fourth}}}\n'
        files[name].write_text(text, encoding="utf-8", newline="")
    progress, registry = files["progress.jsonl"], files["registry.jsonl"]
    for landed in (land_progress(ledger, progress), land_registry(ledger, registry)):
        assert (landed.rows_landed, landed.rows_quarantined) == (2, 1)
    reasons = ledger.con.execute("SELECT source_line, reason FROM quarantine").fetchall()
    assert reasons == [(3, "not a JSON object")] * 2


def test_progress_events_checked(ledger, tmp_path: Path) -> None:
    path = tmp_path / "progress.jsonl"
    path.write_text(
        '{"job_id": 101, "time": "2026-11-23T01:00:00+01:00", "event": "start"}\n'
        '{"job_id": "101", "time": "2026-11-23T08:00:00Z", "event": "checkpoint", '
        '"step": 800, "accepted": true}\n'
        "\n"
        'not json\n'
        '{"job_id": "101", "time": "2026-11-23T08:00:00", "event": "step", "step": 9}\n'
        '{"job_id": "101", "time": "2026-11-23T08:00:00Z", "event": "step"}\n'
        '{"job_id": "101", "time": "2026-11-23T08:00:00Z", "event": "restart"}\n'
        '{"time": "2026-11-23T08:00:00Z", "event": "end"}\n',
        encoding="utf-8",
    )  # fmt: skip
    landed = land_progress(ledger, path)
    assert (landed.rows_landed, landed.rows_quarantined) == (2, 5)
    reasons = dict(ledger.con.execute("SELECT source_line, reason FROM quarantine").fetchall())
    assert reasons[4] == "not a JSON object"
    assert "has no zone" in reasons[5]
    assert reasons[6].startswith("step:")
    assert reasons[7].startswith("event:")
    assert reasons[8] == "job_id: required, but missing"
    start = ledger.con.execute(
        "SELECT job_id, event_time, resumed_from_step FROM progress_events WHERE event = 'start'"
    ).fetchone()
    assert start[0] == "101" and start[2] == 0
    assert start[1] == datetime(2026, 11, 23, 0, 0, tzinfo=UTC)  # 01:00+01:00


def test_manifest(ledger, tmp_path: Path) -> None:
    path = tmp_path / "manifest.csv"
    path.write_text(
        "artifact_id,experiment_id,job_id,step,size_bytes,created,role,retain_until,bucket\n"
        "a,e,1,800,100,2026-11-23,recovery,2027-01-01,s3://x\n"
        "b,e,1,900,-5,2026-11-23,recovery,,s3://x\n"
        "c,e,1,900,5,2026-11-23,scratch,,s3://x\n",
        encoding="utf-8",
    )
    landed = land_manifest(ledger, path)
    assert (landed.rows_landed, landed.rows_quarantined) == (1, 2)
    assert ledger.con.execute("SELECT extra_json->>'bucket' FROM manifest").fetchone() == (
        "s3://x",
    )


def test_week_bounds_in_the_cluster_zone() -> None:
    start, end = week_bounds("2026-W48", "Europe/Amsterdam")
    assert start == datetime(2026, 11, 22, 23, 0, tzinfo=UTC)  # Monday 00:00 CET
    assert end == datetime(2026, 11, 29, 23, 0, tzinfo=UTC)
    with pytest.raises(InputError, match=r"^week: "):
        week_bounds("2026-48")


def test_live_sacct_asks_for_duplicates_and_our_fields() -> None:
    argv = sacct_command(datetime(2026, 11, 23, tzinfo=UTC), datetime(2026, 11, 30, tzinfo=UTC),
                         "Europe/Amsterdam")  # fmt: skip
    assert argv[:4] == ["sacct", "--parsable2", "--duplicates", "--allusers"]
    assert "--starttime=2026-11-23T01:00:00" in argv
    assert any(a.startswith("--format=JobID,JobIDRaw,") and a.endswith(",Cluster") for a in argv)


def test_registry_row_with_extra_fields_is_quarantined(ledger, tmp_path: Path) -> None:
    path = tmp_path / "registry.csv"
    path.write_text(
        "job_id,experiment_id,work_class\n1,e1,main\n2,e1,main,surplus\n3,e1,pilot\n",
        encoding="utf-8",
    )
    landed = land_registry(ledger, path)
    assert (landed.rows_landed, landed.rows_quarantined) == (2, 1)
    reasons = ledger.con.execute("SELECT source_line, reason, raw FROM quarantine").fetchall()
    assert reasons == [(3, "4 fields, the header has 3", "2,e1,main,surplus")]


# --- the field readers: any value is read within range, or refused naming the field --------

_ANY = st.one_of(
    st.text(max_size=30),
    st.text(alphabet="0123456789-+.eE_:TZ ", max_size=30),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.none(),
)


@settings(max_examples=300, deadline=None)
@given(value=_ANY)
@example("1e400")  # float() reads inf: int(inf) raised OverflowError, not the field's error
@example("99999999999999999999")  # past BIGINT: the insert failed
@example(float("nan"))
@example("0001-01-01T00:00:00+01:00")  # before year 1 in UTC
def test_field_readers_read_in_range_or_refuse_with_the_field(value) -> None:
    readers = [
        (lambda v: read_int(v, "size_bytes"), lambda n: 0 <= n <= BIGINT_MAX),
        (lambda v: read_int(v, "step", required=False), lambda n: n is None or n >= 0),
        (lambda v: read_bool(v, "result_valid"), lambda b: b in (True, False, None)),
        (lambda v: read_time(v, "created", zone_required=False),
         lambda t: t.utcoffset() is not None and t.utcoffset().total_seconds() == 0),
        (lambda v: read_date(v, "retain_until"), lambda d: d is None or isinstance(d, date)),
    ]  # fmt: skip
    for read, holds in readers:
        try:
            got = read(value)
        except ValueError as exc:
            assert str(exc).split(":")[0] in {"size_bytes", "step", "result_valid", "created",
                                              "retain_until"}  # fmt: skip
        else:
            assert holds(got), (value, got)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(size=st.one_of(st.text(max_size=25), st.integers(-(2**66), 2**66).map(str)))
def test_any_manifest_size_lands_in_range_or_is_quarantined(ledger, tmp_path, size: str) -> None:
    size = size.replace(",", "").replace('"', "").replace("\n", "").replace("\r", "")
    path = tmp_path / "manifest.csv"
    path.write_text(
        "artifact_id,experiment_id,job_id,step,size_bytes,created,role\n"
        f"a1,e1,101,800,{size},2026-11-23T00:00:00Z,recovery\n",
        encoding="utf-8",
    )
    ledger.con.execute("DELETE FROM sources; DELETE FROM manifest; DELETE FROM quarantine")
    landed = land_manifest(ledger, path)
    assert landed.rows_landed + landed.rows_quarantined == 1
    if landed.rows_landed:
        (got,) = ledger.con.execute("SELECT size_bytes FROM manifest").fetchone()
        assert 0 <= got <= BIGINT_MAX
    else:
        (reason,) = ledger.con.execute("SELECT reason FROM quarantine").fetchone()
        assert reason.startswith("size_bytes:")
