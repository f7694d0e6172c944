# mypy: ignore-errors
# (Numba-compiled code: the stubs do not type intrinsics and decorator options)
"""XLA:CPU's float32 ``log`` and ``exp`` as it compiles them: the native loop's one transcription of each.

XLA:CPU does not call the C library for these: it inlines its own approximations (the LLVM IR of ``jnp.log`` and
``jnp.exp`` in a dump of a compiled kernel).

* **log** (:func:`log32`), the Cephes ``logf`` scheme: x = m·2^e with m in [½, 1) read from the bits (m < √½:
  2m − 1 and e − 1, so the reduced argument y lies in [√½ − 1, √2 − 1)), then y − y²/2 + y³·P(y) with a degree-8
  P evaluated as three interleaved Horner chains, e·ln 2 added in two parts (0.693359375 and −2.12194440·10⁻⁴).
  Used by the Gaussian RTT noise (:mod:`.gauss`: ln u₁), the Poisson gaps (:mod:`.pacing`: ln(1 − u) above
  √2 − 1) and HPCC-PINT's quantization (:mod:`.int_law`).
* **exp** (:func:`exp32`): x clamped to [−87.8, 88.8], n = ⌊x·log₂e + ½⌋ clamped to ±127, r = x − n·ln 2 in two
  parts, 1 + r + r²·P(r) with a degree-5 P, times 2ⁿ.

The multiply-adds LLVM contracts into FMAs when XLA compiles for a CPU with FMA are :func:`.core.fma32` here (each
addition with the one product that feeds it alone; of two, the first operand's), so the loop computes on every CPU
what XLA computes on one with FMA. Checked equal to ``jnp.log`` on every argument the noise and the gaps draw
(``tests/test_packet_native_gauss.py``, ``tests/test_packet_native.py``, slow) and to both on random inputs
(``tests/test_packet_native_hpcc.py``). Defined for positive normal inputs of ``log`` and finite inputs of ``exp``
(XLA's special cases, zero, negative and infinite inputs, are not used here).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from .core import F1, HALF, JIT, fma32

__all__ = ["log32", "exp32"]


def _f(bits: int) -> np.float32:
    return np.array([bits], np.uint32).view(np.float32)[0]


# log: P's coefficients in the order of the three chains (highest power first within each), √½, ln 2 in two parts
_L1, _L2, _L3, _L4, _L5, _L6 = (
    _f(b) for b in (0x3D9021BB, 0xBDEBD1B8, 0xBDFE5D4F, 0x3E11E9BF, 0x3E4CCEAC, 0xBE7FFFFC)
)
_L7, _L8, _L9 = (_f(b) for b in (0x3DEF251A, 0xBE2AAE50, 0x3EAAAAAA))
_SQRTH, _LN2_LO, _LN2_HI = _f(0x3F3504F3), _f(0xB95E8083), _f(0x3F318000)
# exp: the clamps, log₂e, the polynomial's coefficients (highest order first)
_XLO, _XHI, _NMAX, _LOG2E = np.float32(-87.8), np.float32(88.8), np.float32(127.0), _f(0x3FB8AA3B)
_E0, _E1, _E2, _E3, _E4 = (_f(b) for b in (0x39506967, 0x3AB743CE, 0x3C088908, 0x3D2AA9C1, 0x3E2AAAAA))


@njit(**JIT)
def log32(x: Any) -> Any:
    """ln x for a positive normal float32 ``x``, as XLA:CPU computes ``log`` (module docstring)."""
    bits = np.int32(np.float32(x).view(np.int32))
    m = np.int32((bits & np.int32(-2139095041)) | np.int32(0x3F000000)).view(np.float32)
    e = np.float32((bits >> 23) - 126)
    if m < _SQRTH:
        y, e = (m - F1) + m, e - F1
    else:
        y = m - F1
    y2 = y * y
    y3 = y2 * y
    a = fma32(fma32(y, _L1, _L2), y, _L7)
    b = fma32(fma32(y, _L3, _L4), y, _L8)
    c = fma32(fma32(y, _L5, _L6), y, _L9)
    c = fma32(fma32(a, y3, b), y3, c)
    return fma32(e, _LN2_HI, (y - y2 * HALF) + fma32(c, y3, e * _LN2_LO))


@njit(**JIT)
def exp32(x: Any) -> Any:
    """eˣ in float32 as XLA:CPU computes ``exp`` (module docstring)."""
    x = min(max(x, _XLO), _XHI)
    n = np.float32(np.floor(fma32(x, _LOG2E, HALF)))
    n = min(max(n, -_NMAX), _NMAX)
    r = fma32(-n, _LN2_LO, x - _LN2_HI * n)
    p = fma32(fma32(fma32(fma32(fma32(r, _E0, _E1), r, _E2), r, _E3), r, _E4), r, HALF)
    s = np.int32((np.int32(n) + 127) << 23).view(np.float32)
    return (F1 + fma32(p, r * r, r)) * s
