"""Swift: the fixed point of the fluid model, its linearization and the stability region (``proofs/swift.md``).

The model's functions (:mod:`dwtcp_fluid.models.swift`) give the numbers; the symbolic steps restate the
decrease branch with a generic target T(w) and check that the model's Jacobians are its values at the setting.
The region's boundary is derived in closed form (a crossing frequency and a critical delay ratio) and checked
against the characteristic roots of :mod:`dwtcp_fluid.analysis.charroots` (a second, numerical method).
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from ...analysis.charroots import char_roots, critical_parameter
from ...formulas import swift_flow_scaling
from ...models.swift import SwiftParams
from ...params import LinkParams
from ...symbolic.derivation import (
    Derivation,
    Finding,
    Step,
    eq,
    fmt,
    identity,
    numeric,
    predicate,
    tex_matrix,
)
from .analysis import (
    critical_beta,
    critical_ratio,
    crossing_frequency,
    fixed_point,
    linear_system,
    normalized,
)
from .analysis import numeric as model_numbers

__all__ = ["swift", "SETTING", "GRID"]

#: The setting of the numeric steps: 10 flows at 10 Gbps, d = 100 µs, htsim's gains (the packet law's defaults).
SETTING = SwiftParams(link=LinkParams(capacity="10Gbps", rtt="100us"), flows=(10,))
#: The region's table: flow counts and base RTTs at 10 Gbps.
GRID = ((2, 10, 64), ("10us", "20us", "50us", "100us"))


def _generic() -> tuple[sp.Matrix, sp.Matrix, dict[str, sp.Symbol], sp.Expr]:
    """A0, A1 of the decrease branch with a generic target T(w), symbolic, at the fixed point (T′(w*) written
    −κ·T*/w*), and the characteristic function det(λI − A0 − A1·e^{−λd})·T*² in μ = λT*, with d = r·T*."""
    w, q, wd, qd, C, d, N, beta = sp.symbols("w q w_d q_d C d N beta", positive=True)
    Ts, mu, r, kappa = sp.symbols("T^* mu r kappa", positive=True)
    T = sp.Function("T")
    Tp = sp.Symbol("Tp")

    def tau(x: sp.Expr) -> sp.Expr:
        return d + (x + 1) / C  # the model's RTT τ(q)

    D = tau(qd)
    F = sp.Matrix([-w * beta * (D - T(wd)) / D**2, N * w / tau(q) - C])
    ws = C * Ts / N  # N·w* = C·T*
    qs = C * (Ts - d) - 1  # τ(q*) = T*

    def at(J: sp.Matrix) -> sp.Matrix:
        J = J.subs(sp.Derivative(T(wd), wd), Tp).subs({w: ws, wd: ws, q: qs, qd: qs})
        return sp.simplify(J.subs(T(ws), Ts).subs(Tp, -kappa * Ts / ws))

    A0, A1 = at(F.jacobian([w, q])), at(F.jacobian([wd, qd]))
    lam = mu / Ts
    char = sp.expand(
        sp.simplify((lam * sp.eye(2) - A0 - A1 * sp.exp(-lam * d)).det() * Ts**2).subs(d, r * Ts)
    )
    syms = {"C": C, "d": d, "N": N, "beta": beta, "T": Ts, "mu": mu, "r": r, "kappa": kappa}
    return A0, A1, syms, char


def _fixed_point_steps() -> list[Step]:
    P = SETTING
    p = model_numbers(P)
    ws, qs = fixed_point(P)
    s = sp.Symbol("s", positive=True)  # s = √w
    C, N, T0 = sp.Float(p["C"], 30), sp.Float(p["N"], 30), sp.Float(p["T0"], 30)
    a = sp.Float(p["fs_range"], 30) / (
        1 / sp.sqrt(sp.Float(p["fs_min"], 30)) - 1 / sp.sqrt(sp.Float(p["fs_max"], 30))
    )
    b = -a / sp.sqrt(sp.Float(p["fs_max"], 30))
    cubic = N * s**3 - C * (T0 + b) * s - C * a
    Cs, Ns, T0s, As, Bs = sp.symbols("C N T_0 a b", real=True)
    cubic_sym = Ns * s**3 - Cs * (T0s + Bs) * s - Cs * As

    def root() -> float:
        roots = [complex(z) for z in sp.Poly(cubic, s).nroots(n=30)]
        pos = [z.real**2 for z in roots if abs(z.imag) < 1e-12 and z.real > 0]
        return pos[0] if len(pos) == 1 else float("nan")

    fs_star = float(swift_flow_scaling(ws, p["fs_range"], p["fs_min"], p["fs_max"], np))
    rows = []
    for n in GRID[0]:
        P_n = SwiftParams(link=P.link, flows=(n,))
        rows.append((n, *fixed_point(P_n)))
    return [
        Step(
            "The fixed point is a sliding mode on the target",
            "[Swift] Algorithm 1; eqs. (S1), (S2)",
            "Below the target every window grows, at or above it every window falls: a rest point needs D = T for"
            " every flow, so all flows share one window w* (same D, same T(w)), and the queue is steady when the N"
            " windows fill the RTT: N·w* = C·T*, with T* = T_0 + fs(w*) and q* = C·(T* − d) − 1.",
            [eq("N w^*", r"C\,\left(T_0 + f_s(w^*)\right)"), eq("q^*", r"C\,(T^* - d) - 1")],
            predicate(
                lambda: (
                    abs(p["N"] * ws - p["C"] * (p["T0"] + fs_star)) <= 1e-9 * p["C"] * p["T0"],
                    f"N·w* − C·T* = {fmt(p['N'] * ws - p['C'] * (p['T0'] + fs_star), 2, atol=1e-9 * p['C'] * p['T0'])}",
                ),
                "the analysis' root solves N·w = C·(T_0 + fs(w)) (atol 1e-9·C·T_0)",
            ),
        ),
        Step(
            "In closed form: a cubic in √w",
            "[Swift] §3.5 (fs(w) = α/√w + β between fs_min_cwnd and fs_max_cwnd)",
            "With fs(w) = a/√w + b (a = fs_range/(1/√fs_min − 1/√fs_max), b = −a/√fs_max) and s = √w, N·w = C·(T_0 +"
            " fs(w)) is the cubic below; its coefficients change sign once (N > 0, −C·a < 0), so it has exactly one"
            " positive root (Descartes), given by Cardano's formula. At the setting (10 Gbps, 100 µs, N = 10) its"
            " square is the analysis' w* (packets).",
            [eq(cubic_sym, 0), eq("w^*", fmt(ws, 8))],
            numeric(
                root, ws, rtol=1e-9, how="the cubic's one positive root (SymPy nroots), squared, equals w*"
            ),
        ),
        Step(
            "The queue at the target grows with N",
            "[Swift] §3.5 (flow-based scaling)",
            "More flows mean smaller windows, a larger fs(w*) and a higher target: at 10 Gbps and d = 100 µs the"
            " fixed point (w*, q*) in packets for N = "
            + ", ".join(str(r[0]) for r in rows)
            + " is below; q* grows"
            " with N while N·w* − C·d stays the queue.",
            [eq(f"N = {n}", rf"(w^*, q^*) = ({fmt(w_, 6)},\ {fmt(q_, 6)})") for n, w_, q_ in rows],
            predicate(
                lambda: (
                    all(rows[i][2] < rows[i + 1][2] for i in range(len(rows) - 1)),
                    "q* = " + ", ".join(fmt(r[2], 6) for r in rows),
                ),
                "q* increases with N",
            ),
        ),
    ]


def _linear_steps() -> list[Step]:
    A0g, A1g, y, char = _generic()
    P = SETTING
    p = model_numbers(P)
    A0, A1, d = linear_system(P)
    r, kappa, T = normalized(P)
    beta = float(P.beta)
    # the generic matrices at the setting (κ from the model's target: normalized() reads it off A1[0, 0] only)
    sub = {y["C"]: p["C"], y["N"]: p["N"], y["beta"]: beta, y["T"]: T, y["d"]: d, y["kappa"]: kappa}
    A0n = np.array(A0g.subs(sub).evalf(), dtype=float)
    A1n = np.array(A1g.subs(sub).evalf(), dtype=float)
    mu, rr, kk = y["mu"], y["r"], y["kappa"]
    normal = mu**2 + mu + y["beta"] * sp.exp(-mu * rr) * (kk * mu + kk + 1)
    tol = float(1e-9 * max(abs(A0n).max(), abs(A1n).max()))

    return [
        Step(
            "Linearization of the decrease branch",
            "[Swift] Algorithm 1 (multiplicative decrease); eqs. (S1), (S2)",
            "Just above the target the window falls at w·β·(D − T(w(t − d)))/D² (the max_mdf clip is inactive at D ="
            " T), the queue integrates N·w/τ(q) − C. Differentiated at the fixed point with a generic target T(w)"
            " (SymPy), with D* = τ* = T* and N·w* = C·T*: the window reacts to the delayed queue and the delayed"
            " window (through T), the queue to the current window and queue.",
            [eq("A_0", A0g), eq("A_1", A1g)],
            identity(A0g[1, 1], -1 / y["T"], how="∂q̇/∂q = −1/T* (SymPy)"),
        ),
        Step(
            "The model's Jacobians are the generic ones at the setting",
            "eqs. (S1), (S2) at 10 Gbps, d = 100 µs, N = 10",
            "The model's own functions (swift_decrease_rate, its RTT), differentiated by SymPy at the analysis' fixed"
            " point, give A_0 and A_1 (1/s, packets): they agree with the generic matrices (rtol 1e-9).",
            [eq("A_0", tex_matrix(A0)), eq("A_1", tex_matrix(A1))],
            predicate(
                lambda: (
                    bool(
                        np.allclose(A0, A0n, rtol=1e-9, atol=tol)
                        and np.allclose(A1[:, 1], A1n[:, 1], rtol=1e-9)
                    ),
                    f"max |A − A_generic| = {fmt(max(abs(A0 - A0n).max(), abs(A1[:, 1] - A1n[:, 1]).max()), 2, atol=tol)}",
                ),
                "A_0 and A_1's delayed-queue column equal the generic matrices' (rtol 1e-9; A_1's delayed-window entry"
                " defines κ)",
            ),
        ),
        Step(
            "The characteristic equation, normalized",
            "eqs. (S1), (S2), linearized",
            "det(λI − A_0 − A_1·e^{−λd}) = 0 in μ = λ·T*, with r = d/T* and κ = w*·|T′(w*)|/T* (the target's"
            " sensitivity to the window, from the flow scaling): only β, κ and r remain. The additive increment ai"
            " does not enter (it acts below the target, on the other side of the switch), nor do N and C but through"
            " T* and κ.",
            [eq(normal, 0)],
            identity(
                char, normal, how="the generic determinant × T*², with T′ = −κT*/w* and d = rT* (SymPy)"
            ),
        ),
        Step(
            "Stable without delay",
            "Routh-Hurwitz, r = 0",
            "At r = 0 the equation is μ² + (1 + βκ)·μ + β(1 + κ) = 0, whose coefficients are all positive: stable for"
            " every β > 0 and κ ≥ 0. Instability needs the feedback delay.",
            [eq(normal.subs(rr, 0), 0)],
            identity(
                sp.expand(normal.subs(rr, 0)),
                mu**2 + (1 + y["beta"] * kk) * mu + y["beta"] * (1 + kk),
                how="the r = 0 polynomial (SymPy)",
            ),
        ),
        Step(
            "The crossing frequency and the critical delay ratio",
            "μ = iω in the normalized equation",
            "On the imaginary axis |−ω² + iω|² = β²·|κ + 1 + iκω|², a quadratic in ω²: ω⁴ + (1 − β²κ²)ω² − β²(κ+1)² ="
            " 0 has one positive root; the phase gives the smallest ratio r* = (atan(1/ω) + atan(κω/(κ+1)))/ω at"
            " which the roots cross. At the setting (κ, r, β = 0.8): r < r*, locally stable.",
            [
                eq(r"(\kappa, r)", rf"({fmt(kappa, 6)},\ {fmt(r, 6)})"),
                eq(r"\omega", fmt(crossing_frequency(beta, kappa), 6)),
                eq("r^*", fmt(critical_ratio(beta, kappa), 6)),
            ],
            predicate(
                lambda: (
                    r < critical_ratio(beta, kappa),
                    f"r = {fmt(r, 6)} < r* = {fmt(critical_ratio(beta, kappa), 6)}",
                ),
                "r < r*(β, κ) at the setting",
            ),
        ),
        *_second_method(kappa),
    ]


def _normalized_system(beta: np.ndarray, kappa: float, r: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(A0, A1, r) of the normalized system, whose determinant is μ² + μ + β·e^{−μr}(κμ + κ + 1)."""
    beta = np.asarray(beta, float)
    A0 = np.broadcast_to(np.array([[0.0, 0.0], [1.0, -1.0]]), beta.shape + (2, 2))
    A1 = np.zeros(beta.shape + (2, 2))
    A1[..., 0, 0] = -beta * kappa
    A1[..., 0, 1] = -beta
    return A0, A1, np.full(beta.shape, r)


def _second_method(kappa: float) -> list[Step]:
    rows = []
    for n in GRID[0]:
        for rtt in GRID[1]:
            P = SwiftParams(link=LinkParams(capacity="10Gbps", rtt=rtt), flows=(n,))
            rn, kn, _ = normalized(P)
            rows.append((n, rtt, rn, kn, critical_beta(rn, kn)))
    ks = np.array([x[3] for x in rows])
    rs = np.array([x[2] for x in rows])
    bc_closed = np.array([x[4] for x in rows])
    bc_roots = np.array(
        [
            critical_parameter(lambda b, k=k, rr=rr: _normalized_system(b, k, rr), np.array([0.05]),
                               np.array([50.0]), n_scan=32)[0]
            for k, rr in zip(ks, rs, strict=True)
        ]
    )  # fmt: skip
    # the worst case over the region r ≤ 1: β_c at r = 1 over κ ∈ [0, 1]
    kap_grid = np.linspace(0.0, 1.0, 11)
    worst = min(critical_beta(1.0, k) for k in kap_grid)
    beta_grid = np.full(kap_grid.shape, 0.8)
    absc_08 = np.array(
        [char_roots(*_normalized_system(beta_grid, 0.0, 1.0)[:2], 1.0, n_roots=2).abscissa.max()]
        + [
            float(char_roots(*_normalized_system(np.array(0.8), k, 1.0)[:2], 1.0, n_roots=2).abscissa)
            for k in kap_grid
        ]
    )
    table = " ".join(f"N = {n}, d = {rtt}: r = {fmt(rn, 4)}, κ = {fmt(kn, 4)}, β_c = {fmt(bc, 4)};"
                     for n, rtt, rn, kn, bc in rows)  # fmt: skip
    eps = 0.01
    A0s, A1s, _ = _normalized_system(np.array([0.8, 0.8]), kappa, 1.0)
    rc = critical_ratio(0.8, kappa)
    sides = char_roots(A0s, A1s, np.array([rc * (1 - eps), rc * (1 + eps)]), n_roots=2).abscissa
    return [
        Step(
            "A second method agrees on the boundary",
            "characteristic roots (Breda et al. pseudospectral + Newton, analysis/charroots.py)",
            "The rightmost root of the normalized system at β = 0.8 and the setting's κ, computed without the closed"
            " form, is left of the axis at 0.99·r* and right of it at 1.01·r*.",
            [eq(r"\max\Re\mu(0.99 r^*),\ \max\Re\mu(1.01 r^*)", rf"{fmt(sides[0], 3)},\ {fmt(sides[1], 3)}")],
            predicate(
                lambda: (bool(sides[0] < 0 < sides[1]), "sign change across r*"), "abscissa < 0 < abscissa"
            ),
        ),
        Step(
            "The stability region over (β, N, d)",
            "closed form r*(β, κ) = r solved for β; checked by the characteristic roots",
            "For each flow count and base RTT at 10 Gbps (htsim's targets), r and κ at the fixed point and the"
            " critical decrease constant β_c: the fixed point is locally stable for β < β_c. The closed form and a"
            " scan of the characteristic roots over β (bisection of the abscissa's sign change) agree. "
            + table,
            [
                eq(
                    r"\max |\beta_c^{closed} - \beta_c^{roots}| / \beta_c",
                    fmt(np.max(np.abs(bc_closed - bc_roots) / bc_closed), 2, atol=1e-6),
                )
            ],
            predicate(
                lambda: (
                    bool(np.allclose(bc_closed, bc_roots, rtol=1e-6)),
                    f"β_c from {fmt(bc_closed.min(), 4)} to {fmt(bc_closed.max(), 4)}",
                ),
                "the closed-form β_c equals the characteristic roots' (rtol 1e-6) at every grid point",
            ),
        ),
        Step(
            "htsim's β = 0.8 is stable at every (N, d, C)",
            "r = d/T* < 1 always (the target T* exceeds the base RTT); κ < 1 with [Swift] §3.5's flow scaling",
            "Since T* = τ(q*) > d, r < 1 for every setting; and κ = w*·|fs′(w*)|/T* = (fs(w*) + a/√fs_max)/(2T*) < 1"
            " whenever a/√fs_max (htsim's: 3.27 µs) is below T* (0 outside the scaled range): the grid's largest κ"
            " is below. β_c(r, κ) falls as r and κ grow, so the smallest β_c is at r = 1, κ = 1, and it exceeds"
            " 0.8; the rightmost root at β = 0.8, r = 1 is left of the axis for every κ of the grid: the decrease"
            " branch is locally stable whatever N, the base RTT and the link rate (the increase side's relay cycle"
            " remains, of amplitude set by ai).",
            [
                eq(r"\max \kappa\ \text{(grid)}", fmt(ks.max(), 4)),
                eq(r"\min_{\kappa \le 1} \beta_c(r = 1)", fmt(worst, 5)),
                eq(r"\max \Re\mu(\beta = 0.8, r = 1)", fmt(absc_08.max(), 3)),
            ],
            predicate(
                lambda: (
                    bool(ks.max() < 1 and worst > 0.8 and absc_08.max() < 0),
                    f"max κ = {fmt(ks.max(), 4)}, min β_c = {fmt(worst, 5)}",
                ),
                "κ < 1 on the grid, min β_c(r = 1) > 0.8 and every abscissa at β = 0.8 is negative",
            ),
        ),
    ]


def swift() -> Derivation:
    """Swift's fluid model (S1)-(S2): the fixed point, the linearized decrease branch and its stability region."""
    P = SETTING
    ws, qs = fixed_point(P)
    r, kappa, _ = normalized(P)
    worst = min(critical_beta(1.0, k) for k in np.linspace(0.0, 1.0, 11))
    findings = [
        Finding(
            "Swift holds the queue at its target",
            "[Swift] §3.5: the target delay sets the queue, scaled up with the number of flows",
            f"The fluid model's fixed point is the sliding mode D = T: every flow at w* = C·T*/N, the queue at"
            f" q* = C·(T* − d) − 1 (N = 10, 10 Gbps, 100 µs: w* = {fmt(ws, 5)}, q* = {fmt(qs, 5)} packets), q*"
            " growing with N through the flow scaling; the packet core agrees (packet compare-fluid --law swift).",
            "reproduced",
            "The fixed point is a sliding mode on the target",
        ),
        Finding(
            "Swift's stability",
            "[Swift] claims stable low delay; it gives no stability analysis",
            f"Linearized above the target, the loop is μ² + μ + β·e^{{−μr}}(κμ + κ + 1) = 0 (r = d/T*, κ the flow"
            f" scaling's sensitivity); ai does not enter. Since r < 1, β < {fmt(worst, 4)} is stable at every (N, d,"
            f" C): htsim's β = 0.8 is; β = 3 is not (the queue empties every cycle in both cores).",
            "derived",
            "htsim's β = 0.8 is stable at every (N, d, C)",
        ),
    ]
    return Derivation(
        slug="swift",
        title="Swift: fixed point and stability region",
        covers="[Swift] Algorithm 1 and §3.5 (target delay with flow scaling), fluid model (S1)-(S2) of"
        " dwtcp_fluid/models/swift.py.",
        findings=findings,
        steps=_fixed_point_steps() + _linear_steps(),
    )
