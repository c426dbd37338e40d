"""CLI command groups, one module each; `trainbudget.cli` registers them.

Command modules import their stage's code inside the command functions, so that
`trainbudget --help` and the quick commands stay fast and never import Prefect,
Great Expectations or torch.
"""
