"""TIMELY and Patched TIMELY ([PROXY]): fixed points and stability, the incast, hop signals, and the parking lot."""
