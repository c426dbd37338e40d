"""Checks that a landed text file is text: UTF-8 throughout, and how long its longest line is.

DuckDB's read_text refuses a file that is not UTF-8 with an error naming no line, and its
read_csv refuses a line over 2 MiB; these checks run in the pass that already reads the bytes
(hashing), so a bad file is refused as `FILE:LINE: not UTF-8 text (byte 0xff at column 3)`.
"""

from __future__ import annotations

import codecs
from pathlib import Path

from trainbudget.errors import InputError

# DuckDB read_csv's default max_line_size: a longer line needs the whole-file read.
READ_CSV_MAX_LINE_BYTES = 2 * 1024 * 1024


class TextScan:
    """Fed a file's bytes block by block: the first invalid UTF-8 byte and the longest line."""

    def __init__(self, path: Path | str) -> None:
        self.path = str(path)
        self._decoder = codecs.getincrementaldecoder("utf-8")()
        self._lines_before = 0  # newlines in the blocks already fed
        self._offset = 0  # bytes already fed
        self._run = 0  # bytes since the last newline
        self.longest_line = 0

    def feed(self, block: bytes) -> None:
        """Check one block; InputError naming the line at the first byte that is not UTF-8."""
        carried = len(self._decoder.getstate()[0])  # bytes of a character the last block began
        try:
            self._decoder.decode(block)
        except UnicodeDecodeError as exc:
            self._refuse(block, max(exc.start - carried, 0))
        parts = block.split(b"\n")
        if len(parts) == 1:
            self._run += len(block)
        else:
            self.longest_line = max(self.longest_line, self._run + len(parts[0]), *map(len, parts))
            self._run = len(parts[-1])
        self.longest_line = max(self.longest_line, self._run)
        self._lines_before += len(parts) - 1
        self._offset += len(block)

    def finish(self) -> None:
        """Call after the last block: a file ending inside a UTF-8 sequence is refused too."""
        try:
            self._decoder.decode(b"", final=True)
        except UnicodeDecodeError:
            raise InputError(
                f"{self.path}:{self._lines_before + 1}: not UTF-8 text (the file ends inside "
                "a multi-byte character)"
            ) from None

    def _refuse(self, block: bytes, start: int) -> None:
        # A bad sequence begun in the previous block's last bytes is reported at this block's
        # first byte: those bytes hold no newline, so the line is right.
        start = min(start, len(block) - 1)
        line = self._lines_before + block.count(b"\n", 0, start) + 1
        column = start - (block.rfind(b"\n", 0, start) + 1) + 1
        if line == self._lines_before + 1 and b"\n" not in block[:start]:
            column += self._run
        raise InputError(
            f"{self.path}:{line}: not UTF-8 text (byte 0x{block[start]:02x} at byte {column} "
            "of the line); export it as UTF-8"
        )


def require_utf8(path: Path) -> None:
    """InputError naming the line unless `path` is UTF-8 throughout (one pass, 16 MiB blocks)."""
    scan = TextScan(path)
    with path.open("rb") as handle:
        while block := handle.read(1 << 24):
            scan.feed(block)
    scan.finish()


def not_utf8_error(path: Path | str, exc: UnicodeDecodeError) -> InputError:
    """The InputError for a whole-file decode that failed: `FILE:LINE: not UTF-8 text (...)`."""
    data, start = bytes(exc.object), exc.start
    line = data.count(b"\n", 0, start) + 1
    column = start - (data.rfind(b"\n", 0, start) + 1) + 1
    return InputError(
        f"{path}:{line}: not UTF-8 text (byte 0x{data[start]:02x} at byte {column} of the line)"
    )
