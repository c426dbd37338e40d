"""base/collector.py: the cyclic collector is off inside the block and as it was after."""

from __future__ import annotations

import gc

import pytest

from trainbudget.base.collector import collector_paused


def test_paused_inside_and_restored_after_even_on_error() -> None:
    was = gc.isenabled()
    gc.enable()
    try:
        with collector_paused():
            assert not gc.isenabled()
        assert gc.isenabled()
        with pytest.raises(RuntimeError), collector_paused():
            raise RuntimeError("inside")
        assert gc.isenabled()
        gc.disable()  # a caller that had it off keeps it off
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        if was:
            gc.enable()
        else:
            gc.disable()
