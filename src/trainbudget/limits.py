"""Limits on untrusted input that a user may raise through the environment (docs/reliability.md)."""

from __future__ import annotations

import os

from trainbudget.errors import InputError


def byte_limit(env: str, default: int) -> int:
    """A size limit in bytes: `$env` when set (a positive whole number), else `default`."""
    raw = os.environ.get(env)
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        value = 0
    if value < 1:
        raise InputError(f"{env}: expected a positive whole number of bytes, got {raw!r}")
    return value
