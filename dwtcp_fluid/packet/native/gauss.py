# mypy: ignore-errors
# (Numba-compiled code: the stubs do not type intrinsics and decorator options)
"""The Gaussian RTT noise of the native loop: :func:`..events._gauss`, Box-Muller on two hashed uniforms,
√(−2 ln u₁)·cos(2π u₂), with the reference's float32 logarithm and cosine written out, so that a draw is the
reference's bit for bit and the same on every CPU.

* **ln** (:func:`log32`): XLA:CPU replaces a float32 ``log`` by its own polynomial (the Cephes ``logf`` scheme:
  x = m·2ᵉ with m in [√½, √2), a degree-8 polynomial in m − 1 evaluated as three interleaved Horner chains, then
  e·ln 2 added in two parts, 0.693359375 and −2.12194440·10⁻⁴). Its multiply-adds are contracted into fused ones
  where the CPU has FMA, so :func:`log32` writes each as :func:`.core.fma32`, as the contraction pairs them (each
  addition with the one product that feeds it alone; of two, the first operand's).
* **cos** (:func:`cos32`): XLA:CPU calls the C library's ``cosf``; this is glibc's (ARM optimized-routines'
  ``cosf``, glibc ≥ 2.28) for |y| < 120: y in float64, reduced by the nearest multiple n of π/2, then its degree-4
  cosine or degree-3 sine polynomial in float64 by the quadrant, rounded once to float32. glibc's FMA build fuses
  the float64 multiply-adds; on the Box-Muller argument 2π·u₂ (float32 6.2831855·u₂, u₂ one of the 2²⁴ values
  k·2⁻²⁴) the fused and the unfused evaluations round to the same float32, so this one (unfused) is the answer of
  both builds.

``tests/test_packet_native_gauss.py`` checks both functions against XLA's on a sample of their domains (a slow test:
on every value the draw can take, 2²⁴ each), their accuracy against float64 ``numpy.log``/``numpy.cos``, and the
loop's records with Gaussian noise against the JAX engine's.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numba import njit

from .core import JIT, fma32, uniform5

__all__ = ["log32", "cos32", "gauss32"]

_F = np.float32
# XLA:CPU's float32 log: the polynomial's coefficients (highest power first), ln 2 in two parts, √½
_LP = tuple(
    _F(v)
    for v in (7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1, -1.2420140846e-1, 1.4249322787e-1,
              -1.6668057665e-1, 2.0000714765e-1, -2.4999993993e-1, 3.3333331174e-1)
)  # fmt: skip
_LP0, _LP1, _LP2, _LP3, _LP4, _LP5, _LP6, _LP7, _LP8 = _LP
_LN2_HI, _LN2_LO, _SQRTHF = _F(0.693359375), _F(-2.12194440e-4), _F(0.707106781186547524)
_ONE, _HALF = _F(1.0), _F(0.5)
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
def log32(x: Any) -> Any:
    """XLA:CPU's float32 ln x, for a positive normal float32 ``x``."""
    m, k = math.frexp(x)  # x = m·2ᵏ, m in [½, 1), as XLA reads them from the bits
    m = _F(m)
    e = _F(k - 1) + _ONE
    if m < _SQRTHF:
        e, z = e - _ONE, (m - _ONE) + m
    else:
        z = m - _ONE
    z2 = z * z
    z3 = z2 * z
    y0 = fma32(fma32(z, _LP0, _LP1), z, _LP2)
    y1 = fma32(fma32(z, _LP3, _LP4), z, _LP5)
    y2 = fma32(fma32(z, _LP6, _LP7), z, _LP8)
    y = fma32(fma32(y0, z3, y1), z3, y2)
    t = fma32(y, z3, _LN2_LO * e)
    return fma32(_LN2_HI, e, fma32(-_HALF, z2, z) + t)


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
