"""The bundled demo campaign `demo-1b`: plan, pilot logs, traces, ablations, three weeks of
sacct, registry, progress and manifest, and the cluster's earlier failure history. Generated
files only: the generator is a development tool outside the package
(`python -m tools.demo_data.generate` in the repository).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

DEMO_DIR = Path(__file__).resolve().parent
# The last of the three weeks in the sacct files; the weekly review runs for it.
DEMO_REVIEW_WEEK = "2026-W47"
# The cluster name the demo registry uses (sacct files carry none).
DEMO_CLUSTER = "demo-cluster"
# Loss of the model the demo run must beat: a 600M model on 12B tokens under the same law the
# ablations are drawn from (E + A/N^α + B/D^β with Hoffmann et al.'s published values ≈ 2.730).
DEMO_BASELINE_LOSS = 2.73


@dataclass(frozen=True)
class DemoInputs:
    """Paths of every bundled demo input, as the flows take them."""

    plan: Path
    pilot_logs: list[Path]
    traces: list[Path]
    ablations: Path
    sacct: list[Path]
    registry: Path
    progress: Path
    manifest: Path
    review_week: str = DEMO_REVIEW_WEEK
    # The cluster's failure history before the campaign (other teams' jobs, untracked): what
    # `trainbudget reliability` and `mtbf: ledger` fit. The demo flows do not land it.
    history: tuple[Path, ...] = ()


def demo_inputs(root: Path = DEMO_DIR) -> DemoInputs:
    """The demo inputs under `root` (the installed package's copy by default)."""
    return DemoInputs(
        plan=root / "demo-1b.plan.yaml",
        pilot_logs=sorted((root / "pilot").glob("*.csv")),
        traces=sorted((root / "traces").glob("*.pt.trace.json.gz")),
        ablations=root / "ablations.csv",
        sacct=sorted((root / "sacct").glob("*.psv")),
        registry=root / "registry.csv",
        progress=root / "progress.jsonl",
        manifest=root / "manifest.csv",
        history=tuple(sorted((root / "history").glob("*.psv"))),
    )
