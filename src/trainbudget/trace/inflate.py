"""Decompressed bytes of one trace file (gzip by its magic bytes, else plain), at most a limit.

Inflation uses ISA-L (the `isal` wheel, about twice zlib's speed on traces; bench/trace_bench.py)
when it is installed, else the standard library's zlib: the two give identical bytes.
"""

from __future__ import annotations

import zlib
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any, BinaryIO

from trainbudget.base.errors import InputError

try:
    from isal import isal_zlib as _inflate_lib

    _INFLATE_ERRORS: tuple[type[Exception], ...] = (zlib.error, _inflate_lib.error)
except ImportError:  # pragma: no cover - the fallback when the isal wheel is absent
    _inflate_lib = zlib  # type: ignore[assignment]
    _INFLATE_ERRORS = (zlib.error,)

INFLATE_LIBRARY = "isal" if _inflate_lib is not zlib else "zlib"


def _decompressor() -> Any:
    return _inflate_lib.decompressobj(wbits=31)


MAX_BYTES_ENV = "TRAINBUDGET_TRACE_MAX_BYTES"


def _is_gzip(path: Path) -> bool:
    with path.open("rb") as probe:
        return probe.read(2) == b"\x1f\x8b"


class Inflater:
    """Read a file's decompressed bytes `read_bytes` at a time; refuse past `limit` bytes.

    zlib is fed 1 MiB of compressed input at a time with a cap on its output, so memory stays at
    a few pieces and a decompression bomb is refused within one piece of passing the limit, after
    work linear in the bytes inflated.
    """

    def __init__(self, path: Path, limit: int, read_bytes: int) -> None:
        self.path = path
        self.limit = limit
        self.read_bytes = read_bytes
        self.total = 0
        self.eof = False
        self.gzip = _is_gzip(path)
        self.handle: BinaryIO = path.open("rb")
        self._inflate = _decompressor()
        self._pending = b""
        self._in_member = False
        self._prefetch = ThreadPoolExecutor(max_workers=1)
        self._next: Future[bytes] | None = None

    def read(self) -> bytes:
        """The next piece of decompressed bytes; b"" (and `eof` set) at the end."""
        # Double buffering: zlib and file reads release the GIL, so the next piece is inflated
        # in a helper thread while the caller decodes this one.
        if self.eof:
            return b""
        if self._next is None:
            self._next = self._prefetch.submit(self._read_raw)
        chunk = self._next.result()
        self._next = self._prefetch.submit(self._read_raw) if chunk else None
        self.eof = not chunk
        self.total += len(chunk)
        if self.total > self.limit:
            raise InputError(
                f"{self.path}: refused: decompresses to more than {self.limit:,} bytes "
                f"(raise the limit with --max-json-bytes or ${MAX_BYTES_ENV})"
            )
        return chunk

    def _read_raw(self) -> bytes:
        return self._read_gzip() if self.gzip else self.handle.read(self.read_bytes)

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
                out = self._inflate.decompress(data, self.read_bytes)
            except _INFLATE_ERRORS as exc:
                raise InputError(f"{self.path}: corrupt gzip data ({exc})") from None
            self._in_member = True
            self._pending = self._inflate.unconsumed_tail
            if self._inflate.eof:
                # The next gzip member (if any) starts in unused_data.
                self._pending = self._inflate.unused_data.lstrip(b"\0")
                self._inflate = _decompressor()
                self._in_member = False
            if out:
                return out

    def close(self) -> None:
        if self._next is not None:
            self._next.cancel()
        self._prefetch.shutdown(wait=True)
        self.handle.close()
