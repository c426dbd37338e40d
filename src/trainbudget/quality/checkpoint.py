"""Run the data-quality suites through a Great Expectations 1.x Checkpoint; write Data Docs.

GE has no Polars datasource, so each frame is handed over as pandas through a whole-dataframe
batch definition (built column by column: polars' own `to_pandas()` needs pyarrow). The
context is ephemeral (nothing written to a gx/ folder); the only files written are the Data
Docs site, into the run's report folder, with the CDN assets its pages load vendored beside
them (`docs_assets`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from trainbudget.quality.expectations import DatasetSuite

DOCS_SITE = "trainbudget"


@dataclass(frozen=True)
class ExpectationOutcome:
    """The result of one expectation on one dataset."""

    dataset: str
    expectation: str
    success: bool
    observed: str
    unexpected_count: int | None


@dataclass(frozen=True)
class QualityReport:
    """Every expectation's outcome; `success` only when all held. `docs_index` is the HTML."""

    success: bool
    outcomes: tuple[ExpectationOutcome, ...]
    docs_index: Path | None

    @property
    def failures(self) -> list[ExpectationOutcome]:
        return [o for o in self.outcomes if not o.success]

    def summary(self) -> str:
        """One line: how many held, and the first failures named."""
        held = sum(o.success for o in self.outcomes)
        line = f"{held} of {len(self.outcomes)} data-quality expectations held"
        if self.failures:
            named = "; ".join(f"{f.dataset}: {f.expectation}" for f in self.failures[:3])
            line += f"; failed: {named}"
        return line

    def rows(self) -> list[dict[str, Any]]:
        """The outcomes as table rows (for artifacts and the report)."""
        return [
            {
                "dataset": o.dataset,
                "expectation": o.expectation,
                "success": o.success,
                "observed": o.observed,
                "unexpected_count": o.unexpected_count,
            }
            for o in self.outcomes
        ]


def _context(docs_dir: Path | None) -> Any:
    from trainbudget.quality.gx import ProgressBarsConfig, gx

    context = gx.get_context(mode="ephemeral")
    context.variables.progress_bars = ProgressBarsConfig(globally=False)
    if docs_dir is not None:
        context.add_data_docs_site(
            site_name=DOCS_SITE,
            site_config={
                "class_name": "SiteBuilder",
                "site_index_builder": {"class_name": "DefaultSiteIndexBuilder"},
                "store_backend": {
                    "class_name": "TupleFilesystemStoreBackend",
                    "base_directory": str(docs_dir.resolve()),
                },
            },
        )
    return context


def run_quality_checks(
    frames: dict[str, Any],
    suites: list[DatasetSuite],
    docs_dir: Path | None = None,
    run_name: str = "trainbudget",
) -> QualityReport:
    """Validate each suite's frame (Polars or pandas, by suite name) with one GE Checkpoint
    per dataset.

    GE passes one runtime dataframe to every validation definition of a checkpoint, so each
    dataset gets its own checkpoint; all of them update the same Data Docs site.
    """
    from trainbudget.quality.gx import gx, gxe

    context = _context(docs_dir)
    source = context.data_sources.add_pandas("ledger")
    outcomes: list[ExpectationOutcome] = []
    for suite_spec in suites:
        if suite_spec.name not in frames:
            raise KeyError(f"no frame given for data-quality suite {suite_spec.name!r}")
        batch = source.add_dataframe_asset(
            name=suite_spec.name
        ).add_batch_definition_whole_dataframe("landed")
        suite = context.suites.add(gx.ExpectationSuite(name=f"{suite_spec.name}-suite"))
        for spec in suite_spec.expectations:
            suite.add_expectation(getattr(gxe, spec.kind)(**spec.kwargs))
        definition = context.validation_definitions.add(
            gx.ValidationDefinition(data=batch, suite=suite, name=f"{suite_spec.name}-landed")
        )
        actions = (
            [gx.checkpoint.UpdateDataDocsAction(name="docs", site_names=[DOCS_SITE])]
            if docs_dir is not None
            else []
        )
        checkpoint = context.checkpoints.add(
            gx.Checkpoint(
                name=f"{run_name}-{suite_spec.name}",
                validation_definitions=[definition],
                actions=actions,
                result_format={"result_format": "SUMMARY"},
            )
        )
        frame = _to_pandas(frames[suite_spec.name])
        result = checkpoint.run(batch_parameters={"dataframe": frame})
        for run_result in result.run_results.values():
            outcomes.extend(_outcome(suite_spec.name, item) for item in run_result.results)
    index = docs_dir / "index.html" if docs_dir is not None else None
    if index is not None and index.is_file():
        from trainbudget.quality.docs_assets import vendor_data_docs

        vendor_data_docs(docs_dir)
    return QualityReport(
        success=all(o.success for o in outcomes),
        outcomes=tuple(outcomes),
        docs_index=index if index is not None and index.is_file() else None,
    )


def _to_pandas(frame: Any) -> Any:
    import pandas as pd

    if isinstance(frame, pl.DataFrame):
        return pd.DataFrame(frame.to_dict(as_series=False), columns=frame.columns)
    return frame


def _outcome(dataset: str, item: Any) -> ExpectationOutcome:
    config = item.expectation_config
    target = config.kwargs.get("column") or ",".join(config.kwargs.get("column_list") or [])
    label = f"{config.type}({target})" if target else config.type
    result = item.result or {}
    observed = result.get("observed_value")
    unexpected = result.get("unexpected_count")
    if observed is None and unexpected is not None:
        observed = f"{unexpected} unexpected of {result.get('element_count')}"
    return ExpectationOutcome(
        dataset=dataset,
        expectation=label,
        success=bool(item.success),
        observed="" if observed is None else str(observed),
        unexpected_count=unexpected,
    )
