"""The attack's counts by class, against any ``dwtcp-fluid`` executable: run
``python tools/attack_counts.py [--cli PATH] [--per-class N] [--seed S] [--jobs J] [--json FILE]``.

The cases are those of ``tests/test_attack.py`` (its generator, its list of named inputs and its criterion of a clean
refusal, imported from there), generated from the flag vocabulary of the package this interpreter imports. Each case
runs as its own process of the CLI at PATH (default: the one next to this interpreter) in an empty working directory,
stopped after ``--timeout`` seconds (a stopped run is not clean). With ``--per-class N`` a deterministic sample of at
most N cases per class is run (seeded; the named inputs are always all run). Run against the CLI of an older commit,
a case whose command or flag that CLI does not have is counted as ``absent`` (click's "No such option/command"), and
one the older CLI refuses for another option's sake (a required option it named otherwise) as ``other``;
``--rename OLD=NEW`` renames an option in every case (``--rename=--plot=--out`` for a CLI whose ``--plot`` was
``--out``). ``--compare BEFORE.json AFTER.json`` counts by class the cases clean after that were not before (fixed).
The stop (``--timeout``, 20 s) is shorter than the test's bound (``REFUSAL_SECONDS``).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def cases() -> list[tuple[str, list[str], str]]:
    """``(class, argv, flag)``: the generated cases and the named inputs of tests/test_attack.py."""
    sys.path.insert(0, str(ROOT))
    from tests import test_attack

    return test_attack.CASES + test_attack.NAMED_CASES


def sample(all_cases: list, per_class: int | None, seed: int) -> list:
    """At most ``per_class`` cases of each class (all the named ones), drawn with ``seed``, in generation order."""
    if per_class is None:
        return list(all_cases)
    rng = random.Random(seed)
    by_class: dict[str, list[int]] = {}
    for i, (cls, _, _) in enumerate(all_cases):
        by_class.setdefault(cls, []).append(i)
    keep: set[int] = set()
    for cls, idx in by_class.items():
        keep |= set(idx if cls == "named" or len(idx) <= per_class else rng.sample(idx, per_class))
    return [c for i, c in enumerate(all_cases) if i in keep]


def _files(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


def run_case(cli: str, argv: list[str], flag: str, timeout: float) -> tuple[str, str | None]:
    """``(outcome, fault)`` of one case: outcome ``clean``, ``not clean``, ``absent`` or ``other`` (see the module's
    docstring); fault is tests/test_attack.py's reason (None when clean)."""
    from tests.test_attack import fault

    env = {**os.environ, "JAX_PLATFORMS": "cpu", "MPLBACKEND": "Agg"}
    with tempfile.TemporaryDirectory(prefix="attack-") as d:
        t0 = time.perf_counter()
        try:
            done = subprocess.run(
                [cli, *argv], cwd=d, env=env, capture_output=True, text=True, timeout=timeout
            )
            code, err = done.returncode, done.stderr
        except subprocess.TimeoutExpired as stopped:
            code = None
            err = (
                stopped.stderr.decode(errors="replace")
                if isinstance(stopped.stderr, bytes)
                else stopped.stderr or ""
            )
        elapsed = time.perf_counter() - t0
        written = sorted(_files(Path(d)))
    problem = fault(code, err, flag, written, elapsed)
    if problem is None:
        return "clean", None
    if code == 2:
        missing = re.search(r"No such option:\s*(-[-\w]+)", err)
        if "No such command" in err or (missing and missing.group(1) == flag):
            return "absent", problem
        if missing or "Missing option" in err:
            return "other", problem
    return "not clean", problem


def compare(before: Path, after: Path) -> None:
    """By class, from two ``--json`` files over the same cases (an older CLI's, then a newer one's): the cases clean
    in ``after``, and of those the ones ``before`` refused cleanly (already), did not (fixed), lacked the flag or
    command (absent then) or refused for another option (other then)."""
    old = {(c["class"], tuple(c["argv"])): c["outcome"] for c in json.loads(before.read_text())["cases"]}
    rows = json.loads(after.read_text())["cases"]
    kinds = {"clean": "already", "not clean": "fixed", "absent": "absent then", "other": "other then"}
    count: Counter = Counter()
    classes: list[str] = []
    for c in rows:
        cls = c["class"]
        classes += [] if cls in classes else [cls]
        count[cls, "run"] += 1
        if c["outcome"] == "clean":
            count[cls, "clean"] += 1
            then = old.get((cls, tuple(c["argv"])))
            count[cls, kinds[then] if then else "not in before"] += 1
    cols = ["run", "clean", "fixed", "already", "absent then", "other then", "not in before"]
    print(f"before: {before}, after: {after}")
    print(f"{'class':12s} " + " ".join(f"{k:>13s}" for k in cols))
    for cls in [*classes, "total"]:
        val = [sum(count[c, k] for c in classes) if cls == "total" else count[cls, k] for k in cols]
        print(f"{cls:12s} " + " ".join(f"{v:13d}" for v in val))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cli", default=str(Path(sys.executable).parent / "dwtcp-fluid"))
    ap.add_argument(
        "--per-class", type=int, default=None, help="a seeded sample of at most N cases per class"
    )
    ap.add_argument("--seed", type=int, default=33)
    ap.add_argument("--timeout", type=float, default=20.0)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument(
        "--rename", action="append", default=[], metavar="OLD=NEW", help="rename an option in every case"
    )
    ap.add_argument("--json", type=Path, default=None, help="write every case's outcome here")
    ap.add_argument(
        "--compare", nargs=2, type=Path, metavar=("BEFORE", "AFTER"), help="compare two --json files"
    )
    a = ap.parse_args(argv)
    if a.compare:
        compare(*a.compare)
        return 0
    all_cases = cases()
    chosen = sample(all_cases, a.per_class, a.seed)
    renames = dict(r.split("=", 1) for r in a.rename)
    with ThreadPoolExecutor(a.jobs) as pool:
        results = list(
            pool.map(
                lambda c: run_case(
                    a.cli, [renames.get(x, x) for x in c[1]], renames.get(c[2], c[2]), a.timeout
                ),
                chosen,
            )
        )
    generated, run, outcome = Counter(), Counter(), Counter()
    for cls, _, _ in all_cases:
        generated[cls] += 1
    for (cls, _, _), (what, _) in zip(chosen, results, strict=True):
        run[cls] += 1
        outcome[cls, what] += 1
    kinds = ("clean", "not clean", "absent", "other")
    print(
        f"{a.cli}: {len(chosen)} of {len(all_cases)} cases run" + (f" (seed {a.seed})" if a.per_class else "")
    )
    print(f"{'class':12s} {'cases':>6s} {'run':>5s} " + " ".join(f"{k:>9s}" for k in kinds))
    for cls in generated:
        print(
            f"{cls:12s} {generated[cls]:6d} {run[cls]:5d} " + " ".join(f"{outcome[cls, k]:9d}" for k in kinds)
        )
    tot = [sum(outcome[c, k] for c in generated) for k in kinds]
    print(f"{'total':12s} {sum(generated.values()):6d} {len(chosen):5d} " + " ".join(f"{t:9d}" for t in tot))
    if a.json is not None:
        rows = [
            {"class": c[0], "argv": c[1], "flag": c[2], "outcome": r[0], "fault": r[1]}
            for c, r in zip(chosen, results, strict=True)
        ]
        a.json.write_text(
            json.dumps(
                {"cli": a.cli, "seed": a.seed, "per_class": a.per_class, "renames": renames, "cases": rows},
                indent=1,
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
