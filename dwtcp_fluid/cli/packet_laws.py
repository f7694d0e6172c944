"""The packet laws' command-line flags: every registered law's options (:data:`dwtcp_fluid.packet.laws.LAWS`,
:attr:`~dwtcp_fluid.packet.laws.Law.options`) as flags, and the law objects and option values a command line
gives (``packet run``)."""

from __future__ import annotations

import inspect
from typing import Any

import typer

from .common import UsageError, echo_inputs, require_unit

__all__ = ["law_flags", "laws_from_flags", "law_param", "choice_param", "check", "example"]


def check(flag: str, value: Any, ok: bool, accepted: str) -> None:
    """Refuse ``value`` of ``flag`` (one line naming the accepted values) unless ``ok``."""
    if not ok:
        raise UsageError(flag, value, accepted)


def law_flags() -> dict[str, Any]:
    """Every registered law's command-line options by flag (a flag shared by several laws appears once), with
    the laws that own it: ``{flag: (LawOption, [law names])}``."""
    from ..packet.laws import LAWS

    out: dict[str, Any] = {}
    for name, cls in LAWS.items():
        for opt in cls.options:
            if opt.flag in out:
                out[opt.flag][1].append(name)
            else:
                out[opt.flag] = (opt, [name])
    return out


def laws_from_flags(kw: dict[str, Any]) -> tuple[list[Any], dict[str, float]]:
    """The law objects (their switches set from the flags) and the numeric law options given."""
    from ..packet.laws import LAWS

    names = [s.strip() for s in str(kw["law"]).split(",") if s.strip()]
    for name in names or [kw["law"]]:
        check("--law", kw["law"], name in LAWS, " | ".join(LAWS) + " (comma-separated to mix laws)")
    for flag, (opt, owners) in law_flags().items():
        given = bool(kw[opt.dest]) if opt.is_switch else kw[opt.dest] is not None
        if opt.option is not None and given and not set(owners) & set(names):
            raise UsageError(flag, f"with --law {kw['law']}", f"only with --law {' | '.join(owners)}")
    laws, chosen = [], {}
    for n in names:
        static = {}
        for o in LAWS[n].options:
            if o.choices is not None:  # a choice flag: the law's default where not given
                v = o.default if kw[o.dest] is None else kw[o.dest]
                check(o.flag, v, v in o.choices, f"{' | '.join(o.choices)} (with --law {n})")
                static[o.option] = chosen[o.dest] = v
            elif o.option is not None:
                static[o.option] = bool(kw[o.dest])
        laws.append(LAWS[n](**static))
    echo_inputs(chosen)  # the JSON's inputs show a choice flag as defaulted by the law, not None
    options = {
        opt.dest: _quantity(opt, kw[opt.dest])
        for opt, _ in law_flags().values()
        if opt.option is None and kw[opt.dest] is not None
    }
    return laws, options


def _quantity(opt: Any, value: Any) -> float:
    """A law option's value in its unit: a time or a rate is typed with its unit ("50us", "10Mbps")."""
    if opt.quantity is None:
        return float(value)
    from ..units import parse_rate, parse_time

    kind, scale = opt.quantity
    require_unit(opt.flag, value, kind)
    try:
        si = parse_time(value) if kind == "time" else parse_rate(value).bps(1500.0)
    except ValueError:
        raise UsageError(opt.flag, value, f"a {kind} with its unit, such as {example(opt)}") from None
    return float(f"{si / scale:.12g}")  # 500e-6 s in µs is 500, not 500.00000000000006


def example(opt: Any) -> str:
    """The option's default typed with its unit ("50us", "10Mbps")."""
    unit = {"us": "us", "ms": "ms", "s": "s", "mbps": "Mbps", "gbps": "Gbps"}[opt.unit]
    return f'"{opt.default:g}{unit}"'


def choice_param(flag: str, opt: Any, owners: list[str]) -> inspect.Parameter:
    """A choice flag's parameter: its help lists each owning law's accepted values and default (laws may differ,
    e.g. ``--signal``: TIMELY reads no one-bit IND)."""
    from ..packet.laws import LAWS

    per = {o: next(x for x in LAWS[o].options if x.flag == flag) for o in owners}
    every = list(dict.fromkeys(c for x in per.values() for c in x.choices or ()))
    laws = "; ".join(f"{o}: {' | '.join(x.choices or ())}, default {x.default}" for o, x in per.items())
    return inspect.Parameter(
        opt.dest,
        inspect.Parameter.KEYWORD_ONLY,
        default=typer.Option(None, flag, metavar="[" + "|".join(every) + "]", help=f"{opt.help} ({laws})."),
        annotation=str | None,
    )


def law_param(flag: str, opt: Any, owners: list[str]) -> inspect.Parameter:
    """``packet run``'s parameter of a law's option, generated from its LawOption declaration: a choice, a switch,
    a time or rate typed with its unit, or a number; the laws that own it and its default (a law's, applied after
    parsing: None on the command line) in the help."""
    if opt.choices is not None:
        return choice_param(flag, opt, owners)
    help_ = f"{opt.help} (law: {', '.join(owners)})"
    if opt.option is not None:
        default, annotation = typer.Option(False, flag, help=help_), bool
    elif opt.quantity is not None:
        default, annotation = (
            typer.Option(None, flag, help=f"{help_} Default {example(opt)[1:-1]}."),
            str | None,
        )
    else:
        text = f"{help_} Default {opt.default_note or format(opt.default, 'g')}."
        default, annotation = typer.Option(None, flag, help=text), float | None
    return inspect.Parameter(opt.dest, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation)
