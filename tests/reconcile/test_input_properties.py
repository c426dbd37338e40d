"""Hypothesis properties of the progress and registry loaders (issue 15).

Whatever one line holds, it lands in range or is quarantined with a reason: landed plus
quarantined is the number of non-blank lines, nothing else is raised, and a landed step is
never negative.
"""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from trainbudget.base.errors import InputError
from trainbudget.reconcile.land import land_progress, land_registry

PROPERTIES = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=20),
)
_EVENT = st.fixed_dictionaries(
    {},
    optional={
        "job_id": _SCALARS,
        "time": st.one_of(
            _SCALARS, st.sampled_from(["2026-11-23T01:00:00Z", "2026-11-23T01:00:00"])
        ),
        "event": st.one_of(_SCALARS, st.sampled_from(["start", "step", "checkpoint", "end"])),
        "step": _SCALARS,
        "resumed_from_step": _SCALARS,
        "accepted": _SCALARS,
    },
)
_LINE = st.one_of(
    _EVENT.map(json.dumps),
    st.text(
        alphabet=st.characters(
            blacklist_categories=("Cs",), blacklist_characters="\r\n\x85\u2028\u2029"
        ),
        max_size=60,
    ),
    st.sampled_from(["[1, 2]", "null", '{"job_id": ', "1e400", '{"step": 1e400}']),
)


def _rows(ledger, table: str) -> int:
    return ledger.con.execute(f"SELECT count(*) FROM {table}").fetchone()[0]


@PROPERTIES
@given(lines=st.lists(_LINE, min_size=1, max_size=5))
@example(lines=['{"job_id": "1", "time": "2026-11-23T01:00:00Z", "event": "step", "step": -1}'])
@example(lines=['{"job_id": "1", "time": "2026-11-23T01:00:00Z", "event": "step", "step": 1e400}'])
@example(lines=["\x1f"])  # whitespace to Python's str.strip, not to JSON: a line, quarantined
@example(lines=["\t", " \t "])  # JSON whitespace only: blank lines, skipped
def test_any_progress_line_lands_in_range_or_is_quarantined(ledger, tmp_path: Path, lines) -> None:
    path = tmp_path / "progress.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    before = (_rows(ledger, "progress_events"), _rows(ledger, "quarantine"))
    try:
        landed = land_progress(ledger, path)
    except InputError as exc:
        assert "\n" not in str(exc) and str(path) in str(exc)
        assert (_rows(ledger, "progress_events"), _rows(ledger, "quarantine")) == before
        return
    if landed.already_landed:
        return
    # Blank is RFC 8259's whitespace (space, tab, CR), not Python's wider str.isspace.
    content = [line for line in lines if line.strip(" \t\r")]
    assert landed.rows_landed + landed.rows_quarantined == len(content)
    negative = ledger.con.execute(
        "SELECT count(*) FROM progress_events WHERE step < 0 OR resumed_from_step < 0"
    ).fetchone()[0]
    assert negative == 0


_CELL = st.text(
    alphabet=st.characters(
        blacklist_categories=("Cs",), blacklist_characters='\r\n",\x85\u2028\u2029'
    ),
    max_size=12,
)


@PROPERTIES
@given(
    work_class=st.one_of(
        _CELL, st.sampled_from(["main", "pilot", "retry", "evaluation", "diagnostic"])
    ),
    result_valid=st.one_of(_CELL, st.sampled_from(["true", "false", ""])),
    job_id=_CELL,
)
@example(work_class="banana", result_valid="maybe", job_id="")
def test_any_registry_row_lands_valid_or_is_quarantined(
    ledger, tmp_path: Path, work_class: str, result_valid: str, job_id: str
) -> None:
    path = tmp_path / "registry.csv"
    path.write_text(
        "job_id,experiment_id,work_class,code_revision,data_snapshot,result_valid\n"
        f"{job_id},exp,{work_class},abc,snap,{result_valid}\n",
        encoding="utf-8",
    )
    try:
        landed = land_registry(ledger, path)
    except InputError as exc:
        assert "\n" not in str(exc) and str(path) in str(exc)
        return
    if landed.already_landed:
        return
    assert landed.rows_landed + landed.rows_quarantined == 1
    bad = ledger.con.execute(
        "SELECT count(*) FROM registry WHERE work_class NOT IN "
        "('pilot', 'main', 'retry', 'evaluation', 'diagnostic') OR job_id IS NULL OR job_id = ''"
    ).fetchone()[0]
    assert bad == 0
