"""Plotting: a fixed deterministic style and one module per kind of figure."""
