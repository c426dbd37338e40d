"""Read a Chrome-trace file as metadata plus blocks of whole events, in bounded memory.

A trace is one JSON object whose `traceEvents` array holds almost all of its bytes. Instead of
loading the whole document, the file is decompressed in blocks and the array is cut at event
boundaries (`}` `,` `{` between two events), so a block of events can be decoded on its own and
dropped before the next one is read. A cut that lands inside a string or a nested array makes
the block invalid JSON (its quotes or brackets do not balance), so a failed block is simply
grown to the next boundary: every accepted cut is a real event boundary.
"""

from __future__ import annotations

import os
import re
import zlib
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import msgspec

from trainbudget.errors import InputError

# Decompressed bytes read at a time, and the size a block of events grows to before a cut.
READ_BYTES = 8 << 20
BLOCK_BYTES = 16 << 20
# Default refusal threshold for one decompressed trace (a decompression bomb guard).
DEFAULT_MAX_JSON_BYTES = 8 << 30
MAX_BYTES_ENV = "TRAINBUDGET_TRACE_MAX_BYTES"

_EVENTS_KEY = re.compile(rb'"traceEvents"\s*:\s*\[')
_BOUNDARY = re.compile(rb"\}\s*,\s*\{")
_ARRAY_END = re.compile(rb"\]")
_MAX_END_TRIES = 16
_meta_decoder = msgspec.json.Decoder(dict[str, Any])


@dataclass
class Block:
    """A run of whole events: `data` is a JSON array text, `first_index` the index of its first."""

    data: bytes
    offset: int  # byte offset of data[1] in the decompressed JSON
    first_index: int


def max_json_bytes() -> int:
    """The refusal threshold in decompressed bytes: $TRAINBUDGET_TRACE_MAX_BYTES or 8 GiB."""
    raw = os.environ.get(MAX_BYTES_ENV)
    if not raw:
        return DEFAULT_MAX_JSON_BYTES
    try:
        return int(raw)
    except ValueError:
        raise InputError(
            f"{MAX_BYTES_ENV}: expected a whole number of bytes, got {raw!r}"
        ) from None


def _is_gzip(path: Path) -> bool:
    with path.open("rb") as probe:
        return probe.read(2) == b"\x1f\x8b"


class _Reader:
    """Decompressed bytes of one file (gzip by its magic bytes, else plain), at most `limit`.

    zlib is fed 1 MiB of compressed input at a time with a cap on the output, so a
    decompression bomb is refused after at most READ_BYTES past the limit.
    """

    def __init__(self, path: Path, limit: int) -> None:
        self.path = path
        self.limit = limit
        self.total = 0
        self.gzip = _is_gzip(path)
        self.handle: BinaryIO = path.open("rb")
        self._inflate = zlib.decompressobj(wbits=31)
        self._pending = b""
        self._in_member = False
        self._prefetch = ThreadPoolExecutor(max_workers=1)
        self._next: Future[bytes] | None = None

    def read(self) -> bytes:
        # Double buffering: zlib and file reads release the GIL, so the next piece is inflated
        # in a helper thread while the caller decodes this one.
        if self._next is None:
            self._next = self._prefetch.submit(self._read_raw)
        chunk = self._next.result()
        self._next = self._prefetch.submit(self._read_raw) if chunk else None
        self.total += len(chunk)
        if self.total > self.limit:
            raise InputError(
                f"{self.path}: refused: decompresses to more than {self.limit:,} bytes "
                f"(raise the limit: max_json_bytes, or ${MAX_BYTES_ENV})"
            )
        return chunk

    def _read_raw(self) -> bytes:
        return self._read_gzip() if self.gzip else self.handle.read(READ_BYTES)

    def _read_gzip(self) -> bytes:
        while True:
            data = self._pending or self.handle.read(1 << 20)
            if not data:
                if self._in_member:
                    raise InputError(
                        f"{self.path}: truncated gzip: the compressed stream ends early "
                        f"(after {self.total:,} decompressed bytes)"
                    )
                return b""
            try:
                out = self._inflate.decompress(data, READ_BYTES)
            except zlib.error as exc:
                raise InputError(f"{self.path}: corrupt gzip data ({exc})") from None
            self._in_member = True
            self._pending = self._inflate.unconsumed_tail
            if self._inflate.eof:
                # The next gzip member (if any) starts in unused_data.
                self._pending = self._inflate.unused_data.lstrip(b"\0")
                self._inflate = zlib.decompressobj(wbits=31)
                self._in_member = False
            if out:
                return out

    def close(self) -> None:
        if self._next is not None:
            self._next.cancel()
        self._prefetch.shutdown(wait=True)
        self.handle.close()


def _decode_meta(path: Path, text: bytes, where: str) -> dict[str, Any]:
    try:
        return _meta_decoder.decode(text)
    except msgspec.DecodeError as exc:
        raise InputError(f"{path}: invalid JSON in the trace {where}: {exc}") from None


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
        reader = _Reader(self.path, self.limit)
        try:
            yield from self._blocks(reader, validate)
        finally:
            self.json_bytes = reader.total
            reader.close()

    def _blocks(self, reader: _Reader, validate: Any) -> Iterator[Block]:
        buf, eof = b"", False
        while True:
            match = _EVENTS_KEY.search(buf)
            if match or eof:
                break
            chunk = reader.read()
            eof = not chunk
            buf += chunk
        if not match:
            kind = "a JSON list" if buf.lstrip()[:1] == b"[" else "no such key"
            raise InputError(
                f"{self.path}: not a PyTorch profiler trace: no traceEvents array ({kind})"
            )
        head = buf[: match.start()].rstrip()
        head = head[:-1] if head.endswith(b",") else head
        self.meta = _decode_meta(self.path, head + b"}", "header")
        offset = match.end()
        pieces, size = [buf[match.end() :]], len(buf) - match.end()
        index, to_end = 0, False
        while True:
            while not eof and (size < BLOCK_BYTES or to_end):
                chunk = reader.read()
                eof = not chunk
                pieces.append(chunk)
                size += len(chunk)
            buf = b"".join(pieces) if len(pieces) > 1 else pieces[0]
            pieces = [buf]
            if eof:
                yield from self._last_block(buf, offset, index, validate)
                return
            cut = self._cut(buf)
            block = None if cut is None else Block(b"[" + buf[:cut] + b"]", offset, index)
            try:
                count = -1 if block is None else validate(block)
            except msgspec.DecodeError as exc:
                # A cut inside a string or a nested array fails at the block's end; an error
                # earlier in the block is a real one.
                # Trailing characters: the array closed inside the block, so the cut is in the
                # keys after it; read to the end and split there.
                at = _error_byte(exc)
                to_end = "trailing characters" in str(exc)
                if not to_end and at is not None and at < len(block.data) - 2:  # type: ignore[union-attr]
                    raise InputError(f"{self.path}: {describe_decode_error(exc, block)}") from None
                count = -1
            if count < 0:
                # No usable boundary yet: read one more chunk and try again.
                chunk = reader.read()
                eof = not chunk
                pieces.append(chunk)
                size += len(chunk)
                continue
            yield block  # type: ignore[misc]
            index += count
            rest = buf[cut:].lstrip()[1:]  # drop the comma between the two events
            offset += len(buf) - len(rest)
            pieces, size = [rest], len(rest)

    @staticmethod
    def _cut(buf: bytes) -> int | None:
        """Position just after the `}` of the last candidate event boundary in `buf`."""
        for start in (max(0, len(buf) - (1 << 20)), 0):
            found = [m.start() for m in _BOUNDARY.finditer(buf, start)]
            if found:
                return found[-1] + 1
            if start == 0:
                break
        return None

    def _last_block(self, buf: bytes, offset: int, index: int, validate: Any) -> Iterator[Block]:
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
            else:
                continue
            block = Block(b"[" + buf[:end] + b"]", offset, index)
            tries += 1
            try:
                validate(block)
            except msgspec.DecodeError as exc:
                # A `]` of a trailing key (e.g. an INFO list) is not the array's end: go back.
                error = error or (exc, block)
                if tries < _MAX_END_TRIES:
                    continue
                break
            self.meta.update(tail_meta)
            yield block
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
