"""Two weekly-review flow runs at once through real Prefect (the session's test API, one
process per run as a worker would start them): on the team ledger both run at once, hold no
slot and commit; on a DuckDB file the ledger's slot makes one wait for the other. Both pairs
leave the same ledger, and the run that committed second (it saw both clusters' jobs) has the
same totals on both.

Both runs review 2026-W47, the demo's week (the data-quality checkpoint reads every landed
progress event, which the demo's file has up to W47): cluster alpha lands the demo's three
weeks, cluster beta its W47 file again under its own name."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import uuid
from decimal import Decimal
from pathlib import Path

import pytest

from trainbudget.cli.flows import flows_dir
from trainbudget.ledger import Ledger

pytestmark = pytest.mark.slow

DEMO = Path(__file__).resolve().parents[2] / "src" / "trainbudget" / "demo_data"
RUN = textwrap.dedent(
    """
    import json, sys
    from pathlib import Path
    sys.path.insert(0, sys.argv[1])
    from prefect import tags
    from weekly_review import weekly_review
    demo, weeks, cluster, report_root, tag = Path(sys.argv[2]), *sys.argv[3:7]
    with tags(tag):
        summary = weekly_review(
            plan=demo / "demo-1b.plan.yaml",
            sacct=[demo / "sacct" / f"sacct-{w}.psv" for w in weeks.split(",")],
            registry=demo / "registry.csv", progress=demo / "progress.jsonl",
            manifest=demo / "manifest.csv", week="2026-W47", cluster=cluster,
            report_root=Path(report_root),
        )
    print("TOTALS " + json.dumps(summary["totals"], default=str))
    """
)
# Which weeks and splits are cached depends on the commit order (tests/ledger/test_team.py
# compares them by value); decisions: the first run's verdict saw one cluster, the second's both.
_ORDERED = {"schema_version", "week_allocations", "tracked_splits"}
RUNS = (("2026-W45,2026-W46,2026-W47", "alpha"), ("2026-W47", "beta"))


def _pair(api_url: str, ledger: str, folder: Path, tag: str) -> list[dict[str, object]]:
    """Start both runs at once with $TRAINBUDGET_LEDGER=`ledger`; their totals, in RUNS order."""
    env = {**os.environ, "PREFECT_API_URL": api_url, "TRAINBUDGET_LEDGER": ledger}
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-c",
                RUN,
                str(flows_dir()),
                str(DEMO),
                week,
                cluster,
                str(folder / f"{tag}-reports"),
                tag,
            ],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for week, cluster in RUNS
    ]
    outputs = [p.communicate(timeout=900)[0] for p in procs]
    totals = []
    for proc, output in zip(procs, outputs, strict=True):
        assert proc.returncode == 0, output[-3000:]
        (line,) = [x for x in output.splitlines() if x.startswith("TOTALS ")]
        totals.append(json.loads(line.removeprefix("TOTALS ")))
    return totals


def _second(totals: list[dict[str, object]]) -> dict[str, object]:
    return max(totals, key=lambda t: Decimal(str(t["allocated_gpu_hours"])))


def _contents(location: str) -> dict[str, object]:
    """Every table's row count but the caches and the migrations' rows, and the landed lines."""
    with Ledger.open_existing(location) as book:
        counts = {t: n for t, n in book.table_counts() if t not in _ORDERED}
        rows = book.con.execute(
            "SELECT cluster, job_id, step, state, elapsed_seconds, gpus FROM sacct_rows "
            "ORDER BY ALL"
        ).fetchall()
    return {"counts": counts, "sacct_rows": rows}


def _histories(tag: str) -> list[tuple[object, object, list[str]]]:
    """(start, end, state names) of the flow runs tagged `tag`."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterTags

    with get_client(sync_client=True) as client:
        runs = client.read_flow_runs(
            flow_run_filter=FlowRunFilter(tags=FlowRunFilterTags(all_=[tag]))
        )
        return [
            (run.start_time, run.end_time, [s.name for s in client.read_flow_run_states(run.id)])
            for run in runs
        ]


def test_two_flow_runs_at_once_on_the_team_ledger_and_in_turn_on_a_file(
    prefect_harness, new_team_ledger, tmp_path
):
    from prefect.settings import PREFECT_API_URL

    api_url = PREFECT_API_URL.value()
    team_tag, file_tag = f"team-{uuid.uuid4().hex[:8]}", f"file-{uuid.uuid4().hex[:8]}"
    team_ledger, file_ledger = new_team_ledger(), str(tmp_path / "ledger.duckdb")
    team = _pair(api_url, team_ledger, tmp_path, team_tag)
    on_file = _pair(api_url, file_ledger, tmp_path, file_tag)
    assert _contents(team_ledger) == _contents(file_ledger)
    # The second to commit read both clusters' jobs: the larger allocation of each pair.
    assert _second(team) == _second(on_file)

    team_runs, file_runs = _histories(team_tag), _histories(file_tag)
    assert len(team_runs) == len(file_runs) == 2
    for _, _, states in team_runs + file_runs:
        assert states[-1] != "Failed" and "Crashed" not in states, states
    # The team ledger: no slot, no wait; the two runs overlapped in time.
    assert not any("Waiting for ledger" in states for _, _, states in team_runs)
    (s1, e1, _), (s2, e2, _) = team_runs
    assert s1 < e2 and s2 < e1, "the two team-ledger runs did not run at once"
    # The file: one run waited for the other's slot.
    assert sum("Waiting for ledger" in states for _, _, states in file_runs) == 1
