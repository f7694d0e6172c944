"""DCTCP ([DCTCP-A]): its fixed points, hybrid model, limit cycles, RTT fairness, tuning, delayed ACKs and [DCTCP-WAN]'s claims."""
