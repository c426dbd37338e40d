"""Checks that a landed text file is text: UTF-8 throughout, and whether a line is too long.

DuckDB's read_text refuses a file that is not UTF-8 with an error naming no line, and its
read_csv refuses a line over 2 MiB; these checks run in the pass that already reads the bytes
(hashing), so a bad file is refused as `FILE:LINE: not UTF-8 text (byte 0xff at column 3)`.
"""

from __future__ import annotations

import codecs
from pathlib import Path

from trainbudget.base.errors import InputError

# DuckDB read_csv's default max_line_size: a longer line needs the whole-file read.
READ_CSV_MAX_LINE_BYTES = 2 * 1024 * 1024


class TextScan:
    """Fed a file's bytes block by block: refuses the first byte that is not UTF-8, and tells
    whether any line is longer than `max_line` bytes (`long_line`)."""

    def __init__(self, path: Path | str, max_line: int = READ_CSV_MAX_LINE_BYTES) -> None:
        self.path = str(path)
        self.max_line = max_line
        self.long_line = False
        self._decoder = codecs.getincrementaldecoder("utf-8")()
        self._lines_before = 0  # newlines in the blocks already fed
        self._run = 0  # bytes since the last newline

    def feed(self, block: bytes) -> None:
        """Check one block; InputError naming the line at the first byte that is not UTF-8."""
        carried = len(self._decoder.getstate()[0])  # bytes of a character the last block began
        if carried or not block.isascii():  # isascii: a fast C scan; most exports are ASCII
            try:
                self._decoder.decode(block)
            except UnicodeDecodeError as exc:
                self._refuse(block, max(exc.start - carried, 0))
        if not self.long_line:  # once one is seen, the rest need not be measured
            self._check_lines(block)
        self._lines_before += block.count(b"\n")

    def _check_lines(self, block: bytes) -> None:
        # Jump from newline to the last newline within max_line + 1 bytes: about
        # len(block) / max_line steps for a normal file, none of them per line.
        limit, size = self.max_line, len(block)
        at = block.find(b"\n")
        if at < 0:
            self._run += size
            self.long_line = self._run > limit
            return
        self.long_line = self._run + at > limit
        while not self.long_line and size - at - 1 > limit:
            at = block.rfind(b"\n", at + 1, at + limit + 2)
            self.long_line = at < 0
        self._run = size - block.rfind(b"\n") - 1
        self.long_line = self.long_line or self._run > limit

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
