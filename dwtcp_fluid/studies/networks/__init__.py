"""The DCTCP network fluid model on parking lots and leaf-spine fabrics: fixed points, beat-down, and the packet fabric against it."""
