"""Benchmark `trainbudget trace` against HolisticTraceAnalysis 0.5.0 and the decode floor.

Builds two large inputs from the V100 fixture under bench/data/ (git-ignored): 8 ranks of
≥ 50 MB of JSON each (timestamps shifted, ranks rewritten) and one rank of ≥ 500 MB (the
fixture's events repeated with shifted times and fresh ids). Then, in one run, each of these in
its own process, timed and with the peak RSS of its whole process tree sampled:

- ours: `python -m trainbudget trace FILES --no-ledger --json` (end to end);
- HTA 0.5.0 in its own venv (created here on first use, pandas pinned to 2.2): load the
  traces, temporal breakdown and communication/computation overlap;
- the floor: gunzip + `orjson.loads` of the same files one after another.

Also measures the JSON decoding candidates on the fixture itself. Writes
bench/results/trace.json. Run: .venv/bin/python bench/trace_bench.py [--skip-hta]
"""

from __future__ import annotations

import argparse
import gzip
import os
import subprocess
import sys
import time
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

HTA_SCRIPT = """
import logging, sys
logging.disable(logging.WARNING)
from hta.trace_analysis import TraceAnalysis
files = dict(enumerate(sys.argv[1:]))
analysis = TraceAnalysis(trace_files=files, trace_dir="/")
analysis.get_temporal_breakdown(visualize=False)
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


def _write(path: Path, document: dict[str, Any]) -> int:
    # Indented like Kineto's own output, so sizes compare with real traces.
    raw = orjson.dumps(document, option=orjson.OPT_INDENT_2)
    with gzip.open(path, "wb", compresslevel=1) as handle:
        handle.write(raw)
    return len(raw)


def build_inputs() -> dict[str, Any]:
    """Create (once) the 8-rank set and the 500 MB rank; return their paths and JSON sizes."""
    DATA.mkdir(parents=True, exist_ok=True)
    ranks_dir, big = DATA / "ranks8", DATA / "big" / "rank0.json.gz"
    sizes_file = DATA / "sizes.json"
    if sizes_file.exists() and big.exists() and len(list(ranks_dir.glob("*.json.gz"))) == 8:
        return orjson.loads(sizes_file.read_bytes())
    with gzip.open(BASE, "rb") as handle:
        base = orjson.loads(handle.read())
    span_us = max(e["ts"] + e.get("dur", 0) for e in base["traceEvents"] if "ts" in e) - min(
        e["ts"] for e in base["traceEvents"] if "ts" in e
    )
    ranks_dir.mkdir(parents=True, exist_ok=True)
    sizes: dict[str, Any] = {"ranks8": [], "big": 0}
    for rank in range(8):
        document = {k: v for k, v in base.items() if k != "traceEvents"}
        document["distributedInfo"] = {"backend": "nccl", "rank": rank, "world_size": 8}
        document["traceEvents"] = [
            {**e, "ts": e["ts"] + rank * 37} if "ts" in e else e for e in base["traceEvents"]
        ]
        sizes["ranks8"].append(_write(ranks_dir / f"rank{rank}.json.gz", document))
    big.parent.mkdir(parents=True, exist_ok=True)
    document = {k: v for k, v in base.items() if k != "traceEvents"}
    document["distributedInfo"] = {"backend": "nccl", "rank": 0, "world_size": 1}
    one_copy = len(orjson.dumps(base["traceEvents"], option=orjson.OPT_INDENT_2))
    copies = -(-520_000_000 // one_copy)
    document["traceEvents"] = [
        e for copy in range(copies) for e in _shifted(base, copy, span_us + 1000, 0)
    ]
    sizes["big"] = _write(big, document)
    sizes_file.write_bytes(orjson.dumps(sizes))
    return sizes


def ensure_hta() -> Path:
    """A venv with HTA 0.5.0 and pandas 2.2 (HTA 0.5.0 fails on one fixture under pandas 3)."""
    python = HTA_VENV / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(HTA_VENV)], check=True)
        subprocess.run(
            [
                str(python),
                "-m",
                "pip",
                "install",
                "-q",
                "holistictraceanalysis==0.5.0",
                "pandas==2.2.*",
            ],
            check=True,
        )
    return python


def measure(argv: list[str]) -> dict[str, Any]:
    """Wall seconds and peak RSS (sum over the process tree, sampled every 20 ms) of a command."""
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
    if proc.returncode != 0:
        raise RuntimeError(f"{argv[:3]} failed: {proc.stderr.read().decode()[-2000:]}")
    return {"wall_seconds": round(wall, 3), "peak_rss_bytes": peak}


def decode_candidates() -> dict[str, float]:
    """Seconds to decode the 53.7 MB fixture by each candidate (best of 3, in this process)."""
    import duckdb
    import msgspec

    from trainbudget.trace.parse import _Event, read_trace

    raw = gzip.decompress(BASE.read_bytes())

    document = msgspec.defstruct("Document", [("traceEvents", list[_Event])])
    typed = msgspec.json.Decoder(document, strict=False)
    plain = DATA / "fixture.json"
    plain.write_bytes(raw)

    def best(fn, runs: int = 3) -> float:
        times = []
        for _ in range(runs):
            t = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t)
        return round(min(times), 3)

    # DuckDB with the needed fields named (its auto-detection trips on args having both
    # "bytes" and "Bytes"), reading the one big object and unnesting its array.
    columns = (
        "{'traceEvents': 'STRUCT(ph VARCHAR, cat VARCHAR, name VARCHAR, ts DOUBLE, dur DOUBLE)[]'}"
    )
    sql = (
        f"SELECT count(*) FROM (SELECT unnest(traceEvents) FROM read_json('{plain}', "
        f"columns={columns}, maximum_object_size=1000000000))"
    )

    def duckdb_read() -> None:
        duckdb.sql(sql).fetchall()

    return {
        "gunzip": best(lambda: gzip.decompress(BASE.read_bytes())),
        "orjson_loads": best(lambda: orjson.loads(raw)),
        "msgspec_typed_structs": best(lambda: typed.decode(raw)),
        "duckdb_read_json_unnest": best(duckdb_read, runs=1),
        "ours_read_trace_gz_blocks": best(lambda: read_trace(BASE)),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--skip-hta", action="store_true")
    args = parser.parse_args()
    sizes = build_inputs()
    inputs = {
        "ranks8": sorted(str(p) for p in (DATA / "ranks8").glob("*.json.gz")),
        "big": [str(DATA / "big" / "rank0.json.gz")],
    }
    json_bytes = {"ranks8": sum(sizes["ranks8"]), "big": sizes["big"]}
    results: dict[str, Any] = {"inputs": {}, "decode_candidates_seconds": decode_candidates()}
    hta_python = None if args.skip_hta else ensure_hta()
    for name, files in inputs.items():
        ours = measure(
            [sys.executable, "-m", "trainbudget", "trace", *files, "--no-ledger", "--json"]
        )
        floor = measure([sys.executable, "-c", FLOOR_SCRIPT, *files])
        entry: dict[str, Any] = {
            "files": len(files),
            "json_bytes": json_bytes[name],
            "ours": ours,
            "floor_gunzip_orjson": floor,
            "ours_over_floor": round(ours["wall_seconds"] / floor["wall_seconds"], 3),
            "ours_rss_over_json": round(ours["peak_rss_bytes"] / json_bytes[name], 3),
        }
        if hta_python is not None:
            hta = measure([str(hta_python), "-c", HTA_SCRIPT, *files])
            entry["hta_0_5_0"] = hta
            entry["hta_over_ours"] = round(hta["wall_seconds"] / ours["wall_seconds"], 2)
            entry["hta_rss_over_json"] = round(hta["peak_rss_bytes"] / json_bytes[name], 3)
        results["inputs"][name] = entry
        print(name, orjson.dumps(entry).decode(), flush=True)
    path = write_result("trace", {"cpu_load_note": os.getloadavg(), **results})
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
