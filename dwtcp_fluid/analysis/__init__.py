"""Analysis: linearization and classification, characteristic roots, limit cycles, hybrid model."""
