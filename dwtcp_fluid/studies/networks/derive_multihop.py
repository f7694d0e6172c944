"""DCTCP over several bottlenecks: the network model's fixed points and the parking lot's beat-down.

From :class:`~dwtcp_fluid.models.dctcp_network.DctcpNetwork` ([DCTCP-A] eqs. (5)-(8) over a routing matrix), with
each link's delayed mark replaced by its long-run fraction p_l (the Filippov reading of a queue resting on its
threshold). Numbers are checked against :func:`dwtcp_fluid.studies.networks.analysis_multihop.parking_lot_fixed_point`.
"""

from __future__ import annotations

import functools
import math

import sympy as sp

from ...models.dctcp_network import DctcpNetwork, parking_lot_routes
from ...symbolic.derivation import Derivation, Finding, Step, eq, fmt, identity, numeric, predicate, solutions
from ...symbolic.recorded import recorded
from .analysis_multihop import parking_lot_fixed_point, parking_lot_linearization, parking_lot_spectrum

__all__ = ["multihop"]


def _cite(eqs: str) -> str:
    return f"[DCTCP-A] {eqs}"


#: The long runs the notes and findings state, recorded with their settings by ``tools/record_proof_data.py``
#: (0.1-0.2 s of the reference solver and 100 ms packet chains: too long for ``proofs --check``); the slow tests of
#: tests/test_multihop_fluid.py re-run them and compare with the record.
MULTIHOP_RECORD = "multihop"
#: The network cross-checks' packet sides under each sender rule (the one-step cut the fluid models describe and
#: Linux's PRR, the laws' default), recorded by ``benchmarks/reduction_networks.py --json``.
REDUCTION_RECORD = "reduction-networks"
#: Ramp widths (packets) that bracket the Hopf point of the k-hop ramp lot, for the bisection of the spectral abscissa.
_HOPF_BRACKET = {1: (10.0, 20.0), 2: (5.0, 30.0)}
#: A crossing found by the bisection (w to 10⁻⁶ packets) must have its rightmost pair on the imaginary axis: real part
#: within this fraction of the frequency, and iω a root of the characteristic matrix directly, its smallest singular
#: value within this fraction of its largest.
_ON_AXIS = 1e-6
_SINGULAR = 1e-6


@functools.cache
def _hopf(hops: int, group_delays: bool) -> dict[str, float]:
    """Bisection of the ramp lot's spectral abscissa over the ramp width w: the crossing (w, ω) and the checks.

    The abscissa is that of the pseudospectral, Newton-polished rightmost roots
    (:func:`~dwtcp_fluid.studies.networks.analysis_multihop.parking_lot_spectrum`); at the crossing the
    characteristic matrix λI − A0 − Σ A_i e^{−λτ_i} is evaluated at λ = iω directly from the model's Jacobians
    (:func:`~dwtcp_fluid.studies.networks.analysis_multihop.parking_lot_linearization`), independently of the root
    finder.
    """
    import numpy as np
    from scipy.optimize import brentq

    def absc(w: float) -> float:
        return float(parking_lot_spectrum(hops, [w], group_delays=group_delays).abscissa[0])

    a, b = _HOPF_BRACKET[hops]
    lo, hi = absc(a), absc(b)
    w = brentq(absc, a, b, xtol=1e-6)
    lam = parking_lot_spectrum(hops, [w], group_delays=group_delays).roots[0][0]
    om = float(abs(lam.imag))
    A0, A1, tau, _ = parking_lot_linearization(hops, w, group_delays=group_delays)
    As, taus = (A1, tau) if group_delays else ([A1], [tau])
    z = 1j * om
    M = z * np.eye(A0.shape[0]) - A0 - sum(Ai * np.exp(-z * ti) for Ai, ti in zip(As, taus, strict=True))
    sv = np.linalg.svd(M, compute_uv=False)
    return {
        "a": a,
        "b": b,
        "lo": lo,
        "hi": hi,
        "w": w,
        "omega": om,
        "re": float(lam.real),
        "sv": sv[-1] / sv[0],
    }


def _prr_finding(rec: dict) -> Finding:
    """The parking lot's and leaf-spine's packet sides under the one-step cut and under Linux's PRR."""
    net = {r["setting"].split(" K=")[0]: r for r in rec["network"]}
    one, two = net["parking-lot:2 N=1/1"], net["parking-lot:2 N=1/2"]
    lot1 = [net["parking-lot:1 N=1/1"], net["parking-lot:1 N=1/2"]]
    ls = {red: [r["errors"]["queue_over_K"] for r in rec["leafspine"][red]] for red in ("immediate", "prr")}
    ls_shares = max(r["errors"]["share_rel"] for red in ("immediate", "prr") for r in rec["leafspine"][red])
    lot1_err = max(r["by"][red]["long_share_rel_error"] for r in lot1 for red in ("immediate", "prr"))

    def share(r: dict, red: str) -> str:
        return fmt(r["by"][red]["long_share"], spec=".3f")

    return Finding(
        "Multi-hop findings under the sender rule",
        "(not treated: [DCTCP-A]'s senders cut once per window)",
        "The packet sides of the network checks run the one-step cut the fluid models describe; under Linux's CWR"
        " with proportional rate reduction (the packet laws' default) one bottleneck is unchanged and two are not"
        " (docs/data/reduction-networks.json, 10 Gbps, 100 µs, K = 65). Leaf-spine permutations: shares"
        f" {'exact' if ls_shares < 1e-9 else 'within ' + fmt(ls_shares, 2)} under both, port queues within"
        f" {fmt(max(ls['immediate']), spec='.3f')}·K (one-step) and {fmt(max(ls['prr']), spec='.3f')}·K (PRR) of"
        f" the mean field's. One-hop lots: long share within {fmt(100 * lot1_err, spec='.1f')}% of the fluid's"
        " under both. Two hops: PRR takes about half the long flow's share — with one cross flow per hop"
        f" {share(one, 'immediate')} → {share(one, 'prr')} of C (fluid, desynchronized:"
        f" {fmt(one['fluid_long_share'], spec='.3f')}; the PRR run is {one['by']['prr']['class']}, so the agreement"
        " found above holds for the one-step cut only), with two"
        f" {share(two, 'immediate')} → {share(two, 'prr')} (fluid {fmt(two['fluid_long_share'], spec='.3f')},"
        f" mean field {fmt(two['by']['prr']['mean_field_long_share'], spec='.3f')}). The beat-down of a multi-hop"
        " flow is deeper for Linux-like senders than for the senders the fluid model describes; the mechanism is"
        " not traced.",
        "depends on the sender rule",
    )


def _hopf_ok(h: dict[str, float]) -> bool:
    return h["lo"] > 0 > h["hi"] and abs(h["re"]) <= _ON_AXIS * h["omega"] and h["sv"] <= _SINGULAR


def _hopf_detail(h: dict[str, float]) -> str:
    return (
        f"crossing at w = {fmt(h['w'], spec='.4f')}, ω = {fmt(h['omega'], spec='.2f')} rad/s: rightmost"
        f" Re λ = {fmt(h['re'], 1, atol=_ON_AXIS * h['omega'])}/s (|Re λ| ≤ {_ON_AXIS:g}·ω), σ_min/σ_max of"
        f" iωI − A0 − Σ A_i e^{{−iωτ_i}} = {fmt(h['sv'], 1, atol=_SINGULAR)} (≤ {_SINGULAR:g})"
    )


def _hopf_check() -> tuple[bool, str]:
    h = _hopf(1, False)
    return (
        _hopf_ok(h),
        f"abscissa {fmt(h['lo'], spec='.1f')}/s at w = 10, {fmt(h['hi'], spec='.1f')}/s at w = 20; "
        + _hopf_detail(h),
    )


def _hopf_k2_check() -> tuple[bool, str]:
    got, ok = [], True
    for name, g in (("common", False), ("per-group", True)):
        h = _hopf(2, g)
        ok = ok and _hopf_ok(h)
        got.append(
            f"{name}: abscissa {fmt(h['lo'], spec='.1f')}/s at w = 5, {fmt(h['hi'], spec='.1f')}/s at w = 30, "
            + _hopf_detail(h)
        )
    return ok, "; ".join(got)


def _row(*values: str) -> str:
    """A one-row LaTeX matrix of rendered numbers."""
    return r"\left[\begin{matrix}" + " & ".join(values) + r"\end{matrix}\right]"


def _group_delay_steps() -> list[Step]:
    """Per-group loop delays: the same fixed points, the same invariant synchronized subspace, a moved Hopf point."""
    k = 2
    common = DctcpNetwork(parking_lot_routes(k))
    group = DctcpNetwork(parking_lot_routes(k), group_delays=True)
    xs, ps = group.symbols()
    m = group.groups
    W, al, q = xs[:m], xs[m : 2 * m], xs[2 * m :]
    Fg, Fc = group.sym_rhs(1), common.sym_rhs(1)
    # the symmetric parking lot: equal links, equal cross groups; on the subspace hop 2 is a copy of hop 1
    sym = {ps["C_2"]: ps["C_1"], ps["K_2"]: ps["K_1"], ps["N_3"]: ps["N_2"], ps["d_3"]: ps["d_2"]}
    sym[ps["tau_3"]] = ps["tau_2"]
    on = {W[2]: W[1], al[2]: al[1], q[1]: q[0]}
    sets = group.delayed_symbol_sets()
    same_delay = dict(zip(sets[2], sets[1], strict=True))  # τ_3 = τ_2: cross group 2 reads what group 1 reads
    for c in sets:
        on.update({c[2]: c[1], c[m + 2]: c[m + 1], c[2 * m + 1]: c[2 * m]})
    Fd = group.sym_rhs(1, delayed=True).subs(sym).subs(same_delay).subs(on)
    return [
        Step(
            "Per-group delays keep the fixed points",
            _cite("eqs. (5)-(8)"),
            "Group i's marks arrive τ_i = d_i + Σ_l A_li K_l/C_l late (its own RTT at the fixed point, frozen like"
            " R*). At a fixed point every delayed state equals the state, so the right-hand side — and every fixed"
            " point above — is the common-delay model's.",
            [eq(r"F_{\tau_i}(x, x, \ldots, x) - F_{\tau}(x, x)", sp.zeros(len(xs), 1).T)],
            identity(Fg, Fc, how="SymPy: the two models' right-hand sides with x(t − τ_i) = x are identical"),
        ),
        Step(
            "The synchronized subspace is invariant, with per-group delays too",
            _cite("eqs. (5)-(8)"),
            "On the symmetric 2-hop lot, states with q_2 = q_1 and cross group 2 a copy of cross group 1 (now and at"
            " every delayed time) have dq_2/dt = dq_1/dt and equal cross-group derivatives: a start on the subspace"
            " stays on it for ever, marks synchronized (P = p). Whether it is reached from elsewhere is the"
            " transversal stability of the subspace, a numerical question (Notes).",
            [eq(r"\frac{dq_2}{dt} - \frac{dq_1}{dt}", Fd[2 * m + 1] - Fd[2 * m])],
            identity(
                sp.Matrix([Fd[2 * m + 1] - Fd[2 * m], Fd[2] - Fd[1], Fd[m + 2] - Fd[m + 1]]),
                sp.zeros(3, 1),
                how="SymPy: the three differences vanish identically on the subspace",
            ),
        ),
        Step(
            "Characteristic roots with per-group delays: the ramp lot's Hopf point, k = 2",
            _cite("eqs. (5)-(8)"),
            "With per-group delays the linearization is det(λI − A0 − Σ_i A_i e^{−λτ_i}) = 0, a quasi-polynomial"
            " with m discrete delays (the root finder's multi-delay generator). The long flow's longer delay"
            " τ_1 = d + 2K/C moves the Hopf point to a wider ramp and a lower frequency than one common τ = d + K/C.",
            [
                eq(
                    r"(w_c, \omega_c)_{\tau} \to (w_c, \omega_c)_{\tau_i}",
                    _row(*(fmt(_hopf(2, g)[v], 6) for g in (False, True) for v in ("w", "omega"))),
                )
            ],
            predicate(_hopf_k2_check, "bisection of the spectral abscissa over w, both delay structures"),
        ),
    ]


def multihop() -> Derivation:
    """Fixed points of the DCTCP network model and the parking lot's long-flow share; [DCTCP-A] (5)-(8)."""
    k = 2
    model = DctcpNetwork(parking_lot_routes(k))
    xs, ps = model.symbols()
    m = model.groups
    W, al, q = xs[:m], xs[m : 2 * m], xs[2 * m :]
    p1, p2 = sp.symbols("p_1 p_2", positive=True)
    F = sp.Matrix(model.path_rates(xs, (p1, p2), ps))
    C1, C2, d1 = ps["C_1"], ps["C_2"], ps["d_1"]
    R1 = d1 + q[0] / C1 + q[1] / C2
    P1 = 1 - (1 - p1) * (1 - p2)
    Pl = sp.Symbol("P_i", positive=True)
    Ri = sp.Symbol("R_i", positive=True)
    Wi, ai = sp.symbols("W_i alpha_i", positive=True)
    # the long flow's (5)-(6) with a generic path mark P_i and RTT R_i, read off the model (P1 → P_i, R1 → R_i)
    src = sp.Matrix([F[0], F[m]]).subs({W[0]: Wi, al[0]: ai}).subs(P1, Pl)
    src = sp.Matrix([sp.simplify(e.subs(q[0], C1 * (Ri - d1 - q[1] / C2))) for e in src])
    p, Cs, Ks, d, kk = sp.symbols("p C K d k", positive=True)
    Rc, Rl = d + Ks / Cs, d + kk * Ks / Cs
    P_ind = 1 - (1 - p) ** kk
    ratio_ind = (2 / P_ind**2 / Rl) / (2 / p**2 / Rc)
    ratio_sync = (2 / p**2 / Rl) / (2 / p**2 / Rc)
    C10 = 10e9 / (8 * 1500)
    fps = {h: parking_lot_fixed_point(h, C10, 65.0, 1e-4) for h in (2, 3, 4)}
    sync = {h: parking_lot_fixed_point(h, C10, 65.0, 1e-4, marks="synchronized") for h in (2, 3, 4)}

    def nsolve_p(h: int) -> float:
        # the link equation assembled from the model's queue rhs (k = h parking lot, q_l = K, one flow per group)
        mh = DctcpNetwork(parking_lot_routes(h))
        xh, ph = mh.symbols()
        mh_m = mh.groups
        q_star = {xh[2 * mh_m + l]: 65 for l in range(h)}
        P_long = 1 - (1 - p) ** h
        fix = {xh[0]: 2 / P_long**2, **{xh[i]: 2 / p**2 for i in range(1, mh_m)}}
        num = {**{ph[f"C_{l + 1}"]: C10 for l in range(h)}, **{ph[f"N_{i + 1}"]: 1 for i in range(mh_m)}}
        num.update({ph[f"d_{i + 1}"]: sp.Rational(1, 10000) for i in range(mh_m)})
        dq1 = mh.path_rates(xh, (p,) * h, ph)[2 * mh_m].subs(fix).subs(q_star).subs(num)
        return float(sp.nsolve(dq1, p, fps[h].p))

    steps = [
        Step(
            "(5)-(7) along a route",
            _cite("eqs. (5)-(8)"),
            "The long flow of a 2-hop parking lot: its RTT adds both queueing delays, and it is marked when some hop"
            " marks, P = 1 − (1 − p₁)(1 − p₂); each queue sums the rates routed through it.",
            [
                eq(r"\frac{dW_1}{dt}", F[0]),
                eq(r"\frac{dq_1}{dt}", F[2 * m]),
            ],
            identity(
                sp.Matrix([F[0], F[2 * m]]),
                sp.Matrix(
                    [
                        1 / R1 - W[0] * al[0] * P1 / (2 * R1),
                        ps["N_1"] * W[0] / R1 + ps["N_2"] * W[1] / (d1.subs(d1, ps["d_2"]) + q[0] / C1) - C1,
                    ]
                ),
            ),
        ),
        Step(
            "Per-flow fixed point: α_i = P_i, W_i = 2/P_i²",
            _cite("eqs. (5), (6)"),
            "dα_i/dt = 0 and dW_i/dt = 0 with the path mark fraction P_i; R_i cancels, as for one link.",
            [eq(r"(W_i, \alpha_i)", sp.Matrix([[2 / Pl**2, Pl]]))],
            solutions(
                lambda: [sp.Matrix(s) for s in sp.solve(list(src), [Wi, ai], dict=False)],
                [sp.Matrix([2 / Pl**2, Pl])],
            ),
        ),
        Step(
            "Independent hops: the long flow's share",
            _cite("eq. (7)"),
            "With every link full at q_l = K_l and the hops marking independently (P = 1 − (1 − p)^k), a long flow"
            " gets x_long/x_cross = p²·R_cross/(P²·R_long).",
            [eq(r"\frac{x_\mathrm{long}}{x_\mathrm{cross}}", ratio_ind)],
            identity(ratio_ind, p**2 * Rc / (P_ind**2 * Rl)),
        ),
        Step(
            "Independent hops: beat-down 1/k²",
            "",
            "For small p, P ≈ k·p: the long flow's rate falls as 1/k² (times R_cross/R_long) — twice the exponent of"
            " the 1/√k ... 1/k of loss-based TCP, because DCTCP's rate goes as 1/P² (α ≈ P multiplies the cut).",
            [eq(r"\lim_{p\to0} k^2\,\frac{x_\mathrm{long}}{x_\mathrm{cross}}", Rc / Rl)],
            identity(
                sp.Matrix([sp.limit(h**2 * ratio_ind.subs(kk, h), p, 0) for h in (2, 3, 4)]),
                sp.Matrix([(Rc / Rl).subs(kk, h) for h in (2, 3, 4)]),
                how="SymPy's limit at k = 2, 3, 4 equals R_cross/R_long",
            ),
        ),
        Step(
            "Synchronized hops: beat-down by RTT only",
            "",
            "When the hops' marks coincide in time (equal queues crossing K together), P = p: equal windows, and the"
            " long flow loses only its longer RTT.",
            [eq(r"\frac{x_\mathrm{long}}{x_\mathrm{cross}}", sp.simplify(ratio_sync))],
            identity(ratio_sync, Rc / Rl),
        ),
        Step(
            "One hop: p = 2/√(C·R)",
            _cite("eq. (7)"),
            "k = 1 with two flows on one link: 2·2/(p²R) = C.",
            [eq("p", 2 / sp.sqrt(Cs * Rc))],
            solutions(lambda: sp.solve(4 / (p**2 * Rc) - Cs, p), [2 / sp.sqrt(Cs * Rc)]),
        ),
    ]
    for h in (2, 3, 4):
        steps.append(
            Step(
                f"Mark fraction at k = {h}",
                "",
                f"10 Gbps, d = 100 µs, K = 65, one flow per group: SymPy's nsolve on the model's queue equation and"
                f" the numeric solver agree; long share {fmt(fps[h].share_long, spec='.4f')} of C (independent hops).",
                [eq("p", fmt(fps[h].p, 6))],
                numeric(lambda h=h: nsolve_p(h), fps[h].p, rtol=1e-9),
            )
        )
    steps.append(
        Step(
            "Characteristic roots: the ramp lot's Hopf point, k = 1",
            _cite("eqs. (5)-(8)"),
            "The step has no linearization at its fixed point (∂p/∂q is a delta). With a marking ramp of width w the"
            " model's own Jacobians A0 = ∂F/∂x, A1 = ∂F/∂x(t − τ) at the fixed point give det(λI − A0 − A1e^{−λτ}) = 0;"
            " the pseudospectral root finder (Newton-polished) puts its rightmost pair on the imaginary axis at the"
            " stated width — narrower ramps (and the step, w → 0) are unstable.",
            [
                eq(
                    r"(w_c, \omega_c)",
                    _row(fmt(_hopf(1, False)["w"], 6), fmt(_hopf(1, False)["omega"], 6)),
                )
            ],
            predicate(
                _hopf_check, "bisection of the spectral abscissa over w, roots by the pseudospectral method"
            ),
        )
    )
    steps += _group_delay_steps()
    rec = recorded(MULTIHOP_RECORD)
    fr = {int(h): v for h, v in rec["fluid_ratio"]["value"].items()}
    ds_rec = rec["desync_share"]
    desync = {int(h): (v, ds_rec["packet"][h], ds_rec["desync"][h]) for h, v in ds_rec["fluid"].items()}
    ur = rec["unequal_rtt"]["value"]
    tc = rec["two_cross"]["value"]
    f2, pk2, _ = desync[2]
    f3, pk3, d3 = desync[3]
    # how much per-group delays move the desynchronized shares against one common delay, percent
    common = ds_rec["fluid common delay"]
    group_effect = " and ".join(
        f"{fmt(100 * abs(v / common[h] - 1), spec='.0f')}% at k = {h}" for h, v in ds_rec["fluid"].items()
    )
    table = [
        "| k | p (indep.) | x_long/x_cross indep. | synchronized R_c/R_long | fluid simulation |",
        "|---|---|---|---|---|",
    ]
    for h in (2, 3, 4):
        table.append(
            f"| {h} | {fmt(fps[h].p, spec='.4f')} | {fmt(fps[h].ratio, spec='.4f')} | {fmt(sync[h].ratio, spec='.4f')} | {fmt(fr[h], spec='.4f')} |"
        )
    h1, h2c, h2g = _hopf(1, False), _hopf(2, False), _hopf(2, True)
    off_sync = max(abs(fr[h] / sync[h].ratio - 1) for h in fr)
    above = [fr[h] / fps[h].ratio for h in fr]
    findings = [
        Finding(
            "Multi-bottleneck DCTCP fixed point",
            "the analysis is for one bottleneck; general networks are left open",
            "With mark fractions p_l, every flow's fixed point is α_i = P_i, W_i = 2/P_i² with P_i its path mark"
            " fraction, whatever its RTT; the links' rate balance fixes the p_l.",
            "new finding",
            "Per-flow fixed point: α_i = P_i, W_i = 2/P_i²",
        ),
        Finding(
            "Parking-lot beat-down, independent hops",
            "(not treated)",
            "x_long/x_cross → R_cross/(k²·R_long) for small p: DCTCP penalizes a k-hop flow as 1/k², more than"
            " loss-based TCP, because its rate goes as 1/P².",
            "new finding",
            "Independent hops: beat-down 1/k²",
        ),
        Finding(
            "Parking-lot beat-down in the fluid model",
            "(not treated)",
            "Started exactly symmetric, the fluid parking lot stays on its invariant synchronized subspace (equal"
            f" queues cross K together, P = p) and the long flow loses only its RTT (table: simulation within"
            f" {fmt(100 * off_sync, spec='.0f')}% of R_c/R_long, {fmt(min(above), spec='.1f')}-{fmt(max(above), spec='.0f')}×"
            " above the independent-hops value). At k = 2 with one cross flow that subspace is transversally"
            " unstable: 10⁻³ packets off it the hops desynchronize and the long flow's share falls to"
            f" {fmt(f2, spec='.3f')} of C, within {fmt(100 * abs(f2 / pk2 - 1), spec='.0f')}% of the packet chain's"
            f" {fmt(pk2, spec='.3f')}, where the symmetric start's share {fmt(fr[2] / (1 + fr[2]), spec='.3f')} is"
            f" {fmt(fr[2] / (1 + fr[2]) / pk2, spec='.1f')}× too high. Not everywhere: at k = 3"
            f" {'hop 1 leaves the others' if d3 > 1 else 'the hops stay within a packet of synchrony'} (the start"
            " displaces hop 1 only; hops 2 and 3 are then exchangeable and stay in lockstep, two hops marking as one)"
            " but the share"
            f" ({fmt(f3, spec='.3f')}) is {fmt(f3 / pk3, spec='.1f')}× the packet one ({fmt(pk3, spec='.3f')}), and at"
            f" k = 2 with two cross flows per hop they"
            f" {'stay within a packet of synchrony' if tc['fluid_desync'] < 1 else 'desynchronize'} over 100 ms and"
            f" the share ({fmt(tc['fluid_long_share'], spec='.3f')}) is"
            f" {fmt(tc['fluid_long_share'] / tc['packet_long_share'], spec='.1f')}× the packet one"
            f" ({fmt(tc['packet_long_share'], spec='.3f')}; figure network_sweep). With equal base RTTs"
            f" per-group delays change these shares against one common delay by {group_effect} (one common delay"
            f" at k = 3: {fmt(common['3'], spec='.3f')}).",
            "new finding, corrected",
            "The synchronized subspace is invariant, with per-group delays too",
        ),
        Finding(
            "Per-flow delays in the network model",
            "(not treated: [DCTCP-A] freezes one R* for one link)",
            "Giving each flow group its own loop delay τ_i = d_i + Σ K_l/C_l leaves every fixed point unchanged"
            f" (SymPy) and moves the 2-hop ramp lot's Hopf point from w = {fmt(h2c['w'], spec='.2f')} to"
            f" {fmt(h2g['w'], spec='.2f')} packets ({fmt(h2c['omega'], spec='.0f')} →"
            f" {fmt(h2g['omega'], spec='.0f')} rad/s):"
            " the long flow's longer delay destabilizes. With equal base RTTs long-run shares move by"
            f" {group_effect}. With the long flow's base RTT at 200 µs (cross flows 100 µs, k = 2) they decide the regime: one"
            f" common τ keeps the hops synchronized (share {fmt(ur['common'], spec='.3f')},"
            f" {fmt(ur['common'] / ur['packet'], spec='.1f')}× the packet chain's {fmt(ur['packet'], spec='.3f')}),"
            f" per-group τ_i desynchronize them ({fmt(ur['per-group'], spec='.3f')},"
            f" {fmt(ur['per-group'] / ur['packet'], spec='.1f')}×): closer, still outside the 25% tolerance.",
            "new finding",
            "Characteristic roots with per-group delays: the ramp lot's Hopf point, k = 2",
        ),
        Finding(
            "Stability of the network fixed point",
            "(not treated for several bottlenecks)",
            f"With ramp marking the 1-hop lot's fixed point loses stability below a ramp width of"
            f" {fmt(h1['w'], spec='.2f')} packets (Hopf pair at {fmt(h1['omega'], spec='.0f')} rad/s, a"
            f" {fmt(2e3 * math.pi / h1['omega'], spec='.2f')} ms period); the step is the limit w → 0, on the unstable"
            " side, consistent with"
            " the limit cycle the DDE shows. The reference solver confirms both sides (tests, k = 1 and 2).",
            "new finding",
            "Characteristic roots: the ramp lot's Hopf point, k = 1",
        ),
    ]
    findings.append(_prr_finding(recorded(REDUCTION_RECORD)))
    return Derivation(
        slug="multihop",
        title="DCTCP over several bottlenecks: fixed points and the parking lot's beat-down",
        covers="[DCTCP-A] eqs. (5)-(8) over a routing matrix (the paper's open question: general networks).",
        findings=findings,
        steps=steps,
        notes=[
            "Long flow vs cross flow throughput in the 2-, 3- and 4-hop parking lot (10 Gbps, 100 µs, K = 65):",
            "\n".join(table),
            "Off the synchronized subspace (per-group delays, start 10⁻³ packets more on the first hop, 0.1-0.2 s of a"
            " 0.2 s run), a long flow's share of C next to the packet chain's (100 ms, second half); recorded in"
            " docs/data/multihop.json by tools/record_proof_data.py, re-run by the slow tests:",
            "\n".join(
                ["| k | fluid, desynchronized | packet chain | ratio |", "|---|---|---|---|"]
                + [
                    f"| {h} | {fmt(f, spec='.4f')} | {fmt(pk, spec='.4f')} | {fmt(f / pk, spec='.2f')} |"
                    for h, (f, pk, _) in desync.items()
                ]
                + [
                    f"| 2, long RTT 200 µs | {fmt(ur['per-group'], spec='.4f')} (one common τ:"
                    f" {fmt(ur['common'], spec='.4f')}) | {fmt(ur['packet'], spec='.4f')} |"
                    f" {fmt(ur['per-group'] / ur['packet'], spec='.2f')} |"
                ]
            ),
        ],
    )
