"""CLI commands, one module per command group; cli/app.py registers them.

A command parses its options (cli/options.py), calls its stage and renders the result
(cli/render/). Stage code is imported inside the command functions, so that `trainbudget
--help` and the quick commands stay fast and never import Prefect, Great Expectations or torch.
"""
