"""Scaling fit on the 240-point Chinchilla fixture: full grid + 1,000 bootstrap refits.

Measures (a) wall and CPU time of the 4,500-start batched L-BFGS grid and of 1,000 bootstrap
refits against the issue's 20 s target, (b) the baseline measured in the same run: scipy's
L-BFGS-B started one at a time on a sample of the grid, extrapolated to 4,500 starts,
(c) the spread of each parameter's interval across bootstrap seeds, and (d) that refits
started from the full-data optimum land where a full-grid refit of the same resample does.
The data is the test fixture in tests/fixtures/scaling/ (real points), read as `trainbudget fit`
reads it.
Run: .venv/bin/python bench/scaling_bench.py   → bench/results/scaling.json
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import numpy as np
from scipy.optimize import minimize

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import write_result
from trainbudget.scaling.bootstrap import bootstrap_fits, percentile_interval, resample_weights
from trainbudget.scaling.fit import (
    PARAM_NAMES,
    fit_scaling_law,
    hoffmann_grid,
    huber_objective,
    minimize_starts,
)
from trainbudget.scaling.load import AblationColumns, read_ablations

REPO = Path(__file__).resolve().parents[1]
FIXTURE = REPO / "tests" / "fixtures" / "scaling" / "chinchilla_fig4_svg_extracted.csv"
RESAMPLES = 1000
SEEDS = (0, 1, 2, 3, 4)
SCIPY_SAMPLE = 60  # grid starts run one at a time through scipy for the baseline
WARM_CHECKS = 3


def _timed(fn, *args, **kwargs):
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn(*args, **kwargs)
    return out, time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    points = read_ablations(
        FIXTURE, AblationColumns(params="Model Size", flops="Training FLOP"), drop_highest_loss=5
    )
    xs = (points.params, points.tokens, points.loss)
    logs = tuple(np.log(v) for v in xs)
    load_before = os.getloadavg()

    fit, grid_wall, grid_cpu = _timed(fit_scaling_law, *xs)
    fits, boot_wall, boot_cpu = _timed(bootstrap_fits, *xs, fit, RESAMPLES, SEEDS[0])

    # Baseline: scipy L-BFGS-B one start at a time, same objective and gradient.
    def one(theta):
        f, g = huber_objective(theta[None], *logs)
        return f[0], g[0]

    sample = hoffmann_grid()[:: len(hoffmann_grid()) // SCIPY_SAMPLE][:SCIPY_SAMPLE]
    _, scipy_wall, scipy_cpu = _timed(
        lambda: [minimize(one, s, jac=True, method="L-BFGS-B") for s in sample]
    )
    scipy_grid_wall = scipy_wall * len(hoffmann_grid()) / len(sample)

    # Spread across seeds of each parameter's 90 % interval and median.
    per_seed = {name: [] for name in PARAM_NAMES}
    for seed in SEEDS:
        run = fits if seed == SEEDS[0] else bootstrap_fits(*xs, fit, RESAMPLES, seed)
        for i, name in enumerate(PARAM_NAMES):
            low, high = percentile_interval(run.samples[:, i], 0.9)
            per_seed[name].append((low, float(np.median(run.samples[:, i])), high))
    spread = {
        name: {
            "point": getattr(fit.params, name),
            "interval_by_seed": [[lo, hi] for lo, _, hi in rows],
            "low_spread": max(r[0] for r in rows) - min(r[0] for r in rows),
            "median_spread": max(r[1] for r in rows) - min(r[1] for r in rows),
            "high_spread": max(r[2] for r in rows) - min(r[2] for r in rows),
        }
        for name, rows in per_seed.items()
    }

    # Warm-started refits against full-grid refits of the same resamples.
    weights = resample_weights(len(points.loss), RESAMPLES, SEEDS[0])[:WARM_CHECKS]
    grid = hoffmann_grid()
    warm_vs_grid = []
    for r in range(WARM_CHECKS):
        full = minimize_starts(grid, *logs, np.repeat(weights[r : r + 1], len(grid), axis=0))
        ok = np.flatnonzero(full.converged)
        a, b, e, alpha, beta = full.x[ok[np.argmin(full.fun[ok])]]
        grid_law = {"E": np.exp(e), "A": np.exp(a), "B": np.exp(b), "alpha": alpha, "beta": beta}
        warm_law = dict(zip(PARAM_NAMES, fits.samples[r].tolist(), strict=True))
        warm_vs_grid.append(
            {k: float(abs(warm_law[k] - grid_law[k]) / abs(grid_law[k])) for k in PARAM_NAMES}
        )

    total_wall = grid_wall + boot_wall
    payload = {
        "data": {"file": str(FIXTURE), "points": len(points.loss), "dropped": 5},
        "load_average_before": list(load_before),
        "load_average_after": list(os.getloadavg()),
        "grid": {
            "starts": fit.starts,
            "converged": fit.converged,
            "wall_seconds": grid_wall,
            "cpu_seconds": grid_cpu,
        },
        "bootstrap": {
            "resamples": RESAMPLES,
            "failed": fits.failed,
            "starts_per_resample": fits.starts_per_resample,
            "wall_seconds": boot_wall,
            "cpu_seconds": boot_cpu,
        },
        "total_wall_seconds": total_wall,
        "total_cpu_seconds": grid_cpu + boot_cpu,
        "target_wall_seconds": 20.0,
        "meets_target": total_wall <= 20.0,
        "baseline_scipy_one_start_at_a_time": {
            "starts_measured": len(sample),
            "wall_seconds": scipy_wall,
            "cpu_seconds": scipy_cpu,
            "extrapolated_grid_wall_seconds": scipy_grid_wall,
        },
        "grid_speedup_vs_scipy": scipy_grid_wall / grid_wall,
        "params": fit.params.as_dict(),
        "spread_across_seeds": spread,
        "warm_start_vs_full_grid_relative_difference": warm_vs_grid,
    }
    path = write_result("scaling", payload)
    print(
        f"grid {grid_wall:.1f} s wall ({grid_cpu:.1f} s CPU), bootstrap x{RESAMPLES} "
        f"{boot_wall:.1f} s wall ({boot_cpu:.1f} s CPU); total {total_wall:.1f} s "
        f"(target 20 s); scipy one-at-a-time grid ≈ {scipy_grid_wall:.0f} s "
        f"({scipy_grid_wall / grid_wall:.1f}x slower); load {load_before[0]:.1f}"
    )
    for name, row in spread.items():
        print(
            f"  {name:>5}: {row['point']:.4g}  90% interval spread across {len(SEEDS)} seeds: "
            f"low {row['low_spread']:.3g}, high {row['high_spread']:.3g}"
        )
    worst = max(max(d.values()) for d in warm_vs_grid)
    print(f"warm-start vs full-grid refit, worst relative difference: {worst:.2e}")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
