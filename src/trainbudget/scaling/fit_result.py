"""A scaling fit's result as `trainbudget fit --json` wrote it, read back for `decide --fit`:
the predicted loss, its bootstrap interval and the fitted law (when its five parameters are
there); and whether the fit was run for the scale being judged."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

from trainbudget.base.errors import InputError

LAW_KEYS = frozenset({"E", "A", "B", "alpha", "beta"})


@dataclass(frozen=True)
class FitResult:
    """The predicted loss at the fit's target, its [low, high] interval and the law."""

    path: Path
    predicted_loss: Decimal
    interval: tuple[Decimal, Decimal]
    law: dict[str, float] | None


def read_fit_result(path: Path) -> FitResult:
    """Read `fit --json`'s object; InputError naming the file and key that is wrong."""
    import orjson

    try:
        data = orjson.loads(path.read_bytes())
    except OSError as exc:
        raise InputError(f"{path}: cannot read fit result: {exc.strerror}") from None
    except orjson.JSONDecodeError as exc:
        raise InputError(f"{path}: not JSON ({exc})") from None
    if not isinstance(data, dict):
        raise InputError(f"{path}: a fit result must be a JSON object")
    interval = data.get("predicted_loss_interval")
    if not isinstance(interval, list) or len(interval) != 2:
        raise InputError(
            f"{path}: predicted_loss_interval: missing; run `trainbudget fit` with --bootstrap"
        )
    low, high = (_number(path, "predicted_loss_interval", v) for v in interval)
    law = data.get("params") if isinstance(data.get("params"), dict) else None
    if law is not None and not law.keys() >= LAW_KEYS:
        law = None
    return FitResult(
        path, _number(path, "predicted_loss", data.get("predicted_loss")), (low, high), law
    )


def _number(path: Path, key: str, value: Any) -> Decimal:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InputError(f"{path}: {key}: must be a number, got {value!r}")
    return Decimal(repr(value))


def fit_scale_warning(fit: FitResult, params: Decimal, tokens: Decimal) -> str | None:
    """A warning when the fit's predicted loss is not its law's loss at (params, tokens): the
    fit was then run for another target scale than the run being judged."""
    from trainbudget.scaling.law import law_loss

    if fit.law is None:
        return None
    at_run = law_loss(fit.law, float(params), float(tokens))
    predicted = float(fit.predicted_loss)
    if abs(at_run - predicted) <= 1e-6 * max(abs(at_run), 1.0):
        return None
    return (
        f"{fit.path}: predicted_loss {predicted:.6g} is not the fitted law's loss at "
        f"--params/--tokens ({at_run:.6g}); was the fit run for another target scale?"
    )
