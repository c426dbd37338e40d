"""Land a scaling fit in the ledger: the ablation file's rows, the fit, its intervals, its points.

All in one transaction. The file's rows land once per content (re-landing is a no-op); the
fit lands once per (file content, options), so re-running the same command changes nothing.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from typing import Any

import orjson

from trainbudget.base.exact_json import dumps
from trainbudget.ledger import Ledger, sha256_of
from trainbudget.scaling.analysis import ScalingAnalysis

KIND = "ablations"


def land_analysis(
    ledger: Ledger, analysis: ScalingAnalysis, options: dict[str, Any]
) -> tuple[int, bool]:
    """Write the analysis; return (fit_id, True) or the earlier (fit_id, False) if already there.

    `options` are the choices that shape the fit (columns, drops, target, seed, ...).
    """
    path = analysis.ablations.path
    sha = sha256_of(path)
    with ledger.transaction():
        source = ledger.begin_source(path, KIND, sha256=sha)
        if source is not None:
            rows = [{"raw": raw, **source.provenance(line)} for line, raw in _all_rows(analysis)]
            ledger.insert_rows("ablation_rows", rows)
            ledger.finish_source(source, len(rows))
            source_id = source.source_id
        else:
            source_id = ledger.query(
                "ledger/find_source", kind=KIND, source_sha256=sha, parse_options=""
            )[0][0]
        fit_key = hashlib.sha256(
            orjson.dumps({"source_sha256": sha, **options}, option=orjson.OPT_SORT_KEYS)
        ).hexdigest()
        earlier = ledger.query("scaling/find_fit", fit_key=fit_key)
        if earlier:
            return int(earlier[0][0]), False
        ledger.claim("scaling-fit", fit_key)
        fit_id = ledger.next_id("scaling_fit_id_seq")
        payload = analysis.payload()
        ledger.insert_rows(
            "scaling_fits",
            [_fit_row(analysis, payload, fit_id, fit_key, source_id, str(path), sha, options)],
        )
        ledger.insert_rows("scaling_intervals", _interval_rows(analysis, fit_id))
        ledger.insert_rows("scaling_fit_points", _point_rows(analysis, fit_id))
    return int(fit_id), True


def _all_rows(analysis: ScalingAnalysis) -> list[tuple[int, str]]:
    ab = analysis.ablations
    pairs = list(zip(ab.lines.tolist(), ab.raw, strict=True))
    pairs += list(zip(ab.dropped_lines.tolist(), ab.dropped_raw, strict=True))
    return sorted(pairs)


def _fit_row(
    analysis: ScalingAnalysis,
    payload: dict[str, Any],
    fit_id: int,
    fit_key: str,
    source_id: int,
    source_path: str,
    sha: str,
    options: dict[str, Any],
) -> dict[str, Any]:
    law = analysis.fit.params
    gain = analysis.gain
    return {
        "fit_id": fit_id,
        "fit_key": fit_key,
        "source_id": source_id,
        "source_path": source_path,
        "source_sha256": sha,
        "options_json": dumps(options).decode(),
        "points": len(analysis.ablations.loss),
        "dropped_points": len(analysis.ablations.dropped_lines),
        "huber_delta": payload["fit"]["huber_delta"],
        "objective": analysis.fit.objective,
        "starts": analysis.fit.starts,
        "converged_starts": analysis.fit.converged,
        "e": law.E,
        "a": law.A,
        "b": law.B,
        "alpha": law.alpha,
        "beta": law.beta,
        "target_params": analysis.prediction.params,
        "target_tokens": analysis.prediction.tokens,
        "predicted_loss": analysis.prediction.predicted_loss,
        "baseline_loss": None if gain is None else analysis.baseline_loss,
        "gain": None if gain is None else float(gain.value),
        "gain_uncertainty": None if gain is None else float(gain.uncertainty),
        "gain_exceeds_uncertainty": None if gain is None else gain.exceeds_uncertainty,
        "budget_flops": analysis.allocation.budget_flops,
        "params_opt": _finite_or_none(analysis.allocation.params),
        "tokens_opt": _finite_or_none(analysis.allocation.tokens),
        "bootstrap_resamples": analysis.bootstrap.requested,
        "bootstrap_failed": analysis.bootstrap.failed,
        "seed": analysis.bootstrap.seed,
        "confidence": analysis.confidence,
        "payload_json": dumps(payload).decode(),
        "fitted_at": datetime.now(UTC),
    }


def _interval_rows(analysis: ScalingAnalysis, fit_id: int) -> list[dict[str, Any]]:
    law = analysis.fit.params.as_dict()
    alloc = analysis.allocation
    found = [(name, law[name], interval) for name, interval in analysis.param_intervals.items()]
    found.append(
        ("predicted_loss", analysis.prediction.predicted_loss, analysis.prediction.interval)
    )
    if analysis.gain is not None:
        gain = analysis.gain
        found.append(("gain", float(gain.value), (float(gain.low), float(gain.high))))
    points = {"params_opt": alloc.params, "tokens_opt": alloc.tokens}
    points["tokens_per_param"] = alloc.tokens_per_param
    found += [(k, points[k], v) for k, v in analysis.allocation_intervals.items()]
    return [
        {
            "fit_id": fit_id,
            "quantity": name,
            "value": _finite_or_none(value),
            "low": _finite_or_none(low),
            "high": _finite_or_none(high),
            "confidence": analysis.confidence,
        }
        for name, value, (low, high) in found
    ]


def _point_rows(analysis: ScalingAnalysis, fit_id: int) -> list[dict[str, Any]]:
    ab = analysis.ablations
    rows = [
        {
            "fit_id": fit_id,
            "source_line": line,
            "params": n,
            "tokens": d,
            "loss": loss,
            "used": True,
            "excluded_reason": None,
        }
        for line, n, d, loss in zip(
            ab.lines.tolist(), ab.params.tolist(), ab.tokens.tolist(), ab.loss.tolist(), strict=True
        )
    ]
    rows += [
        {
            "fit_id": fit_id,
            "source_line": line,
            "params": n,
            "tokens": d,
            "loss": loss,
            "used": False,
            "excluded_reason": ab.drop_rule,
        }
        for line, (n, d, loss) in zip(
            ab.dropped_lines.tolist(), ab.dropped_points.tolist(), strict=True
        )
    ]
    return rows


def _finite_or_none(value: float) -> float | None:
    return value if value == value and abs(value) != float("inf") else None
