"""The suite runs as a user runs the library: JAX on the CPU, matplotlib headless, and JAX in its default 32-bit
mode (no global ``jax_enable_x64``; the library opens ``jax.enable_x64`` itself where it computes in float64, and
a test that builds float64 JAX arrays itself opens the same context)."""

import os

os.environ.setdefault("JAX_PLATFORMS", "cpu")
os.environ.setdefault("MPLBACKEND", "Agg")
