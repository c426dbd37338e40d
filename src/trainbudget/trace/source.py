"""Read a Chrome-trace file as metadata plus blocks of whole events, in bounded memory and time.

A trace is one JSON object whose `traceEvents` array holds almost all of its bytes. Instead of
loading the whole document, the file is decompressed in blocks and the array is cut at event
boundaries (`}` `,` `{` between two events), so a block of events can be decoded on its own and
dropped before the next one is read. A cut that lands inside a string or a nested array makes
the block invalid JSON (its quotes or brackets do not balance), so a failed block is simply
grown to the next boundary: every accepted cut is a real event boundary.

Bounds (docs/trace.md, *Limits*): a file decompressing past `max_json_bytes` (2 GiB by default)
is refused as soon as it passes it; the keys before `traceEvents`, one event (or a run of
whitespace) and the keys after the array may each take at most MAX_PIECE_BYTES, so the reader
never holds more than about BLOCK_BYTES + MAX_PIECE_BYTES, and each byte is searched and decoded
a bounded number of times.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec

from trainbudget.base.errors import InputError
from trainbudget.base.limits import byte_limit
from trainbudget.trace.inflate import MAX_BYTES_ENV, Inflater

# Decompressed bytes read at a time, and the size a block of events grows to before a cut.
READ_BYTES = 8 << 20
BLOCK_BYTES = 16 << 20
# Default refusal threshold for one decompressed trace (a decompression bomb guard).
DEFAULT_MAX_JSON_BYTES = 2 << 30
# The most bytes the header, one event, a whitespace run or the trailing keys may take.
MAX_PIECE_BYTES = 64 << 20

_EVENTS_KEY = re.compile(rb'"traceEvents"\s*:\s*\[')
_KEY = b'"traceEvents"'
_BOUNDARY = re.compile(rb"\}\s*,\s*\{")
_ARRAY_END = re.compile(rb"\]")
_COMMA = re.compile(rb"\s*,")  # between the `}` of a cut and the next event
_OPEN, _CLOSE = ord("["), ord("]")
_OVERLAP = 4096  # bytes searched again for a boundary split across two pieces
_MAX_END_TRIES = 16
_meta_decoder = msgspec.json.Decoder(dict[str, Any])
# msgspec decodes nested JSON recursively, so Python's recursion limit (1,000 frames less the
# caller's) bounds the depth: deeper is a RecursionError, refused as `too_deep`.
APPROX_MAX_DEPTH = 900

__all__ = [
    "MAX_BYTES_ENV",
    "Block",
    "TraceSource",
    "describe_decode_error",
    "max_json_bytes",
    "too_deep",
]


@dataclass
class Block:
    """A run of whole events: `data` is a JSON array text, `first_index` the index of its first.

    `data` views the reader's buffer and is valid only inside the `validate` call.
    """

    data: bytes | memoryview
    offset: int  # byte offset of data[1] in the decompressed JSON
    first_index: int


def _release(block: Block) -> None:
    """Drop the block's view of the buffer so the buffer can be resized again."""
    if isinstance(block.data, memoryview):
        block.data.release()
    block.data = b""


def _released(block: Block, buf: bytearray) -> bytearray:
    """`buf` once the block's view is released; a copy if decoded events still hold views."""
    try:
        _release(block)
    except BufferError:
        block.data = b""
        return bytearray(buf)
    return buf


def max_json_bytes() -> int:
    """The refusal threshold in decompressed bytes: $TRAINBUDGET_TRACE_MAX_BYTES or 2 GiB."""
    return byte_limit(MAX_BYTES_ENV, DEFAULT_MAX_JSON_BYTES)


def too_deep(path: Path, first_index: int | None = None) -> InputError:
    """The refusal of JSON nested past the decoder's depth (docs/trace.md, *Limits*)."""
    where = "" if first_index is None else f" (in traceEvents[{first_index}] or after it)"
    return InputError(
        f"{path}: refused: JSON nested too deeply{where}; the decoder takes about "
        f"{APPROX_MAX_DEPTH} levels of objects and arrays, a profiler trace fewer than 10"
    )


def _decode_meta(path: Path, text: bytes, where: str) -> dict[str, Any]:
    try:
        return _meta_decoder.decode(text)
    except msgspec.DecodeError as exc:
        raise InputError(f"{path}: invalid JSON in the trace {where}: {exc}") from None
    except RecursionError:
        raise too_deep(path) from None


class TraceSource:
    """Iterate the event blocks of one trace file; `meta` holds every other top-level key."""

    def __init__(self, path: str | os.PathLike[str], limit: int | None = None) -> None:
        self.path = Path(path)
        self.limit = max_json_bytes() if limit is None else limit
        self.meta: dict[str, Any] = {}
        self.json_bytes = 0

    def blocks(self, validate: Any) -> Iterator[Block]:
        """Yield blocks of whole events; `validate(block)` raises DecodeError if a cut is wrong.

        The validator is the caller's decoder, so a block is decoded once: the caller keeps the
        decoded result of the last successful call.
        """
        reader = Inflater(self.path, self.limit, READ_BYTES)
        try:
            yield from self._blocks(reader, validate)
        finally:
            self.json_bytes = reader.total
            reader.close()

    def _header(self, reader: Inflater) -> tuple[int, bytearray]:
        """Read up to `"traceEvents": [`, decode the keys before it into `meta`.

        Returns the offset just after the `[` and the bytes read from the `[` on. Each search starts
        where a key could still begin, so the header is scanned once (linear time).
        """
        buf, start = bytearray(), 0
        while True:
            match = _EVENTS_KEY.search(buf, start)
            if match:
                break
            if reader.eof:
                kind = "a JSON list" if buf.lstrip()[:1] == b"[" else "no such key"
                raise InputError(
                    f"{self.path}: not a PyTorch profiler trace: no traceEvents array ({kind})"
                )
            if len(buf) > MAX_PIECE_BYTES:
                raise InputError(
                    f"{self.path}: not a PyTorch profiler trace: no traceEvents array in its "
                    f"first {MAX_PIECE_BYTES:,} decompressed bytes"
                )
            partial = buf.rfind(_KEY, start)  # a key whose `: [` may be in the next piece
            start = partial if partial >= 0 else max(0, len(buf) - len(_KEY))
            buf += reader.read()
        head = bytes(buf[: match.start()]).rstrip()
        head = head[:-1] if head.endswith(b",") else head
        self.meta = _decode_meta(self.path, head + b"}", "header")
        del buf[: match.end() - 1]  # keep the `[`: a block is decoded in place from buf[0]
        return match.end(), buf

    def _blocks(self, reader: Inflater, validate: Any) -> Iterator[Block]:
        # buf[0] is always a `[` and buf[1:] the events from `offset` on. A block is decoded in
        # place: the byte after its last `}` is swapped for `]` for the decode and restored, so
        # no block is copied (copies were a quarter of the time; bench/trace_bench.py).
        offset, buf = self._header(reader)
        index, to_end = 0, False
        after = 1  # a cut must lie past this: candidates before it failed or were searched
        while True:
            while not reader.eof and (len(buf) < BLOCK_BYTES or to_end):
                self._grow(reader, buf, to_end)
            if reader.eof:
                yield from self._last_block(buf, offset, index, validate)
                return
            cut = self._cut(buf, after)
            if cut is None:
                # No boundary yet: read one more piece and search only what is new.
                after = max(after, len(buf) - _OVERLAP)
                self._grow(reader, buf, to_end)
                continue
            saved = buf[cut]
            buf[cut] = _CLOSE
            block = Block(memoryview(buf)[: cut + 1], offset, index)
            try:
                count = validate(block)
            except msgspec.DecodeError as exc:
                # A cut inside a string or a nested array fails at the block's end; an error
                # earlier in the block is a real one.
                # Trailing characters: the array closed inside the block, so the cut is in the
                # keys after it; read to the end and split there.
                at = _error_byte(exc)
                to_end = "trailing characters" in str(exc)
                if not to_end and at is not None and at < len(block.data) - 2:
                    message = describe_decode_error(exc, block)
                    _release(block)
                    raise InputError(f"{self.path}: {message}") from None
                _release(block)
                buf[cut] = saved
                after = cut
                self._grow(reader, buf, to_end)
                continue
            except BaseException:
                _release(block)
                raise
            buf[cut] = saved
            yield block
            # The caller has dropped the decoded events (their raw fields view buf) by now.
            buf = _released(block, buf)
            index += count
            consumed = _COMMA.match(buf, cut).end()  # type: ignore[union-attr]
            del buf[: consumed - 1]
            buf[0] = _OPEN
            offset += consumed - 1
            after = 1

    def _grow(self, reader: Inflater, buf: bytearray, to_end: bool) -> None:
        """Append the next piece; refuse when the buffer outgrows a block plus MAX_PIECE_BYTES."""
        buf += reader.read()
        if len(buf) > BLOCK_BYTES + MAX_PIECE_BYTES:
            limit = f"{MAX_PIECE_BYTES:,} bytes"
            if to_end:
                what = f"the keys after the traceEvents array take more than {limit}"
            elif buf.strip() == b"[":
                what = f"traceEvents holds more than {limit} of whitespace and no event"
            else:
                what = f"no event boundary in {limit} of traceEvents (an event that long?)"
            raise InputError(f"{self.path}: refused: {what}")

    @staticmethod
    def _cut(buf: bytearray, after: int) -> int | None:
        """Position just after the `}` of the last candidate event boundary starting at or
        after `after` (the last 1 MiB is searched first: the usual case costs only that)."""
        for start in (max(after, len(buf) - (1 << 20)), after):
            found = None
            for found in _BOUNDARY.finditer(buf, start):  # noqa: B007 (the last one is kept)
                pass
            if found is not None:
                return found.start() + 1
            if start == after:
                break
        return None

    def _last_block(
        self, buf: bytearray, offset: int, index: int, validate: Any
    ) -> Iterator[Block]:
        """The final events, the `]` closing the array, and the trailing top-level keys."""
        ends = [m.start() for m in _ARRAY_END.finditer(buf, max(0, len(buf) - (1 << 20)))]
        error: tuple[Exception, Block] | None = None
        tries = 0
        for end in reversed(ends):
            tail = buf[end + 1 :].strip()
            if tail == b"}":
                tail_meta: dict[str, Any] = {}
            elif tail.startswith(b","):
                try:
                    tail_meta = _meta_decoder.decode(b"{" + tail[1:])
                except msgspec.DecodeError:
                    continue
                except RecursionError:
                    raise too_deep(self.path) from None
            else:
                continue
            block = Block(memoryview(buf)[: end + 1], offset, index)
            tries += 1
            try:
                validate(block)
            except msgspec.DecodeError as exc:
                # A `]` of a trailing key (e.g. an INFO list) is not the array's end: go back.
                error = error or (exc, Block(bytes(block.data), offset, index))
                _release(block)
                if tries < _MAX_END_TRIES:
                    continue
                break
            self.meta.update(tail_meta)
            yield block
            _released(block, buf)
            return
        if error is None:
            raise InputError(
                f"{self.path}: invalid JSON: the document ends before the traceEvents array "
                "and its object are closed (truncated file?)"
            )
        raise InputError(f"{self.path}: {describe_decode_error(*error)}")


_BYTE_AT = re.compile(r"\(byte (\d+)\)")


def _error_byte(error: Exception) -> int | None:
    found = _BYTE_AT.search(str(error))
    return int(found.group(1)) if found else None


def describe_decode_error(error: Exception, block: Block) -> str:
    """One line for a malformed block: the message, the byte offset and the event it is in."""
    message = str(error)
    at = _error_byte(error)
    if at is None:
        return f"invalid JSON: {message}"
    events_before = len(_BOUNDARY.findall(block.data, 0, at))
    text = _BYTE_AT.sub("", message).strip()
    return (
        f"invalid JSON near byte {block.offset + at - 1:,} of the decompressed trace "
        f"(in traceEvents[{block.first_index + events_before}]): {text}"
    )
