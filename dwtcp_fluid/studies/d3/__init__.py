"""D3 ([D3]): switch rate allocation to deadline flows, against D2TCP at [D2TCP]'s deadline workloads."""
