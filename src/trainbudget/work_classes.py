"""The work classes every GPU-hour is filed under (DESIGN.md), in a module that imports nothing,
so the registry reader and the Pandera models share one list without loading Pandera."""

WORK_CLASSES = ("pilot", "main", "retry", "evaluation", "diagnostic")
