"""The command line: the click app (app.py), option parsing (options.py), commands, renderers."""

from trainbudget.cli.app import main

__all__ = ["main"]
