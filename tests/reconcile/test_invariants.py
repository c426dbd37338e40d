"""The identities a report prints hold on the typed results and on the report itself.

Unit cases: a result whose figures disagree is refused when it is built (BrokenIdentity),
never reported. Property: over generated campaigns (jobs of every work class, untracked jobs,
jobs crossing week bounds, interruptions and resumptions), every identity of the weekly
report holds on the Review and on the numbers parsed back from its HTML, to the rounding the
page shows.
"""

from __future__ import annotations

import dataclasses
import json
import re
import tempfile
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from fractions import Fraction
from html.parser import HTMLParser
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from trainbudget.estimate.invariants import BrokenIdentity
from trainbudget.estimate.mfu_rule import MfuChoice
from trainbudget.ledger import Ledger
from trainbudget.quality.checkpoint import QualityReport
from trainbudget.reconcile.goodput import total
from trainbudget.reconcile.invariants import check_review
from trainbudget.report.html import render_html
from trainbudget.report.weekly import build_weekly_report
from trainbudget.weekly import ReconcileResult, WeeklyInputs, reconcile

from .conftest import HEADER, sacct_line

# Seed 000's plan (DESIGN.md): pilots 72, main 960, retries 160, evaluation 60 = 1,252.
SEED_PLAN = (Path(__file__).resolve().parents[2] / "examples" / "demo-7b.plan.yaml").read_text(
    encoding="utf-8"
)
MONDAY = datetime(2026, 11, 2, tzinfo=UTC)  # 2026-W45
WEEKS = ("2026-W45", "2026-W46", "2026-W47")


# --- a generated campaign ---------------------------------------------------------------------

KINDS = ("main", "main", "retry", "pilot", "evaluation", "untracked")  # main twice as often
STATES = ("COMPLETED", "FAILED", "NODE_FAIL", "TIMEOUT")


@st.composite
def campaigns(draw) -> dict:
    jobs = []
    for i in range(draw(st.integers(1, 7))):
        elapsed_min = draw(st.integers(1, 60 * 60))  # up to 60 h: some cross a week bound
        job = {
            "id": str(100 + i),
            "kind": draw(st.sampled_from(KINDS)),
            "gpus": draw(st.integers(1, 8)),
            "start": MONDAY + timedelta(minutes=draw(st.integers(0, 20 * 24 * 60))),
            "elapsed_s": 60 * elapsed_min,
            "state": draw(st.sampled_from(STATES)),
            "progress": draw(st.sampled_from([True, True, True, False])),
            "resumed": draw(st.sampled_from([0, 0, 400])),
            "checkpoint_at": draw(st.floats(0.05, 0.95)),
            "steps_reached": draw(st.integers(100, 2000)),
        }
        jobs.append(job)
    return {"jobs": jobs, "week": draw(st.sampled_from(WEEKS))}


def _stamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S")


def _write_campaign(case: dict, root: Path) -> WeeklyInputs:
    sacct, registry, progress = [HEADER], [], []
    registry.append(
        "job_id,cluster,experiment_id,work_class,code_revision,data_snapshot,"
        "result_valid,diagnosed_cause,cause_addressed"
    )
    for job in case["jobs"]:
        start, elapsed = job["start"], job["elapsed_s"]
        end = start + timedelta(seconds=elapsed)
        hours, rest = divmod(elapsed, 3600)
        sacct.append(
            sacct_line(
                str(job["id"]), job["state"], name=f"job-{job['id']}", account="team",
                elapsed=f"{hours:02d}:{rest // 60:02d}:00", elapsed_raw=str(elapsed),
                submit=_stamp(start - timedelta(minutes=5)), start=_stamp(start),
                end=_stamp(end), tres=f"cpu=8,gres/gpu={job['gpus']},node=1",
            )
        )  # fmt: skip
        if job["kind"] == "untracked":
            continue
        experiment = "exp-main" if job["kind"] in ("main", "retry") else f"exp-{job['id']}"
        registry.append(f"{job['id']},c,{experiment},{job['kind']},abc,snap,true,,")
        if not job["progress"]:
            continue
        ckpt = start + timedelta(seconds=int(elapsed * job["checkpoint_at"]))
        step_at_ckpt = job["resumed"] + job["steps_reached"] // 2
        events = [
            {
                "job_id": job["id"],
                "time": start.isoformat(),
                "event": "start",
                "resumed_from_step": job["resumed"],
            },
            {"job_id": job["id"], "time": ckpt.isoformat(), "event": "step", "step": step_at_ckpt},
            {
                "job_id": job["id"],
                "time": ckpt.isoformat(),
                "event": "checkpoint",
                "step": step_at_ckpt,
                "accepted": True,
            },
            {
                "job_id": job["id"],
                "time": end.isoformat(),
                "event": "step",
                "step": job["resumed"] + job["steps_reached"],
            },
        ]
        if job["state"] == "COMPLETED":
            events.append({"job_id": job["id"], "time": end.isoformat(), "event": "end"})
        progress += [json.dumps(e) for e in events]
    (root / "sacct.psv").write_text("\n".join(sacct) + "\n", encoding="utf-8")
    (root / "plan.yaml").write_text(SEED_PLAN, encoding="utf-8")
    paths = {}
    if len(registry) > 1:
        (root / "registry.csv").write_text("\n".join(registry) + "\n", encoding="utf-8")
        paths["registry"] = root / "registry.csv"
    if progress:
        (root / "progress.jsonl").write_text("\n".join(progress) + "\n", encoding="utf-8")
        paths["progress"] = root / "progress.jsonl"
    return WeeklyInputs(
        sacct=[root / "sacct.psv"], plan=root / "plan.yaml", week=case["week"], cluster="c", **paths
    )


class _Page(HTMLParser):
    """The summary lines and every table (title → header, rows of cell texts) of a report."""

    def __init__(self) -> None:
        super().__init__()
        self.summary: list[str] = []
        self.tables: dict[str, tuple[list[str], list[list[str]]]] = {}
        self._title: str | None = None
        self._text: list[str] | None = None
        self._tag = ""

    def handle_starttag(self, tag, attrs):
        if tag in {"h3", "th", "td", "li"}:
            self._text, self._tag = [], tag
        if tag == "tr" and self._title is not None:
            self.tables[self._title][1].append([])

    def handle_data(self, data):
        if self._text is not None:
            self._text.append(data)

    def handle_endtag(self, tag):
        if self._text is None or tag != self._tag:
            return
        text = "".join(self._text).strip()
        self._text = None
        if tag == "h3":
            self._title = text
            self.tables[text] = ([], [])
        elif tag == "li":
            self.summary.append(text)
        elif tag == "th":
            self.tables[self._title][0].append(text)
        elif tag == "td":
            self.tables[self._title][1][-1].append(text)

    def records(self, title: str) -> list[dict[str, str]]:
        header, rows = self.tables[title]
        return [dict(zip(header, row, strict=True)) for row in rows if row]


def _n(text: str | None) -> Fraction:
    """A shown number ("1,291", "-$3.60", "31.4 %", "") as a Fraction; "" is 0."""
    if not text:
        return Fraction(0)
    cleaned = text.replace(",", "").replace("$", "").replace("%", "").strip()
    return Fraction(cleaned)


HALF = Fraction(1, 200)  # a figure shown to two decimals is within 0.005 of its value


def _close(left: Fraction, right: Fraction, figures: int, what: str) -> None:
    assert abs(left - right) <= figures * HALF + Fraction(1, 10**9), (what, left, right)


def _check_page(page: _Page) -> None:
    """Every identity of the weekly report, on the numbers as printed (to their rounding)."""
    first = page.summary[0]
    m = re.search(
        r": ([\d,.]+) GPU-hours allocated = useful ([\d,.]+) \+ recovery ([\d,.]+) "
        r"\+ lost ([\d,.]+) \+ unverified ([\d,.]+)\.",
        first,
    )
    assert m, first
    a, *parts = (_n(g) for g in m.groups())
    _close(a, sum(parts), 5, "week's classes")
    variance = page.records("Actual versus plan by work class")
    to_date_text = next(s for s in page.summary if s.startswith("Campaign to date: "))
    to_date = _n(re.match(r"Campaign to date: ([\d,.]+) of", to_date_text).group(1))
    _close(
        sum(_n(r["Actual GPU-hours"]) for r in variance),
        to_date,
        len(variance) + 1,
        "work classes = campaign to date",
    )
    if "Allocated GPU-hours by week" in page.tables:
        weeks = page.records("Allocated GPU-hours by week")
        *rows, last = weeks
        assert last["Week"] == "campaign to date"
        for col in ("Allocated GPU-hours", "Useful", "Recovery", "Lost", "Unverified"):
            _close(sum(_n(r.get(col)) for r in rows), _n(last.get(col)), len(rows) + 1, col)
        for r in weeks:
            _close(
                _n(r["Allocated GPU-hours"]),
                sum(_n(r.get(c)) for c in ("Useful", "Recovery", "Lost", "Unverified")),
                5,
                r["Week"],
            )
        _close(_n(last["Allocated GPU-hours"]), to_date, 2, "weeks = campaign to date")
    f_line = next((s for s in page.summary if s.startswith("Measured failure")), None)
    if f_line is not None:
        m = re.search(r"= \(([\d,.]+) \+ ([\d,.]+)\) / ([\d,.]+) = ([\d,.]+) %", f_line)
        assert m, f_line
        lost, recovery, useful, shown = (_n(g) for g in m.groups())
        goodput = page.records("Goodput of the main run by week")
        row = goodput[-1]
        assert row["Week"] == "total"
        _close(lost, _n(row.get("Lost progress")) + _n(row.get("Invalid result")), 3, "lost")
        _close(recovery, _n(row.get("Restart")) + _n(row.get("Recomputation")), 3, "recovery")
        _close(useful, _n(row.get("Useful")), 2, "useful")
        if useful > HALF:  # the ratio of the shown figures, to their rounding
            low = max(lost + recovery - 2 * HALF, Fraction(0)) / (useful + HALF)
            high = (lost + recovery + 2 * HALF) / (useful - HALF)
            assert low - Fraction(1, 2000) <= shown / 100 <= high + Fraction(1, 2000), f_line
        planned = {r["Work class"]: _n(r["Planned GPU-hours"]) for r in variance}
        p, t, e, d = (
            planned.get(c, Fraction(0)) for c in ("pilot", "main", "evaluation", "diagnostic")
        )
        for r in page.records("Sensitivity at the measured f"):
            n, f = int(r["Attempts n"]), _n(r["Measured f"]) / 100
            slack = 4 + n * (2 + 2 * t / 10)  # P, T, E, D and the row ±0.005; f ±0.0005
            _close(
                _n(r["Campaign GPU-hours"]),
                p + n * t * (1 + f) + e + d,
                int(slack) + 1,
                f"sensitivity n = {n}",
            )
    if "Goodput of the main run by week" in page.tables:
        goodput = page.records("Goodput of the main run by week")
        causes = (
            "Restart",
            "Recomputation",
            "Lost progress",
            "Invalid result",
            "Checkpoint writes",
            "Unverified",
        )
        for r in goodput:
            _close(
                _n(r["Allocated GPU-hours"]),
                _n(r["Productive"]) + sum(_n(r.get(c)) for c in causes),
                8,
                f"goodput {r['Week']}",
            )
            _close(
                _n(r["Useful"]), _n(r["Productive"]) + _n(r.get("Checkpoint writes")), 3, "useful"
            )
        *rows, last = goodput
        _close(
            sum(_n(r["Allocated GPU-hours"]) for r in rows),
            _n(last["Allocated GPU-hours"]),
            len(rows) + 1,
            "goodput total",
        )


def _check_typed(result: ReconcileResult) -> None:
    """The same identities on the typed review, exactly, computed here from its parts."""
    review = result.review
    t = review.totals
    assert t["allocated_gpu_seconds"] == sum(
        t[f"{c}_gpu_seconds"] for c in ("useful", "recovery", "lost", "unverified")
    )
    weeks = review.accounting_by_week
    assert sum(r["allocated_gpu_seconds"] for r in weeks) == review.variance["actual_gpu_seconds"]
    assert review.variance["actual_gpu_seconds"] == sum(
        r["actual_gpu_seconds"] for r in review.variance["by_work_class"]
    )
    inside = [r for r in weeks if r["week"] == result.week]
    assert sum(r["allocated_gpu_seconds"] for r in inside) == t["allocated_gpu_seconds"]
    whole = total(review.goodput, None).by_class()
    if whole["useful"] > 0:
        assert review.failure_fraction == Decimal(whole["lost"] + whole["recovery"]) / Decimal(
            whole["useful"]
        )
    else:
        assert review.failure_fraction is None


def _all_week_jobs_allocation(case: dict) -> int:
    """GPU-seconds every generated job ran before the end of the reviewed week (by hand)."""
    end = MONDAY + timedelta(weeks=WEEKS.index(case["week"]) + 1)
    seconds = 0
    for job in case["jobs"]:
        run = min(job["start"] + timedelta(seconds=job["elapsed_s"]), end) - job["start"]
        seconds += job["gpus"] * max(0, int(run.total_seconds()))
    return seconds


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(campaigns())
def test_every_identity_holds_on_the_result_and_on_its_report(case: dict) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        inputs = _write_campaign(case, root)
        with Ledger.open(root / "l.duckdb") as book:
            result = reconcile(book, inputs, None)  # its constructor checks the identities
        _check_typed(result)
        # The campaign to date is every job's allocation before the week's end, untracked too.
        assert result.review.variance["actual_gpu_seconds"] == _all_week_jobs_allocation(case)
        report = build_weekly_report(
            result.plan,
            case["week"],
            result.review,
            [],
            QualityReport(True, (), None),
            root,
            result.mfu or MfuChoice(None, "plan-hours"),
        )
        page = _Page()
        page.feed(render_html(report))
        _check_page(page)


# --- a broken review is refused -----------------------------------------------------------------


@pytest.fixture(scope="module")
def demo_like(tmp_path_factory) -> ReconcileResult:
    case = {
        "week": "2026-W46",
        "jobs": [
            # main 8 GPUs: interrupted, checkpoint half-way; its retry resumes; an untracked
            # job in the week before (what the by-week table once left out).
            {
                "id": "101",
                "kind": "main",
                "gpus": 8,
                "start": MONDAY + timedelta(days=7),
                "elapsed_s": 10 * 3600,
                "state": "NODE_FAIL",
                "progress": True,
                "resumed": 0,
                "checkpoint_at": 0.8,
                "steps_reached": 1000,
            },
            {
                "id": "102",
                "kind": "retry",
                "gpus": 8,
                "start": MONDAY + timedelta(days=8),
                "elapsed_s": 10 * 3600,
                "state": "COMPLETED",
                "progress": True,
                "resumed": 400,
                "checkpoint_at": 0.5,
                "steps_reached": 1000,
            },
            {
                "id": "103",
                "kind": "untracked",
                "gpus": 2,
                "start": MONDAY + timedelta(days=1),
                "elapsed_s": 3600,
                "state": "COMPLETED",
                "progress": False,
                "resumed": 0,
                "checkpoint_at": 0.5,
                "steps_reached": 100,
            },
        ],
    }
    root = tmp_path_factory.mktemp("broken")
    with Ledger.open(root / "l.duckdb") as book:
        return reconcile(book, _write_campaign(case, root), None)


def test_the_untracked_job_of_an_earlier_week_is_in_the_weeks_and_the_campaign(demo_like):
    weeks = {r["week"]: r for r in demo_like.review.accounting_by_week}
    # 2 GPUs × 1 h in W45 (untracked, unverified); 8 × 10 + 8 × 10 in W46.
    assert weeks["2026-W45"]["allocated_gpu_seconds"] == 2 * 3600
    assert weeks["2026-W45"]["unverified_gpu_seconds"] == 2 * 3600
    assert weeks["2026-W46"]["allocated_gpu_seconds"] == 160 * 3600
    assert demo_like.review.variance["actual_gpu_seconds"] == 162 * 3600


def test_f_is_the_main_runs_with_its_retry(demo_like):
    # One main run: job 101 (main class) and job 102 (retry class, same experiment) both
    # count, as job 102 does in DESIGN.md's worked example: f = (lost + recovery) ÷ useful
    # GPU-seconds summed over the two jobs' splits.
    review = demo_like.review
    main = [j for j in review.tracked if j.job_id in ("101", "102")]
    useful = sum(j.split.useful_s * j.timeline.gpus for j in main)
    lost_recovery = sum((j.split.lost_s + j.split.recovery_s) * j.timeline.gpus for j in main)
    assert review.failure_fraction == Decimal(lost_recovery) / Decimal(useful)


@pytest.mark.parametrize(
    ("tamper", "match"),
    [
        (
            lambda r: {
                "accounting_by_week": tuple(
                    row | {"allocated_gpu_seconds": row["allocated_gpu_seconds"] - 7200}
                    for row in r.accounting_by_week
                )
            },
            "allocated = useful",
        ),
        (
            lambda r: {"failure_fraction": (r.failure_fraction or 0) + Decimal("0.1")},
            "f = \\(lost \\+ recovery\\)",
        ),
        (lambda r: {"variance": r.variance | {"actual_gpu_seconds": 1}}, "campaign to date"),
        (lambda r: {"accounting_by_week": r.accounting_by_week[1:]}, "campaign to date"),
        (
            lambda r: {"totals": r.totals | {"lost_gpu_seconds": r.totals["lost_gpu_seconds"] + 1}},
            "week's allocated",
        ),
    ],
)
def test_a_review_whose_figures_disagree_is_refused(demo_like, tamper, match) -> None:
    check_review(demo_like.review)
    broken = dataclasses.replace(demo_like.review, **tamper(demo_like.review))
    with pytest.raises(BrokenIdentity, match=match):
        check_review(broken)
    with pytest.raises(BrokenIdentity):
        dataclasses.replace(demo_like, review=broken)  # the result type refuses it too
