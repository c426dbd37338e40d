"""Benchmark `trainbudget trace` against HolisticTraceAnalysis 0.5.0 and the decode floor.

Builds two inputs from the V100 DDP fixture under bench/data/ (git-ignored): 8 ranks that are
byte copies of its 53.7 MB of JSON with `distributedInfo.rank` renumbered (gzip level 6), and
one rank of about 522 MB (the fixture's events repeated with shifted times and fresh ids). Then,
in one run, each command in its own process, timed with the peak RSS of its process tree:

- ours: `python -m trainbudget trace FILES --no-ledger --json` (end to end);
- the floor: gunzip + `orjson.loads` of the same files one after another, in one process;
- HTA 0.5.0 in its own venv (pandas 2.2.3): load the traces, then the temporal, kernel-type
  and communication/computation overlap breakdowns.

Ours and the floor run interleaved (ours, floor, ours, floor, …) and the medians are kept, so
the ratio is measured under the same load. Also records where one rank's time goes (inflate,
decode, columns, summary) and the decoding candidates on the fixture. Writes
bench/results/trace.json. Run: .venv/bin/python bench/trace_bench.py [--skip-hta] [--pairs N]
[--big-pairs N].
HTA's venv: $TRAINBUDGET_HTA_PYTHON, else bench/data/hta-venv (created on first use).
"""

from __future__ import annotations

import argparse
import gzip
import os
import statistics
import subprocess
import sys
import time
import zlib
from pathlib import Path
from typing import Any

import orjson
import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import write_result

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "bench" / "data" / "trace"
FIXTURES = REPO / "tests" / "fixtures"
BASE = FIXTURES / "traces" / "hta_df_index_resolver_v100_ddp" / "df_index_resolver.json.gz"
HTA_VENV = REPO / "bench" / "data" / "hta-venv"
BIG_JSON_BYTES = 522_000_000
RANK_TEXT = b'"distributedInfo": {"backend": "nccl", "rank": 1, "world_size": 2}'

HTA_SCRIPT = """
import logging, sys
logging.disable(logging.WARNING)
from hta.trace_analysis import TraceAnalysis
files = dict(enumerate(sys.argv[1:]))
analysis = TraceAnalysis(trace_files=files, trace_dir="/")
analysis.get_temporal_breakdown(visualize=False)
analysis.get_gpu_kernel_breakdown(visualize=False)
analysis.get_comm_comp_overlap(visualize=False)
"""

FLOOR_SCRIPT = """
import gzip, sys, orjson
for name in sys.argv[1:]:
    with gzip.open(name, "rb") as handle:
        document = orjson.loads(handle.read())
    del document
"""


def _shifted(trace: dict[str, Any], copy: int, shift_us: int, rank: int) -> list[dict]:
    """The events of `trace` shifted by copy·shift_us, with ids and step numbers made unique."""
    events = []
    for event in trace["traceEvents"]:
        e = dict(event)
        if "ts" in e:
            e["ts"] = e["ts"] + copy * shift_us
        if copy and isinstance(e.get("args"), dict):
            args = dict(e["args"])
            for key in ("correlation", "External id"):
                if isinstance(args.get(key), int) and args[key] >= 0:
                    args[key] = args[key] + copy * 10**8
            e["args"] = args
        if copy and isinstance(e.get("id"), int):
            e["id"] = e["id"] + copy * 10**8
        name = e.get("name", "")
        if copy and isinstance(name, str) and name.startswith("ProfilerStep#"):
            e["name"] = f"ProfilerStep#{int(name.split('#')[1]) + copy * 100}"
        if e.get("pid") == 1 and rank:  # GPU lanes are keyed by device id
            e["pid"] = rank
        events.append(e)
    return events


def _gzip(path: Path, raw: bytes) -> int:
    path.write_bytes(gzip.compress(raw, compresslevel=6, mtime=0))
    return len(raw)


def build_inputs() -> dict[str, Any]:
    """Create (once) the 8-rank set and the ~522 MB rank; return their JSON sizes."""
    DATA.mkdir(parents=True, exist_ok=True)
    ranks_dir, big = DATA / "ranks8", DATA / "big" / "rank0.json.gz"
    sizes_file = DATA / "sizes.json"
    if sizes_file.exists():
        sizes = orjson.loads(sizes_file.read_bytes())
        if big.exists() and len(list(ranks_dir.glob("*.json.gz"))) == 8 and "v" in sizes:
            return sizes
    raw = gzip.decompress(BASE.read_bytes())
    assert raw.count(RANK_TEXT) == 1, "the fixture's distributedInfo changed"
    ranks_dir.mkdir(parents=True, exist_ok=True)
    for old in ranks_dir.glob("*.json.gz"):
        old.unlink()
    sizes: dict[str, Any] = {"v": 2, "ranks8": [], "big": 0}
    for rank in range(8):
        info = b'"distributedInfo": {"backend": "nccl", "rank": %d, "world_size": 8}' % rank
        text = raw.replace(RANK_TEXT, info)
        sizes["ranks8"].append(_gzip(ranks_dir / f"rank{rank}.json.gz", text))
    base = orjson.loads(raw)
    span_us = max(e["ts"] + e.get("dur", 0) for e in base["traceEvents"] if "ts" in e) - min(
        e["ts"] for e in base["traceEvents"] if "ts" in e
    )
    big.parent.mkdir(parents=True, exist_ok=True)
    head = {k: v for k, v in base.items() if k != "traceEvents"}
    head["distributedInfo"] = {"backend": "nccl", "rank": 0, "world_size": 1}
    # One event a line, until the size is reached (the last copy is cut at an event).
    lines, total, copy = [], 0, 0
    while total < BIG_JSON_BYTES:
        for event in _shifted(base, copy, span_us + 1000, 0):
            lines.append(orjson.dumps(event))
            total += len(lines[-1]) + 4
            if total >= BIG_JSON_BYTES:
                break
        copy += 1
    pieces = [orjson.dumps(head)[:-1], b', "traceEvents": [\n  ', b",\n  ".join(lines), b"\n]}\n"]
    sizes["big"] = _gzip(big, b"".join(pieces))
    sizes_file.write_bytes(orjson.dumps(sizes))
    return sizes


def ensure_hta() -> Path:
    """$TRAINBUDGET_HTA_PYTHON, else a venv with HTA 0.5.0 and pandas 2.2.3 made on first use."""
    given = os.environ.get("TRAINBUDGET_HTA_PYTHON")
    if given:
        return Path(given)
    python = HTA_VENV / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(HTA_VENV)], check=True)
        packages = ["holistictraceanalysis==0.5.0", "pandas==2.2.3"]
        subprocess.run([str(python), "-m", "pip", "install", "-q", *packages], check=True)
    return python


def measure(argv: list[str]) -> dict[str, Any]:
    """Wall and CPU seconds and peak RSS (process tree, sampled every 20 ms) of a command."""
    before = os.times()
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=REPO)
    root = psutil.Process(proc.pid)
    peak = 0
    while proc.poll() is None:
        try:
            tree = [root, *root.children(recursive=True)]
            peak = max(peak, sum(p.memory_info().rss for p in tree if p.is_running()))
        except psutil.Error:
            pass
        time.sleep(0.02)
    wall = time.perf_counter() - start
    after = os.times()
    if proc.returncode != 0:
        raise RuntimeError(f"{argv[:3]} failed: {proc.stderr.read().decode()[-2000:]}")
    cpu = (after.children_user - before.children_user) + (
        after.children_system - before.children_system
    )
    return {"wall_seconds": round(wall, 3), "cpu_seconds": round(cpu, 3), "peak_rss_bytes": peak}


def _best(fn: Any, runs: int = 3) -> float:
    """Least CPU seconds (all threads of this process) of `runs` calls: steadier than wall."""
    times = []
    for _ in range(runs):
        t = time.process_time()
        fn()
        times.append(time.process_time() - t)
    return round(min(times), 3)


def stages() -> dict[str, Any]:
    """Where one rank's CPU time goes (the 53.7 MB fixture, best of 3, in this process)."""
    import msgspec

    from trainbudget.trace import inflate
    from trainbudget.trace.parse import _Event, read_trace
    from trainbudget.trace.summary import summarize_events

    compressed = BASE.read_bytes()
    raw = zlib.decompress(compressed, 31)
    document = msgspec.defstruct("Document", [("traceEvents", list[_Event])])
    typed = msgspec.json.Decoder(document, strict=False)
    skip = msgspec.json.Decoder(msgspec.defstruct("Skim", [("traceEvents", list[msgspec.Raw])]))
    events = read_trace(BASE)
    seconds = {
        "inflate_zlib": _best(lambda: zlib.decompress(compressed, 31)),
        "orjson_loads": _best(lambda: orjson.loads(raw)),
        "msgspec_typed_structs_whole": _best(lambda: typed.decode(raw)),
        "msgspec_skim_raw_events": _best(lambda: skip.decode(raw)),
        "ours_read_trace": _best(lambda: read_trace(BASE)),
        "ours_summarize_events": _best(lambda: summarize_events(events)),
    }
    if inflate.INFLATE_LIBRARY == "isal":
        from isal import isal_zlib

        seconds["inflate_isal"] = _best(lambda: isal_zlib.decompress(compressed, 31))
    return {"json_bytes": len(raw), "inflate_library": inflate.INFLATE_LIBRARY, **seconds}


def _median(runs: list[dict[str, Any]]) -> dict[str, Any]:
    keys = ("wall_seconds", "cpu_seconds", "peak_rss_bytes")
    middle = {k: statistics.median(r[k] for r in runs) for k in keys}
    return {**middle, "runs": runs}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--skip-hta", action="store_true")
    parser.add_argument("--pairs", type=int, default=3, help="ours/floor pairs, 8 ranks")
    parser.add_argument("--big-pairs", type=int, default=2, help="ours/floor pairs, big rank")
    args = parser.parse_args()
    sizes = build_inputs()
    inputs = {
        "ranks8": sorted(str(p) for p in (DATA / "ranks8").glob("*.json.gz")),
        "big": [str(DATA / "big" / "rank0.json.gz")],
    }
    json_bytes = {"ranks8": sum(sizes["ranks8"]), "big": sizes["big"]}
    results: dict[str, Any] = {"stages_one_rank_cpu_seconds": stages(), "inputs": {}}
    hta_python = None if args.skip_hta else ensure_hta()
    load_before = os.getloadavg()
    for name, files in inputs.items():
        ours_runs, floor_runs = [], []
        for _ in range(args.pairs if name == "ranks8" else args.big_pairs):
            ours_runs.append(
                measure(
                    [sys.executable, "-m", "trainbudget", "trace", *files, "--no-ledger", "--json"]
                )
            )
            floor_runs.append(measure([sys.executable, "-c", FLOOR_SCRIPT, *files]))
        ours, floor = _median(ours_runs), _median(floor_runs)
        entry: dict[str, Any] = {
            "files": len(files),
            "json_bytes": json_bytes[name],
            "ours": ours,
            "floor_gunzip_orjson": floor,
            "ours_over_floor": round(ours["wall_seconds"] / floor["wall_seconds"], 3),
            "ours_over_floor_per_pair": [
                round(o["wall_seconds"] / f["wall_seconds"], 3)
                for o, f in zip(ours_runs, floor_runs, strict=True)
            ],
            "ours_cpu_over_floor_cpu": round(ours["cpu_seconds"] / floor["cpu_seconds"], 3),
            "ours_rss_over_json": round(ours["peak_rss_bytes"] / json_bytes[name], 3),
        }
        if hta_python is not None:
            hta = measure([str(hta_python), "-c", HTA_SCRIPT, *files])
            entry["hta_0_5_0"] = hta
            entry["hta_over_ours"] = round(hta["wall_seconds"] / ours["wall_seconds"], 2)
            entry["hta_cpu_over_ours_cpu"] = round(hta["cpu_seconds"] / ours["cpu_seconds"], 2)
            entry["hta_rss_over_json"] = round(hta["peak_rss_bytes"] / json_bytes[name], 3)
        results["inputs"][name] = entry
        print(name, orjson.dumps(entry).decode(), flush=True)
    note = {"load_average_before": load_before, "load_average_after": os.getloadavg()}
    path = write_result("trace", {"cpu_load_note": note, **results})
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
