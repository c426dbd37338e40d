"""quality.frame checks a Polars frame against quality.rules without Pandera: it rejects the
rows schemas.PilotStep (Pandera, built from the same rules) rejects, for the same reasons, in
the order Pandera reports them."""

from __future__ import annotations

import math
from typing import Any

import pandera.polars as pa
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trainbudget.quality.frame import FrameError, frame_failures, require_valid_frame
from trainbudget.quality.rules import (
    MAX_ARTIFACT_BYTES,
    MAX_GPU_MEMORY_BYTES,
    MAX_GPUS_PER_JOB,
    MAX_STEP_SECONDS,
    MAX_TOKENS_PER_STEP,
    PILOT_STEP_RULES,
)
from trainbudget.schemas import PilotStep

_FLOATS = ("wall_seconds", "checkpoint_seconds")
_SCHEMA = {"run_id": pl.String, **{r.column: pl.Float64 if r.column in _FLOATS else pl.Int64
                                   for r in PILOT_STEP_RULES.fields[1:]}}  # fmt: skip

# Per column: values on both sides of every declared bound, null, and for floats inf and NaN.
_EDGES = {
    "run_id": [None, "", "r1", "x" * 3],
    "step": [None, -1, 0, 7],
    "wall_seconds": [None, -0.5, 0.0, 1.5, MAX_STEP_SECONDS, MAX_STEP_SECONDS + 1.0, math.inf,
                     -math.inf, math.nan],
    "tokens": [None, 0, 1, MAX_TOKENS_PER_STEP, MAX_TOKENS_PER_STEP + 1],
    "samples": [None, -3, 0, 8, MAX_TOKENS_PER_STEP + 1],
    "seq_len": [None, 0, 2048, MAX_TOKENS_PER_STEP + 1],
    "batch_size": [None, 0, 8],
    "gpus": [None, 0, 8, MAX_GPUS_PER_JOB, MAX_GPUS_PER_JOB + 1],
    "peak_memory_bytes": [None, -1, 0, MAX_GPU_MEMORY_BYTES, MAX_GPU_MEMORY_BYTES + 1],
    "checkpoint_seconds": [None, -1.0, 0.0, 12.5, MAX_STEP_SECONDS + 0.5, math.inf, math.nan],
    "checkpoint_bytes": [None, -1, 0, MAX_ARTIFACT_BYTES, MAX_ARTIFACT_BYTES + 1],
    "source_line": [None, 0, 1, 99],
}  # fmt: skip

_WORDS = {
    "greater_than": "must be greater than",
    "greater_than_or_equal_to": "must be at least",
    "less_than_or_equal_to": "must be at most",
    "str_length": "must not be empty",
}


def _pandera_reason(case: dict[str, Any]) -> str:
    """A Pandera failure case in pilot/ingest's words (what it said before quality.frame)."""
    check, found = case["check"], case["failure_case"]
    if case["schema_context"] != "Column":
        return f"needs {check}"
    name, _, bound = check.partition("(")
    if check == "not_nullable" and found != "NaN":
        text = "required, but empty"
    elif check in ("finite", "not_nullable"):
        text = f"must be a finite number, found {found}"
    else:
        limit = "" if name == "str_length" else f" {bound.rstrip(')')}"
        text = f"{_WORDS[name]}{limit}, found {found}"
    return f"{case['column']}: {text}"


def _pandera_failures(frame: pl.DataFrame) -> dict[int, list[str]]:
    try:
        PilotStep.validate(frame, lazy=True)
    except pa.errors.SchemaErrors as exc:
        out: dict[int, list[str]] = {}
        for case in exc.failure_cases.to_dicts():
            out.setdefault(case["index"], []).append(_pandera_reason(case))
        return {i: list(dict.fromkeys(r)) for i, r in sorted(out.items())}
    return {}


_GOOD = {"run_id": "r1", "step": 0, "wall_seconds": 1.5, "tokens": 16384, "samples": None,
         "seq_len": 2048, "batch_size": 8, "gpus": 8, "peak_memory_bytes": 0,
         "checkpoint_seconds": None, "checkpoint_bytes": None, "source_line": 2}  # fmt: skip
_ROW = st.fixed_dictionaries({c: st.sampled_from(v) for c, v in _EDGES.items()})


@settings(max_examples=60, deadline=None)
@given(st.lists(_ROW, min_size=1, max_size=12))
def test_the_frame_check_and_the_pandera_model_reject_alike(rows) -> None:
    frame = pl.DataFrame(rows, schema=_SCHEMA)
    assert frame_failures(frame, PILOT_STEP_RULES) == _pandera_failures(frame)


def test_one_row_breaking_several_rules_names_each_once_in_order() -> None:
    row = _GOOD | {
        "run_id": "", "wall_seconds": math.nan, "tokens": None, "samples": None, "gpus": 0,
    }  # fmt: skip
    frame = pl.DataFrame([row], schema=_SCHEMA)
    assert frame_failures(frame, PILOT_STEP_RULES) == {
        0: [
            "run_id: must not be empty, found ",
            "wall_seconds: must be a finite number, found NaN",
            "wall_seconds: must be at most 604800, found NaN",  # NaN sorts above every number
            "gpus: must be greater than 0, found 0",
            "needs tokens or samples",
        ]
    }


def test_a_valid_frame_passes_and_a_wrong_shape_is_a_defect() -> None:
    good = pl.DataFrame([_GOOD], schema=_SCHEMA)
    assert frame_failures(good, PILOT_STEP_RULES) == {}
    assert require_valid_frame(good, PILOT_STEP_RULES) is good
    with pytest.raises(FrameError, match="undeclared column extra"):
        require_valid_frame(good.with_columns(extra=pl.lit(1)), PILOT_STEP_RULES)
    with pytest.raises(FrameError, match="missing column gpus"):
        frame_failures(good.drop("gpus"), PILOT_STEP_RULES)
    with pytest.raises(FrameError, match=r"row 0: gpus: must be greater than 0, found 0"):
        require_valid_frame(good.with_columns(gpus=pl.lit(0, pl.Int64)), PILOT_STEP_RULES)
