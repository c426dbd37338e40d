"""The block-wise trace reader: property tests against a whole-document decode, bad input."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from trainbudget.base.errors import InputError
from trainbudget.trace import source
from trainbudget.trace.parse import read_trace

# Names that look like event boundaries, brackets, escapes and non-ASCII text.
tricky_text = st.one_of(
    st.sampled_from(["}, {", "},{", "]", '"}', "\\", "ProfilerStep#1", "gemm", "é∑", ""]),
    st.text(max_size=12),
)
nested = st.lists(st.fixed_dictionaries({"k": tricky_text}), max_size=3)  # arrays of objects

gpu_event = st.builds(
    lambda name, ts, dur, corr, extra: {
        "ph": "X",
        "cat": "kernel",
        "name": name,
        "ts": ts,
        "dur": dur,
        "args": {"stream": 7, "correlation": corr, "extra": extra},
    },
    tricky_text,
    st.integers(0, 10**15),
    st.integers(0, 10**6),
    st.integers(0, 10**9),
    nested,
)
cpu_event = st.builds(
    lambda name, ts, dur, extra: {
        "ph": "X",
        "cat": "cpu_op",
        "name": name,
        "ts": ts,
        "dur": dur,
        "args": {"External id": 1, "list": extra},
    },
    tricky_text,
    st.floats(0, 1e9, allow_nan=False),
    st.floats(0, 1e4, allow_nan=False),
    nested,
)
flow_event = st.builds(
    lambda name, ts: {"ph": "f", "id": 1, "name": name, "ts": ts, "cat": "ac2g"},
    tricky_text,
    st.integers(0, 10**9),
)
events = st.lists(st.one_of(gpu_event, cpu_event, flow_event), min_size=1, max_size=25)
tail_meta = st.dictionaries(
    st.sampled_from(["traceName", "INFO", "deviceProperties"]),
    st.one_of(tricky_text, nested, st.lists(tricky_text, max_size=3)),
)


def _serialize(document: dict, style: int) -> bytes:
    if style == 0:
        return orjson.dumps(document)
    if style == 1:
        return orjson.dumps(document, option=orjson.OPT_INDENT_2)
    return json.dumps(document, indent=4, ensure_ascii=True).encode()


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(events, tail_meta, st.integers(0, 2), st.booleans(), st.integers(16, 400))
def test_blockwise_read_equals_whole_decode(tmp_path, evs, tail, style, gz, block) -> None:
    document = {"schemaVersion": 1, "distributedInfo": {"rank": 3}, "traceEvents": evs, **tail}
    raw = _serialize(document, style)
    path = tmp_path / ("t.json.gz" if gz else "t.json")
    path.write_bytes(gzip.compress(raw) if gz else raw)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(source, "READ_BYTES", 7)  # tiny reads and blocks: many cuts per document
        mp.setattr(source, "BLOCK_BYTES", block)
        result = read_trace(path)
    assert result.event_count == len(evs)
    assert result.meta == {k: v for k, v in document.items() if k != "traceEvents"}
    gpu = [e for e in evs if e["cat"] == "kernel"]
    assert [result.names[i] for i in result.gpu_name] == [e["name"] for e in gpu]
    assert result.gpu_ts.tolist() == [float(e["ts"]) for e in gpu]
    assert result.gpu_dur.tolist() == [float(e["dur"]) for e in gpu]
    assert result.gpu_corr.tolist() == [e["args"]["correlation"] for e in gpu]


def _trace_bytes(n: int = 20) -> bytes:
    evs = [
        {
            "ph": "X",
            "cat": "kernel",
            "name": f"k{i}",
            "ts": 10 * i,
            "dur": 5,
            "args": {"stream": 7, "correlation": i},
        }
        for i in range(n)
    ]
    return orjson.dumps({"schemaVersion": 1, "traceEvents": evs}, option=orjson.OPT_INDENT_2)


def test_reads_the_real_fixtures_like_a_whole_decode(fixtures_dir: Path) -> None:
    path = fixtures_dir / "traces" / "hta_nccl_parser_config_a100" / "nccl_data.json.gz"
    document = orjson.loads(gzip.decompress(path.read_bytes()))
    result = read_trace(path)
    assert result.event_count == len(document["traceEvents"])
    assert result.meta["distributedInfo"]["rank"] == 0
    assert result.meta["INFO"] == document["INFO"]  # a list after the events, with `]` inside
    kernels = [
        e for e in document["traceEvents"] if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")
    ]
    assert result.gpu_ts.size == len(kernels)


def test_truncated_gzip(tmp_path: Path) -> None:
    data = gzip.compress(_trace_bytes(2000))
    path = tmp_path / "cut.json.gz"
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(InputError, match=r"cut\.json\.gz: truncated gzip"):
        read_trace(path)


def test_invalid_json_names_the_event(tmp_path: Path) -> None:
    raw = _trace_bytes(50).replace(b'"name": "k37"', b'"name": "k37" "oops": 1', 1)
    path = tmp_path / "bad.json"
    path.write_bytes(raw)
    with pytest.raises(InputError, match=r"bad\.json: invalid JSON near byte .*traceEvents\[37\]"):
        read_trace(path)


def test_truncated_json_document(tmp_path: Path) -> None:
    path = tmp_path / "short.json"
    path.write_bytes(_trace_bytes(50)[:-300])
    with pytest.raises(InputError, match=r"short\.json: invalid JSON"):
        read_trace(path)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b'{"schemaVersion": 1, "events": []}', "no traceEvents array"),
        (b"[[1, 2, 3]]", r"no traceEvents array \(a JSON list\)"),
        (b"", "no traceEvents array"),
    ],
)
def test_not_a_trace(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "x.json"
    path.write_bytes(content)
    with pytest.raises(InputError, match=message):
        read_trace(path)


def test_memory_timeline_export_is_not_a_trace(fixtures_dir: Path) -> None:
    path = fixtures_dir / "traces" / "hta_memory_timeline" / "memory_timeline.raw.gz"
    with pytest.raises(InputError, match="no traceEvents array"):
        read_trace(path)


def test_negative_duration_names_the_event(tmp_path: Path) -> None:
    raw = _trace_bytes(30).replace(b'"ts": 120,\n      "dur": 5', b'"ts": 120,\n      "dur": -5')
    path = tmp_path / "neg.json"
    path.write_bytes(raw)
    with pytest.raises(InputError, match=r"neg\.json: traceEvents\[12\] \('k12'\): negative"):
        read_trace(path)


def test_wrong_field_type_names_the_event_and_field(tmp_path: Path) -> None:
    raw = _trace_bytes(30).replace(b'"correlation": 21', b'"correlation": "x"')
    path = tmp_path / "type.json"
    path.write_bytes(raw)
    with pytest.raises(InputError, match=r"traceEvents\[21\]\.args\.correlation"):
        read_trace(path)


def test_decompression_bomb_is_refused(tmp_path: Path) -> None:
    evs = [{"ph": "X", "cat": "cpu_op", "name": "a" * (8 << 20), "ts": 0, "dur": 1}]
    path = tmp_path / "bomb.json.gz"
    path.write_bytes(gzip.compress(orjson.dumps({"traceEvents": evs})))
    assert path.stat().st_size < 100_000
    with pytest.raises(InputError, match=r"bomb\.json\.gz: refused: decompresses to more than"):
        read_trace(path, max_json_bytes=1 << 20)
    assert read_trace(path, max_json_bytes=1 << 30).event_count == 1


def test_isal_and_zlib_inflate_the_same_bytes(fixtures_dir: Path, tmp_path: Path) -> None:
    pytest.importorskip("isal")
    import zlib

    from trainbudget.trace import inflate

    fixture = fixtures_dir / "traces" / "hta_nccl_parser_config_a100" / "nccl_data.json.gz"
    two_members = tmp_path / "two.json.gz"
    raw = gzip.decompress(fixture.read_bytes())
    cut = len(raw) // 3
    two_members.write_bytes(gzip.compress(raw[:cut]) + gzip.compress(raw[cut:]))
    for path in (fixture, two_members):
        pieces = {}
        for library in ("isal", "zlib"):
            with pytest.MonkeyPatch.context() as mp:
                if library == "zlib":
                    mp.setattr(inflate, "_inflate_lib", zlib)
                reader = inflate.Inflater(path, 1 << 40, 1 << 16)
                chunks = []
                while chunk := reader.read():
                    chunks.append(chunk)
                reader.close()
                pieces[library] = b"".join(chunks)
        assert pieces["isal"] == pieces["zlib"] == raw


def test_a_caller_keeping_decoded_events_gets_a_copied_buffer(tmp_path: Path) -> None:
    # Decoded raw fields view the reader's buffer; a caller that keeps them (unlike read_trace)
    # must not stop the buffer from moving on: the reader copies it instead.
    import msgspec

    from trainbudget.trace.parse import _decoder

    events = [
        {"ph": "X", "name": f"k{i}", "ts": i, "dur": 1, "args": {"Input Dims": [[i, 2]]}}
        for i in range(200)
    ]
    path = tmp_path / "keep.json"
    path.write_bytes(orjson.dumps({"traceEvents": events}, option=orjson.OPT_INDENT_2))
    kept: list = []

    def validate(block) -> int:
        decoded = _decoder.decode(block.data)
        kept.extend(decoded)
        return len(decoded)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(source, "READ_BYTES", 64)
        mp.setattr(source, "BLOCK_BYTES", 512)
        blocks = list(source.TraceSource(path).blocks(validate))
    assert len(blocks) > 5
    assert [msgspec.json.decode(bytes(e.args.input_dims)) for e in kept] == [
        [[i, 2]] for i in range(200)
    ]


def test_unknown_or_missing_phases_fall_back_to_the_permissive_decoder(tmp_path: Path) -> None:
    kernel = {"ph": "X", "cat": "kernel", "name": "k", "ts": 5, "dur": 2}
    kernel["args"] = {"stream": 7, "correlation": 1}
    memory = {"ph": "i", "name": "[memory]", "ts": 6, "args": {"Total Allocated": 9}}
    odd = [{"ph": "Z", "name": "new phase", "ts": 1}, {"name": "no phase at all", "ts": 2}]
    path = tmp_path / "odd.json"
    path.write_bytes(orjson.dumps({"traceEvents": [kernel, *odd, memory, {"ph": "s", "id": 1}]}))
    result = read_trace(path)
    assert result.event_count == 5
    assert result.gpu_ts.tolist() == [5.0] and result.memory == [(-1, -1, 9)]
