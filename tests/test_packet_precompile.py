"""The progress lines of ``make install``'s compile of the native loop (:mod:`dwtcp_fluid.packet.precompile`),
read from Numba's own compiler events on a small function compiled here (the loop itself takes minutes)."""

from __future__ import annotations

import re

from numba import njit

from dwtcp_fluid.packet.precompile import _Listener


@njit(inline="always")
def _helper(x):  # inlined twice into the entry: its module is reported once
    return 2 * x


@njit
def _entry(x):
    return _helper(x) + _helper(x + 1)


def test_precompile_reports_each_inlined_module_once_and_each_pass_of_the_entry():
    lines: list[str] = []
    with _Listener(lines.append, 60.0, entry="_entry", package=__name__, min_seconds=0.0) as lis:
        assert _entry(3) == 14  # the compile happens here, untouched by the listener
    assert lis.compiled
    assert all(re.match(r"\[\s*\d+ s\] ", s) for s in lines), lines
    assert sum("] inlining test_packet_precompile " in s for s in lines) == 1 and lines[0].endswith(
        "inlining test_packet_precompile (The progress lines of ``make install``'s compile of the native loop)"
    ), lines
    done = [s.split("] ", 1)[1] for s in lines if s.endswith(" s)")]
    # Numba's passes in words, in their order: the inlining, type inference, then the lowering through LLVM
    stages = [d.split(" done")[0] for d in done]
    for a, b in (
        ("inlining the helpers", "type inference"),
        ("type inference", "lowering to LLVM IR and machine code"),
    ):
        assert stages.index(a) < stages.index(b), stages
    # once compiled, nothing more is reported
    n = len(lines)
    with _Listener(lines.append, 60.0, entry="_entry", package=__name__, min_seconds=0.0) as lis:
        _entry(4)
    assert len(lines) == n and not lis.compiled
