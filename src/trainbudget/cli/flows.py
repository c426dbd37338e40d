"""Find and import the Prefect flows shipped in flows/ (repo root, or trainbudget/flows in a wheel).

flows/ is a folder of flow scripts, as Prefect itself loads them from an entrypoint
(`flows/weekly_review.py:weekly_review`): the folder goes on sys.path and each file is imported
by its name. Only the demo and serve commands call this, so Prefect loads only there.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType

from trainbudget.files.resources import resource_dir

FLOW_FILES = {"prelaunch-estimate": "prelaunch_estimate", "weekly-review": "weekly_review"}


def flows_dir() -> Path:
    """The flows/ folder beside the installed code (or at the root of a source checkout)."""
    return resource_dir("flows")


def load_flow_module(module: str) -> ModuleType:
    """Import flows/<module>.py with flows/ on sys.path (so its helper modules import too)."""
    folder = str(flows_dir())
    if folder not in sys.path:
        sys.path.insert(0, folder)
    return importlib.import_module(module)


def load_flow(name: str) -> object:
    """The flow object of a deployment name, e.g. load_flow("weekly-review")."""
    module = FLOW_FILES[name]
    return getattr(load_flow_module(module), module)
