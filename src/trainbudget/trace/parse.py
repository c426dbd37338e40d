"""Decode a PyTorch Profiler trace into the few columns the summary needs (times in µs).

Events are decoded with msgspec into typed structs that name only the fields we read
(measured fastest; see bench/trace_bench.py), one block of events at a time, and each block is
reduced to numpy columns before the next is decoded, so memory stays near the size of the
columns rather than of the JSON.
"""

from __future__ import annotations

import os
from array import array
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Union

import msgspec
import numpy as np

from trainbudget.base.collector import collector_paused
from trainbudget.base.errors import InputError
from trainbudget.trace.flops import FLOP_OPS
from trainbudget.trace.source import Block, TraceSource, too_deep

DATALOADER_PREFIX = "enumerate(DataLoader)"
STEP_PREFIX = "ProfilerStep#"


class _Args(msgspec.Struct, gc=False):
    stream: int | str | None = None
    correlation: int | None = None
    total_allocated: int | None = msgspec.field(default=None, name="Total Allocated")
    device_type: int | None = msgspec.field(default=None, name="Device Type")
    device_id: int | None = msgspec.field(default=None, name="Device Id")
    input_dims: msgspec.Raw = msgspec.field(default=msgspec.Raw(), name="Input Dims")
    input_type: msgspec.Raw = msgspec.field(default=msgspec.Raw(), name="Input type")
    concrete: msgspec.Raw = msgspec.field(default=msgspec.Raw(), name="Concrete Inputs")


class _Event(msgspec.Struct, gc=False):
    ph: str = ""
    cat: str | None = None
    name: str = ""
    ts: float = 0.0
    dur: float | None = None
    args: _Args | None = None


_decoder = msgspec.json.Decoder(list[_Event], strict=False)


# The fast decoder tells events apart by their phase: complete events ("X") and instants ("i")
# keep their fields, every other phase of the Chrome trace format (flow arrows are a third of a
# Kineto trace) becomes an empty struct, its fields skipped unbuilt (a fifth less decoding;
# bench/trace_bench.py). A block it cannot take (an unknown or missing `ph`, a wrong type) is
# decoded again by `_decoder`, which accepts any phase and names the bad field.
class _Complete(msgspec.Struct, tag_field="ph", tag="X", gc=False):
    cat: str | None = None
    name: str = ""
    ts: float = 0.0
    dur: float | None = None
    args: _Args | None = None


class _Instant(msgspec.Struct, tag_field="ph", tag="i", gc=False):
    args: _Args | None = None


_OTHER_PHASES = "BEIbnestfCPONDMVvRc()"
_skipped = tuple(
    msgspec.defstruct(f"_Phase{ord(p)}", [], tag_field="ph", tag=p, gc=False) for p in _OTHER_PHASES
)
_fast_decoder = msgspec.json.Decoder(
    list[Union[_Complete, _Instant, *_skipped]],  # type: ignore[valid-type]
    strict=False,
)


@dataclass
class FlopOp:
    """A CPU operator whose recorded input shapes give its FLOPs (raw JSON of its args)."""

    name: str
    ts: float
    dur: float
    input_dims: bytes
    input_type: bytes
    concrete: bytes


@dataclass
class RankEvents:
    """One rank's trace reduced to columns. Times are float µs exactly as written in the file."""

    path: Path
    meta: dict[str, Any]
    json_bytes: int
    event_count: int
    names: list[str]
    gpu_ts: np.ndarray
    gpu_dur: np.ndarray
    gpu_name: np.ndarray  # index into `names`
    gpu_corr: np.ndarray
    launch_ts: np.ndarray  # CPU-side events carrying a correlation id (kernel launches)
    launch_corr: np.ndarray
    steps: list[tuple[str, float, float, bool]]  # (name, ts, dur, on the GPU timeline)
    loader: list[tuple[float, float]]
    memory: list[tuple[int, int, int]]  # (device type, device id, total allocated bytes)
    flop_ops: list[FlopOp] = field(default_factory=list)


# The largest |ts| and dur taken, in µs: epoch-µs timestamps (~1.7e15 in 2024) fit, and start +
# duration in integer ns stays inside int64 (9.2e18); a larger value is refused, naming the event.
MAX_TIME_US = 4e15
_RANGE_WORDS = "|ts| and dur are at most 4e15 µs, about 126 years"


def _time_in_range(ts: float, dur: float) -> bool:
    return -MAX_TIME_US <= ts <= MAX_TIME_US and 0 <= dur <= MAX_TIME_US


def _column_in_range(column: array, start: int, limit: float) -> bool:
    """Whether column[start:] lies within ±limit (NaN does not), read in place by numpy."""
    if len(column) == start:
        return True
    with memoryview(column) as view:
        values = np.frombuffer(view, dtype=np.float64, offset=start * column.itemsize)
        inside = bool(np.all(np.abs(values) <= limit))
        del values  # the view must have no exports left when it is released
    return inside


def _stream_number(value: int | str | None) -> int:
    # AMD runtime events write the stream as "0x0"; like HTA, a non-integer stream is -1.
    if value is None:
        return -1
    if type(value) is int:
        return value
    try:
        return int(value)
    except ValueError:
        return -1


# What a CPU-side event's name makes it; decided once per distinct name.
_OTHER, _STEP, _LOADER, _FLOP = range(4)


def _name_kind(name: str) -> int:
    if name.startswith(STEP_PREFIX):
        return _STEP
    if name.startswith(DATALOADER_PREFIX):
        return _LOADER
    return _FLOP if name in FLOP_OPS else _OTHER


class _Collector:
    """Accumulates the needed columns block by block (one list per column, numpy at the end)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.names: dict[str, int] = {}
        self.cpu_kinds: dict[str, int] = {}
        # C arrays, not lists: no float object is kept per event, and numpy takes them as is.
        self.gpu_ts = array("d")
        self.gpu_dur = array("d")
        self.gpu_name = array("i")
        self.gpu_corr = array("q")
        self.launch_ts = array("d")
        self.launch_corr = array("q")
        self.steps: list[tuple[str, float, float, bool]] = []
        self.loader: list[tuple[float, float]] = []
        self.memory: list[tuple[int, int, int]] = []
        self.flop_ops: list[FlopOp] = []
        self.count = 0

    def add(self, events: list[Any], first_index: int) -> None:
        # The hot loop of a parse: one pass, locals only, one dict lookup per name.
        names, kinds = self.names, self.cpu_kinds
        marks = self._marks()
        gpu_ts, gpu_dur = self.gpu_ts.append, self.gpu_dur.append
        gpu_name, gpu_corr = self.gpu_name.append, self.gpu_corr.append
        launch_ts, launch_corr = self.launch_ts.append, self.launch_corr.append
        for e in events:
            kind_of = type(e)
            if kind_of is not _Complete and (kind_of is not _Event or e.ph != "X"):
                instant = kind_of is _Instant or (kind_of is _Event and e.ph == "i")
                if instant and e.args is not None and e.args.total_allocated is not None:
                    a = e.args
                    kind = -1 if a.device_type is None else a.device_type
                    device = -1 if a.device_id is None else a.device_id
                    self.memory.append((kind, device, a.total_allocated))
                continue
            dur = e.dur
            if dur is None:
                continue
            if dur < 0:
                self._negative(events, e, first_index)
            a = e.args
            corr = -1 if a is None or a.correlation is None else a.correlation
            if corr >= 0 and _stream_number(a.stream) >= 0:  # type: ignore[union-attr]
                name = e.name
                nid = names.get(name)
                if nid is None:
                    nid = names[name] = len(names)
                gpu_ts(e.ts)
                gpu_dur(dur)
                gpu_name(nid)
                gpu_corr(corr)
                continue
            if corr >= 0:
                launch_ts(e.ts)
                launch_corr(corr)
            name = e.name
            kind = kinds.get(name)
            if kind is None:
                kind = kinds[name] = _name_kind(name)
            if kind == _OTHER:
                continue
            if kind == _STEP:
                self.steps.append((name, e.ts, dur, e.cat == "gpu_user_annotation"))
            elif kind == _LOADER:
                self.loader.append((e.ts, dur))
            elif a is not None:
                self.flop_ops.append(
                    FlopOp(
                        name, e.ts, dur, bytes(a.input_dims), bytes(a.input_type), bytes(a.concrete)
                    )
                )
        if not self._in_range(marks):
            self._out_of_range(events, first_index)
        self.count += len(events)

    def _marks(self) -> tuple[int, ...]:
        return (len(self.gpu_ts), len(self.launch_ts), len(self.steps), len(self.loader),
                len(self.flop_ops))  # fmt: skip

    def _in_range(self, marks: tuple[int, ...]) -> bool:
        """Whether every time this block added is within ±MAX_TIME_US (one numpy pass)."""
        gpu, launch, steps, loader, flop_ops = marks
        ok = _column_in_range(self.gpu_ts, gpu, MAX_TIME_US)
        ok = ok and _column_in_range(self.gpu_dur, gpu, MAX_TIME_US)
        ok = ok and _column_in_range(self.launch_ts, launch, MAX_TIME_US)
        rows = [(ts, dur) for _, ts, dur, _ in self.steps[steps:]] + self.loader[loader:]
        rows += [(op.ts, op.dur) for op in self.flop_ops[flop_ops:]]
        return ok and all(_time_in_range(ts, dur) for ts, dur in rows)

    def _out_of_range(self, events: list[Any], first_index: int) -> None:
        for index, e in enumerate(events):
            dur = getattr(e, "dur", None)
            if dur is None or (type(e) is _Event and e.ph != "X"):
                continue
            if not _time_in_range(e.ts, dur):
                field, value = ("ts", e.ts) if not -MAX_TIME_US <= e.ts <= MAX_TIME_US else (
                    "dur", dur)  # fmt: skip
                raise InputError(
                    f"{self.path}: traceEvents[{first_index + index}] ({e.name!r}): {field} "
                    f"{value:g} µs is out of range ({_RANGE_WORDS})"
                )
        raise InputError(f"{self.path}: a time out of range after traceEvents[{first_index}]")

    def _negative(self, events: list[Any], event: Any, first_index: int) -> None:
        index = first_index + next(i for i, e in enumerate(events) if e is event)
        raise InputError(
            f"{self.path}: traceEvents[{index}] ({event.name!r}): negative duration {event.dur}"
        )

    def finish(self, source: TraceSource) -> RankEvents:
        return RankEvents(
            path=self.path,
            meta=source.meta,
            json_bytes=source.json_bytes,
            event_count=self.count,
            names=list(self.names),
            gpu_ts=np.frombuffer(self.gpu_ts, dtype=np.float64),
            gpu_dur=np.frombuffer(self.gpu_dur, dtype=np.float64),
            gpu_name=np.frombuffer(self.gpu_name, dtype=np.int32),
            gpu_corr=np.frombuffer(self.gpu_corr, dtype=np.int64),
            launch_ts=np.frombuffer(self.launch_ts, dtype=np.float64),
            launch_corr=np.frombuffer(self.launch_corr, dtype=np.int64),
            steps=self.steps,
            loader=self.loader,
            memory=self.memory,
            flop_ops=self.flop_ops,
        )


def read_trace(path: str | os.PathLike[str], max_json_bytes: int | None = None) -> RankEvents:
    """Decode one trace file (plain or gzip) into columns; InputError names file and event."""
    source = TraceSource(path, max_json_bytes)
    collector = _Collector(source.path)
    decoded: list[list[Any]] = []

    def validate(block: Block) -> int:
        try:
            events = _fast_decoder.decode(block.data)
        except msgspec.ValidationError:
            try:
                events = _decoder.decode(block.data)
            except msgspec.ValidationError as exc:
                raise InputError(f"{source.path}: {_describe_validation(exc, block)}") from None
        except RecursionError:
            raise too_deep(source.path, block.first_index) from None
        decoded[:] = [events]
        return len(events)

    # The parse makes millions of small objects and no reference cycles; pausing the cyclic
    # collector saves its repeated walks over the growing column lists (about a third).
    with collector_paused():
        for block in source.blocks(validate):
            collector.add(decoded[0], block.first_index)
            decoded.clear()
    if collector.count == 0:
        raise InputError(f"{source.path}: refused: traceEvents is empty (a trace with no events)")
    return collector.finish(source)


def _describe_validation(exc: msgspec.ValidationError, block: Block) -> str:
    """Rewrite msgspec's `$[12].args.x` path to the event's index in the whole file."""
    message = str(exc)
    marker = "at `$["
    if marker in message:
        head, _, rest = message.partition(marker)
        index_text, _, path = rest.partition("]")
        if index_text.isdigit():
            index = block.first_index + int(index_text)
            return f"traceEvents[{index}]{path.rstrip('`')}: {head.rstrip(' -')}"
    return f"unexpected trace content: {message}"
