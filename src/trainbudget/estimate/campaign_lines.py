"""A plan's work-class lines (seed 000): GPU-hours = jobs × GPUs × hours, priced, with their
arithmetic as a person would check it ("6 runs × 4 GPUs × 3 h")."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING

from trainbudget.estimate.exact import MAX_GPU_HOURS, MAX_USD, Numeric, bounded, mul

if TYPE_CHECKING:
    from trainbudget.plan import Plan


@dataclass(frozen=True)
class CampaignLine:
    """One priced line: work class, name, planned or contingency, GPU-hours, dollars, arithmetic."""

    work_class: str
    name: str
    kind: str
    gpu_hours: Decimal
    usd: Decimal
    detail: str
    gb_months: Decimal | None = None


def num(value: Numeric) -> str:
    """A number as written in a line's arithmetic (exact, no trailing zeros)."""
    text = f"{Decimal(value).normalize():f}" if not isinstance(value, int) else str(value)
    return text


def many(count: int, word: str) -> str:
    """`1 attempt`, `2 attempts`: a count in a line's arithmetic with its noun."""
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _runs_detail(group) -> str:
    """`6 runs × 4 GPUs × 3 h` for a pilot or diagnostic group."""
    return f"{many(group.runs, 'run')} × {many(group.gpus, 'GPU')} × {num(group.hours)} h"


# The plan section each work class's line comes from (named in a bound error).
_SECTION = {
    "pilot": "pilots",
    "main": "main",
    "evaluation": "evaluation",
    "diagnostic": "diagnostics",
    "retry": "retries",
}


def work_lines(plan: Plan, main_gpu_hours: Decimal, main_detail: str) -> list[CampaignLine]:
    price = plan.prices.gpu_hour_usd

    def line(work_class: str, name: str, kind: str, hours: Decimal, detail: str) -> CampaignLine:
        field = _SECTION[work_class] + ("" if work_class == "main" else f"[{name}]")
        bounded(f"{field} (GPUs × hours)", hours, MAX_GPU_HOURS, "GPU-hours")
        usd = bounded(f"{field} × prices.gpu_hour_usd", mul(hours, price), MAX_USD, "USD")
        return CampaignLine(work_class, name, kind, hours, usd, detail)

    lines = [
        line(
            "pilot",
            group.name,
            "planned",
            mul(group.runs, group.gpus, group.hours),
            _runs_detail(group),
        )
        for group in plan.pilots
    ]
    lines.append(line("main", "main", "planned", main_gpu_hours, main_detail))
    for suite in plan.evaluation:
        per_job = suite.hours + suite.load_hours + suite.write_hours
        if suite.jobs is not None:
            jobs, how = suite.jobs, many(suite.jobs, "job")
        else:
            jobs = suite.checkpoints * suite.suites * suite.replicas
            how = (
                f"{many(suite.checkpoints, 'checkpoint')} × {many(suite.suites, 'suite')} × "
                f"{many(suite.replicas, 'replica')}"
            )
        extra = ""
        if suite.load_hours or suite.write_hours:
            extra = (
                f" (run {num(suite.hours)} + load {num(suite.load_hours)}"
                f" + write {num(suite.write_hours)} h)"
            )
        lines.append(
            line(
                "evaluation",
                suite.name,
                "planned",
                mul(jobs, suite.gpus, per_job),
                f"{how} × {many(suite.gpus, 'GPU')} × {num(per_job)} h{extra}",
            )
        )
    lines += [
        line(
            "diagnostic",
            group.name,
            "planned",
            mul(group.runs, group.gpus, group.hours),
            _runs_detail(group),
        )
        for group in plan.diagnostics
    ]
    lines += [
        line(
            "retry",
            retry.name,
            "contingency",
            mul(retry.attempts, retry.gpus, retry.hours),
            f"{many(retry.attempts, 'attempt')} × {many(retry.gpus, 'GPU')} × {num(retry.hours)} h",
        )
        for retry in plan.retries
    ]
    return lines
