"""Inputs too big, binary or special for git, made on demand: each NAME(folder) -> path.

Deterministic (fixed seeds, gzip mtime 0). Large outputs (bombs) are cached once per session
in a private temporary folder and only read by the cases; small ones are written to the case's
own folder. Sizes are stated in each docstring.
"""

from __future__ import annotations

import gzip
import os
import random
import tempfile
import zlib
from functools import cache
from pathlib import Path

HERE = Path(__file__).resolve().parent
INPUTS = HERE / "inputs"
MIB = 1 << 20


@cache
def _cache_dir() -> Path:
    return Path(tempfile.mkdtemp(prefix="trainbudget-corpus-"))


def _gzip_member(payload: bytes) -> bytes:
    """One gzip member (RFC 1952) of payload, mtime 0."""
    return gzip.compress(payload, compresslevel=9, mtime=0)


def _zeros_member(size: int) -> bytes:
    """One gzip member of `size` zero bytes, compressed in 1 MiB pieces (no big buffer)."""
    squash = zlib.compressobj(9, zlib.DEFLATED, 31)
    chunk = bytes(MIB)
    parts = [squash.compress(chunk) for _ in range(size // MIB)]
    return b"".join(parts) + squash.flush()


@cache
def _bomb(name: str, head: bytes, fill: int, body_byte: bytes, tail: bytes) -> Path:
    path = _cache_dir() / name
    member = _zeros_member(64 * MIB) if body_byte == b"\0" else None
    with path.open("wb") as out:
        out.write(_gzip_member(head))
        if member is not None:
            for _ in range(fill // (64 * MIB)):
                out.write(member)
        else:
            piece = _gzip_member(body_byte * (64 * MIB))
            for _ in range(fill // (64 * MIB)):
                out.write(piece)
        out.write(_gzip_member(tail))
    return path


def gzip_bomb(folder: Path) -> Path:
    """~1 MB .json.gz that inflates to 1 GiB of zero bytes after a trace's first bytes."""
    return _bomb("bomb.pt.trace.json.gz", b'{"traceEvents": [', 1 << 30, b"\0", b"]}")


def whitespace_bomb(folder: Path) -> Path:
    """~1 MB .json.gz: 1 GiB of spaces inside `traceEvents` (valid JSON, an empty list)."""
    return _bomb("spaces.pt.trace.json.gz", b'{"traceEvents": [', 1 << 30, b" ", b"]}")


def binary_blob(folder: Path) -> Path:
    """64 KiB of seeded random bytes."""
    path = folder / "blob.bin"
    path.write_bytes(random.Random(15).randbytes(64 * 1024))
    return path


def binary_plan(folder: Path) -> Path:
    """64 KiB of random bytes named plan.yaml."""
    path = folder / "plan.yaml"
    path.write_bytes(random.Random(16).randbytes(64 * 1024))
    return path


def binary_sacct(folder: Path) -> Path:
    """A sacct header, then 64 KiB of random bytes."""
    path = folder / "binary.psv"
    head = (INPUTS / "sacct" / "header_only.psv").read_bytes()
    path.write_bytes(head + random.Random(17).randbytes(64 * 1024))
    return path


def binary_progress(folder: Path) -> Path:
    """64 KiB of random bytes named progress.jsonl."""
    path = folder / "progress.jsonl"
    path.write_bytes(random.Random(18).randbytes(64 * 1024))
    return path


def binary_pilot(folder: Path) -> Path:
    """64 KiB of random bytes named steps.csv."""
    path = folder / "steps.csv"
    path.write_bytes(random.Random(19).randbytes(64 * 1024))
    return path


def sacct_long_line(folder: Path) -> Path:
    """A good sacct export plus one 3 MB line (a JobName of 3,000,000 'x')."""
    path = folder / "long.psv"
    good = (INPUTS / "sacct" / "good.psv").read_text()
    long_row = (
        good.splitlines()[1]
        .replace("|train|", "|" + "x" * 3_000_000 + "|")
        .replace("601|601", "602|602")
    )
    path.write_text(good + long_row + "\n")
    return path


def deep_plan(folder: Path) -> Path:
    """A plan whose `main` is nested 5,000 flow mappings deep (10 KB)."""
    path = folder / "deep.yaml"
    path.write_text("campaign: deep\nmain: " + "{a: " * 5000 + "1" + "}" * 5000 + "\n")
    return path


def deep_list_plan(folder: Path) -> Path:
    """A plan with a 100,000-deep nested flow sequence (200 KB)."""
    path = folder / "deep-list.yaml"
    path.write_text("campaign: deep\npilots: " + "[" * 100_000 + "]" * 100_000 + "\n")
    return path


def oversize_plan(folder: Path) -> Path:
    """A valid plan padded with 40 MB of comment lines."""
    path = folder / "huge.yaml"
    line = "# " + "padding " * 12 + "\n"
    with path.open("w") as out:
        out.write((INPUTS / "plan" / "good.yaml").read_text())
        out.write(line * (40 * MIB // len(line)))
    return path


def deep_json(folder: Path) -> Path:
    """An sacct --json whose `jobs` is nested 100,000 lists deep."""
    path = folder / "deep.json"
    path.write_text('{"jobs": ' + "[" * 100_000 + "]" * 100_000 + "}")
    return path


def deep_trace(folder: Path) -> Path:
    """A trace whose first event is nested 100,000 lists deep."""
    path = folder / "deep.pt.trace.json"
    path.write_text('{"traceEvents": [' + "[" * 100_000 + "]" * 100_000 + "]}")
    return path


def fifo(folder: Path) -> Path:
    """A named pipe nobody writes to: reading it blocks for ever."""
    path = folder / "pipe.psv"
    os.mkfifo(path)
    return path


def fifo_plan(folder: Path) -> Path:
    """A named pipe called plan.yaml."""
    path = folder / "plan.yaml"
    os.mkfifo(path)
    return path


def glob_names(folder: Path) -> Path:
    """`week*.psv` (job 601, 1 GPU-hour) beside `week1.psv` (job 602, 8 GPU-hours): the
    literal name must read only the first."""
    good = (INPUTS / "sacct" / "good.psv").read_text()
    (folder / "week*.psv").write_text(good)
    (folder / "week1.psv").write_text(
        good.replace("601|601", "602|602").replace("gres/gpu=1", "gres/gpu=8")
    )
    return folder / "week*.psv"


def bracket_name(folder: Path) -> Path:
    """`week[1].psv` (job 601) beside `week1.psv` (job 602)."""
    good = (INPUTS / "sacct" / "good.psv").read_text()
    (folder / "week[1].psv").write_text(good)
    (folder / "week1.psv").write_text(good.replace("601|601", "602|602"))
    return folder / "week[1].psv"


def question_name(folder: Path) -> Path:
    """A plan named `plan?.yaml` beside `plan1.yaml` with a different campaign."""
    good = (INPUTS / "plan" / "good.yaml").read_text()
    (folder / "plan?.yaml").write_text(good)
    (folder / "plan1.yaml").write_text(good.replace("campaign: demo-7b", "campaign: other"))
    return folder / "plan?.yaml"


def parquet_missing_column(folder: Path) -> Path:
    """A Parquet step log without `wall_seconds`."""
    return _parquet(folder / "missing.parquet", drop="wall_seconds")


def parquet_negative_wall(folder: Path) -> Path:
    """A Parquet step log whose last step has wall_seconds -3.5."""
    return _parquet(folder / "negative.parquet", last={"wall_seconds": -3.5})


def parquet_nan_wall(folder: Path) -> Path:
    """A Parquet step log whose last step has wall_seconds NaN."""
    return _parquet(folder / "nan.parquet", last={"wall_seconds": float("nan")})


def parquet_text_wall(folder: Path) -> Path:
    """A Parquet step log whose wall_seconds column is text."""
    return _parquet(folder / "text.parquet", cast_text="wall_seconds")


def _parquet(path: Path, drop: str | None = None, last: dict | None = None,
             cast_text: str | None = None) -> Path:  # fmt: skip
    import polars as pl

    frame = pl.read_csv(INPUTS / "pilot" / "good.csv")
    if last:
        extra = frame.tail(1).with_columns(
            pl.col("step") + 1, *[pl.lit(v).alias(k) for k, v in last.items()]
        )
        frame = pl.concat([frame, extra], how="vertical_relaxed")
    if cast_text:
        frame = frame.with_columns(pl.col(cast_text).cast(pl.Utf8) + " s")
    if drop:
        frame = frame.drop(drop)
    frame.write_parquet(path)
    return path


def _nested_objects_trace(folder: Path, depth: int) -> Path:
    path = folder / f"objects{depth}.pt.trace.json"
    nested = '{"a": ' * depth + "1" + "}" * depth
    event = '{"ph": "X", "name": "k", "ts": 1, "dur": 2, "args": {"x": ' + nested + "}}"
    path.write_text('{"traceEvents": [' + event + "]}")
    return path


def objects_1100_deep_trace(folder: Path) -> Path:
    """A trace whose one event carries JSON objects nested 1,100 deep (issue 23)."""
    return _nested_objects_trace(folder, 1100)


def objects_500_deep_trace(folder: Path) -> Path:
    """The same at 500 deep: accepted."""
    return _nested_objects_trace(folder, 500)


@cache
def _reconciled_ledger() -> bytes:
    """The bytes of a ledger with the example week reconciled (about 2.9 MB, 11 blocks)."""
    import subprocess
    import sys

    folder = _cache_dir() / "reconciled-ledger"
    folder.mkdir(exist_ok=True)
    ledger = folder / "ledger.duckdb"
    examples = HERE.parents[1] / "examples" / "reconcile"
    subprocess.run(
        [sys.executable, "-m", "trainbudget", "--ledger", str(ledger), "reconcile", "--sacct",
         str(examples / "sacct.psv"), "--registry", str(examples / "registry.csv"), "--json"],
        check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    return ledger.read_bytes()


def half_ledger(folder: Path) -> Path:
    """A reconciled ledger cut to half its size (a copy that stopped half-way)."""
    data = _reconciled_ledger()
    path = folder / "half.duckdb"
    path.write_bytes(data[: len(data) // 2])
    return path


def scribbled_ledger(folder: Path) -> Path:
    """A reconciled ledger of its full size whose blocks after the first three each have 2,000
    bytes overwritten with 0xff (checksums no longer match)."""
    data = bytearray(_reconciled_ledger())
    block = 262_144
    for start in range(12_288 + 3 * block + 100, len(data), block):
        data[start : start + 2000] = b"\xff" * 2000
    path = folder / "scribbled.duckdb"
    path.write_bytes(bytes(data))
    return path


def pilot_long_run_id(folder: Path) -> Path:
    """A good step log plus one row whose run_id is 900,000 characters (900 KB)."""
    path = folder / "long-run-id.csv"
    good = (INPUTS / "pilot" / "good.csv").read_text()
    row = good.splitlines()[1].replace("pilot-a", "p" * 900_000, 1)
    path.write_text(good + row + "\n")
    return path


def plan_long_pilot_name(folder: Path) -> Path:
    """The good plan with its pilot named by 900,000 characters (900 KB, under the 1 MiB plan
    limit)."""
    path = folder / "long-pilot-name.yaml"
    good = (INPUTS / "plan" / "good.yaml").read_text()
    path.write_text(good.replace("name: lr-sweep", "name: " + "p" * 900_000))
    return path
