"""What an sacct text export looks like: field names, delimiter and header detection.

The fields we read, the states Slurm prints, and the `--format` the live command asks for.
Header and delimiter are detected from the first line; a headerless file uses the target
format (TARGET_FIELDS) unless the caller names its columns.
"""

from __future__ import annotations

from dataclasses import dataclass

from trainbudget.base.errors import InputError
from trainbudget.base.vocabulary import SLURM_STATES as SLURM_STATES  # the states live below both

# The format `trainbudget reconcile` expects from a headerless export, and asks for when it
# runs sacct itself (plus Cluster, so several clusters can share a ledger).
TARGET_FIELDS = (
    "JobID", "JobIDRaw", "JobName", "Account", "Partition", "State", "ExitCode", "Elapsed",
    "ElapsedRaw", "Submit", "Start", "End", "AllocTRES", "ReqTRES", "NNodes", "AllocCPUS",
    "TRESUsageInTot",
)  # fmt: skip
LIVE_FIELDS = (*TARGET_FIELDS, "Cluster")

# sacct field name (lower case) → the column it feeds. Fields not listed are kept only in the raw
# line (quarantine) and otherwise ignored.
FIELD_COLUMNS = {
    "jobid": "jobid",
    "jobidraw": "jobidraw",
    "jobname": "jobname",
    "account": "account",
    "partition": "partition",
    "state": "state",
    "exitcode": "exitcode",
    "elapsed": "elapsed",
    "elapsedraw": "elapsedraw",
    "submit": "submit",
    "start": "start",
    "end": "end",
    "alloctres": "alloctres",
    "reqtres": "reqtres",
    "nnodes": "nnodes",
    "alloccpus": "alloccpus",
    "ncpus": "alloccpus",
    "cluster": "cluster",
}
STAGE_COLUMNS = tuple(dict.fromkeys(FIELD_COLUMNS.values()))

# Free text: the only fields in which the delimiter itself can appear.
FREE_TEXT_FIELDS = {
    "jobname", "comment", "admincomment", "systemcomment", "submitline", "workdir",
    "constraints", "reason", "user", "account", "qos", "wckey", "partition", "nodelist",
}  # fmt: skip


_DELIMITER_CANDIDATES = ("|", "☃", "\t", ";", ",")


@dataclass(frozen=True)
class TextLayout:
    """How to split one sacct text file: delimiter, header, trailing delimiter, field names."""

    delimiter: str
    fields: tuple[str, ...]  # lower-case sacct field names, in file order
    has_header: bool
    trailing_delimiter: bool

    def index_of(self, column: str) -> int | None:
        """1-based position of the field feeding staging `column`, or None when absent."""
        for position, name in enumerate(self.fields, start=1):
            if FIELD_COLUMNS.get(name) == column:
                return position
        return None


def detect_layout(
    first_line: str, path: str, delimiter: str | None = None, fields: list[str] | None = None
) -> TextLayout:
    """Work out delimiter, header and trailing delimiter from a file's first line."""
    # A byte-order mark (Windows editors) is not part of the first field's name.
    line = first_line.rstrip("\r\n").removeprefix("\ufeff")
    if delimiter == "":
        raise InputError("sacct_delimiter: must be at least one character, got ''")
    delim = delimiter or _guess_delimiter(line)
    parts = line.split(delim)
    known = {name.lower() for name in FIELD_COLUMNS} | FREE_TEXT_FIELDS
    header_like = sum(p.strip().lower() in known for p in parts) >= 2
    trailing = line.endswith(delim)
    if header_like:
        names = parts[:-1] if trailing else parts
        columns = tuple(n.strip().lower() for n in names)
        if fields and [f.lower() for f in fields] != list(columns):
            raise InputError(f"{path}:1: header names {names} but --sacct-fields says {fields}")
    else:
        columns = tuple(f.strip().lower() for f in (fields or TARGET_FIELDS))
        # --parsable prints one more delimiter than fields; --parsable2 does not.
        trailing = trailing and len(parts) == len(columns) + 1
    if "jobid" not in columns or "state" not in columns:
        raise InputError(
            f"{path}:1: sacct columns must include JobID and State, found {list(columns)} "
            "(give --sacct-fields, the field list, for a headerless file in another format)"
        )
    if "elapsed" not in columns and "elapsedraw" not in columns:
        raise InputError(f"{path}:1: sacct columns must include Elapsed or ElapsedRaw")
    return TextLayout(delim, columns, header_like, trailing)


def _guess_delimiter(line: str) -> str:
    counts = {c: line.count(c) for c in _DELIMITER_CANDIDATES}
    best = max(counts, key=lambda c: counts[c])
    return best if counts[best] else "|"
