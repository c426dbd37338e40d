"""The UTF-8 and line-length scan of landed text files, block by block."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from trainbudget.base.errors import InputError
from trainbudget.files.text import TextScan


def _scan(data: bytes, block: int, max_line: int = 1 << 21) -> TextScan:
    scan = TextScan("f.txt", max_line)
    for start in range(0, len(data), block):
        scan.feed(data[start : start + block])
    scan.finish()
    return scan


@given(st.text(alphabet="ab\né"), st.integers(1, 64), st.integers(0, 12))
def test_utf8_text_passes_and_a_long_line_is_seen(text: str, block: int, limit: int) -> None:
    data = text.encode("utf-8")
    longest = max(len(line) for line in data.split(b"\n"))
    assert _scan(data, block, limit).long_line == (longest > limit)


@given(st.text(alphabet="ab\né", max_size=40), st.text(alphabet="ab\né", max_size=40),
       st.integers(1, 16))  # fmt: skip
def test_the_first_bad_byte_is_named_by_line_whatever_the_blocks(head, tail, block) -> None:
    data = head.encode() + b"\xff" + tail.encode()
    line = head.encode().count(b"\n") + 1
    with pytest.raises(InputError, match=rf"^f\.txt:{line}: not UTF-8 text \(byte 0xff "):
        _scan(data, block)


def test_a_character_split_across_blocks_is_fine_and_a_cut_one_is_not() -> None:
    assert not _scan("é\nà".encode(), 1, max_line=2).long_line
    with pytest.raises(InputError, match=r"^f\.txt:2: not UTF-8 text \(the file ends inside"):
        _scan(b"ok\ncaf\xc3", 3)
