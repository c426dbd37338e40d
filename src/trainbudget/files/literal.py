"""Input paths are literal: a name with `*`, `?` or `[` is a file name, never a pattern.

DuckDB's `read_csv` / `read_text` expand glob patterns in the path they are given (and treat a
leading `~` or a `scheme://` prefix specially). `duckdb_path` hands DuckDB a name it can only
read as the one file: the absolute path when that holds no pattern character, else a symlink
with a plain name in a private temporary folder (mode 0700), removed when the block ends.
Reading through the link costs nothing measurable (docs/reconcile.md, *Literal paths*).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from trainbudget.base.errors import InputError

# Characters DuckDB's glob (or its escaping) could give a meaning; `{` `}` kept out for safety.
PATTERN_CHARACTERS = frozenset("*?[]{}\\")


def has_pattern_character(path: str) -> bool:
    """Whether DuckDB could read `path` as something other than the one literal file."""
    return any(character in PATTERN_CHARACTERS for character in path)


@contextmanager
def duckdb_path(path: str | os.PathLike[str]) -> Iterator[str]:
    """A path string that names exactly the file `path` for DuckDB, valid inside the block."""
    absolute = os.path.abspath(path)
    if not has_pattern_character(absolute):
        yield absolute
        return
    folder = tempfile.mkdtemp(prefix="trainbudget-literal-")
    try:
        if has_pattern_character(folder):
            raise InputError(
                f"{path}: cannot read this file name literally: the temporary folder "
                f"{folder} holds a pattern character (set TMPDIR to a plain folder)"
            )
        suffixes = "".join(s for s in Path(absolute).suffixes if s[1:].isalnum())
        link = os.path.join(folder, f"input{suffixes}")
        os.symlink(absolute, link)
        yield link
    finally:
        shutil.rmtree(folder, ignore_errors=True)
