"""Ctrl-C during a sweep is reported as an interrupt even when it lands inside a library's lock handshake."""

from __future__ import annotations

import os
import signal

import pytest

from dwtcp_fluid.cli.sweep import _Interrupts


def test_handler_records_the_interrupt_and_restores_the_previous_handler():
    before = signal.getsignal(signal.SIGINT)
    seen = _Interrupts()
    assert not seen()
    with pytest.raises(KeyboardInterrupt):
        os.kill(os.getpid(), signal.SIGINT)
        for _ in range(10**6):  # the handler runs at the next bytecode boundary
            pass
    assert seen()
    seen.restore()
    assert signal.getsignal(signal.SIGINT) is before


def test_without_an_interrupt_nothing_is_recorded():
    seen = _Interrupts()
    try:
        assert not seen()
    finally:
        seen.restore()
