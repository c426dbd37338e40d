"""Bounded work on traces (issue 15): refused as soon as a limit is passed, in linear time.

The module's sizes are patched down (READ_BYTES, MAX_PIECE_BYTES) so each bomb is small here;
bench/bombs_bench.py runs the full-size ones through the command line.
"""

from __future__ import annotations

import gzip
import tempfile
import time
import zlib
from pathlib import Path

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trainbudget.base.errors import InputError
from trainbudget.trace import source
from trainbudget.trace.inflate import Inflater
from trainbudget.trace.parse import read_trace

KIB = 1 << 10
MIB = 1 << 20
EVENT = {"ph": "X", "cat": "kernel", "name": "k", "ts": 1, "dur": 1, "args": {"correlation": 1}}


@pytest.fixture
def small(monkeypatch):
    """4 KiB reads, 16 KiB blocks, 64 KiB pieces; returns the Inflaters the reads used."""
    monkeypatch.setattr(source, "READ_BYTES", 4 * KIB)
    monkeypatch.setattr(source, "BLOCK_BYTES", 16 * KIB)
    monkeypatch.setattr(source, "MAX_PIECE_BYTES", 64 * KIB)
    made: list[Inflater] = []

    class Counting(Inflater):
        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, **kwargs)
            made.append(self)

    monkeypatch.setattr(source, "Inflater", Counting)
    return made


def _gz(path: Path, *parts: bytes) -> Path:
    path.write_bytes(gzip.compress(b"".join(parts), compresslevel=1))
    return path


@pytest.mark.parametrize(
    "content",
    [
        b'{"traceEvents": []}',
        b'{"traceEvents": [  \n\t ]}',
        b'{"schemaVersion": 1, "traceEvents":[]}',
    ],
)
def test_empty_trace_events_is_refused(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "empty.json"
    path.write_bytes(content)
    with pytest.raises(InputError, match=r"empty\.json: refused: traceEvents is empty"):
        read_trace(path)


def test_zeros_bomb_stops_after_one_piece_of_header(tmp_path: Path, small) -> None:
    path = _gz(tmp_path / "zeros.json.gz", b"\0" * (64 * MIB))
    with pytest.raises(InputError, match=r"no traceEvents array in its first 65,536 decompressed"):
        read_trace(path)
    assert small[0].total <= 64 * KIB + 2 * 4 * KIB  # not the 64 MiB it inflates to


def test_whitespace_in_trace_events_is_refused_at_the_bound(tmp_path: Path, small) -> None:
    path = _gz(tmp_path / "ws.json.gz", b'{"traceEvents": [', b" " * (64 * MIB), b"]}")
    with pytest.raises(InputError, match=r"ws\.json\.gz: refused: traceEvents holds more than "
                       r"65,536 bytes of whitespace and no event"):  # fmt: skip
        read_trace(path)
    assert small[0].total <= (16 + 64 + 8) * KIB


def test_whitespace_below_the_bound_is_still_empty(tmp_path: Path, small) -> None:
    path = _gz(tmp_path / "ws.json.gz", b'{"traceEvents": [', b" " * (8 * KIB), b"]}")
    with pytest.raises(InputError, match=r"refused: traceEvents is empty"):
        read_trace(path)


def test_one_event_longer_than_the_bound(tmp_path: Path, small) -> None:
    big = orjson.dumps({**EVENT, "name": "x" * (256 * KIB)})
    path = _gz(tmp_path / "long.json.gz", b'{"traceEvents": [', big, b",", big, b"]}")
    with pytest.raises(InputError, match=r"refused: no event boundary in 65,536 bytes"):
        read_trace(path)


def test_keys_after_the_events_longer_than_the_bound(tmp_path: Path, small) -> None:
    events = orjson.dumps([EVENT] * 50)[1:-1]
    info = orjson.dumps([{"k": i} for i in range(20_000)])  # ~200 KiB of `}, {` after the array
    path = _gz(tmp_path / "tail.json.gz", b'{"traceEvents": [', events, b'], "INFO": ', info, b"}")
    with pytest.raises(InputError, match=r"refused: the keys after the traceEvents array take"):
        read_trace(path)


def test_the_same_trace_within_the_bounds_reads(tmp_path: Path, small) -> None:
    events = [{**EVENT, "ts": i, "args": {"correlation": i, "stream": 7}} for i in range(3000)]
    doc = {"schemaVersion": 1, "traceEvents": events, "INFO": [{"k": i} for i in range(100)]}
    path = _gz(tmp_path / "ok.json.gz", orjson.dumps(doc))
    result = read_trace(path)
    assert result.event_count == 3000 and result.gpu_corr.tolist() == list(range(3000))
    assert result.meta["INFO"] == doc["INFO"]


def test_decompression_limit_refuses_as_soon_as_it_is_passed(tmp_path: Path, small) -> None:
    events = orjson.dumps([EVENT] * 200_000)  # ~14 MB
    path = _gz(tmp_path / "big.json.gz", b'{"traceEvents": ', events, b"}")
    expected = (
        r"refused: decompresses to more than 1,000,000 bytes "
        r"\(raise the limit with --max-json-bytes or \$TRAINBUDGET_TRACE_MAX_BYTES\)"
    )
    with pytest.raises(InputError, match=expected):
        read_trace(path, max_json_bytes=1_000_000)
    assert 1_000_000 < small[0].total <= 1_000_000 + 4 * KIB


def test_default_limit_is_2_gib_and_the_environment_raises_it(monkeypatch) -> None:
    monkeypatch.delenv(source.MAX_BYTES_ENV, raising=False)
    assert source.max_json_bytes() == 2 * 1024**3
    monkeypatch.setenv(source.MAX_BYTES_ENV, str(5 * 1024**3))
    assert source.max_json_bytes() == 5 * 1024**3
    for bad in ("8G", "0", "-1"):
        monkeypatch.setenv(source.MAX_BYTES_ENV, bad)
        with pytest.raises(InputError, match="TRAINBUDGET_TRACE_MAX_BYTES: expected a positive"):
            source.max_json_bytes()


def _seconds(path: Path) -> float:
    start = time.perf_counter()
    with pytest.raises(InputError):
        read_trace(path)
    return time.perf_counter() - start


def test_refusal_time_is_linear_in_the_bytes_read(tmp_path: Path, monkeypatch) -> None:
    """A re-scan and re-join of the growing buffer was quadratic: with 4 KiB reads, 16 MiB took
    31.9 s against 0.27 s for 2 MiB before the fix; 0.18 s against 0.02 s after."""
    monkeypatch.setattr(source, "READ_BYTES", 4 * KIB)
    monkeypatch.setattr(source, "BLOCK_BYTES", 16 * KIB)
    monkeypatch.setattr(source, "MAX_PIECE_BYTES", 64 * MIB)
    times = []
    for mib in (2, 16):
        data = b'{"traceEvents": [' + b" " * (mib * MIB) + b'{"ph": "X"}'  # never closed
        path = tmp_path / f"ws{mib}.json"
        path.write_bytes(data)
        times.append(_seconds(path))
    assert times[1] < 8 * times[0] * 3 + 0.5, times  # linear (8x) with room for a noisy box


def test_gzip_members_count_towards_the_limit(tmp_path: Path, small) -> None:
    member = zlib.compress(orjson.dumps([EVENT] * 100)[1:-1] + b",", wbits=31)
    path = tmp_path / "members.json.gz"
    path.write_bytes(zlib.compress(b'{"traceEvents": [', wbits=31) + member * 2000)
    with pytest.raises(InputError, match=r"refused: decompresses to more than 500,000 bytes"):
        read_trace(path, max_json_bytes=500_000)


@settings(max_examples=120, deadline=None)
@given(
    st.lists(st.integers(0, 10**6), min_size=1, max_size=30),
    st.lists(st.integers(0, 40), min_size=1, max_size=30),
    st.integers(5, 64),
    st.integers(1, 16),
)
def test_whitespace_between_events_never_loses_a_cut(corrs, gaps, block, overlap) -> None:
    """Boundaries whose `}` , `{` are far apart, split across tiny reads, searched with a tiny
    overlap: every event is still read once, in order."""
    events = [orjson.dumps({**EVENT, "args": {"correlation": c, "stream": 7}}) for c in corrs]
    body = b""
    for i, event in enumerate(events):
        gap = b" " * gaps[i % len(gaps)]
        body += (gap + b"," + gap if i else b"") + event
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "gaps.json"
        path.write_bytes(b'{"traceEvents": [' + body + b"]}")
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(source, "READ_BYTES", 7)
            mp.setattr(source, "BLOCK_BYTES", block)
            mp.setattr(source, "_OVERLAP", overlap)
            result = read_trace(path)
    assert result.gpu_corr.tolist() == corrs


def test_command_line_refuses_an_empty_trace_and_lands_nothing(tmp_path: Path, cli) -> None:
    path = tmp_path / "empty.json"
    path.write_bytes(b'{"traceEvents": []}')
    ledger = tmp_path / "ledger.duckdb"
    result = cli("--ledger", str(ledger), "trace", str(path))
    assert (result.code, result.stdout) == (2, "")
    assert (
        result.stderr
        == f"trainbudget: error: {path}: refused: traceEvents is empty (a trace with no events)\n"
    )
    assert not ledger.exists()
