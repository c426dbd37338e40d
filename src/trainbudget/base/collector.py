"""Python's cyclic garbage collector paused around work that makes many small objects.

Each collection walks every live object, so code that builds millions of small, acyclic
objects (a trace's events, the stored splits of a campaign to date) pays for walks that free
nothing. Reference counting still frees them; a cycle waits for the next collection after.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """Disable the cyclic collector inside the block; re-enable it after if it was on."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
