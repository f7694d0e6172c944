"""Human output says what the numbers are: group sizes as they are, verdicts in words."""

from __future__ import annotations

from dwtcp_fluid.cli.packet_topology import print_chain
from dwtcp_fluid.studies.dwtcp.checks import model_gaps


def test_leaf_spine_title_gives_the_group_sizes(capsys):
    """Groups (leaf pairs) of 3 to 9 flows: the title must not claim one count per group."""
    doc = {
        "law": "dctcp", "topology": "leaf-spine:2x2", "flows": 10, "flows_per_group": [3, 9],
        "ports": ["h0", "h1"], "queue_mean": [1.0, 2.0], "utilization": [0.5, 0.6],
        "group_share": [0.1, 0.2], "routes": [[0], [1]],
    }  # fmt: skip
    print_chain(doc)
    out = " ".join(capsys.readouterr().out.split())  # rich wraps the title
    assert "12 flows in 2 groups of 3-9" in out and "10 flow(s) per group" not in out


def test_compare_verdict_reads_in_words():
    packet = {"class": "steady", "queue_mean": 50.0, "utilization": 1.0, "queue_min": 10, "period_s": None,
              "oscillation_threshold": 5.0}  # fmt: skip
    model = {"status": "ok", "queue_mean": 300.0, "utilization": 1.0, "period_s": None, "amplitude": 0.0}
    v = model_gaps(packet, model)
    assert v["verdict"] == "fail"
    assert v["why"][0].endswith("outside tolerance") and v["why"][1].endswith("within tolerance")
    assert not any(w.endswith(("True", "False")) for w in v["why"])


def test_sweep_packet_classes_read_in_words():
    """The sweep's packet line names the run classes in words ("not stationary 15"), not as identifiers."""
    import io

    from rich.console import Console

    from dwtcp_fluid.cli.sweep_print import print_packet

    c = {"steady": 160, "oscillating": 12, "collapse": 63, "not_stationary": 15, "failed": 0}
    s = {"packet": {"points": 250, "class_counts": c, "scored": 172, "kbar_obs_max": 249.0,
                    "kbar_obs_over_kbar_crit_max": 0.394, "capped": 7, "agreement": {}}}  # fmt: skip
    buf = io.StringIO()
    print_packet(Console(file=buf, width=200), s)
    out = buf.getvalue()
    assert "not stationary 15" in out and "not_stationary" not in out, out
