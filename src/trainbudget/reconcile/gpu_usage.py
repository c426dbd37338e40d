"""Land what an sacct export says the GPUs did: TRESUsageInTot / TRESUsageInAve and jobstats.

Slurm 23.02 and later record `gres/gpuutil` (percent) and `gres/gpumem` in each step's
TRESUsageIn* (doc/html/gres.shtml, "GPU accounting": high-water marks over the step's tasks;
from 24.05.1 summed over the step's GPUs, CHANGELOG/slurm-24.05.md). jobstats (Princeton)
stores a job summary in AdminComment as `JS1:` + base64 of gzipped JSON, per node and per GPU
(`gpu_utilization`, `gpu_used_memory`, `gpu_total_memory`: jobstats docs/setup/summaries.md).

Only an export that has one of those columns pays anything: its landed lines' usage fields are
staged in DuckDB (sql/reconcile/usage/), the JS1 payloads decoded here (DuckDB cannot gunzip),
and one row per line that said something goes to `gpu_usage` (migration 017) with the line's
source id and line. A value that does not read (a TRES figure that is not a number, a JS1 that
is not base64 gzipped JSON) lands as NULL with a flag: the line's allocation still counts, and
the figure was only ever a diagnostic (docs/reconcile.md, GPU utilisation).
"""

from __future__ import annotations

import base64
import binascii
import gzip
import json
import zlib
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from trainbudget.ledger import Ledger
    from trainbudget.reconcile.sacct_format import TextLayout

# The sacct fields read here (lower case, as TextLayout names them).
USAGE_FIELDS = ("tresusageintot", "tresusageinave", "admincomment")
JS1 = "JS1:"
# What jobstats writes when it has no summary (jobstats db_handler.py: not decodable).
JS1_EMPTY = ("JS1:Short", "JS1:None")
MICRO = Decimal("0.000001")


@dataclass(frozen=True)
class JobstatsSummary:
    """One decoded JS1 summary: GPUs counted, their mean utilisation (percent; None when the
    summary has no gpu_utilization), how many were above 0 %, the most memory one GPU used."""

    gpus: int
    util_pct: Decimal | None
    gpus_used: int | None
    mem_max_bytes: int | None


def decode_js1(text: str) -> JobstatsSummary | None:
    """The summary in a jobstats AdminComment (`JS1:` + base64(gzip(JSON))); None when jobstats
    wrote none (JS1:Short / JS1:None) or the JSON names no GPU; ValueError when it does not
    decode. Utilisation is the mean over every GPU of every node, exact to 6 places."""
    text = text.strip()
    if text in JS1_EMPTY:
        return None
    if not text.startswith(JS1):
        raise ValueError("AdminComment: a jobstats summary starts with JS1:")
    try:
        raw = gzip.decompress(base64.b64decode(text[len(JS1) :].replace(" ", ""), validate=True))
        summary = json.loads(raw, parse_float=Decimal, parse_int=Decimal)
    except (binascii.Error, OSError, EOFError, zlib.error, ValueError) as exc:
        raise ValueError(f"AdminComment: JS1 summary does not decode ({exc})") from None
    nodes = summary.get("nodes") if isinstance(summary, dict) else None
    if not isinstance(nodes, dict):
        raise ValueError("AdminComment: JS1 summary has no nodes")
    utils: list[Decimal] = []
    memory: list[int] = []
    gpus = 0
    for node in nodes.values():
        if not isinstance(node, dict):
            raise ValueError("AdminComment: JS1 summary: a node is not an object")
        util = _per_gpu(node, "gpu_utilization")
        used = _per_gpu(node, "gpu_used_memory")
        gpus += len(set(util) | set(used) | set(_per_gpu(node, "gpu_total_memory")))
        utils += util.values()
        memory += [int(v) for v in used.values()]
    if not gpus:
        return None
    mean = None
    if utils:
        mean = (sum(utils, Decimal(0)) / len(utils)).quantize(MICRO, ROUND_HALF_UP)
    return JobstatsSummary(
        gpus=gpus,
        util_pct=mean,
        gpus_used=sum(1 for u in utils if u > 0) if utils else None,
        mem_max_bytes=max(memory) if memory else None,
    )


def _per_gpu(node: dict[str, Any], key: str) -> dict[str, Decimal]:
    """A node's {GPU index: number} of `key` (empty when absent); ValueError if not numbers."""
    values = node.get(key, {})
    if not isinstance(values, dict):
        raise ValueError(f"AdminComment: JS1 summary: {key} is not an object")
    try:
        out = {str(k): Decimal(v) for k, v in values.items()}
    except (InvalidOperation, TypeError):
        raise ValueError(f"AdminComment: JS1 summary: {key} holds a non-number") from None
    if any(not v.is_finite() or v < 0 for v in out.values()):
        raise ValueError(f"AdminComment: JS1 summary: {key} holds a negative number")
    return out


def land_gpu_usage(
    ledger: Ledger, source_id: int, split: dict[str, Any], layout: TextLayout | None
) -> int:
    """Stage the usage fields of the lines this landing put in sacct_rows, decode their JS1
    summaries, insert one gpu_usage row per line that said something; the rows written.
    Nothing at all when the export has none of USAGE_FIELDS (or is sacct --json)."""
    if layout is None:
        return 0
    index = {name: _position(layout, name) for name in USAGE_FIELDS}
    if all(i is None for i in index.values()):
        return 0
    ledger.execute(
        "reconcile/usage/usage_stage",
        delim=split["delim"],
        first_data_line=split["first_data_line"],
        i_tot=index["tresusageintot"],
        i_ave=index["tresusageinave"],
        i_admin=index["admincomment"],
    )
    lines, gpus, utils, used, mems, flags = [], [], [], [], [], []
    for line, comment in ledger.query("reconcile/usage/usage_js1"):
        try:
            summary, flag = decode_js1(comment), None
            if summary is None:
                flag = "jobstats-short"
        except ValueError:
            summary, flag = None, "jobstats-unreadable"
        lines.append(line)
        gpus.append(summary.gpus if summary else None)
        utils.append(str(summary.util_pct) if summary and summary.util_pct is not None else None)
        used.append(summary.gpus_used if summary else None)
        mems.append(summary.mem_max_bytes if summary else None)
        flags.append(flag)
    ledger.execute(
        "reconcile/usage/usage_jobstats",
        lines=lines, gpus=gpus, utils=utils, used=used, mems=mems, flags=flags,
    )  # fmt: skip
    return int(ledger.execute("reconcile/usage/usage_insert", source_id=source_id).fetchone()[0])


def _position(layout: TextLayout, name: str) -> int | None:
    """1-based position of field `name` in the layout, None when absent."""
    return layout.fields.index(name) + 1 if name in layout.fields else None
