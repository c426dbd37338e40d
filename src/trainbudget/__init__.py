"""trainbudget: budget ML training campaigns before launch and reconcile them every week."""

__version__ = "0.1.0"
