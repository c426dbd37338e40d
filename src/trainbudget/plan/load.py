"""Reading a plan file: YAML with exact decimals, validated, errors as `file:line: field: what`.

Unknown keys are errors (a typo must not silently change a budget). Decimal numbers in the
YAML are read as `Decimal` from their text, so 2.40 stays exactly 2.40.

The work is bounded (plan/limits.py; docs/estimate.md, *Plan file limits*).
"""

from __future__ import annotations

from decimal import Decimal
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from trainbudget.base.errors import InputError
from trainbudget.plan.fields import Invalid
from trainbudget.plan.forecast import cross_section_problem
from trainbudget.plan.limits import (
    MAX_DEPTH,
    TooDeep,
    check_expansion,
    max_plan_bytes,
    read_plan_text,
)
from trainbudget.plan.sections import Plan

if TYPE_CHECKING:
    from trainbudget.ledger import Ledger


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
                raise TooDeep(mark.line + 1)
            return super().compose_node(parent, index)  # type: ignore[misc]
        finally:
            self._depth -= 1


def _construct_decimal(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> Decimal | float:
    text = loader.construct_scalar(node).replace("_", "")
    try:
        return Decimal(text)
    except ArithmeticError:
        return loader.construct_yaml_float(node)  # .inf, .nan: kept as float, rejected later


_DecimalLoader.add_constructor("tag:yaml.org,2002:float", _construct_decimal)


def _construct_timestamp(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> Any:
    """A YAML date or time; one that is no calendar date (2027-13-31) stays text, for the
    field's check to refuse at its line (PyYAML would raise ValueError)."""
    try:
        return loader.construct_yaml_timestamp(node)
    except ValueError:
        return loader.construct_scalar(node)


_DecimalLoader.add_constructor("tag:yaml.org,2002:timestamp", _construct_timestamp)


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


def parse_plan(text: str, source: str = "<plan>") -> Plan:
    """Validate plan YAML text; `source` names it in error messages."""
    loader: _DecimalLoader | None = None
    try:
        loader = _DecimalLoader(text)
        root = loader.get_single_node()
        check_expansion(root, source)
        # Before construction: it merges `<<` keys into the mapping nodes in place.
        _reject_duplicate_keys(root, source)
        data = None if root is None else loader.construct_document(root)
    except yaml.YAMLError as exc:
        raise InputError(
            f"{source}{_error_line(exc, text)}: not valid YAML: {_problem(exc)}"
        ) from None
    except TooDeep as exc:
        raise InputError(
            f"{source}:{exc.line}: refused: the plan nests deeper than {MAX_DEPTH} levels"
        ) from None
    finally:
        if loader is not None:
            loader.dispose()
    if not isinstance(data, dict):
        raise InputError(f"{source}:1: a plan must be a YAML mapping of sections")
    try:
        plan = Plan.validate(data)
    except Invalid as exc:
        field = ".".join(str(part) for part in exc.loc) or "(plan)"
        raise InputError(f"{source}:{_line_of(root, exc.loc)}: {field}: {exc.message}") from None
    problem = cross_section_problem(plan)
    if problem is not None:
        loc, message = problem
        raise InputError(f"{source}:{_line_of(root, loc)}: {'.'.join(loc)}: {message}")
    return plan


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
    # Everything that can fail on the input runs before the first write.
    content = {"campaign": plan.campaign, "plan_json": plan.to_json(),
               "raw_yaml": read_plan_text(plan_path)}  # fmt: skip
    with ledger.transaction():
        source = ledger.begin_source(plan_path, "plan")
        if source is not None:
            row = {**content, **source.provenance(None)}
            ledger.insert_rows("plans", [row])
            ledger.finish_source(source, 1)
    return plan


def newest_landed_plan(ledger: Ledger) -> Plan | None:
    """The newest landed plan; the plan's models load only if one is there."""
    rows = ledger.query("reconcile/review/newest_plan")
    if not rows:
        return None
    return Plan.from_json(rows[0][0])
