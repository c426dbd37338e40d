"""Great Expectations, imported with its usage analytics off (the switch is read at import)
and its chatter kept out of the run's log.

Importing this module takes seconds; only the data-quality step (and the flows' prefetch
thread) imports it.
"""

import logging
import os

os.environ.setdefault("GX_ANALYTICS_ENABLED", "false")

import great_expectations as gx
import great_expectations.expectations as gxe
from great_expectations.data_context.types.base import ProgressBarsConfig

# GE pins this module's logger to INFO and logs a line per ephemeral context; keep warnings.
for _name in ("great_expectations", "great_expectations.data_context.types.base"):
    logging.getLogger(_name).setLevel(logging.WARNING)

__all__ = ["ProgressBarsConfig", "gx", "gxe"]
