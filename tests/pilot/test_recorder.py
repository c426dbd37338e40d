"""PilotRecorder on CPU with a tiny model: the step log `trainbudget pilot` reads, a real trace."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from trainbudget.pilot.ingest import read_step_log
from trainbudget.pilot.recorder import PilotRecorder

torch = pytest.importorskip("torch", reason="install the torch extra (make test does)")

SHAPES = [(4, 32), (4, 16), (2, 64)]  # (batch, seq_len), cycled over the steps


def train_tiny(out_dir: Path, steps: int = 7) -> PilotRecorder:
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Embedding(50, 16), torch.nn.Linear(16, 50))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    with PilotRecorder(out_dir, run_id="tiny", profile_wait=1, profile_active=2) as recorder:
        for i in range(steps):
            batch, seq_len = SHAPES[i % len(SHAPES)]
            x = torch.randint(0, 50, (batch, seq_len))
            with recorder.step(seq_len=seq_len, batch_size=batch):
                loss = torch.nn.functional.cross_entropy(model(x).flatten(0, 1), x.flatten())
                loss.backward()
                optimizer.step()
                optimizer.zero_grad()
            if i == 2:
                with recorder.checkpoint(out_dir / "ckpt.pt"):
                    torch.save(model.state_dict(), out_dir / "ckpt.pt")
    return recorder


@pytest.fixture(scope="module")
def recorded(tmp_path_factory) -> PilotRecorder:
    return train_tiny(tmp_path_factory.mktemp("pilot"))


def test_the_step_log_is_a_valid_pilot_log(recorded: PilotRecorder) -> None:
    log = read_step_log(recorded.step_log_path)
    assert log.rejected == ()
    steps = log.steps
    assert steps["step"].to_list() == list(range(7))
    expected = [SHAPES[i % 3] for i in range(7)]
    assert list(zip(steps["batch_size"], steps["seq_len"], strict=True)) == expected
    assert steps["tokens"].to_list() == [b * s for b, s in expected]
    assert (steps["wall_seconds"] > 0).all()
    assert steps["gpus"].to_list() == [1] * 7
    assert steps["peak_memory_bytes"].null_count() == 7  # CPU: no CUDA allocator to ask


def test_the_checkpoint_is_recorded_on_the_step_it_follows(recorded: PilotRecorder) -> None:
    steps = read_step_log(recorded.step_log_path).steps
    written = steps.filter(steps["checkpoint_bytes"].is_not_null())
    assert written["step"].to_list() == [2]
    assert written["checkpoint_bytes"].to_list() == [(recorded.out_dir / "ckpt.pt").stat().st_size]
    assert written["checkpoint_seconds"][0] > 0


def test_a_real_profiler_trace_is_written(recorded: PilotRecorder) -> None:
    assert recorded.trace_paths == [recorded.out_dir / "tiny.rank-0.pt.trace.json"]
    trace = orjson.loads(recorded.trace_paths[0].read_bytes())
    names = {e.get("name", "") for e in trace["traceEvents"]}
    # schedule wait=1, warmup=1, active=2: steps 2 and 3 are recorded
    assert {"ProfilerStep#2", "ProfilerStep#3"} <= names
    assert any(n.startswith("aten::") for n in names)
    shaped = [e for e in trace["traceEvents"] if "Input Dims" in e.get("args", {})]
    assert shaped, "record_shapes=True should write input shapes"


def test_the_cli_summarizes_the_recorded_log(recorded: PilotRecorder, cli, tmp_path) -> None:
    result = cli(
        "--ledger", str(tmp_path / "l.duckdb"), "pilot", str(recorded.step_log_path),
        "--shape-mix", "32=0.5", "--shape-mix", "16=0.25", "--shape-mix", "64=0.25", "--json",
    )  # fmt: skip
    assert result.code == 0, result.stderr
    payload = result.json()
    assert payload["steps"] == 7
    assert [(b["seq_len"], b["steps"]) for b in payload["buckets"]] == [(16, 2), (32, 3), (64, 2)]
    assert payload["checkpoint"]["writes"] == 1
    assert payload["shape_mix"]["worst_case"] == {
        "seq_len": 64, "batch_size": None, "fraction": 0.25, "measured": True,
    }  # fmt: skip


def test_misuse_is_reported(tmp_path: Path) -> None:
    recorder = PilotRecorder(tmp_path, run_id="x")
    with (
        pytest.raises(RuntimeError, match="as a context manager"),
        recorder.step(seq_len=1, batch_size=1),
    ):
        pass
    with (
        PilotRecorder(tmp_path, run_id="y", profile=False) as rec,
        pytest.raises(RuntimeError, match="call step\\(\\) first"),
        rec.checkpoint(tmp_path / "c"),
    ):
        pass


def test_a_failed_step_is_not_recorded(tmp_path: Path) -> None:
    with PilotRecorder(tmp_path, run_id="f", profile=False) as rec:
        with pytest.raises(ValueError), rec.step(seq_len=8, batch_size=2):
            raise ValueError("boom")
        with rec.step(seq_len=8, batch_size=2, tokens=10):
            pass
    lines = rec.step_log_path.read_bytes().splitlines()
    assert [orjson.loads(x)["tokens"] for x in lines] == [10]


def test_without_torch_the_module_imports_and_says_what_to_install(tmp_path: Path) -> None:
    probe = (
        "import sys\n"
        "sys.modules['torch'] = None\n"  # makes `import torch` fail as if it were absent
        "from trainbudget.pilot.recorder import PilotRecorder\n"
        "rec = PilotRecorder('out', run_id='r')\n"
        "try:\n"
        "    rec.__enter__()\n"
        "except ImportError as exc:\n"
        "    print(exc)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=tmp_path, check=True
    )
    assert "pip install 'trainbudget[torch]'" in proc.stdout


def test_the_trace_is_read_by_trainbudget_trace(recorded: PilotRecorder, cli, tmp_path) -> None:
    trace = recorded.trace_paths[0]
    result = cli("--ledger", str(tmp_path / "l.duckdb"), "trace", str(trace), "--json")
    assert result.code == 0, result.stderr
    payload = result.json()
    assert [r["rank"] for r in payload["ranks"]] == [0]
    assert [s["step"] for s in payload["steps"]][:2] == [2, 3]
