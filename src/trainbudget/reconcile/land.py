"""Land sacct exports, registry, progress and manifest in the ledger: idempotent, quarantined.

Re-landing the same file is a no-op (the ledger's content hash); a job seen again in another
export (same cluster, job id, step and submit time) replaces its earlier row, so re-running a
week changes nothing. Rejected rows go to quarantine with file, line and reason: those the
parsing rejects, and those that break a rule of `quality.rules` (checked in the ledger, one
query per file), so whichever entry point lands a file, the same rows land.

An sacct text file must say what its columns are (a header, or `fields`, the --sacct-fields
list). A headerless file without them is read in the default order (TARGET_FIELDS) only if
every row reads in it, and is refused whole otherwise; even then none of its rows replaces a
landed row with other values. An export without AllocTRES counts GPUs from ReqTRES (flag
`gpus-from-reqtres`, and a note); one with neither is refused: it says no GPU count.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trainbudget.base.errors import InputError
from trainbudget.files.text import require_utf8
from trainbudget.quality.relation import take_invalid_rows
from trainbudget.quality.rules import (
    MANIFEST_RULES,
    PROGRESS_EVENTS_RULES,
    REGISTRY_RULES,
    SACCT_ROWS,
    TableRules,
)
from trainbudget.reconcile.fields import read_records
from trainbudget.reconcile.gpu_usage import land_gpu_usage
from trainbudget.reconcile.history import claim_source_weeks
from trainbudget.reconcile.manifest import manifest_row
from trainbudget.reconcile.progress import land_progress_file
from trainbudget.reconcile.registry import registry_row
from trainbudget.reconcile.sacct import normalize_stage, scan_bytes, stage_text
from trainbudget.reconcile.sacct_json import stage_json

if TYPE_CHECKING:
    from trainbudget.ledger import Ledger
    from trainbudget.reconcile.sacct_format import TextLayout


@dataclass(frozen=True)
class Landed:
    """What one input file contributed: rows landed and quarantined, or already landed."""

    path: str
    kind: str
    rows_landed: int
    rows_quarantined: int
    already_landed: bool
    first_rejection: str | None = None  # "line N: reason" of the first quarantined row
    source_id: int | None = field(default=None, compare=False)  # the ledger's sources row
    notes: tuple[str, ...] = ()  # what the user should know about how it was read (a warning)

    @property
    def rejected(self) -> bool:
        """Landed now, but not one row accepted: the source is not marked landed."""
        return not self.already_landed and self.rows_landed == 0


def require_rows(landed: list[Landed]) -> None:
    """InputError naming the first file when files were given and none landed a row, now or
    before (every row quarantined, or nothing in them)."""
    if not landed or any(not item.rejected for item in landed):
        return
    first = landed[0]
    found = (
        f"all {first.rows_quarantined} rows quarantined ({first.first_rejection})"
        if first.rows_quarantined
        else "no rows in it"
    )
    hint = f"; {DELIMITER_HINT}" if first.kind == "sacct" else ""
    raise InputError(f"{first.path}: nothing landed: {found}{hint}")


DELIMITER_HINT = "check --sacct-delimiter and --sacct-fields"
GPUS_FROM_REQTRES = "gpus-from-reqtres"


def _outcome(
    ledger: Ledger, path: Path, kind: str, source_id: int, rows: int, notes: tuple[str, ...] = ()
) -> Landed:
    """What a source landed, its quarantined rows counted and, if none landed, the first named."""
    ((quarantined,),) = ledger.query("reconcile/land/source_quarantined", source_id=source_id)
    first = None
    if quarantined:
        line, reason = ledger.query("ledger/first_quarantined", source_id=source_id)[0]
        first = f"line {line}: {reason}" if line is not None else reason
    return Landed(str(path), kind, rows, quarantined, False, first, source_id, notes)


def land_sacct(
    ledger: Ledger,
    path: Path,
    *,
    cluster: str = "default",
    cluster_tz: str = "UTC",
    delimiter: str | None = None,
    fields: list[str] | None = None,
    require_gpus: bool = True,
) -> Landed:
    """Land one sacct export (text with any delimiter, or --json) into `sacct_rows`.

    `require_gpus` False lands a text export with neither AllocTRES nor ReqTRES (every job 0
    GPUs) instead of refusing it: only for reading real GPU-less exports' other fields.
    """
    _check_readable(path)
    with ledger.transaction():
        scanned = scan_bytes(path)
        # sacct --json names its fields and prints UTC epochs: only --cluster changes its rows.
        given = {"cluster": cluster} if scanned.is_json else {
            "cluster": cluster, "cluster_tz": cluster_tz, "delimiter": delimiter, "fields": fields,
        }  # fmt: skip
        defaults = {"cluster": "default", "cluster_tz": "UTC", "delimiter": None, "fields": None}
        options = {k: v for k, v in given.items() if v != defaults[k]}
        source = ledger.begin_source(path, "sacct", sha256=scanned.sha256, options=options)
        if source is None:
            from trainbudget.ledger import source_options

            found = ledger.query("ledger/find_source", kind="sacct", source_sha256=scanned.sha256,
                                 parse_options=source_options(options))  # fmt: skip
            return Landed(str(path), "sacct", 0, 0, True, source_id=found[0][0])
        guessed, notes = False, []
        if scanned.is_json:
            # sacct --json prints epoch seconds, so its times are UTC whatever the cluster.
            split, layout, tz = stage_json(ledger, path), None, "UTC"
        else:
            split, layout = stage_text(ledger, path, scanned, delimiter, fields)
            tz = cluster_tz
            guessed = not layout.has_header and not fields
            split = {**split, **_gpu_field(path, split, guessed, require_gpus)}
        rejected = normalize_stage(ledger, split, cluster, tz, layout, rejoin=not guessed)
        ledger.quarantine_rows(source, [(bad.line, bad.raw, bad.reason) for bad in rejected])
        # The good rows go straight from the parsing view into sacct_rows (one write), each
        # with its source id and line; the view sacct_records joins the rest of the provenance
        # back from sources. Only when some line did not land is the parsing view read again
        # for the reasons (quarantine).
        landed = ledger.execute(
            "reconcile/land/sacct_insert", source_id=source.source_id
        ).fetchone()[0]
        staged = ledger.query("reconcile/land/sacct_data_lines")[0][0] - len(rejected)
        ledger.execute("reconcile/land/sacct_rejected", scan=landed < staged)
        # What the parsing let through must hold every rule of SACCT_ROWS (one scan); a row
        # that does not is quarantined with its text before it can replace an earlier row.
        invalid = take_invalid_rows(ledger.con, SACCT_ROWS, source.source_id)
        if invalid:
            texts = dict(ledger.query("reconcile/land/sacct_line_texts",
                                      linenos=[line for line, _, _ in invalid]))  # fmt: skip
            ledger.quarantine_rows(source, [(n, texts.get(n, raw), why) for n, raw, why in invalid])
            landed -= len(invalid)
        unread = len(rejected) + staged - landed  # split badly, parsed badly, broke a rule
        if guessed and unread:
            _refuse_guessed(ledger, path, rejected, invalid, unread, staged + len(rejected))
        if layout is not None and 2 * len(rejected) > staged + len(rejected):
            notes.append(_field_count_note(len(rejected), staged + len(rejected), layout))
        # A key repeated inside this file keeps its last line; the others are quarantined.
        # A headerless file read in the default order never replaces a landed row (its
        # differing rows are quarantined, naming the row they would have replaced).
        duplicates = ledger.query(
            "reconcile/land/sacct_has_duplicates", source_id=source.source_id
        )[0][0]
        if duplicates:
            ledger.execute("reconcile/land/sacct_mark_duplicates", source_id=source.source_id)
        if guessed:
            ledger.execute("reconcile/land/sacct_guessed_replacements", source_id=source.source_id)
        if duplicates or guessed:
            dropped = ledger.execute(
                "reconcile/land/sacct_drop_duplicates", source_id=source.source_id
            ).fetchone()[0]
            landed -= dropped
        if split.get("gpus_flag"):
            notes.append(_reqtres_note(ledger, source.source_id))
        land_gpu_usage(ledger, source.source_id, split, layout)  # TRESUsageIn*, jobstats
        # Replaced rows share a submit time and a job id: only the landing's spans of both are
        # searched. They are found first, so the cached weeks they ran in go stale with its.
        lo, hi, nulls, id_lo, id_hi = ledger.query(
            "reconcile/land/sacct_submit_span", source_id=source.source_id
        )[0]
        span = {"source_id": source.source_id, "lo": lo, "hi": hi, "nulls": nulls,
                "id_lo": id_lo, "id_hi": id_hi}  # fmt: skip
        ledger.execute("reconcile/land/sacct_replaced", **span)
        claim_source_weeks(ledger, source.source_id)  # the team ledger's guard of the cache
        ledger.execute("reconcile/land/sacct_stale_weeks", source_id=source.source_id)
        if ledger.query("reconcile/land/sacct_replaced_count")[0][0]:
            ledger.execute("reconcile/land/sacct_delete_replaced", **span)
            # Their copies too (migration 019); a review copying lines at once claims the same.
            ledger.claim("tracked", "lines")
            ledger.execute("reconcile/land/tracked_delete_replaced", source_id=source.source_id)
        if ledger.query("reconcile/land/sacct_rejected_count")[0][0]:
            ledger.execute(
                "reconcile/land/sacct_quarantine",
                source_id=source.source_id,
                source_path=source.source_path,
                now=datetime.now(UTC),
            )
        ledger.finish_source(source, landed)
        return _outcome(ledger, path, "sacct", source.source_id, landed, tuple(notes))


def _gpu_field(path: Path, split: dict[str, Any], guessed: bool, required: bool) -> dict[str, Any]:
    """Where the GPU count is read: AllocTRES; ReqTRES (flagged) when the export has no
    AllocTRES; InputError when it has neither (unless not `required`)."""
    if split["i_alloctres"] is not None or guessed:
        return {"i_gputres": split["i_alloctres"], "gpus_flag": None}
    if split["i_reqtres"] is not None:
        return {"i_gputres": split["i_reqtres"], "gpus_flag": GPUS_FROM_REQTRES}
    if not required:
        return {"i_gputres": None, "gpus_flag": None}
    raise InputError(
        f"{path}:1: no AllocTRES or ReqTRES column, so no GPU count for any job; export "
        "with AllocTRES in sacct's --format (and name it in --sacct-fields if headerless)"
    )


def _reqtres_note(ledger: Ledger, source_id: int) -> str:
    """The one warning line of an export whose GPU counts came from ReqTRES."""
    ((jobs, flagged),) = ledger.query(
        "reconcile/land/sacct_gpu_fallback_count", source_id=source_id, flag=GPUS_FROM_REQTRES
    )
    return (
        f"no AllocTRES column: the GPUs of {flagged} of {jobs} jobs are read from ReqTRES "
        f"(requested, not allocated; flag {GPUS_FROM_REQTRES}); export AllocTRES for the "
        "allocation"
    )


def _field_count_note(bad: int, rows: int, layout: TextLayout) -> str:
    """Most rows split into the wrong number of fields: the delimiter is the likely fault."""
    commas = (
        "; sacct's AllocTRES and ReqTRES hold commas, so export with its default | delimiter"
        if layout.delimiter == ","
        else ""
    )
    return (
        f"{bad} of {rows} rows do not split into the {len(layout.fields)} fields of its "
        f"header at {layout.delimiter!r}: {DELIMITER_HINT} (sacct --delimiter, --format){commas}"
    )


def _refuse_guessed(
    ledger: Ledger, path: Path, rejected: list, invalid: list, unread: int, rows: int
) -> None:
    """InputError: a headerless file without --sacct-fields whose rows do not all read in the
    default order is refused whole (the transaction rolls its rows and quarantine back)."""
    from trainbudget.reconcile.sacct_format import TARGET_FIELDS

    firsts = [(bad.line, bad.reason) for bad in rejected]
    firsts += [(line, why) for line, _, why in invalid]
    firsts += [tuple(row) for row in ledger.query("reconcile/land/sacct_first_rejected")]
    line, why = min(firsts, key=lambda item: item[0])
    delimiter = ", or check --sacct-delimiter" if 2 * len(rejected) > rows else ""
    raise InputError(
        f"{path}: no header line, and {unread} of {rows} rows do not read in sacct's default "
        f"field order (first: line {line}: {why}); name its columns with --sacct-fields "
        f"(the --format it was exported with; the default is {','.join(TARGET_FIELDS)})"
        f"{delimiter}"
    )


def land_registry(ledger: Ledger, path: Path) -> Landed:
    """Land an experiment registry (CSV or YAML)."""
    return _land_records(ledger, path, "registry", REGISTRY_RULES, registry_row, REGISTRY_NEEDS)


def land_progress(ledger: Ledger, path: Path) -> Landed:
    """Land application progress events (JSONL), read and checked by DuckDB."""
    _check_readable(path)
    require_utf8(path)  # DuckDB's read_text would refuse it naming no line
    with ledger.transaction():
        source = ledger.begin_source(path, "progress")
        if source is None:
            return Landed(str(path), "progress", 0, 0, True)
        landed, _ = land_progress_file(ledger, source, path)
        invalid = take_invalid_rows(ledger.con, PROGRESS_EVENTS_RULES, source.source_id)
        ledger.quarantine_rows(source, invalid)
        landed -= len(invalid)
        ledger.finish_source(source, landed)
        return _outcome(ledger, path, "progress", source.source_id, landed)


def land_manifest(ledger: Ledger, path: Path) -> Landed:
    """Land an artifact manifest (CSV or JSONL)."""
    return _land_records(ledger, path, "manifest", MANIFEST_RULES, manifest_row, MANIFEST_NEEDS)


def _land_records(
    ledger: Ledger,
    path: Path,
    kind: str,
    rules: TableRules,
    validate: Callable[[dict[str, Any]], dict[str, Any]],
    needs: tuple[str, ...],
) -> Landed:
    _check_readable(path)
    records = read_records(path)
    _require_columns(path, kind, records, needs)
    with ledger.transaction():
        source = ledger.begin_source(path, kind)
        if source is None:
            return Landed(str(path), kind, 0, 0, True)
        good, bad, texts = [], [], {}
        for line, record, raw in records:
            texts[line] = raw
            try:
                if isinstance(record, str):
                    raise ValueError(record)
                good.append({**validate(record), **source.provenance(line)})
            except ValueError as exc:
                bad.append((line, raw, str(exc)))
        ledger.insert_rows(rules.table, good)
        invalid = take_invalid_rows(ledger.con, rules, source.source_id)
        bad += [(line, texts[line], why) for line, _, why in invalid]
        ledger.quarantine_rows(source, sorted(bad, key=lambda b: b[0]))
        landed = len(good) - len(invalid)
        ledger.finish_source(source, landed)
        return _outcome(ledger, path, kind, source.source_id, landed)


# Columns a file must have for any row to land (DESIGN.md, the accounting side's formats).
REGISTRY_NEEDS = ("job_id", "experiment_id", "work_class")
MANIFEST_NEEDS = ("artifact_id", "size_bytes", "created", "role")


def _require_columns(path: Path, kind: str, records: list, needs: tuple[str, ...]) -> None:
    """A column no record has is the file's fault, not every row's: refuse it naming it."""
    rows = [record for _, record, _ in records if isinstance(record, dict)]
    if not rows:
        return
    seen = {str(key).strip() for row in rows for key in row}
    missing = [column for column in needs if column not in seen]
    if missing:
        raise InputError(
            f"{path}:1: the {kind} has no {', '.join(missing)} column (it needs {', '.join(needs)})"
        )


def _check_readable(path: Path) -> None:
    if path.is_dir():
        raise InputError(f"{path}: a folder, not a file: give each export as a file of its own")
    if not path.is_file():
        raise InputError(f"{path}: no such file")
