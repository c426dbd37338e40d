"""Benchmark: how fast and small trainbudget refuses hostile inputs (plans and traces).

Generates each bomb into a temp folder, runs the CLI on it in its own process, and records wall
seconds, peak RSS (of that process, from wait4), the exit code and the one stderr line:
  plan_billion_laughs     9 anchors of 9 aliases each (9^9 ≈ 3.9e8 expanded nodes)
  plan_alias_1e7_unknown  10^7 expanded nodes under an unknown key
  plan_deep_5000          a flow sequence nested 5,000 deep
  plan_binary, plan_latin1, plan_2mib   a binary file, a non-UTF-8 file, a file over 1 MiB
  trace_gzip_zeros_1gib   1 MiB of gzip that inflates to 1 GiB of zeros
  trace_whitespace_1gib   `{"traceEvents": [` + 1 GiB of spaces + `]}`, gzipped
  trace_over_limit        well-formed events inflating past the 2 GiB default limit (gzip members)
  trace_empty_events      `{"traceEvents": []}`
  baseline_good_plan      a good plan (exit 0): the interpreter's start-up and the CLI's imports
Every bomb must exit 2 with one `trainbudget: error:` line. Usage: python bench/bombs_bench.py
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import write_result

GOOD_PLAN = """\
campaign: bomb
unit_of_progress: tokens
prices: {gpu_hour_usd: 2.40, storage_gb_month_usd: 0.023}
ceiling: {gpu_hours: 2000}
main: {gpus: 8, hours: 120}
"""
GIB = 1 << 30


def _alias_bomb(levels: int, width: int, key: str) -> str:
    lines = [f"{key}:", "  l0: &l0 [" + ", ".join(['"lol"'] * width) + "]"]
    for level in range(1, levels):
        lines.append(f"  l{level}: &l{level} [" + ", ".join([f"*l{level - 1}"] * width) + "]")
    return GOOD_PLAN + "\n".join(lines) + "\n"


def _gzip(path: Path, parts: list[tuple[bytes, int]]) -> None:
    """Write one gzip member of `data * times` for each (data, times) part."""
    with path.open("wb") as out:
        for data, times in parts:
            deflate = zlib.compressobj(9, zlib.DEFLATED, 31)
            for _ in range(times):
                out.write(deflate.compress(data))
            out.write(deflate.flush())


def generate(folder: Path) -> dict[str, list[str]]:
    """Write every bomb into `folder`; return case name -> CLI arguments."""
    files = {
        "plan_billion_laughs.yaml": _alias_bomb(9, 9, "x_laughs").encode(),
        "plan_alias_1e7_unknown.yaml": _alias_bomb(7, 10, "not_a_section").encode(),
        "plan_deep_5000.yaml": (GOOD_PLAN + "x: " + "[" * 5000 + "]" * 5000 + "\n").encode(),
        "plan_binary.yaml": bytes(range(256)) * 16,
        "plan_latin1.yaml": (GOOD_PLAN + "# caf\xe9\n").encode("latin-1"),
        "plan_2mib.yaml": (GOOD_PLAN + ("# padding" + " " * 90 + "\n") * 21_000).encode(),
        "trace_empty_events.json": b'{"traceEvents": []}',
        "baseline_good_plan.yaml": GOOD_PLAN.encode(),
    }
    for name, data in files.items():
        (folder / name).write_bytes(data)
    mib = 1 << 20
    _gzip(folder / "trace_gzip_zeros_1gib.json.gz", [(b"\0" * mib, GIB // mib)])
    _gzip(
        folder / "trace_whitespace_1gib.json.gz",
        [(b'{"traceEvents": [', 1), (b" " * mib, GIB // mib), (b"]}", 1)],
    )
    # Past the limit: 2 GiB + 64 MiB of small metadata events, as one compressed member of
    # 1 MiB of events written again and again (concatenated gzip members are one stream).
    event = b'{"ph": "M", "name": "pad", "args": {"v": "' + b"x" * 4000 + b'"}},'
    body = event * (mib // len(event))
    with (folder / "trace_over_limit.json.gz").open("wb") as out:
        out.write(zlib.compress(b'{"traceEvents": [', wbits=31))
        member = zlib.compress(body, 9, wbits=31)
        for _ in range((2 * GIB) // len(body) + 64):
            out.write(member)
        out.write(zlib.compress(event[:-1] + b"]}", wbits=31))
    cases = {
        n.split(".")[0]: ["campaign", str(folder / n)]
        for n in files
        if n.startswith(("plan", "baseline"))
    }
    for name in ("trace_empty_events.json", "trace_gzip_zeros_1gib.json.gz"):
        cases[name.split(".")[0]] = ["trace", str(folder / name), "--no-ledger"]
    for name in ("trace_whitespace_1gib.json.gz", "trace_over_limit.json.gz"):
        cases[name.split(".")[0]] = ["trace", str(folder / name), "--no-ledger"]
    return cases


def run(argv: list[str]) -> dict[str, object]:
    """Run the CLI once; wall seconds, peak RSS bytes (this process only), exit code, stderr."""
    env = {**os.environ, "PREFECT_SERVER_ANALYTICS_ENABLED": "false", "DO_NOT_TRACK": "1"}
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "trainbudget", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    stdout, stderr = proc.stdout.read(), proc.stderr.read()  # type: ignore[union-attr]
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    lines = stderr.decode(errors="replace").splitlines()
    return {
        "seconds": round(seconds, 3),
        "peak_rss_bytes": usage.ru_maxrss * 1024,
        "exit_code": proc.returncode,
        "stdout_bytes": len(stdout),
        "stderr": lines[0] if len(lines) == 1 else lines,
    }


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="bombs-") as tmp:
        folder = Path(tmp)
        start = time.perf_counter()
        cases = generate(folder)
        generated = time.perf_counter() - start
        sizes = {p.name: p.stat().st_size for p in sorted(folder.iterdir())}
        results = {}
        for name, argv in cases.items():
            results[name] = run(argv)
            print(name, results[name], flush=True)
    failed = [
        n
        for n, r in results.items()
        if not n.startswith("baseline")
        and (
            r["exit_code"] != 2
            or r["stdout_bytes"]
            or not str(r["stderr"]).startswith("trainbudget: error:")
        )
    ]
    if results["baseline_good_plan"]["exit_code"] != 0:
        failed.append("baseline_good_plan")
    path = write_result(
        "bombs",
        {
            "load_average_after": [round(x, 2) for x in os.getloadavg()],
            "generate_seconds": round(generated, 1),
            "file_bytes": sizes,
            "cases": results,
            "failed": failed,
        },
    )
    print(f"wrote {path}; failed: {failed or 'none'}")
    if failed:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
