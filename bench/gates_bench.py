"""Gates benchmark: admission, retention and the audit trail, each against a same-run baseline.

- admission: `admit_run` (exact Decimals, sentences, shared limits) against seed 001's bare
  four-line rule on floats, over the same generated requests;
- retention: `retain_artifacts` + `retention_outcome` over a generated manifest, against
  sorting the same manifest by creation time (the least any retention pass must do);
- audit: recording decisions in one transaction against one transaction per decision.

Run: .venv/bin/python bench/gates_bench.py   (writes bench/results/gates.json)
"""

from __future__ import annotations

import random
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import write_result
from trainbudget.gates.admission import AdmissionRequest, QueueLimits, admit_run
from trainbudget.gates.campaign import continue_main_run
from trainbudget.gates.retention import (
    Artifact,
    RetentionPolicy,
    retain_artifacts,
    retention_outcome,
)
from trainbudget.ledger import Ledger
from trainbudget.ledger.decisions import record_decision


def seed_rule(estimated, budget, checkpoint, interruptions):
    """Seed 001's rule as printed there: the baseline."""
    if min(estimated, budget, interruptions) < 0:
        raise ValueError("resource values must be nonnegative")
    if estimated > budget:
        return {"state": "defer", "reason": "budget"}
    if interruptions > 0 and not checkpoint:
        return {"state": "defer", "reason": "no-recovery"}
    return {"state": "admit", "reserved_gpu_hours": estimated}


def best_of(repeats: int, fn) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def bench_admission(n: int) -> dict:
    rng = random.Random(4)
    raw = [
        (
            round(rng.uniform(0, 100), 2),
            round(rng.uniform(0, 100), 2),
            rng.random() < 0.8,
            rng.randint(0, 3),
        )
        for _ in range(n)
    ]
    requests = [
        AdmissionRequest(Decimal(str(e)), Decimal(str(b)), Decimal(k), c, gpus=8)
        for e, b, c, k in raw
    ]
    limits = QueueLimits(max_gpus=8, max_runtime_hours=Decimal(48), capacity_gpu_hours=Decimal(500))
    baseline = best_of(5, lambda: [seed_rule(e, b, c, k) for e, b, c, k in raw])
    ours = best_of(5, lambda: [admit_run(r, limits) for r in requests])
    agree = sum(
        admit_run(r).outcome == seed_rule(e, b, c, k)["state"]
        for r, (e, b, c, k) in zip(requests, raw, strict=True)
    )
    return {
        "requests": n,
        "seed_rule_seconds": baseline,
        "admit_run_seconds": ours,
        "admit_run_us_per_request": ours / n * 1e6,
        "ratio_vs_seed_rule": ours / baseline,
        "verdicts_agreeing_with_seed_rule": f"{agree}/{n}",
    }


def bench_retention(n: int) -> dict:
    rng = random.Random(5)
    now = datetime(2026, 11, 29, tzinfo=UTC)
    roles = ["recovery"] * 6 + ["promoted", "final", "evaluation", "evaluation"]
    artifacts = [
        Artifact(
            f"a{i}",
            f"exp-{rng.randint(0, n // 50)}",
            rng.choice(roles),
            rng.randint(1, 400) * 10**9,
            now - timedelta(hours=rng.randint(0, 24 * 900)),
            step=i,
        )
        for i in range(n)
    ]
    policy = RetentionPolicy()
    baseline = best_of(3, lambda: sorted(artifacts, key=lambda a: a.created))
    ours = best_of(
        3, lambda: retention_outcome(retain_artifacts(artifacts, policy, now), Decimal("0.023"))
    )
    outcome = retention_outcome(retain_artifacts(artifacts, policy, now), Decimal("0.023"))
    return {
        "artifacts": n,
        "sort_seconds": baseline,
        "retention_seconds": ours,
        "retention_us_per_artifact": ours / n * 1e6,
        "ratio_vs_sort": ours / baseline,
        "expired": len(outcome.details["expired"]),
    }


def bench_audit(n: int) -> dict:
    outcome = continue_main_run(Decimal(600), Decimal(652), Decimal(2000))
    with tempfile.TemporaryDirectory() as tmp:
        with Ledger.open(Path(tmp) / "one.duckdb") as book:
            start = time.perf_counter()
            with book.transaction():
                for i in range(n):
                    record_decision(book, outcome, campaign_id="bench", run_id=str(i))
            one = time.perf_counter() - start
        with Ledger.open(Path(tmp) / "each.duckdb") as book:
            start = time.perf_counter()
            for i in range(n):
                record_decision(book, outcome, campaign_id="bench", run_id=str(i))
            each = time.perf_counter() - start
    return {
        "decisions": n,
        "one_transaction_seconds": one,
        "transaction_per_decision_seconds": each,
        "one_transaction_ms_per_decision": one / n * 1e3,
        "ratio_one_vs_each": one / each,
    }


def main() -> None:
    payload = {
        "admission": bench_admission(20_000),
        "retention": bench_retention(100_000),
        "audit": bench_audit(1_000),
    }
    path = write_result("gates", payload)
    for name, result in payload.items():
        print(name, result)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
