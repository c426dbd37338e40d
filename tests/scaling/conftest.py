"""Shared data for the scaling tests: synthetic ablations from a known law, the Chinchilla fit."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest

from ..conftest import FIXTURES

# Hoffmann et al. 2022, eq. 10: the law used to generate synthetic ablations.
TRUE_LAW = {"E": 1.69, "A": 406.4, "B": 410.7, "alpha": 0.34, "beta": 0.28}
CHINCHILLA_CSV = FIXTURES / "scaling" / "chinchilla_fig4_svg_extracted.csv"


def law_loss(law: dict[str, float], params: np.ndarray, tokens: np.ndarray) -> np.ndarray:
    """L = E + A/N^alpha + B/D^beta, written out independently of the package."""
    return law["E"] + law["A"] * params ** -law["alpha"] + law["B"] * tokens ** -law["beta"]


def synthetic_points(
    seed: int, noise: float = 0.01, law: dict[str, float] = TRUE_LAW
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """6 model sizes × 8 token counts (1e7–1e9 params, 3e8–3e10 tokens), lognormal noise."""
    rng = np.random.default_rng(seed)
    n, d = np.meshgrid(np.logspace(7, 9, 6), np.logspace(8.5, 10.5, 8))
    params, tokens = n.ravel(), d.ravel()
    loss = law_loss(law, params, tokens) * np.exp(rng.normal(0.0, noise, params.size))
    return params, tokens, loss


def write_points(path: Path, params, tokens, loss, names=("params", "tokens", "loss")) -> Path:
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(names)
        for row in zip(params, tokens, loss, strict=True):
            writer.writerow([repr(float(v)) for v in row])
    return path


@pytest.fixture(scope="session")
def true_law() -> dict[str, float]:
    return dict(TRUE_LAW)


@pytest.fixture(scope="session")
def make_points():
    """synthetic_points(seed, noise=0.01, law=TRUE_LAW) -> (params, tokens, loss)."""
    return synthetic_points


@pytest.fixture(scope="session")
def loss_of():
    """law_loss(law, params, tokens): the law written out independently of the package."""
    return law_loss


@pytest.fixture(scope="session")
def write_csv():
    """write_points(path, params, tokens, loss, names=("params", "tokens", "loss"))."""
    return write_points


@pytest.fixture(scope="session")
def chinchilla_path() -> Path:
    if not CHINCHILLA_CSV.is_file():
        # The CSV has no licence, so the sdist leaves it out (tests/fixtures/scaling/SOURCES.md).
        pytest.fail(f"Chinchilla fixture not found at {CHINCHILLA_CSV} (only a git clone has it)")
    return CHINCHILLA_CSV


@pytest.fixture(scope="session")
def chinchilla_points(chinchilla_path):
    from trainbudget.scaling.load import AblationColumns, read_ablations

    columns = AblationColumns(params="Model Size", flops="Training FLOP")
    return read_ablations(chinchilla_path, columns, drop_highest_loss=5)


@pytest.fixture(scope="session")
def chinchilla_fit(chinchilla_points):
    from trainbudget.scaling.fit import fit_scaling_law

    p = chinchilla_points
    return fit_scaling_law(p.params, p.tokens, p.loss)
