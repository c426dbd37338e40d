"""Reading a plan file: YAML with exact decimals, validated, errors as `file:line: field: what`.

Unknown keys are errors (a typo must not silently change a budget). Decimal numbers in the
YAML are read as `Decimal` from their text, so 2.40 stays exactly 2.40.

The work is bounded (docs/estimate.md, *Plan file limits*): a file over 1 MiB
($TRAINBUDGET_PLAN_MAX_BYTES raises it), nesting deeper than 64, or more than 100,000 nodes once
YAML aliases are expanded is refused before any validation, so an alias bomb costs milliseconds.
"""

from __future__ import annotations

import os
from decimal import Decimal
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml
from pydantic import ValidationError

from trainbudget.errors import InputError
from trainbudget.plan.sections import Plan

if TYPE_CHECKING:
    from trainbudget.ledger import Ledger


DEFAULT_MAX_PLAN_BYTES = 1 << 20
MAX_PLAN_BYTES_ENV = "TRAINBUDGET_PLAN_MAX_BYTES"
MAX_DEPTH = 64  # nested mappings/sequences
MAX_NODES = 100_000  # YAML nodes, each alias counted as the whole node it stands for


class _DecimalLoader(yaml.SafeLoader):
    """A safe YAML loader that reads floats as Decimal from their literal text.

    It refuses nesting deeper than MAX_DEPTH while composing (PyYAML's composer recurses, so a
    plan 5,000 deep would otherwise end in RecursionError).
    """

    _depth = 0

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node:
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                mark = self.peek_event().start_mark
                raise _TooDeep(mark.line + 1)
            return super().compose_node(parent, index)  # type: ignore[misc]
        finally:
            self._depth -= 1


class _TooDeep(Exception):
    def __init__(self, line: int) -> None:
        self.line = line


def _construct_decimal(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> Decimal | float:
    text = loader.construct_scalar(node).replace("_", "")
    try:
        return Decimal(text)
    except ArithmeticError:
        return loader.construct_yaml_float(node)  # .inf, .nan: kept as float, rejected later


_DecimalLoader.add_constructor("tag:yaml.org,2002:float", _construct_decimal)


def max_plan_bytes() -> int:
    """The largest plan file read, in bytes: $TRAINBUDGET_PLAN_MAX_BYTES or 1 MiB."""
    raw = os.environ.get(MAX_PLAN_BYTES_ENV)
    if not raw:
        return DEFAULT_MAX_PLAN_BYTES
    try:
        value = int(raw)
    except ValueError:
        value = 0
    if value < 1:
        raise InputError(
            f"{MAX_PLAN_BYTES_ENV}: expected a positive whole number of bytes, got {raw!r}"
        )
    return value


def load_plan(path: str | Path) -> Plan:
    """Read and validate a plan file; raise InputError naming file, line and field.

    A run parses its plan once: the same unchanged file (path, size, mtime) is not parsed
    again in this process, e.g. by a flow's run name and then by its body.
    """
    plan_path = Path(path)
    try:
        stat = plan_path.stat()
    except OSError as exc:
        raise InputError(f"{plan_path}: cannot read plan: {exc.strerror}") from None
    return _parsed_plan(str(plan_path), stat.st_size, stat.st_mtime_ns, max_plan_bytes())


@lru_cache(maxsize=32)
def _parsed_plan(path: str, size: int, mtime_ns: int, limit: int) -> Plan:
    return parse_plan(read_plan_text(path, limit), path)


def read_plan_text(path: str | Path, limit: int | None = None) -> str:
    """The plan file's text; InputError if it is over `limit` bytes (default max_plan_bytes()),
    binary or not UTF-8.

    At most limit + 1 bytes are read, so a growing file or a device cannot make it unbounded.
    """
    limit = max_plan_bytes() if limit is None else limit
    try:
        with Path(path).open("rb") as handle:
            data = handle.read(limit + 1)
    except OSError as exc:
        raise InputError(f"{path}: cannot read plan: {exc.strerror}") from None
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


def parse_plan(text: str, source: str = "<plan>") -> Plan:
    """Validate plan YAML text; `source` names it in error messages."""
    loader: _DecimalLoader | None = None
    try:
        loader = _DecimalLoader(text)
        root = loader.get_single_node()
        _check_size(root, source)
        # Before construction: it merges `<<` keys into the mapping nodes in place.
        _reject_duplicate_keys(root, source)
        data = None if root is None else loader.construct_document(root)
    except yaml.YAMLError as exc:
        raise InputError(
            f"{source}{_error_line(exc, text)}: not valid YAML: {_problem(exc)}"
        ) from None
    except _TooDeep as exc:
        raise InputError(
            f"{source}:{exc.line}: refused: the plan nests deeper than {MAX_DEPTH} levels"
        ) from None
    finally:
        if loader is not None:
            loader.dispose()
    if not isinstance(data, dict):
        raise InputError(f"{source}:1: a plan must be a YAML mapping of sections")
    try:
        return Plan.model_validate(data)
    except ValidationError as exc:
        error = exc.errors()[0]
        loc = tuple(error["loc"])
        line = _line_of(root, loc)
        field = ".".join(str(part) for part in loc) or "(plan)"
        raise InputError(f"{source}:{line}: {field}: {_describe(error)}") from None


def _error_line(exc: yaml.YAMLError, text: str) -> str:
    mark = getattr(exc, "problem_mark", None)
    if mark is not None:
        return f":{mark.line + 1}"
    position = getattr(exc, "position", None)  # a ReaderError: a character YAML refuses
    return f":{text.count(chr(10), 0, position) + 1}" if isinstance(position, int) else ""


def _problem(exc: yaml.YAMLError) -> str:
    if isinstance(exc, yaml.reader.ReaderError):
        return f"character #x{exc.character:04x} is not allowed in YAML (binary file?)"
    return getattr(exc, "problem", None) or str(exc).splitlines()[0]


def _check_size(root: yaml.Node | None, source: str) -> None:
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
            raise _TooDeep(node.start_mark.line + 1)
        if count > MAX_NODES:
            raise InputError(
                f"{source}:{node.start_mark.line + 1}: refused: the plan holds more than "
                f"{MAX_NODES:,} YAML nodes once its aliases are expanded (an alias bomb?)"
            )
        measured[id(node)] = (count, height)
        return count, height

    if root is not None:
        measure(root)


def _reject_duplicate_keys(node: yaml.Node | None, source: str, path: str = "") -> None:
    """YAML keeps the last of two equal keys; in a budget that is a silent change, so refuse.

    Bounded: _check_size has capped the expanded tree at MAX_NODES.
    """
    if isinstance(node, yaml.MappingNode):
        seen: set[Any] = set()
        for key, value in node.value:
            name = f"{path}.{key.value}" if path else str(key.value)
            if key.value in seen:
                raise InputError(f"{source}:{key.start_mark.line + 1}: {name}: duplicate key")
            seen.add(key.value)
            _reject_duplicate_keys(value, source, name)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _reject_duplicate_keys(item, source, f"{path}.{index}")


def _describe(error: Any) -> str:
    """One plain sentence for a pydantic error, with the value found."""
    kind, ctx, found = error["type"], error.get("ctx") or {}, error.get("input")
    if kind == "missing":
        return "required, but missing"
    if kind == "extra_forbidden":
        return "unknown key (check the spelling; see DESIGN.md for the plan's keys)"
    if kind in {"greater_than", "greater_than_equal", "less_than_equal", "less_than"}:
        bound = ctx.get("gt", ctx.get("ge", ctx.get("le", ctx.get("lt"))))
        if kind == "greater_than" and bound == 0:
            noun = "positive" if isinstance(bound, Decimal) else "a positive integer"
            return f"must be {noun}, got {found}"
        words = {
            "greater_than": "greater than",
            "greater_than_equal": "at least",
            "less_than_equal": "at most",
            "less_than": "less than",
        }
        return f"must be {words[kind]} {bound}, got {found}"
    if kind.startswith("int_"):
        return f"must be an integer, got {found!r}"
    if kind.startswith(("decimal_", "float_")):
        return f"must be a number, got {found!r}"
    if kind == "literal_error":
        return f"must be one of {ctx.get('expected')}, got {found!r}"
    if kind == "value_error":
        return str(ctx.get("error", error["msg"]))
    return f"{error['msg'][0].lower()}{error['msg'][1:]}, got {found!r}"


def _line_of(root: yaml.Node | None, loc: tuple[Any, ...]) -> int:
    """The 1-based line of the YAML node at `loc`, or of its nearest existing parent."""
    node, line = root, (root.start_mark.line + 1 if root else 1)
    for part in loc:
        child = None
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                if key.value == part:
                    # An unknown key is best shown at the key itself.
                    child, line = value, key.start_mark.line + 1
                    break
        elif (
            isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value)
        ):
            child = node.value[part]
            line = child.start_mark.line + 1
        if child is None:
            break
        node = child
    return line


def land_plan(ledger: Ledger, path: str | Path, plan: Plan | None = None) -> Plan:
    """Land the plan at `path` (parsed unless `plan` is it already); a no-op if this exact
    file was landed before."""
    plan_path = Path(path)
    plan = plan or load_plan(plan_path)
    with ledger.transaction():
        source = ledger.begin_source(plan_path, "plan")
        if source is not None:
            row = {
                "campaign": plan.campaign,
                "plan_json": plan.model_dump_json(),
                "raw_yaml": read_plan_text(plan_path),
                **source.provenance(None),
            }
            ledger.insert_rows("plans", [row])
            ledger.finish_source(source, 1)
    return plan
