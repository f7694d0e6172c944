"""HPCC: the fixed point of the fluid model (H0)-(H3), its linearization and the stability region (``proofs/hpcc.md``).

Every expression comes from :class:`~dwtcp_fluid.models.hpcc.HpccFluid`'s right-hand side evaluated with SymPy on
one branch of its switches (q > 0: the link sends C and each flow's rate W/(d + q/C) is below C; or q held at 0);
the characteristic roots come from :mod:`dwtcp_fluid.analysis.charroots` (Chebyshev collocation) and, as a
second method, from the argument principle on the characteristic function itself. The packet-level evidence is
:mod:`dwtcp_fluid.studies.hpcc.checks`.
"""

from __future__ import annotations

import functools
import types

import numpy as np
import sympy as sp

from ...analysis.charroots import char_roots, critical_parameter
from ...models.base import SYMPY_NS
from ...models.hpcc import HpccFluid, fixed_point
from ...symbolic.derivation import (
    Derivation,
    Finding,
    Step,
    eq,
    fmt,
    identity,
    positive,
    predicate,
    solutions,
)

__all__ = ["hpcc", "linear_system", "unstable_count", "critical_ratio"]

#: η of the numeric steps ([HPCC]'s 0.95) and the κ = N·W_AI/(C·T) of the stability-region table.
ETA = 0.95
KAPPAS = (0.1, 0.2, 0.5, 1.0, 2.0)


def _ns(queue: bool) -> types.SimpleNamespace:
    """SymPy's namespace on one branch: ``queue`` True: q > 0 (output C) and rates below line rate; False: q = 0."""
    return types.SimpleNamespace(
        **{**vars(SYMPY_NS), "minimum": lambda a, b: a, "where": lambda c, a, b: a if queue else b}
    )


def _syms() -> types.SimpleNamespace:
    s = types.SimpleNamespace()
    s.C, s.d, s.T, s.N, s.eta, s.W_AI = sp.symbols("C d T N eta W_AI", positive=True)
    s.Wc, s.U, s.q = sp.symbols("W_c U q", positive=True)
    s.Wcd, s.Ud, s.qd = sp.symbols("W_c_d U_d q_d", positive=True)
    s.kappa, s.s, s.E = sp.symbols("kappa s E", positive=True)
    s.p = {"C": s.C, "d": s.d, "T": s.T, "N": s.N, "eta": s.eta, "W_AI": s.W_AI}
    return s


def _rhs(s: types.SimpleNamespace, queue: bool) -> sp.Matrix:
    x = [s.Wc, s.U, s.q if queue else 0]
    xd = [s.Wcd, s.Ud, s.qd if queue else 0]
    F = HpccFluid().rhs(x, xd, 0, s.p, _ns(queue))
    return sp.Matrix(F if queue else F[:2])


def _branch(queue: bool) -> dict:
    """Fixed point, normalized A0·d, A1·d (states scaled by W_c*, 1, C·d) and characteristic function at T = d."""
    s = _syms()
    F = _rhs(s, queue).subs(s.T, s.d)
    xs = [s.Wc, s.U, s.q] if queue else [s.Wc, s.U]
    xds = [s.Wcd, s.Ud, s.qd] if queue else [s.Wcd, s.Ud]
    same = dict(zip(xds, xs, strict=True))
    fp = sp.solve(list(F.subs(same)), xs, dict=True)
    k_sub = {s.W_AI: s.kappa * s.C * s.d / s.N}
    at = {k: sp.simplify(v.subs(k_sub)) for k, v in fp[0].items()}
    scale = sp.diag(at[s.Wc], 1, s.C * s.d) if queue else sp.diag(at[s.Wc], 1)

    def lin(J: sp.Matrix) -> sp.Matrix:
        J = J.subs(same).subs(k_sub).subs(at) * s.d
        return (scale.inv() * J * scale).applyfunc(sp.simplify)

    A0, A1 = lin(F.jacobian(xs)), lin(F.jacobian(xds))
    n = len(xs)
    char = sp.factor(sp.simplify((s.s * sp.eye(n) - A0 - A1 * s.E).det()))
    return {"s": s, "F": F, "fp": fp, "at": at, "A0": A0, "A1": A1, "char": char}


@functools.lru_cache(maxsize=2)
def branch(queue: bool) -> dict:
    """:func:`_branch`, cached (the proof and the tests read it)."""
    return _branch(queue)


def _quasi(queue: bool) -> sp.Expr:
    """The non-trivial factor Q(s) of the characteristic function at T = d, E = e^{−s} (time in units of d)."""
    s = _syms()
    U = s.eta + s.kappa
    if queue:
        return U**2 * s.s**2 + (U**2 + s.kappa) * s.s + s.kappa + s.eta * s.E
    return U * s.s + s.kappa + s.eta * s.E


@functools.lru_cache(maxsize=1)
def _numeric_jacobians() -> tuple:
    """Lambdified A0, A1 of (H1)-(H3) on the q > 0 branch for any T (numbers: Wc, U, q, C, d, T, N, η, W_AI)."""
    s = _syms()
    F = _rhs(s, True)
    xs, xds = [s.Wc, s.U, s.q], [s.Wcd, s.Ud, s.qd]
    args = [*xs, *xds, s.C, s.d, s.T, s.N, s.eta, s.W_AI]
    return (
        sp.lambdify(args, F.jacobian(xs), "numpy"),
        sp.lambdify(args, F.jacobian(xds), "numpy"),
    )


def fixed_point_general(eta: float, kappa: float, ratio: float) -> tuple[float, float, float]:
    """The fixed point with a queue for a law's T = d/ratio in units C = 1, d = 1, N = 1 (W_AI = κ), from
    :func:`~dwtcp_fluid.models.hpcc.fixed_point`. Returns (W_c*, U*, q*)."""
    fp = fixed_point({"C": 1.0, "d": 1.0, "T": 1.0 / ratio, "N": 1.0, "eta": eta, "W_AI": kappa})
    return fp["Wc"], fp["U"], fp["q"]


def linear_system(eta: float, kappa: float, ratio: float) -> tuple[np.ndarray, np.ndarray]:
    """A0·d and A1·d of (H1)-(H3) at the q > 0 fixed point, law's T = d/ratio (time in units of d)."""
    Wc, U, q = fixed_point_general(eta, kappa, ratio)
    f0, f1 = _numeric_jacobians()
    args = (Wc, U, q, Wc, U, q, 1.0, 1.0, 1.0 / ratio, 1.0, eta, kappa)
    return np.asarray(f0(*args), float), np.asarray(f1(*args), float)


def unstable_count(A0: np.ndarray, A1: np.ndarray, *, R: float = 60.0, n: int = 40_001) -> int:
    """Roots of det(sI − A0 − A1·e^{−s}) with Re s > 0 (delay 1), by the argument principle: the winding number
    of the characteristic function along the boundary of [0, R] × [−R, R] (a retarded system has no roots with
    large |s| in the right half plane: |s| ≤ ‖A0‖ + ‖A1‖ there, below R for the systems here)."""
    bound = np.abs(A0).sum(1).max() + np.abs(A1).sum(1).max()
    if bound >= R:
        raise ValueError(f"R={R} is out of range: accepted R above the root bound {bound:.3g}")
    k = n // 4
    eps = 1e-9  # the contour passes just right of the imaginary axis
    pts = np.concatenate(
        [
            eps + 1j * np.linspace(-R, R, k, endpoint=False),
            np.linspace(eps, R, k, endpoint=False) + 1j * R,
            R + 1j * np.linspace(R, -R, k, endpoint=False),
            np.linspace(R, eps, k, endpoint=False) - 1j * R,
        ]
    )
    I = np.eye(A0.shape[0])
    M = pts[:, None, None] * I - A0 - A1 * np.exp(-pts)[:, None, None]
    f = np.linalg.det(M)
    ph = np.unwrap(np.angle(np.concatenate([f, f[:1]])))
    # the contour runs clockwise in this orientation (up the left side): the count is minus the winding
    return int(round(-(ph[-1] - ph[0]) / (2 * np.pi)))


def critical_ratio(eta: float, kappas: tuple[float, ...]) -> np.ndarray:
    """For each κ, the smallest d/T in [1, 64] at which the q > 0 fixed point loses stability (NaN: none)."""
    kap = np.asarray(kappas, float)

    def system(r: np.ndarray) -> tuple:
        A0 = np.empty(r.shape + (3, 3))
        A1 = np.empty(r.shape + (3, 3))
        for idx in np.ndindex(r.shape):
            A0[idx], A1[idx] = linear_system(eta, float(kap[idx[0]]), float(r[idx]))
        return A0, A1, np.ones(r.shape)

    return critical_parameter(system, np.ones_like(kap), np.full_like(kap, 64.0), n_scan=25)


@functools.lru_cache(maxsize=1)
def _region() -> dict:
    rc = critical_ratio(ETA, KAPPAS)
    counts = []
    for k, r in zip(KAPPAS, rc, strict=True):
        if not np.isfinite(r):
            counts.append((None, None))
            continue
        below = unstable_count(*linear_system(ETA, k, 0.9 * r))
        above = unstable_count(*linear_system(ETA, k, 1.1 * r))
        counts.append((below, above))
    return {"rc": rc, "counts": counts}


def hpcc() -> Derivation:
    """The fixed point, the linearization and the stability region of HPCC's fluid model."""
    qb, zb = branch(True), branch(False)
    s = qb["s"]
    U_star = s.eta + s.N * s.W_AI / (s.C * s.d)
    q_star = s.N * s.W_AI - (1 - s.eta) * s.C * s.d
    Wc_star = s.C * s.d * s.eta / s.N + s.W_AI
    kap = s.kappa
    Qq, Q0 = _quasi(True), _quasi(False)
    Ustar_k = s.eta + kap
    # crossing test on the imaginary axis: b·ω = η·sin ω has no root ω > 0 when b > η
    eps, delta = sp.symbols("epsilon delta", positive=True)
    b_minus_eta = ((s.eta + kap) ** 2 + kap - s.eta).subs({s.eta: 1 - eps, kap: eps + delta})
    # numbers: the T = d grid (both methods) and the T < d table
    grid = [(e, k) for e in (0.5, 0.8, 0.95, 1.0) for k in (0.06, 0.2, 1.0, 5.0) if e + k > 1.0]

    def grid_check() -> tuple[bool, str]:
        A = [linear_system(e, k, 1.0) for e, k in grid]
        r = char_roots(np.stack([a[0] for a in A]), np.stack([a[1] for a in A]), np.ones(len(A)), n_roots=4)
        cnt = [unstable_count(*a) for a in A]
        ok = bool(np.all(r.abscissa < 0)) and all(c == 0 for c in cnt)
        return ok, f"max Re λ·d = {r.abscissa.max():.4g} over {len(A)} (η, κ); unstable counts {set(cnt)}"

    reg = _region()
    rc = reg["rc"]

    def region_check() -> tuple[bool, str]:
        ok = all(c == (0, 2) for c, r in zip(reg["counts"], rc, strict=True) if np.isfinite(r))
        ok = ok and bool(np.isfinite(rc[0]))
        return ok, f"d/T critical {np.round(rc, 3).tolist()}; counts at 0.9·, 1.1·: {reg['counts']}"

    # a chain: a hop whose n own flows read it alone, a share a of its rate taken by the bottleneck's flows
    a, n, Wj, Uj = sp.symbols("a n W_j U_j", positive=True)
    kj = n * s.W_AI / (s.C * s.d)
    Uj_roots = [(a + s.eta + kj + sg * sp.sqrt((a + s.eta + kj) ** 2 - 4 * a * s.eta)) / 2 for sg in (1, -1)]

    def chain_roots() -> list:
        sol = sp.solve([Wj * (Uj - s.eta) - s.W_AI * Uj, Uj - a - n * Wj / (s.C * s.d)], [Wj, Uj], dict=True)
        return [v[Uj] for v in sol]

    rows = " ".join(
        f"κ = {k}: d/T = {fmt(r, 4, rtol=1e-3)};" if np.isfinite(r) else f"κ = {k}: stable up to d/T = 64;"
        for k, r in zip(KAPPAS, rc, strict=True)
    )
    steps = [
        Step(
            "At rest the window in force is the reference",
            "[HPCC] Alg. 1 lines 13-15; eq. (H1)",
            "dW_c/dt = 0 in (H1) says W = W_c·η/U + W_AI equals W_c: between two updates the window the sender uses"
            " and the reference agree, and U > η (the multiplicative branch of line 12 holds).",
            [eq("W^*", Wc_star)],
            solutions(lambda: [v[s.Wc] for v in qb["fp"]], [Wc_star]),
        ),
        Step(
            "The fixed point with a queue",
            "[HPCC] Alg. 1 lines 5, 9, 13; eqs. (H1)-(H3), T = d",
            "With q > 0 the link sends C, so U = q/(C·T) + 1, and N·W/(d + q/C) = C: solving (H1)-(H3) gives U* = η +"
            " κ with κ = N·W_AI/(C·T), and the standing queue q* = N·W_AI − (1 − η)·C·T, which is positive only when"
            " κ > 1 − η.",
            [eq("U^*", U_star), eq("q^*", q_star)],
            solutions(lambda: [sp.Matrix([v[s.U], v[s.q]]) for v in qb["fp"]], [sp.Matrix([U_star, q_star])]),
        ),
        Step(
            "The fixed point without a queue",
            "eqs. (H1), (H3) with q held at 0",
            "When κ ≤ 1 − η the queue rests at its floor: U reads the arrival rate N·W/(C·d), and the same U* = η + κ"
            " is the utilization, below 1. So the queue is zero and the link full only at κ = 1 − η exactly:"
            " N·W_AI = (1 − η)·C·T.",
            [eq("U^*", zb["fp"][0][s.U])],
            solutions(lambda: [v[s.U] for v in zb["fp"]], [U_star]),
        ),
        Step(
            "A delay system",
            "eqs. (H1)-(H3); the reference update of Alg. 1 line 22",
            "The law is discrete (one reference update per RTT, one U update per ACK); the fluid model is the"
            " delay-differential system x' = A0·x + A1·x(t − d) around the fixed point, the delay d the telemetry's"
            " trip from the bottleneck to the sender. In units of d, with W_c scaled by W_c* and q by C·d, the"
            " matrices depend on η and κ only: N, C and the delay enter through κ and the time unit.",
            [eq("A_0 d", qb["A0"]), eq("A_1 d", qb["A1"])],
            identity(qb["A1"], sp.Matrix([[0, 0, 0], [0, 0, 1], [0, 0, 0]])),
        ),
        Step(
            "The characteristic function factors",
            "eqs. (H1)-(H3) linearized, q > 0",
            "det(sI − A0·d − A1·d·e^{−s}) = (U*·s + 1)·Q(s)/U*³ with Q(s) = U*²s² + (U*² + κ)s + κ + η·e^{−s}: one"
            " real root s = −1/U* and the roots of Q.",
            [eq(r"\det(sI - A_0 d - A_1 d\,E)", qb["char"]), eq("Q(s)", Qq)],
            identity(qb["char"], sp.expand((Ustar_k * s.s + 1) * Qq) / Ustar_k**3),
        ),
        Step(
            "No root crosses the imaginary axis when T = d",
            "eq. (H3) with T = d",
            "Q(iω) = 0 needs (U*² + κ)·ω = η·sin ω (imaginary part); since sin ω < ω for ω > 0 this has no solution"
            " once U*² + κ > η, which holds whenever q* > 0 (κ = 1 − η + δ, η = 1 − ε). With zero delay Q is a"
            " quadratic with positive coefficients (stable), and replacing e^{−s} by e^{−θs} the same inequality"
            " rules out a crossing for every θ in [0, 1]: the fixed point is stable for every η, κ, N and delay.",
            [eq(r"U^{*2} + \kappa - \eta", sp.expand(b_minus_eta))],
            positive(b_minus_eta),
        ),
        Step(
            "Nor without a queue",
            "eqs. (H1), (H3), q held at 0",
            "On the floor the characteristic function is (s + 1)·(U*·s + κ + η·e^{−s})/U*: a crossing needs"
            " U*·ω = η·sin ω, impossible since U* = η + κ > η. HPCC's fixed point is locally stable on both sides"
            " of κ = 1 − η.",
            [eq(r"\det(sI - A_0 d - A_1 d\,E)", zb["char"])],
            identity(zb["char"], sp.expand((s.s + 1) * Q0) / Ustar_k),
        ),
        Step(
            "Two methods agree on a grid",
            "eqs. (H1)-(H3), T = d",
            "The rightmost characteristic roots (Chebyshev collocation and Newton, "
            ":func:`~dwtcp_fluid.analysis.charroots.char_roots`) and the number of roots in the right half plane"
            " by the argument principle on det(sI − A0 − A1·e^{−s}) agree: every root in the left half plane for"
            " η ∈ {0.5, 0.8, 0.95, 1} and κ ∈ {0.06, 0.2, 1, 5} (κ > 1 − η).",
            [],
            predicate(grid_check, "char_roots abscissa < 0 and argument-principle count 0 on the grid"),
        ),
        Step(
            "A law's T below the path's RTT destabilizes it",
            "[HPCC] Alg. 1 lines 5, 8-9 (T in the queue term and the filter weight)",
            "When the configured T is shorter than the base RTT d (a path longer than the T the NICs assume), the"
            " queue term q/(C·T) and the filter weight τ/T both grow by d/T while the update still comes once per"
            " RTT. The fixed point with a queue then loses stability at a critical d/T that grows with κ (η = 0.95;"
            f" bisection on the abscissa, confirmed by the argument principle: 0 roots at 0.9× and 2 at 1.1×): {rows}",
            [],
            predicate(region_check, "a crossing of one complex pair at each finite critical d/T"),
        ),
        Step(
            "On a chain each flow reacts to its most loaded hop",
            "[HPCC] Alg. 1 lines 3-7 (u is the largest u' over the hops)",
            "Every flow runs ComputeWind on its path's largest u'_j, and at rest W·(U − η) = W_AI·U: flows that read"
            " the same U hold the same window whatever their route. So the hop the most flows cross is the single"
            " bottleneck above with N = N_b (its flows, long ones included, get C/N_b each, q* = N_b·W_AI − (1 − η)·C·T)."
            " A hop j whose n own flows read it alone, next to the share a of its rate that the bottleneck's flows"
            " take, rests without a queue where U_j = a + n·W_j/(C·d): U_j is the root above η of"
            " (U_j − a)(U_j − η) = κ_j·U_j, κ_j = n·W_AI/(C·d), and its flows get U_j − a (check ``hpcc-chains``).",
            [eq("U_j", Uj_roots[0])],
            solutions(chain_roots, Uj_roots),
        ),
    ]
    findings = [
        Finding(
            "Near-zero queue at full utilization",
            "[HPCC] §1, §3: HPCC keeps near-zero queues while fully using the links (η = 95 %)",
            "Holds exactly where N·W_AI = (1 − η)·C·T (κ = 1 − η). With fewer flows the link runs at η + κ < 1 and"
            " no queue; with more, a standing queue N·W_AI − (1 − η)·C·T at full utilization: with W_AI sized for"
            " N_exp flows (N_exp·W_AI = (1 − η)·C·T) the queue is (N/N_exp − 1)·(1 − η)·C·T, e.g. 0.27·B·T at"
            " N = 64, N_exp = 10. The packet core agrees (``packet compare-fluid --law hpcc``).",
            "depends on N·W_AI",
            "The fixed point without a queue",
        ),
        Finding(
            "Stability of HPCC's fixed point",
            "[HPCC] §3: the reference window W_c and the once-per-RTT update avoid overreaction",
            "With T equal to the base RTT the fixed point is stable for every η, W_AI, N and delay (the stability"
            " region is the whole parameter space: N, C and the delay enter only through κ = N·W_AI/(C·T) and the"
            " time unit, and no characteristic root can reach the imaginary axis). Instability needs a path whose"
            " base RTT exceeds the configured T.",
            "reproduced, proved in the fluid model",
            "No root crosses the imaginary axis when T = d",
        ),
    ]
    return Derivation(
        slug="hpcc",
        title="HPCC: fixed point and stability region",
        covers="[HPCC] Algorithm 1 (window-based, INT); fluid model (H0)-(H3) of dwtcp_fluid/models/hpcc.py.",
        findings=findings,
        steps=steps,
    )
