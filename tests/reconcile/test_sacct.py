"""sacct parsing: every trap of issue 7 with a fixture line, and the real exports."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trainbudget.base.errors import InputError
from trainbudget.reconcile.land import land_sacct
from trainbudget.reconcile.sacct import rejoin_free_text
from trainbudget.reconcile.sacct_format import TextLayout, detect_layout

from .conftest import HB_FIELDS, HEADER, REPORTSEFF_FIELDS, SLURM_JOBINFO_FIELDS, sacct_line


def rows(ledger, where: str = "TRUE") -> dict[str, dict]:
    """Landed sacct rows keyed by job_id[.step] (test-only SQL over our own table)."""
    cursor = ledger.con.execute(f"SELECT * FROM sacct_records WHERE {where} ORDER BY source_line")
    names = [d[0] for d in cursor.description]
    out = {}
    for values in cursor.fetchall():
        row = dict(zip(names, values, strict=True))
        out[row["job_id"] + (f".{row['step']}" if row["step"] else "")] = row
    return out


def quarantined(ledger) -> list[tuple[int, str]]:
    return ledger.con.execute(
        "SELECT source_line, reason FROM quarantine ORDER BY source_line"
    ).fetchall()


# --- real exports -----------------------------------------------------------------------


def test_hb_jobinfo_gpu_seconds_by_hand(ledger, fixtures_dir: Path) -> None:
    path = fixtures_dir / "sacct" / "hb-jobinfo_sacct_snowman.txt"
    landed = land_sacct(ledger, path, fields=HB_FIELDS.split(","))
    assert (landed.rows_landed, landed.rows_quarantined) == (242, 0)  # SOURCES.md: 242 lines
    got = rows(ledger, "step IS NULL")
    # The nine job rows whose AllocTRES holds a GPU, Elapsed read off the file by hand.
    expected = {
        "7965768": 1 * (15 * 3600 + 28 * 60 + 22),
        "7946767": 1 * (11 * 3600 + 23 * 60 + 23),
        "7939708": 1 * 4,
        "8150389": 2 * (2 * 86400 + 21 * 3600 + 9 * 60 + 16),
        "8298012": 1 * (6 * 3600 + 34 * 60 + 3),
        "8202099": 1 * (86400 + 14 * 3600 + 17 * 60 + 59),
        "8069225": 1 * (8 * 3600 + 45 * 60 + 49),
        "7971484": 4 * (3 * 60 + 53),
        "7961058": 2 * (40 * 60 + 15),
    }
    gpu_seconds = {k: r["gpus"] * r["elapsed_seconds"] for k, r in got.items() if r["gpus"]}
    assert gpu_seconds == expected
    # Typed and untyped GPU TRES both present: the untyped total, not their sum.
    assert got["8150389"]["gpus"] == 2 and got["8150389"]["gpu_type"] == "a100"
    # SOURCES.md's job-row state counts.
    states: dict[str, int] = {}
    for r in got.values():
        states[r["state_text"].split(" by ")[0]] = (
            states.get(r["state_text"].split(" by ")[0], 0) + 1
        )
    assert states == {"COMPLETED": 66, "CANCELLED": 8, "FAILED": 8, "TIMEOUT": 7,
                      "PENDING": 7, "RUNNING": 3, "NODE_FAIL": 1}  # fmt: skip
    assert len(got) == 100
    array_tasks = [k for k in got if "_" in k]
    assert len(array_tasks) == 24


def test_hb_jobinfo_none_and_unknown_times(ledger, fixtures_dir: Path) -> None:
    land_sacct(ledger, fixtures_dir / "sacct" / "hb-jobinfo_sacct_snowman.txt",
               fields=HB_FIELDS.split(","))  # fmt: skip
    got = rows(ledger, "step IS NULL")
    never_started = got["4047445"]  # CANCELLED by 10290820 while pending: Start=None
    assert never_started["start_time"] is None
    assert never_started["cancelled_by"] == "10290820"
    assert never_started["gpus"] == 0 and never_started["elapsed_seconds"] == 0
    pending = [r for r in got.values() if r["state"] == "PENDING"]
    assert pending and all(r["start_time"] is None and r["end_time"] is None for r in pending)
    running = [r for r in got.values() if r["state"] == "RUNNING"]
    assert running and all(r["end_time"] is None and r["start_time"] for r in running)
    # 199G in AllocTRES is 199 GiB.
    assert got["4034541"]["alloc_mem_bytes"] == 199 * 1024**3


def test_slurm_jobinfo_repeated_lines_and_no_tres(ledger, fixtures_dir: Path) -> None:
    path = fixtures_dir / "sacct" / "slurm-jobinfo_sacct_snowman.txt"
    # No AllocTRES or ReqTRES: refused by default (no GPU count); its other fields are read.
    with pytest.raises(InputError, match="no AllocTRES or ReqTRES column"):
        land_sacct(ledger, path, fields=SLURM_JOBINFO_FIELDS.split(","))
    landed = land_sacct(ledger, path, fields=SLURM_JOBINFO_FIELDS.split(","), require_gpus=False)
    # The upstream file appends some jobs twice; the later copy of a (job, step, submit) is
    # kept and the earlier one quarantined as a duplicate, never counted twice.
    lines = path.read_text(encoding="utf-8").splitlines()
    last: dict[tuple[str, str], int] = {}
    for number, line in enumerate(lines, start=1):
        fields = line.split("☃")
        last[(fields[0], fields[9])] = number
    assert landed.rows_landed == len(last)
    assert landed.rows_quarantined == len(lines) - len(last)
    assert all(reason.startswith("duplicate of line") for _, reason in quarantined(ledger))
    got = rows(ledger, "step IS NULL")
    expected_states: dict[str, int] = {}
    for (job, _), number in last.items():
        if "." not in job:
            state = lines[number - 1].split("☃")[8]
            expected_states[state] = expected_states.get(state, 0) + 1
    states: dict[str, int] = {}
    for r in got.values():
        states[r["state"]] = states.get(r["state"], 0) + 1
    assert states == expected_states
    # 1-06:51:32 = 1 day 6 h 51 min 32 s.
    assert got["20872560"]["elapsed_seconds"] == 86400 + 6 * 3600 + 51 * 60 + 32
    assert all(r["gpus"] == 0 for r in got.values())  # no TRES fields in this export


def test_reportseff_array_task_and_short_lines(ledger, fixtures_dir: Path) -> None:
    path = fixtures_dir / "sacct" / "reportseff_conftest_rows.psv"
    landed = land_sacct(ledger, path, fields=REPORTSEFF_FIELDS.split(","), require_gpus=False)
    # Lines 24-27 carry a twelfth field (NTasks) the 11 named columns cannot hold.
    assert [line for line, _ in quarantined(ledger)] == [24, 25, 26, 27]
    assert landed.rows_landed == 23
    got = rows(ledger)
    task = got["39889258_1426"]
    assert task["job_id_raw"] == "39895850" and task["array_job_id"] == "39889258"
    assert task["array_task"] == "1426"
    assert got["39889258_1426.batch"]["job_id_raw"] == "39895850"
    assert got["6196869"]["elapsed_seconds"] == 12 * 86400 + 14 * 3600 + 16 * 60 + 39


def test_an_export_without_alloctres_counts_gpus_from_reqtres(ledger, fixtures_dir: Path) -> None:
    """Issue 23, deliverable 6: hb-jobinfo without its AllocTRES field (SOURCES.md, derived)
    landed 100 jobs with 0 GPUs and no word; now each job's GPUs are its ReqTRES gres/gpu,
    flagged `gpus-from-reqtres`, with one note naming how many."""
    path = fixtures_dir / "sacct" / "derived_hb-jobinfo_without_alloctres.txt"
    fields = [f for f in HB_FIELDS.split(",") if f != "AllocTRES"]
    landed = land_sacct(ledger, path, fields=fields)
    expected: dict[str, int] = {}  # from the raw text: field 22 is ReqTRES
    for line in path.read_text(encoding="utf-8").splitlines():
        parts = line.split("☃")
        if "." not in parts[0]:
            found = re.search(r"(?:^|,)gres/gpu=(\d+)", parts[21])
            expected[parts[0]] = int(found.group(1)) if found else 0
    with_gpus = sum(1 for n in expected.values() if n)
    assert (len(expected), with_gpus) == (100, 11)
    assert landed.notes == (
        f"no AllocTRES column: the GPUs of {with_gpus} of 100 jobs are read from ReqTRES "
        "(requested, not allocated; flag gpus-from-reqtres); export AllocTRES for the allocation",
    )
    got = rows(ledger, "step IS NULL")
    assert {job: r["gpus"] for job, r in got.items()} == expected
    for job, r in got.items():
        flagged = "gpus-from-reqtres" in (r["time_flags"] or [])
        assert flagged == (expected[job] > 0), job
        assert r["alloc_tres"] is None  # not pretended: the allocation stays unknown


def test_a_headerless_file_in_another_order_is_refused_whole(ledger, fixtures_dir: Path) -> None:
    """Issue 23, deliverable 5: read in the default order, 9 rows were quarantined and job 301
    landed misparsed over the ledger's correct row; now the file is refused, nothing changes."""
    land_sacct(ledger, Path(__file__).parents[2] / "examples" / "reconcile" / "sacct.psv")
    before = ledger.con.execute("SELECT * FROM sacct_rows ORDER BY ALL").fetchall()
    path = fixtures_dir / "sacct" / "derived_headerless_name_state_swapped.psv"
    refused = pytest.raises(InputError, match=r"no header line, and 10 of 10 rows do not read")
    with refused, ledger.transaction():
        land_sacct(ledger, path)
    assert ledger.con.execute("SELECT * FROM sacct_rows ORDER BY ALL").fetchall() == before
    (job_301,) = [r for r in rows(ledger).values() if r["job_id"] == "301"]
    assert (job_301["name"], job_301["partition"]) == ("eval|per-checkpoint", "gpu")


# --- synthetic traps, one fixture line each -----------------------------------------------


def test_steps_repeat_alloctres_and_count_once(ledger, write_sacct, cli, tmp_path) -> None:
    path = write_sacct([
        sacct_line("500", elapsed_raw="7200", elapsed="02:00:00"),
        sacct_line("500.batch", raw="500.batch", elapsed_raw="7200", elapsed="02:00:00"),
        sacct_line("500.extern", raw="500.extern", elapsed_raw="7200", elapsed="02:00:00"),
        sacct_line("500.0", raw="500.0", elapsed_raw="7100", elapsed="01:58:20"),
    ])  # fmt: skip
    result = cli(
        "--ledger", str(tmp_path / "l.duckdb"), "reconcile", "--sacct", str(path), "--json"
    )
    assert result.code == 0, result.stderr
    payload = result.json()
    assert [j["job_id"] for j in payload["jobs"]] == ["500"]
    assert payload["totals"]["allocated_gpu_hours"] == 8 * 2  # 8 GPUs × 2 h, once
    assert payload["diagnosis"][0]["sum_over_lines_gpu_hours"] == pytest.approx(
        (3 * 8 * 7200 + 8 * 7100) / 3600
    )


@pytest.mark.parametrize(
    ("text", "state", "extra"),
    [
        ("CANCELLED by 4242", "CANCELLED", {"cancelled_by": "4242"}),
        ("CANCELLED+", "CANCELLED", {}),
        ("OUT_OF_ME+", "OUT_OF_MEMORY", {}),
        ("PREEMPTED", "PREEMPTED", {}),
        ("REQUEUED", "REQUEUED", {}),
        ("NODE_FAIL", "NODE_FAIL", {}),
        ("OUT_OF_MEMORY", "OUT_OF_MEMORY", {}),
        ("TIMEOUT", "TIMEOUT", {}),
        ("BOOT_FAIL", "BOOT_FAIL", {}),
        ("DEADLINE", "DEADLINE", {}),
        ("FAILED", "FAILED", {}),
        ("RUNNING", "RUNNING", {}),
    ],
)
def test_every_state(ledger, write_sacct, text: str, state: str, extra: dict) -> None:
    land_sacct(ledger, write_sacct([sacct_line("77", text, exit_code="0:125")]))
    row = rows(ledger)["77"]
    assert row["state"] == state and row["state_text"] == text
    assert (row["exit_status"], row["exit_signal"]) == (0, 125)
    for key, value in extra.items():
        assert row[key] == value


def test_unknown_state_and_bad_fields_are_quarantined_with_line(ledger, write_sacct) -> None:
    path = write_sacct([
        sacct_line("1"),
        sacct_line("2", "EXPLODED"),
        sacct_line("x3"),
        sacct_line("4", elapsed="soon", elapsed_raw=""),
        sacct_line("5", start="yesterday"),
        sacct_line("6"),
    ])  # fmt: skip
    landed = land_sacct(ledger, path)
    assert (landed.rows_landed, landed.rows_quarantined) == (2, 4)
    reasons = quarantined(ledger)
    assert [line for line, _ in reasons] == [3, 4, 5, 6]  # header is line 1
    assert reasons[0][1].startswith("State:") and "EXPLODED" in reasons[0][1]
    assert reasons[1][1].startswith("JobID:")
    assert reasons[2][1].startswith("Elapsed:")
    assert reasons[3][1].startswith("Start:")
    assert set(rows(ledger)) == {"1", "6"}


def test_array_and_het_jobs(ledger, write_sacct) -> None:
    land_sacct(ledger, write_sacct([
        sacct_line("9_1", raw="10"),
        sacct_line("9_1.batch", raw="10.batch"),
        sacct_line("9_[2-5]", raw="9", state="PENDING", start="Unknown", end="Unknown",
                   elapsed="00:00", elapsed_raw="0", tres=""),
        sacct_line("123+0", raw="123"),
        sacct_line("123+1", raw="124", tres="cpu=4,gres/gpu:a100=2,node=1"),
    ]))  # fmt: skip
    got = rows(ledger)
    assert got["9_1"]["job_id_raw"] == "10" and got["9_1"]["array_job_id"] == "9"
    assert got["9_1.batch"]["step"] == "batch"
    assert got["9_[2-5]"]["gpus"] == 0 and got["9_[2-5]"]["state"] == "PENDING"
    assert got["123+1"]["het_job_id"] == "123" and got["123+1"]["het_offset"] == 1
    assert got["123+1"]["gpus"] == 2 and got["123+1"]["gpu_type"] == "a100"
    assert got["123+0"]["gpus"] == 8


@pytest.mark.parametrize(
    ("elapsed", "seconds"),
    [("05:07", 5 * 60 + 7), ("03:05:07", 3 * 3600 + 5 * 60 + 7),
     ("2-03:05:07", 2 * 86400 + 3 * 3600 + 5 * 60 + 7), ("00:04.123", 4)],
)  # fmt: skip
def test_elapsed_forms_without_elapsedraw(ledger, write_sacct, elapsed: str, seconds: int) -> None:
    land_sacct(ledger, write_sacct([sacct_line("8", elapsed=elapsed, elapsed_raw="")]))
    assert rows(ledger)["8"]["elapsed_seconds"] == seconds


def test_elapsedraw_wins_over_elapsed(ledger, write_sacct) -> None:
    land_sacct(ledger, write_sacct([sacct_line("8", elapsed="01:00:00", elapsed_raw="3601")]))
    assert rows(ledger)["8"]["elapsed_seconds"] == 3601


@pytest.mark.parametrize(
    ("tres", "gpus", "mem_bytes"),
    [
        ("cpu=8,gres/gpu=4,mem=500M,node=1", 4, 500 * 1024**2),
        ("cpu=8,gres/gpu:h100=8,mem=1T,node=1", 8, 1024**4),
        ("cpu=8,gres/gpu:h100=8,gres/gpu=8,mem=64G", 8, 64 * 1024**3),
        ("cpu=8,gres/gpu:a100=2,gres/gpu:v100=1,mem=2048K", 3, 2048 * 1024),
        ("cpu=8,gres/gpumem=40G,gres/gpuutil=90,mem=1.5G", 0, int(1.5 * 1024**3)),
        ("", 0, None),
    ],
)
def test_alloctres_forms_and_memory_units(ledger, write_sacct, tres, gpus, mem_bytes) -> None:
    land_sacct(ledger, write_sacct([sacct_line("8", tres=tres)]))
    row = rows(ledger)["8"]
    assert (row["gpus"], row["alloc_mem_bytes"]) == (gpus, mem_bytes)


def test_delimiter_inside_job_name_is_rejoined(ledger, write_sacct) -> None:
    landed = land_sacct(ledger, write_sacct([sacct_line("8", name="eval|suite|a")]))
    assert landed.rows_quarantined == 0
    row = rows(ledger)["8"]
    assert row["name"] == "eval|suite|a" and row["gpus"] == 8 and row["account"] == "proj"


def test_parsable_trailing_delimiter_and_other_delimiter(ledger, tmp_path) -> None:
    parsable = tmp_path / "p.txt"
    parsable.write_text(HEADER + "|\n" + sacct_line("8") + "|\n", encoding="utf-8")
    land_sacct(ledger, parsable)
    snow = tmp_path / "s.txt"
    snow.write_text(sacct_line("9", name="a|b").replace("|", "☃").replace("a☃b", "a|b") + "☃\n",
                    encoding="utf-8")  # fmt: skip
    land_sacct(ledger, snow, delimiter="☃")
    got = rows(ledger)
    assert got["8"]["gpus"] == 8 and got["9"]["name"] == "a|b" and got["9"]["gpus"] == 8


def test_headerless_target_format(ledger, write_sacct) -> None:
    land_sacct(ledger, write_sacct([sacct_line("8")], header=False))
    assert rows(ledger)["8"]["elapsed_seconds"] == 3600


def test_cluster_time_zone(ledger, write_sacct) -> None:
    land_sacct(ledger, write_sacct([sacct_line("8", start="2026-07-01T12:00:00")]),
               cluster_tz="Europe/Amsterdam")  # fmt: skip
    start = rows(ledger)["8"]["start_time"]
    assert start.isoformat().startswith("2026-07-01T10:00:00")  # CEST is UTC+2


def test_sacct_json(ledger, tmp_path) -> None:
    number = lambda n: {"set": True, "infinite": False, "number": n}  # noqa: E731
    doc = {"jobs": [
        {"job_id": 700, "name": "train", "account": "proj", "partition": "gpu",
         "cluster": "alpha", "array": {"job_id": 0, "task_id": {"set": False, "number": 0}},
         "het": {"job_id": 0, "job_offset": {"set": False, "number": 0}},
         "state": {"current": ["PREEMPTED"], "reason": "None"},
         "exit_code": {"status": ["SUCCESS"], "return_code": number(0)},
         "time": {"elapsed": 5400, "submission": 1795000000, "start": 1795000100,
                  "end": 1795005500},
         "tres": {"allocated": [{"type": "cpu", "name": "", "count": 64},
                                {"type": "gres", "name": "gpu", "count": 4},
                                {"type": "mem", "name": "", "count": 2048}],
                  "requested": []},
         "steps": [{"step": {"id": "700.batch", "name": "batch"}, "state": "CANCELLED",
                    "time": {"elapsed": 5400, "start": number(1795000100)},
                    "tres": {"allocated": [{"type": "gres", "name": "gpu", "count": 4}]}}]},
        {"job_id": 702, "name": "sweep", "array": {"job_id": 701, "task_id": number(3)},
         "state": {"current": "COMPLETED"}, "time": {"elapsed": 60, "submission": 1795000000,
                                                      "start": 1795000000, "end": 1795000060},
         "tres": {"allocated": [{"type": "gres", "name": "gpu:h100", "count": 2}]}},
    ]}  # fmt: skip
    path = tmp_path / "sacct.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    landed = land_sacct(ledger, path)
    assert landed.rows_quarantined == 0
    got = rows(ledger)
    job = got["700"]
    assert (job["state"], job["gpus"], job["elapsed_seconds"], job["cluster"]) == (
        "PREEMPTED", 4, 5400, "alpha")  # fmt: skip
    assert job["alloc_mem_bytes"] == 2048 * 1024**2
    assert int(job["start_time"].timestamp()) == 1795000100
    assert got["700.batch"]["step"] == "batch"
    assert got["701_3"]["job_id_raw"] == "702" and got["701_3"]["gpus"] == 2


def test_no_jobid_column_is_an_input_error(tmp_path) -> None:
    with pytest.raises(InputError, match="JobID and State"):
        detect_layout("JobName|State|Elapsed", str(tmp_path / "x"))


# --- properties --------------------------------------------------------------------------

_free = st.text(alphabet="ab|- ", min_size=1, max_size=12).filter(lambda s: s.strip(" |") != "")


@settings(max_examples=60, deadline=None)
@given(name=_free)
def test_rejoin_puts_any_delimited_name_back(name: str) -> None:
    layout = TextLayout("|", tuple(f.lower() for f in HEADER.split("|")), True, False)
    line = sacct_line("8", name=name)
    parts, reason = rejoin_free_text(line, layout)
    assert parts is not None, reason
    assert parts[2] == name and parts[0] == "8" and parts[5] == "COMPLETED"
    assert len(parts) == len(layout.fields)


@settings(max_examples=40, deadline=None)
@given(
    days=st.integers(0, 40), hours=st.integers(0, 23),
    minutes=st.integers(0, 59), seconds=st.integers(0, 59),
)  # fmt: skip
def test_elapsed_parse_property(tmp_path_factory, days, hours, minutes, seconds) -> None:
    from trainbudget.ledger import Ledger

    folder = tmp_path_factory.mktemp("el")
    if days:
        text = f"{days}-{hours:02d}:{minutes:02d}:{seconds:02d}"
    elif hours:
        text = f"{hours:02d}:{minutes:02d}:{seconds:02d}"
    else:
        text = f"{minutes:02d}:{seconds:02d}"
    path = folder / "s.psv"
    path.write_text(HEADER + "\n" + sacct_line("8", elapsed=text, elapsed_raw="") + "\n")
    with Ledger.open(folder / "l.duckdb") as book:
        land_sacct(book, path)
        (got,) = book.con.execute("SELECT elapsed_seconds FROM sacct_rows").fetchone()
    assert got == days * 86400 + hours * 3600 + minutes * 60 + seconds


@settings(max_examples=40, deadline=None)
@given(
    blanks=st.lists(st.integers(0, 2), min_size=1, max_size=6),
    trailing=st.integers(0, 3),
    crlf=st.booleans(),
    final_newline=st.booleans(),
    name=st.sampled_from(["train", "prüfung", "名前", "a|b"]),
)
def test_source_line_is_the_line_in_the_file(
    tmp_path_factory, blanks, trailing, crlf, final_newline, name
) -> None:
    """Blank lines anywhere, CRLF, no final newline, multibyte text, a delimiter in a name:
    every landed row's source_line is the line it was written on (1-based, header = 1)."""
    from trainbudget.ledger import Ledger

    folder = tmp_path_factory.mktemp("lines")
    lines, expected = [HEADER], {}
    for i, gap in enumerate(blanks):
        lines += [""] * gap
        job = str(100 + i)
        lines.append(sacct_line(job, name=name))
        expected[job] = len(lines)
    lines += [""] * trailing
    end = "\r\n" if crlf else "\n"
    text = end.join(lines) + (end if final_newline else "")
    path = folder / "s.psv"
    path.write_bytes(text.encode("utf-8"))
    with Ledger.open(folder / "l.duckdb") as book:
        land_sacct(book, path)
        got = dict(book.con.execute("SELECT job_id, source_line FROM sacct_rows").fetchall())
    assert got == expected


def test_source_lines_of_two_exports_landed_in_one_transaction(ledger, write_sacct) -> None:
    """Each export's lines are numbered from its own first line, also when a second export is
    landed in the same transaction (where DuckDB's rowids do not start at zero)."""
    first = write_sacct([sacct_line("11"), "", sacct_line("12")], name="a.psv")
    second = write_sacct(["", "", sacct_line("21"), sacct_line("22")], name="b.psv")
    with ledger.transaction():
        land_sacct(ledger, first)
        land_sacct(ledger, second)
    got = dict(ledger.con.execute("SELECT job_id, source_line FROM sacct_rows").fetchall())
    # Line 1 is the header in both files.
    assert got == {"11": 2, "12": 4, "21": 4, "22": 5}
