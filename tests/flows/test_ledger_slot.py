"""Two flow runs that write one ledger at once: the second waits for the ledger's Prefect slot
("Waiting for ledger") instead of failing "in use", and both complete."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from trainbudget.cli.flows import flows_dir

pytestmark = pytest.mark.slow

TAG = "ledger-slot-test"
RUN = textwrap.dedent(
    """
    import sys
    sys.path.insert(0, sys.argv[1])
    from prefect import tags
    from demo_run import demo_parameters
    from weekly_review import weekly_review
    from pathlib import Path
    _, weekly = demo_parameters(Path(sys.argv[2]))
    weekly.update(report_root=Path(sys.argv[2]) / sys.argv[3])
    with tags(sys.argv[4]):
        weekly_review(**weekly)
    """
)


def _start(env: dict[str, str], folder: Path, name: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", RUN, str(flows_dir()), str(folder), name, TAG],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def test_two_runs_on_one_ledger_both_complete(prefect_server, tmp_path: Path) -> None:
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterTags
    from prefect.settings import PREFECT_API_URL, temporary_settings

    env = {**os.environ, "PREFECT_API_URL": prefect_server["PREFECT_API_URL"]}
    runs = [_start(env, tmp_path, week) for week in ("first", "second")]
    outputs = [run.communicate(timeout=600)[0] for run in runs]
    for run, output in zip(runs, outputs, strict=True):
        assert run.returncode == 0, output[-2000:]
    assert (tmp_path / "first").is_dir() and (tmp_path / "second").is_dir()

    with (
        temporary_settings(updates={PREFECT_API_URL: prefect_server["PREFECT_API_URL"]}),
        get_client(sync_client=True) as client,
    ):
        flow_runs = client.read_flow_runs(
            flow_run_filter=FlowRunFilter(tags=FlowRunFilterTags(all_=[TAG]))
        )
        histories = {run.id: client.read_flow_run_states(run.id) for run in flow_runs}
        limit = client.read_global_concurrency_limit_by_name("trainbudget-ledger")
    assert len(histories) == 2
    assert all(states[-1].is_completed() for states in histories.values())
    waited = [name for name, states in histories.items() if any(
        s.name == "Waiting for ledger" for s in states)]  # fmt: skip
    assert len(waited) == 1, {n: [s.name for s in st] for n, st in histories.items()}
    assert limit.limit == 1 and limit.active_slots == 0
