"""Bounds on the work of reading a plan: file size, nesting depth, YAML alias expansion.

A file over 1 MiB ($TRAINBUDGET_PLAN_MAX_BYTES raises it), binary or not UTF-8, nesting deeper
than 64, or more than 100,000 nodes once YAML aliases are expanded is refused before any
validation, so an alias bomb costs milliseconds (docs/estimate.md, *Plan file limits*).
"""

from __future__ import annotations

import errno
import stat
from pathlib import Path

import yaml

from trainbudget.base.errors import InputError
from trainbudget.base.limits import byte_limit

DEFAULT_MAX_PLAN_BYTES = 1 << 20
MAX_PLAN_BYTES_ENV = "TRAINBUDGET_PLAN_MAX_BYTES"
MAX_DEPTH = 64  # nested mappings/sequences
MAX_NODES = 100_000  # YAML nodes, each alias counted as the whole node it stands for


class TooDeep(Exception):
    """Nesting past MAX_DEPTH, found at 1-based `line`."""

    def __init__(self, line: int) -> None:
        self.line = line


def max_plan_bytes() -> int:
    """The largest plan file read, in bytes: $TRAINBUDGET_PLAN_MAX_BYTES or 1 MiB."""
    return byte_limit(MAX_PLAN_BYTES_ENV, DEFAULT_MAX_PLAN_BYTES)


# A path that names no readable file is the user's input at fault (exit 2), not the machine.
_WRONG_PATH = {errno.ENOENT, errno.EISDIR, errno.ENOTDIR, errno.ENAMETOOLONG, errno.ELOOP}


def read_plan_text(path: str | Path, limit: int | None = None) -> str:
    """The plan file's text; InputError if it is over `limit` bytes (default max_plan_bytes()),
    binary or not UTF-8.

    At most limit + 1 bytes are read, so a growing file or a device cannot make it unbounded.
    """
    limit = max_plan_bytes() if limit is None else limit
    try:
        if not stat.S_ISREG(Path(path).stat().st_mode):
            raise InputError(
                f"{path}: cannot read plan: not a regular file (a folder, pipe or device)"
            )
        with Path(path).open("rb") as handle:
            data = handle.read(limit + 1)
    except OSError as exc:
        if exc.errno in _WRONG_PATH:
            raise InputError(f"{path}: cannot read plan: {exc.strerror}") from None
        exc.filename = str(path)  # the environment failed (I/O error): exit 1, naming the file
        raise
    if len(data) > limit:
        raise InputError(
            f"{path}: refused: a plan file is larger than {limit:,} bytes "
            f"(raise the limit with ${MAX_PLAN_BYTES_ENV})"
        )
    if b"\0" in data:
        line = data.count(b"\n", 0, data.index(b"\0")) + 1
        raise InputError(f"{path}:{line}: not a YAML plan: the file is binary (a NUL byte)")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputError(
            f"{path}:{line}: not a YAML plan: byte {exc.start:,} is not UTF-8 "
            f"(0x{data[exc.start]:02x}); save the plan as UTF-8"
        ) from None


def check_expansion(root: yaml.Node | None, source: str) -> None:
    """Refuse a plan whose tree, each alias expanded, exceeds MAX_NODES nodes or MAX_DEPTH levels.

    Each distinct node is measured once (an alias shares its node object), so this is linear in
    the file however large the expansion would be: a billion-laughs plan costs milliseconds.
    """
    measured: dict[int, tuple[int, int]] = {}  # id(node) -> (expanded nodes, expanded height)
    cycle = (MAX_NODES + 1, 1)

    def measure(node: yaml.Node) -> tuple[int, int]:
        known = measured.get(id(node))
        if known is cycle:
            raise InputError(
                f"{source}:{node.start_mark.line + 1}: refused: a YAML alias refers to a node "
                "that contains it (a recursive plan)"
            )
        if known is not None:
            return known
        measured[id(node)] = cycle  # reached again while being measured: a recursive alias
        children: list[yaml.Node] = []
        if isinstance(node, yaml.MappingNode):
            children = [part for pair in node.value for part in pair]
        elif isinstance(node, yaml.SequenceNode):
            children = list(node.value)
        count, height = 1, 1
        for child in children:
            child_count, child_height = measure(child)
            count = min(count + child_count, MAX_NODES + 1)
            height = max(height, child_height + 1)
        if height > MAX_DEPTH:  # aliases of aliases nest deeper than the text itself
            raise TooDeep(node.start_mark.line + 1)
        if count > MAX_NODES:
            raise InputError(
                f"{source}:{node.start_mark.line + 1}: refused: the plan holds more than "
                f"{MAX_NODES:,} YAML nodes once its aliases are expanded (an alias bomb?)"
            )
        measured[id(node)] = (count, height)
        return count, height

    if root is not None:
        measure(root)
