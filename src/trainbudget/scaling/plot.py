"""PNG for the report: observed versus fitted loss, and the target's prediction with its interval.

matplotlib is imported inside the function with the Agg backend, so nothing imports it
unless a plot is asked for and no display is needed.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from trainbudget.scaling.analysis import ScalingAnalysis


def plot_fit(analysis: ScalingAnalysis, path: str | Path) -> Path:
    """Write a two-panel PNG: fitted vs observed loss; loss vs compute with the target marked."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ab = analysis.ablations
    law = analysis.fit.params
    fitted = law.predict_loss(ab.params, ab.tokens)  # element-wise over the arrays
    flops = ab.flops
    pred = analysis.prediction
    target_flops = 6.0 * pred.params * pred.tokens
    low, high = pred.interval

    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.5), layout="constrained")
    left.scatter(fitted, ab.loss, s=12, c=np.log10(ab.params), cmap="viridis")
    span = [min(fitted.min(), ab.loss.min()), max(fitted.max(), ab.loss.max())]
    left.plot(span, span, color="grey", lw=1, ls="--", label="observed = fitted")
    left.set_xlabel("fitted loss L(N, D)")
    left.set_ylabel("observed loss")
    left.set_title(f"{len(ab.loss)} ablation points, Huber fit on log-loss")
    left.legend(loc="upper left")

    points = right.scatter(flops, ab.loss, s=12, c=np.log10(ab.params), cmap="viridis")
    right.errorbar(
        [target_flops],
        [pred.predicted_loss],
        yerr=[[pred.predicted_loss - low], [high - pred.predicted_loss]],
        fmt="*",
        color="crimson",
        markersize=12,
        capsize=5,
        label=(
            f"target: {pred.predicted_loss:.3f} [{low:.3f}, {high:.3f}] "
            f"({pred.confidence:.0%} bootstrap interval)"
        ),
    )
    if analysis.gain is not None:
        right.axhline(analysis.baseline_loss, color="crimson", lw=1, ls=":", label="baseline")
    right.set_xscale("log")
    right.set_xlabel("training compute C = 6·N·D (FLOPs)")
    right.set_ylabel("loss")
    right.set_title(
        f"E={law.E:.3g}, A={law.A:.4g}, B={law.B:.4g}, α={law.alpha:.3f}, β={law.beta:.3f}"
    )
    right.legend(loc="upper right", fontsize="small")
    fig.colorbar(points, ax=right, label="log10 parameters N")
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=120)
    plt.close(fig)
    return out
