"""The campaign plan file: YAML, validated with pydantic, errors as `file:line: field: what`.

Unknown keys are errors (a typo must not silently change a budget). Decimal numbers in the
YAML are read as `Decimal` from their text, so 2.40 stays exactly 2.40.
"""

from __future__ import annotations

from decimal import Decimal
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from trainbudget.errors import InputError
from trainbudget.gates.policy import Gates

if TYPE_CHECKING:
    from trainbudget.ledger import Ledger

# Integers are strict (true and "8" are not 8); decimals accept any finite number.
PositiveInt = Annotated[int, Field(gt=0, strict=True)]
NonNegativeInt = Annotated[int, Field(ge=0, strict=True)]
# Decimal bounds are Decimal so error messages can tell "positive" from "a positive integer".
PositiveDecimal = Annotated[Decimal, Field(gt=Decimal(0), allow_inf_nan=False)]
NonNegativeDecimal = Annotated[Decimal, Field(ge=Decimal(0), allow_inf_nan=False)]


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Prices(_Section):
    gpu_hour_usd: NonNegativeDecimal
    storage_gb_month_usd: NonNegativeDecimal = Decimal(0)


class Ceiling(_Section):
    gpu_hours: PositiveDecimal
    usd: PositiveDecimal | None = None


class JobGroup(_Section):
    """A batch of identical jobs: runs × gpus × hours GPU-hours."""

    name: str
    runs: PositiveInt
    gpus: PositiveInt
    hours: PositiveDecimal


class MainRun(_Section):
    """The main training run: hours given, or derived from (params, tokens, gpu, mfu)."""

    gpus: PositiveInt
    hours: PositiveDecimal | None = None
    gpu: str | None = None
    gpu_tflops: PositiveDecimal | None = None
    params: PositiveDecimal | None = None
    active_params: PositiveDecimal | None = None
    tokens: PositiveDecimal | None = None
    mfu: Annotated[Decimal, Field(gt=0, le=1, allow_inf_nan=False)] | None = None
    flops_method: Literal["6nt", "attention", "recompute", "moe"] = "6nt"
    n_layers: PositiveInt | None = None
    d_model: PositiveInt | None = None
    seq_len: PositiveInt | None = None
    model_class: Literal["dense", "moe", "cnn", "snn"] = "dense"  # class-default MFU
    precision: Literal["fp32", "tf32", "bf16", "fp16", "fp8"] = "bf16"  # catalog peak

    @model_validator(mode="after")
    def _hours_or_derivation(self) -> MainRun:
        if self.hours is None:
            missing = [k for k in ("params", "tokens") if getattr(self, k) is None]
            if self.gpu is None and self.gpu_tflops is None:
                missing.append("gpu")
            if missing:
                raise ValueError(
                    "give hours, or params, tokens and gpu (or gpu_tflops) to derive them; "
                    f"missing {', '.join(missing)}"
                )
        return self


class Retry(_Section):
    attempts: NonNegativeInt
    gpus: PositiveInt
    hours: PositiveDecimal
    name: str = "retries"


class Evaluation(_Section):
    """Evaluation jobs, given directly (jobs) or as checkpoints × suites × replicas.

    `hours` is the elapsed allocation of one job, model loading and result writing included;
    `load_hours` and `write_hours`, when given, are added to it per job.
    """

    name: str
    gpus: PositiveInt
    hours: PositiveDecimal
    jobs: PositiveInt | None = None
    checkpoints: PositiveInt | None = None
    suites: PositiveInt = 1
    replicas: PositiveInt = 1
    load_hours: NonNegativeDecimal = Decimal(0)
    write_hours: NonNegativeDecimal = Decimal(0)

    @model_validator(mode="after")
    def _jobs_or_checkpoints(self) -> Evaluation:
        if (self.jobs is None) == (self.checkpoints is None):
            raise ValueError("give either jobs, or checkpoints (with suites and replicas)")
        return self


class Checkpoints(_Section):
    count: NonNegativeInt
    size_gb: NonNegativeDecimal
    retention_months: NonNegativeDecimal


class Sensitivity(_Section):
    attempts: list[PositiveInt] = Field(default_factory=lambda: [1], min_length=1)
    failure_fraction: list[NonNegativeDecimal] = Field(
        default_factory=lambda: [Decimal("0.05")], min_length=1
    )


class CheckpointCadence(_Section):
    """Inputs of the checkpoint-interval model (estimate/cadence.py): times in minutes."""

    write_minutes: PositiveDecimal
    restart_minutes: NonNegativeDecimal = Decimal(0)
    mtbf_hours_per_gpu: PositiveDecimal | None = None
    mtbf_hours_per_node: PositiveDecimal | None = None
    gpus_per_node: PositiveInt = 8
    size_gb: NonNegativeDecimal | None = None
    keep_last: PositiveInt = 2

    @model_validator(mode="after")
    def _one_mtbf(self) -> CheckpointCadence:
        if (self.mtbf_hours_per_gpu is None) == (self.mtbf_hours_per_node is None):
            raise ValueError("give exactly one of mtbf_hours_per_gpu or mtbf_hours_per_node")
        return self


class CapacityChoice(_Section):
    """A capacity option for the main run (estimate/capacity.py); no mtbf = never interrupted."""

    name: str
    gpu_hour_usd: NonNegativeDecimal
    mtbf_hours: PositiveDecimal | None = None
    restart_minutes: NonNegativeDecimal = Decimal(0)
    write_minutes: NonNegativeDecimal = Decimal(0)
    checkpointing: bool = True
    delay_usd_per_day: NonNegativeDecimal = Decimal(0)


class Plan(_Section):
    """A training campaign plan (see DESIGN.md, "Campaign plan")."""

    campaign: Annotated[str, Field(min_length=1)]
    unit_of_progress: Literal["optimizer_steps", "tokens", "validated_samples"]
    prices: Prices
    ceiling: Ceiling
    main: MainRun
    pilots: list[JobGroup] = Field(default_factory=list)
    retries: list[Retry] = Field(default_factory=list)
    evaluation: list[Evaluation] = Field(default_factory=list)
    diagnostics: list[JobGroup] = Field(default_factory=list)
    checkpoints: Checkpoints | None = None
    sensitivity: Sensitivity = Field(default_factory=Sensitivity)
    cadence: CheckpointCadence | None = None
    capacity: list[CapacityChoice] = Field(default_factory=list)
    gates: Gates | None = None  # thresholds for admission, stop rules, ... (gates/policy.py)


# --- loading ------------------------------------------------------------------------------


class _DecimalLoader(yaml.SafeLoader):
    """A safe YAML loader that reads floats as Decimal from their literal text."""


def _construct_decimal(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> Decimal | float:
    text = loader.construct_scalar(node).replace("_", "")
    try:
        return Decimal(text)
    except ArithmeticError:
        return loader.construct_yaml_float(node)  # .inf, .nan: kept as float, rejected later


_DecimalLoader.add_constructor("tag:yaml.org,2002:float", _construct_decimal)


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
    return _parsed_plan(str(plan_path), stat.st_size, stat.st_mtime_ns)


@lru_cache(maxsize=32)
def _parsed_plan(path: str, size: int, mtime_ns: int) -> Plan:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"{path}: cannot read plan: {exc.strerror}") from None
    return parse_plan(text, path)


def parse_plan(text: str, source: str = "<plan>") -> Plan:
    """Validate plan YAML text; `source` names it in error messages."""
    try:
        root = yaml.compose(text, Loader=_DecimalLoader)
        data = yaml.load(text, Loader=_DecimalLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f":{mark.line + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise InputError(f"{source}{line}: not valid YAML: {problem}") from None
    if not isinstance(data, dict):
        raise InputError(f"{source}:1: a plan must be a YAML mapping of sections")
    _reject_duplicate_keys(root, source)
    try:
        return Plan.model_validate(data)
    except ValidationError as exc:
        error = exc.errors()[0]
        loc = tuple(error["loc"])
        line = _line_of(root, loc)
        field = ".".join(str(part) for part in loc) or "(plan)"
        raise InputError(f"{source}:{line}: {field}: {_describe(error)}") from None


def _reject_duplicate_keys(node: yaml.Node | None, source: str, path: str = "") -> None:
    """YAML keeps the last of two equal keys; in a budget that is a silent change, so refuse."""
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
                "raw_yaml": plan_path.read_text(encoding="utf-8"),
                **source.provenance(None),
            }
            ledger.insert_rows("plans", [row])
            ledger.finish_source(source, 1)
    return plan
