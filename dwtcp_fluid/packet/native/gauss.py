# mypy: ignore-errors
# (Numba-compiled code: the stubs do not type intrinsics and decorator options)
"""The Gaussian RTT noise of the native loop: :func:`..events._gauss`, Box-Muller on two hashed uniforms,
√(−2 ln u₁)·cos(2π u₂), with the reference's float32 logarithm and cosine written out, so that a draw is the
reference's bit for bit and the same on every CPU.

* **ln**: XLA:CPU replaces a float32 ``log`` by its own polynomial, transcribed once for the loop in
  :func:`.xla_math.log32`.
* **cos** (:func:`cos32`): XLA:CPU calls the C library's ``cosf``; this is glibc's (ARM optimized-routines'
  ``cosf``, glibc ≥ 2.28) for |y| < 120: y in float64, reduced by the nearest multiple n of π/2, then its degree-4
  cosine or degree-3 sine polynomial in float64 by the quadrant, rounded once to float32. glibc's FMA build fuses
  the float64 multiply-adds; on the Box-Muller argument 2π·u₂ (float32 6.2831855·u₂, u₂ one of the 2²⁴ values
  k·2⁻²⁴) the fused and the unfused evaluations round to the same float32, so this one (unfused) is the answer of
  both builds.

``tests/test_packet_native_gauss.py`` checks the logarithm and the cosine against XLA's on a sample of their domains (a slow test:
on every value the draw can take, 2²⁴ each), their accuracy against float64 ``numpy.log``/``numpy.cos``, and the
loop's records with Gaussian noise against the JAX engine's.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numba import njit

from .core import JIT, uniform5
from .xla_math import log32

__all__ = ["cos32", "gauss32"]

_F = np.float32
_ONE = _F(1.0)
# glibc's cosf: 2/π·2²⁴ (the quadrant in bits 24-31 of a truncation), π/2, the cosine's and the sine's coefficients
_HPI_INV, _HPI = float.fromhex("0x1.45F306DC9C883p+23"), float.fromhex("0x1.921FB54442D18p0")
_C0, _C1, _C2, _C3, _C4 = (float.fromhex(s) for s in ("0x1p0", "-0x1.ffffffd0c621cp-2", "0x1.55553e1068f19p-5",
                                                      "-0x1.6c087e89a359dp-10", "0x1.99343027bf8c3p-16"))  # fmt: skip
_S1, _S2, _S3 = (
    float.fromhex(s) for s in ("-0x1.555545995a603p-3", "0x1.1107605230bc4p-7", "-0x1.994eb3774cf24p-13")
)
_PIO4_TOP, _TINY_TOP = _F(0.75), _F(2.0**-12)  # |y| below these (glibc compares the top 12 bits of y)
_TWO_PI = _F(2.0 * math.pi)
_U_MIN = _F(1e-7)
_NOISE = 3  # :data:`..wheels._NOISE`, the purpose of the noise draws


@njit(**JIT)
def _sin_cos_poly(x: float, x2: float, sign: float, n: int) -> Any:
    """glibc's ``sinf_poly``: the sine polynomial at ``x`` for even ``n``, else ``sign`` × the cosine's."""
    if (n & 1) == 0:
        x3 = x * x2
        s = x + x3 * _S1
        return _F(s + (x3 * x2) * (_S2 + x2 * _S3))
    x4 = x2 * x2
    c = sign * _C0 + x2 * (sign * _C1) + x4 * (sign * _C2)
    return _F(c + (x4 * x2) * (sign * _C3 + x2 * (sign * _C4)))


@njit(**JIT)
def cos32(y: Any) -> Any:
    """glibc's float32 cos y, for |y| < 120."""
    x = np.float64(y)
    a = abs(y)
    if a < _PIO4_TOP:
        if a < _TINY_TOP:
            return _ONE
        return _sin_cos_poly(x, x * x, 1.0, 1)
    n = (np.int32(x * _HPI_INV) + 0x800000) >> 24
    r = x - np.float64(n) * _HPI
    s = 1.0 if (n & 3) == 0 or (n & 3) == 3 else -1.0
    return _sin_cos_poly(r * s, r * r, -1.0 if (n & 2) else 1.0, n ^ 1)


@njit(**JIT)
def gauss32(seed: int, t: int, f: int) -> Any:
    """:func:`..events._gauss`: a standard normal draw keyed by (seed, slot, flow)."""
    u1 = max(uniform5(seed, t, f, _NOISE, 0), _U_MIN)
    u2 = uniform5(seed, t, f, _NOISE, 1)
    return math.sqrt(_F(-2.0) * log32(u1)) * cos32(_TWO_PI * u2)
