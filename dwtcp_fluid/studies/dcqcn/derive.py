"""DCQCN's fluid model: the rewritten expiry rates, the unique fixed point, the linearization with the feedback
delay, the characteristic roots, and the stability region over (N, delay, gains) ([DCQCN] §4, [ECN-OR-DELAY]).

Every expression comes from :class:`~dwtcp_fluid.models.dcqcn.DcqcnFluid`'s right-hand side (its interior regime,
:data:`~dwtcp_fluid.models.dcqcn.INTERIOR_NS`); the fixed point and the matrices from :mod:`.analysis`; the roots
from :mod:`dwtcp_fluid.analysis.charroots` (Breda et al. pseudospectral + Newton), checked by a second method, the
argument principle on det Δ(λ) along a contour around the right half-plane's possible roots.
"""

from __future__ import annotations

import functools

import numpy as np
import sympy as sp

from ...analysis.charroots import char_roots, critical_parameter
from ...models.dcqcn import INTERIOR_NS, DcqcnParams
from ...params import LinkParams
from ...symbolic.derivation import (
    Derivation,
    Finding,
    Step,
    eq,
    fmt,
    identity,
    predicate,
    solutions,
    tex_matrix,
)
from .analysis import MODEL, fixed_point, linear_system, residual_parts

__all__ = ["dcqcn", "rhp_count", "critical_delays"]

#: The setting of the linear steps: 100 Gbps, N = 10, [DCQCN]'s gains; delays on both sides of the boundary.
LINK = LinkParams(capacity="100Gbps", rtt="50us")
SETTING = DcqcnParams(link=LINK, flows=10)
D_STABLE, D_UNSTABLE = 50e-6, 100e-6
#: N of the stability-region table (100 Gbps; N > 20 puts the fixed point on K_max at these gains).
FLOWS = (2, 3, 4, 6, 8, 10, 12, 16, 20)
#: Scan points of the fixed-point root bracket (:func:`~.analysis.fixed_point`) in the derivation.
N_SCAN = 120


def rhp_count(A0: np.ndarray, A1: np.ndarray, tau: float, n: int = 40000) -> int:
    """Zeros of det(λI − A0 − A1·e^{−λτ}) with Re λ > 0, by the argument principle: the winding number of det Δ
    along the rectangle [ε, ρ] × [−ρ, ρ], ρ = 1.5·(‖A0‖ + ‖A1‖) after a diagonal balancing (no root with Re λ ≥ 0
    lies outside: |λ| ≤ ‖A0‖ + ‖A1‖ there), ε a tiny shift off the imaginary axis, at least 40 samples per radian
    of e^{−λτ} along each side. A method independent of the pseudospectral one."""
    from scipy.linalg import matrix_balance

    A0, A1 = np.asarray(A0, float), np.asarray(A1, float)
    # a diagonal similarity (the same for A0 and A1, so det Δ keeps its zeros) that balances the rows of states
    # in packets/s against the queue in packets: the bound ρ then drops by orders of magnitude
    _, (d, _) = matrix_balance(np.abs(A0) + np.abs(A1), permute=False, separate=True)
    A0, A1 = A0 * d[None, :] / d[:, None], A1 * d[None, :] / d[:, None]
    rho = 1.5 * (np.linalg.norm(A0, 2) + np.linalg.norm(A1, 2))
    n = max(n, int(40 * rho * tau))
    eps = 1e-9 * rho
    s = np.linspace(0.0, 1.0, n, endpoint=False)
    path = np.concatenate(
        [
            eps + 1j * rho * (2 * s - 1),  # up the (shifted) imaginary axis
            eps + (rho - eps) * s + 1j * rho,  # right along the top
            rho + 1j * rho * (1 - 2 * s),  # down the right side
            rho - (rho - eps) * s - 1j * rho,  # back along the bottom
        ]
    )
    eye = np.eye(A0.shape[0])
    det = np.linalg.det(path[:, None, None] * eye - A0 - A1 * np.exp(-path * tau)[:, None, None])
    phase = np.unwrap(np.angle(np.append(det, det[:1])))
    # the contour above runs clockwise in the usual orientation (up the left side first): zeros inside = −winding
    return int(round(-(phase[-1] - phase[0]) / (2 * np.pi)))


@functools.lru_cache(maxsize=1)
def critical_delays() -> dict[str, np.ndarray]:
    """τ_c (s) at 100 Gbps for each N of :data:`FLOWS`, and at N = 10 for R_AI and g scaled by ½ and 2."""
    systems = [linear_system(SETTING.replace(flows=n), n_scan=N_SCAN)[:2] for n in FLOWS]
    base = MODEL.numeric_params(SETTING)
    gains = []
    for key, f in (("R_AI", 0.5), ("R_AI", 2.0), ("g", 0.5), ("g", 2.0)):
        p = {**base, key: base[key] * f}
        gains.append(linear_system(p, fixed_point(p, N_SCAN))[:2])
    allsys = systems + gains
    A0 = np.stack([a for a, _ in allsys])
    A1 = np.stack([b for _, b in allsys])

    def system(tau: np.ndarray) -> tuple:
        shape = tau.shape
        return (
            np.broadcast_to(A0[:, None], shape + A0.shape[1:]),
            np.broadcast_to(A1[:, None], shape + A1.shape[1:]),
            tau,
        )

    B = len(allsys)
    tc = critical_parameter(system, np.full(B, 5e-6), np.full(B, 400e-6), n_scan=10, rtol=1e-4)
    return {"flows": tc[: len(FLOWS)], "gains": tc[len(FLOWS) :]}


def dcqcn() -> Derivation:
    """The derivation rendered into ``proofs/dcqcn.md``."""
    xs, ps = MODEL.symbols()
    Rc, Rt, al, q = xs
    p_ = sp.Symbol("p", positive=True)
    R = sp.Symbol("R", positive=True)
    n = sp.Symbol("n", positive=True)
    # the paper's expiry rate and the model's rewritten one
    paper_rate = R * p_ / ((1 - p_) ** (-n) - 1)
    model_rate = R * p_ * (1 - p_) ** n / (1 - (1 - p_) ** n)
    # the interior equations at rest: x = x(t − τ*) = (R, R_T, α, q), marking probability p
    pr = {k: v for k, v in ps.items()}
    qp = pr["K_min"] + p_ * (pr["K_max"] - pr["K_min"]) / pr["P_max"]  # the queue at which the ramp gives p
    F = sp.Matrix(MODEL.rhs((R, Rt, al, qp), (R, Rt, al, qp), 0, pr, INTERIOR_NS))
    R_star = sp.solve(sp.Eq(F[3], 0), R)
    # (D2) is affine in α and (D4) in R_T: each zero is −f(0)/(f(1) − f(0))
    alpha_star = sp.powsimp(-F[2].subs(al, 0) / (F[2].subs(al, 1) - F[2].subs(al, 0)))
    expected_alpha = 1 - sp.exp(pr["tau_a"] * R * sp.log(1 - p_))
    rt_star = R - F[0].subs(Rt, R) / (F[0].subs(Rt, R + 1) - F[0].subs(Rt, R))
    cnp_s, ev_s = sp.symbols(r"c_\tau e", positive=True)
    rt_shown = R + al * R * cnp_s / (pr["tau"] * ev_s)
    fp = fixed_point(SETTING, N_SCAN)
    pnum = MODEL.numeric_params(SETTING)

    # uniqueness: the residual h(p) of (D3) at α*(p), R_T*(p) is the additive-increase term minus a cut term; both
    # monotone on the ramp at every setting of the table (scan of p)
    grid = DcqcnParams()
    probs = np.logspace(-8, -2, 30)
    table = [grid.replace(link=LinkParams(capacity=c, rtt="20us"), flows=nf) for c in ("10Gbps", "40Gbps", "100Gbps")
             for nf in (2, 10, 64)]  # fmt: skip

    def monotone() -> tuple[bool, str]:
        ok, worst = True, ""
        for P in table:
            ai, cut = residual_parts(P, probs)
            if not (np.all(np.diff(ai) < 0) and np.all(np.diff(cut) > 0)):
                ok, worst = False, f"{P.link.capacity} N={P.flows}"
        return ok, worst or f"{len(table)} settings, {probs.size} probabilities each"

    # linearization at the setting, both delays
    A0, A1, _, fpl = linear_system(SETTING, n_scan=N_SCAN)
    jac = MODEL.jacobian_fn(0)([np.asarray(v) for v in fpl.x], pnum)
    res_s = char_roots(A0, A1, D_STABLE, n_roots=4)
    res_u = char_roots(A0, A1, D_UNSTABLE, n_roots=4)

    def lead(res: object) -> complex:
        r = np.asarray(res.roots).ravel()  # type: ignore[attr-defined]
        c = np.asarray(res.converged).ravel()  # type: ignore[attr-defined]
        return complex(r[int(np.nanargmax(np.where(c, r.real, -np.inf)))])

    ls, lu = lead(res_s), lead(res_u)
    n_s, n_u = rhp_count(A0, A1, D_STABLE), rhp_count(A0, A1, D_UNSTABLE)
    tc = critical_delays()
    tcn = tc["flows"]
    tc10 = float(tcn[FLOWS.index(10)])
    n_below, n_above = rhp_count(A0, A1, 0.98 * tc10), rhp_count(A0, A1, 1.02 * tc10)
    i_max = int(np.nanargmax(tcn))
    tc_tex = r",\ ".join(f"{nf}: {fmt(v * 1e6, 3)}" for nf, v in zip(FLOWS, tcn, strict=True))
    gains_tex = r",\ ".join(
        f"{name}: {fmt(v * 1e6, 3)}"
        for name, v in zip((r"R_{AI}/2", r"2R_{AI}", r"g/2", r"2g"), tc["gains"], strict=True)
    )

    steps = [
        Step(
            "The expiry rates without overflow",
            "[DCQCN] §4, the byte-counter and timer terms of (D3)-(D4)",
            "The model writes R·p/((1 − p)^{−n} − 1) as R·p·(1 − p)^n/(1 − (1 − p)^n) (n = B or T·R packets): the"
            " same function, with (1 − p)^n ≤ 1 so that p → 1 cannot overflow.",
            [eq(paper_rate, model_rate)],
            identity(sp.simplify(paper_rate - model_rate), 0),
        ),
        Step(
            "The rate at rest is the fair share",
            "[DCQCN] §4, eq. (D1)",
            "dq/dt = N·R_C − C vanishes only at R_C* = C/N: one rate for every flow, whatever the marking.",
            [eq("R_C^*", R_star[0])],
            solutions(lambda: R_star, [pr["C"] / pr["N"]]),
        ),
        Step(
            "α at rest",
            "[DCQCN] §4, eq. (D2)",
            "(D2) is affine in α: α* is the chance that one α period τ' of R* packets holds a mark.",
            [eq(r"\alpha^*", expected_alpha)],
            identity(alpha_star, expected_alpha),
        ),
        Step(
            "The target rate at rest",
            "[DCQCN] §4, eq. (D4)",
            "(D4) is affine in R_T: the gap R_T* − R* balances the cuts (α/2 per CNP) against the expiries that"
            " halve the gap.",
            [
                eq("R_T^*", rt_shown),
                r"c_\tau = 1 - (1-p)^{\tau R},\ e = \frac{R p (1-p)^B}{1 - (1-p)^B} + "
                r"\frac{R p (1-p)^{TR}}{1 - (1-p)^{TR}}",
            ],
            predicate(
                _rt_matches(rt_star, rt_shown, pr, R, Rt, al, p_, cnp_s, ev_s),
                "the affine zero of (D4) equals the formula shown, at 5 random points (rtol 1e-9)",
            ),
        ),
        Step(
            "One marking probability balances (D3)",
            "[DCQCN] §4, eq. (D3); [ECN-OR-DELAY] (unique fixed point)",
            "With α*(p) and R_T*(p), (D3) is h(p) = AI(p) − cut(p): the additive increase R_AI times the expiries"
            " past F stages, minus the pull (R_T − R)·(CNP rate) toward R. On the ramp AI falls and cut rises with"
            " p at every setting of the table (C = 10, 40, 100 Gbps × N = 2, 10, 64; p from 1e-8 to P_max):"
            " h is strictly decreasing, so it has at most one zero — the fixed point is unique, on the ramp or"
            " (when h > 0 up to P_max) on the jump at K_max.",
            [eq("h(p)", r"\mathrm{AI}(p) - \mathrm{cut}(p)")],
            predicate(monotone, "AI strictly decreasing and cut strictly increasing in p, every setting"),
        ),
        Step(
            "The fixed point at 100 Gbps, N = 10",
            "[DCQCN] §4, eqs. (D1)-(D4)",
            "Brent's method on h over the ramp (one sign change in the scan); the delay does not enter. The"
            " right-hand side vanishes there (packets/s², 1/s, packets/s², packets/s).",
            [
                eq(
                    r"(p^*, q^*, \alpha^*)",
                    rf"\left({fmt(fp.p, 4)},\ {fmt(fp.q, 5)},\ {fmt(fp.alpha, 4)}\right)",
                ),
                eq(r"R_T^*/R^*", fmt(fp.R_T / fp.R_C, 6)),
            ],
            predicate(
                lambda: (
                    fp.sign_changes == 1
                    and bool(np.allclose(MODEL.rhs(fp.x, fp.x, 0, pnum, np), 0.0, atol=1e-6 * pnum["C"])),
                    f"sign changes {fp.sign_changes}",
                ),
                "one sign change and F(x*) = 0 (atol 1e-6·C)",
            ),
        ),
        Step(
            "Linearization with the feedback delay",
            "[DCQCN] §4 linearized; [ECN-OR-DELAY]",
            "x' = A0·x + A1·x(t − τ*), x = (R_C, R_T, α, q): the marking and the sender's own rate R_C(t − τ*) are"
            " read τ* late. A0 + A1 must equal the model's undelayed Jacobian (FluidModel.jacobian_fn, a separate"
            " lambdified path through the clamped right-hand side).",
            [eq("A_0", tex_matrix(A0)), eq("A_1", tex_matrix(A1))],
            predicate(
                lambda: (bool(np.allclose(A0 + A1, jac, rtol=1e-8, atol=1e-12)), "A0 + A1 = jacobian_fn"),
                "A0 + A1 equals the undelayed Jacobian (rtol 1e-8)",
            ),
        ),
        Step(
            "Stable at τ* = 50 µs",
            "characteristic roots, det(λI − A0 − A1·e^{−λτ}) = 0",
            "The rightmost root (pseudospectral + Newton) is real and negative — the slow α mode, ≈ −g/τ' — and the"
            " argument principle counts no root in the right half-plane (1/s).",
            [
                eq(
                    r"\lambda_{max}",
                    f"{fmt(ls.real, 4)} {'+' if ls.imag >= 0 else '-'} {fmt(abs(ls.imag), 4)}i",
                )
            ],
            predicate(lambda: (ls.real < 0 and n_s == 0, f"Re {ls.real:.4g}, RHP count {n_s}"), "both agree"),
        ),
        Step(
            "Unstable at τ* = 100 µs",
            "characteristic roots",
            "A complex pair crosses into the right half-plane: an oscillation of period ≈ 2π/ω at onset; the"
            " argument principle counts the pair (1/s).",
            [
                eq(r"\lambda_{max}", f"{fmt(lu.real, 4)} \\pm {fmt(abs(lu.imag), 4)}i"),
                eq(r"2\pi/\omega", f"{fmt(2 * np.pi / abs(lu.imag) * 1e3, 3)}\\ ms"),
            ],
            predicate(lambda: (lu.real > 0 and n_u >= 2, f"Re {lu.real:.4g}, RHP count {n_u}"), "both agree"),
        ),
        Step(
            "The critical delay at N = 10",
            "characteristic roots along τ* (scan 5-400 µs, bisection)",
            "The abscissa changes sign once on the scan; the argument principle counts 0 roots at 0.98·τ_c and a"
            " pair at 1.02·τ_c.",
            [eq(r"\tau_c(N = 10)", f"{fmt(tc10 * 1e6, 3)}\\ \\mu s")],
            predicate(
                lambda: (n_below == 0 and n_above >= 2, f"counts {n_below} / {n_above}"), "0 below, ≥ 2 above"
            ),
        ),
        Step(
            "The stability region over N",
            "[ECN-OR-DELAY] (stability non-monotonic in N)",
            "τ_c(N) at 100 Gbps (µs): the fixed point is stable for τ* < τ_c(N). τ_c rises from N = 2, peaks, and"
            " falls again: for a delay between τ_c(2) and the peak, small and large N are unstable and middle N"
            " stable — stability is non-monotonic in N.",
            [eq(r"\tau_c(N)", tc_tex)],
            predicate(
                lambda: (
                    bool(
                        np.all(np.isfinite(tcn))
                        and 0 < i_max < len(FLOWS) - 1
                        and tcn[i_max] > 1.05 * max(tcn[0], tcn[-1])
                    ),  # fmt: skip
                    f"peak at N = {FLOWS[i_max]}",
                ),
                "an interior maximum of τ_c(N), 5 % above both ends",
            ),
        ),
        Step(
            "The stability region over the gains",
            "[DCQCN] §5 (R_AI, g)",
            "τ_c at N = 10 (µs) with R_AI or g halved and doubled: a smaller R_AI widens the stable region, a"
            " larger one narrows it.",
            [eq(r"\tau_c", gains_tex)],
            predicate(
                lambda: (bool(tc["gains"][0] > tc10 > tc["gains"][1]), "τ_c(R_AI/2) > τ_c > τ_c(2R_AI)"),
                "τ_c decreases with R_AI",
            ),
        ),
        Step(
            "One crossing in the delay",
            "[ECN-OR-DELAY] (stability non-monotonic in the feedback delay)",
            "Along τ* from 5 to 400 µs the abscissa changes sign exactly once at every N of the table: stable below"
            " τ_c, unstable above, no return to stability — at these settings stability is monotonic in the delay.",
            [eq(r"\#\{\text{sign changes}\}", "1")],
            predicate(lambda: _one_crossing(), "one sign change of the abscissa along τ*, every N"),
        ),
    ]
    findings = [
        Finding(
            "DCQCN has a unique fixed point",
            "[ECN-OR-DELAY]: DCQCN has a unique fixed point, TIMELY cannot",
            "Reproduced: R* = C/N, α* and R_T* follow in closed form from (D1), (D2), (D4), and (D3) reduces to a"
            " strictly decreasing h(p) — one zero on the RED ramp, or the equilibrium on the jump at K_max."
            " TIMELY's model has a continuum of equilibria instead (proofs/timely.md).",
            "reproduced",
            "One marking probability balances (D3)",
        ),
        Finding(
            "Stability is non-monotonic in N",
            "[ECN-OR-DELAY]: DCQCN's stability depends non-monotonically on the number of flows",
            "Reproduced at 100 Gbps with [DCQCN]'s gains: τ_c(N) has an interior maximum, so at a delay between"
            " τ_c(2) and the peak (e.g. 60 µs) N = 2 and N ≥ 12 are unstable and N = 3-10 stable.",
            "reproduced",
            "The stability region over N",
        ),
        Finding(
            "Stability is non-monotonic in the delay",
            "[ECN-OR-DELAY]: DCQCN's stability depends non-monotonically on the feedback delay",
            "Not at the toolkit's settings: along τ* = 5-400 µs the abscissa crosses zero once (stable below τ_c,"
            " unstable above) for every N = 2-20 at 100 Gbps. The delay enters only through e^{−λτ}; a return to"
            " stability would need a second crossing, which the scan does not find.",
            "refuted at these settings (depends)",
            "One crossing in the delay",
        ),
    ]
    return Derivation(
        slug="dcqcn",
        title="DCQCN: unique fixed point and stability region",
        covers="[DCQCN] §3-§5 (fluid model (D1)-(D4) of dwtcp_fluid/models/dcqcn.py) and [ECN-OR-DELAY]'s claims.",
        findings=findings,
        steps=steps,
    )


def _rt_matches(rt_star, rt_shown, pr, R, Rt, al, p_, cnp_s, ev_s):  # noqa: ANN001, ANN202
    """A check that the model's affine zero of (D4) is R + α·R·c_τ/(τ·e) with the paper's c_τ and e."""

    def check() -> tuple[bool, str]:
        rng = np.random.default_rng(3)
        worst = 0.0
        base = MODEL.numeric_params(SETTING)
        for _ in range(5):
            num = {pr[k]: v for k, v in base.items()}
            Rn, pn, an = rng.uniform(1e5, 1e6), 10 ** rng.uniform(-6, -2), rng.uniform(0.01, 1.0)
            sub = {**num, R: Rn, p_: pn, al: an}
            tau, B, T = base["tau"], base["B"], base["T"]
            c = 1 - (1 - pn) ** (tau * Rn)
            e = sum(Rn * pn * (1 - pn) ** k / (1 - (1 - pn) ** k) for k in (B, T * Rn))
            got = float(rt_star.subs(sub))
            want = float(rt_shown.subs({**sub, cnp_s: c, ev_s: e}))
            worst = max(worst, abs(got - want) / abs(want))
        return worst < 1e-9, f"max relative difference {worst:.2e}"

    return check


def _one_crossing() -> tuple[bool, str]:
    ds = np.geomspace(5e-6, 400e-6, 12)
    systems = [linear_system(SETTING.replace(flows=nf), n_scan=N_SCAN)[:2] for nf in FLOWS]
    A0 = np.stack([np.broadcast_to(a, (ds.size, 4, 4)) for a, _ in systems])
    A1 = np.stack([np.broadcast_to(b, (ds.size, 4, 4)) for _, b in systems])
    ab = np.asarray(char_roots(A0, A1, np.broadcast_to(ds, (len(FLOWS), ds.size)), n_roots=2).abscissa)
    changes = (np.sign(ab[:, 1:]) * np.sign(ab[:, :-1]) < 0).sum(axis=1)
    return bool(np.all(changes == 1)), f"sign changes per N: {changes.tolist()}"
