"""The committed artefacts hold under other numeric configurations than this machine's, as on another CPU (``make
test-portable``): ``proofs --check``, ``figures --check`` and the notebooks' number checks, each in a fresh process
whose BLAS, NumPy, Numba and XLA kernels differ from the defaults. Each computed number in a proof is compared
within its tolerance (dwtcp_fluid.numtext), each figure claim by its own threshold, each image by RMS.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: Numeric configurations unlike the default one: OpenBLAS's SSE3 (Prescott) or AVX-without-FMA (Sandybridge)
#: kernels; NumPy without its AVX2 (x86-64-v3) and AVX-512 (v4) loops; Numba compiled for a generic x86-64; XLA
#: limited to SSE4.2 (no fused multiply-add: no contraction) or to 128-bit vectors (other reduction orders).
CONFIGS = {
    "sse": {
        "OPENBLAS_CORETYPE": "Prescott",
        "NPY_DISABLE_CPU_FEATURES": "X86_V4,X86_V3",
        "NUMBA_CPU_NAME": "generic",
        "XLA_FLAGS": "--xla_cpu_max_isa=SSE4_2",
    },
    "avx-nofma": {
        "OPENBLAS_CORETYPE": "Sandybridge",
        "NPY_DISABLE_CPU_FEATURES": "X86_V4",
        "XLA_FLAGS": "--xla_cpu_prefer_vector_width=128",
    },
}

#: What each check runs (from the repository root).
CHECKS = {
    "proofs": [sys.executable, "-m", "dwtcp_fluid", "proofs", "--check"],
    "figures": [
        sys.executable,
        "-m",
        "dwtcp_fluid",
        "figures",
        "--check",
        "--jobs",
        str(os.cpu_count() or 1),
    ],
    "notebooks": [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-n",
        "0",
        "-p",
        "no:randomly",
        "tests/test_notebooks.py",
    ],
}


@pytest.mark.slow
@pytest.mark.parametrize("check", list(CHECKS))
@pytest.mark.parametrize("config", list(CONFIGS))
def test_committed_artefacts_hold_under_another_numeric_configuration(config, check):
    env = {**os.environ, "JAX_PLATFORMS": "cpu", "MPLBACKEND": "Agg", **CONFIGS[config]}
    r = subprocess.run(CHECKS[check], cwd=ROOT, env=env, capture_output=True, text=True)
    assert r.returncode == 0, f"{check} under {CONFIGS[config]}:\n{r.stdout[-4000:]}\n{r.stderr[-4000:]}"
