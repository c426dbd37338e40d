"""Read ablation results (params, tokens or training FLOPs, loss) from a CSV file.

Column names are options, so a file such as the Chinchilla digitisation (`Model Size`,
`Training FLOP`, `loss`) works without editing it. When FLOPs are given instead of tokens,
tokens D = C / (6·N) (Kaplan et al. 2020, C ≈ 6·N·D), as the Epoch replication does.
"""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from trainbudget.base.errors import InputError

MIN_DISTINCT_POINTS = 5


@dataclass(frozen=True)
class AblationColumns:
    """Which CSV columns hold N, D (or C) and the loss."""

    params: str = "params"
    tokens: str = "tokens"
    loss: str = "loss"
    flops: str | None = None  # when set, tokens are derived from it and `tokens` is unused


@dataclass(frozen=True)
class Ablations:
    """The points used for the fit, and the ones set aside as outliers (by option)."""

    path: Path
    lines: np.ndarray  # 1-based line number of each kept point in the file
    params: np.ndarray
    tokens: np.ndarray
    loss: np.ndarray
    raw: list[str]  # each kept point's row as written, for the ledger
    dropped_lines: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=int))
    dropped_raw: list[str] = field(default_factory=list)
    dropped_points: np.ndarray = field(default_factory=lambda: np.zeros((0, 3)))  # N, D, loss
    drop_rule: str | None = None  # why the dropped points were set aside

    @property
    def flops(self) -> np.ndarray:
        """Training compute of each point, C = 6·N·D FLOPs."""
        return 6.0 * self.params * self.tokens


def read_ablations(
    path: str | Path, columns: AblationColumns = AblationColumns(), drop_highest_loss: int = 0
) -> Ablations:
    """Parse and check the CSV; drop the `drop_highest_loss` highest-loss points if asked.

    Dropping follows the Epoch replication exactly: keep loss < sorted(loss)[-k], so ties
    with the k-th highest loss go too. Non-positive or non-numeric values and fewer than
    five distinct (N, D) points are errors naming the file, line and column.
    """
    file_path = Path(path)
    header, records = _read_rows(file_path)
    wanted = [columns.params, columns.flops or columns.tokens, columns.loss]
    missing = [name for name in wanted if name not in header]
    if missing:
        raise InputError(
            f"{file_path}:1: no column {missing[0]!r} (columns are {', '.join(header)}); "
            "name the params, tokens (or flops) and loss columns to read"
        )
    where = {name: header.index(name) for name in wanted}
    lines, values, raw = [], [], []
    for line, cells, text in records:
        lines.append(line)
        raw.append(text)
        values.append([_positive(file_path, line, name, cells, where[name]) for name in wanted])
    if not values:
        raise InputError(f"{file_path}: no data rows after the header")
    table = np.array(values, dtype=float)
    params, third, loss = table[:, 0], table[:, 1], table[:, 2]
    tokens = third / (6.0 * params) if columns.flops else third
    keep = _kept_after_dropping(loss, drop_highest_loss, file_path)
    line_numbers = np.array(lines, dtype=int)
    distinct = len(set(zip(params[keep].tolist(), tokens[keep].tolist(), strict=True)))
    if distinct < MIN_DISTINCT_POINTS:
        raise InputError(
            f"{file_path}: {distinct} distinct (params, tokens) points; a fit of five "
            f"parameters needs at least {MIN_DISTINCT_POINTS}"
        )
    _validate_points(line_numbers[keep], params[keep], tokens[keep], loss[keep])
    return Ablations(
        path=file_path,
        lines=line_numbers[keep],
        params=params[keep],
        tokens=tokens[keep],
        loss=loss[keep],
        raw=[r for r, k in zip(raw, keep, strict=True) if k],
        dropped_lines=line_numbers[~keep],
        dropped_raw=[r for r, k in zip(raw, keep, strict=True) if not k],
        dropped_points=np.column_stack([params, tokens, loss])[~keep],
        drop_rule=None
        if drop_highest_loss == 0
        else (
            f"loss {np.sort(loss)[-drop_highest_loss]:.6g} or more: among the "
            f"{drop_highest_loss} highest losses (--drop-highest-loss)"
        ),
    )


def _read_rows(path: Path) -> tuple[list[str], list[tuple[int, list[str], str]]]:
    """Header and (line number, cells, raw text) of each non-blank row."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{path}: is a folder, expected a CSV file") from None
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    physical = text.splitlines()
    reader = csv.reader(physical)
    try:
        header = [name.strip() for name in next(reader)]
    except StopIteration:
        raise InputError(f"{path}:1: empty file, expected a header line") from None
    except csv.Error as exc:
        raise InputError(f"{path}:1: not valid CSV: {exc}") from None
    rows = []
    try:
        for cells in reader:
            line = reader.line_num
            if not any(cell.strip() for cell in cells):
                continue
            if len(cells) != len(header):
                raise InputError(
                    f"{path}:{line}: {len(cells)} fields, the header has {len(header)}"
                )
            rows.append((line, cells, physical[line - 1]))
    except csv.Error as exc:
        raise InputError(f"{path}:{reader.line_num}: not valid CSV: {exc}") from None
    return header, rows


def _positive(path: Path, line: int, column: str, cells: list[str], index: int) -> float:
    text = cells[index].strip()
    try:
        value = float(text)
    except ValueError:
        raise InputError(f"{path}:{line}: {column}: expected a number, found {text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise InputError(f"{path}:{line}: {column}: must be a positive number, found {text!r}")
    return value


def _validate_points(
    lines: np.ndarray, params: np.ndarray, tokens: np.ndarray, loss: np.ndarray
) -> None:
    """The stage-boundary check of the points handed to the fit (schemas.AblationPoint)."""
    import polars as pl

    from trainbudget.schemas import AblationPoint

    AblationPoint.validate(
        pl.DataFrame({"source_line": lines, "params": params, "tokens": tokens, "loss": loss})
    )


def _kept_after_dropping(loss: np.ndarray, k: int, path: Path) -> np.ndarray:
    if k < 0:
        raise InputError(f"drop_highest_loss: must be 0 or more, got {k}")
    if k == 0:
        return np.ones(loss.size, dtype=bool)
    if k >= loss.size:
        raise InputError(f"{path}: cannot drop the {k} highest losses of {loss.size} points")
    return loss < np.sort(loss)[-k]
