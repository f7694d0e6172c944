"""The results of ``dwtcp-fluid sweep`` next to its dataset: the maps it draws, whether a dataset is this very
sweep's finished result (its configuration, computed by this code), and the reuse of one by a second run (``make
sweep`` twice); a result under this sweep's name that is not is refreshed, and the run says why."""

from __future__ import annotations

from pathlib import Path

from .common import emit_json, flush_warnings, warn
from .sweep_print import print_summary

__all__ = ["draw_maps", "finished", "refresh_reason", "reuse", "same_code"]


def draw_maps(ds, out: Path, stem: str, *, full: bool, only_missing: bool = False) -> list[Path]:
    """Draw the sweep's maps next to its dataset (``only_missing``: those not there yet); the maps' paths, the
    condition map first."""
    from ..plots.style import save_figure, style
    from ..studies.dwtcp.plots_sweep_maps import plot_condition_map

    paths: list[Path] = []

    def draw(path: Path, plot) -> None:
        if not (only_missing and path.exists()):
            save_figure(plot(ds), path)
        paths.append(path)

    with style():
        draw(out / f"{stem}.png", plot_condition_map)
        if full:
            from ..studies.dwtcp.plots_sweep_outcomes import plot_outcome_maps

            draw(out / f"{stem}-outcomes.png", plot_outcome_maps)
        if "packet_class" in ds:
            from ..studies.dwtcp.figures_packet_truth import plot_packet_truth

            draw(out / f"{stem}-packet.png", plot_packet_truth)
    return paths


def same_code(attrs) -> str | None:
    """None when a dataset's ``attrs`` record the sources of this very code, else why not, naming the code that
    computed it and this one (:func:`~dwtcp_fluid._provenance.code_label`)."""
    from .._provenance import code_label, provenance_attrs

    here = provenance_attrs()
    if attrs.get("source_digest") == here["source_digest"]:
        return None
    return f"it was computed by other code ({code_label(attrs)}; this code: {code_label(here)})"


def _attrs(nc: Path, variable: str) -> dict | None:
    """The attributes of the readable dataset ``nc`` holding ``variable``, else None."""
    if not nc.is_file():
        return None
    try:
        import xarray as xr

        with xr.open_dataset(nc, engine="h5netcdf") as ds:
            return dict(ds.attrs) if variable in ds else None
    except Exception:  # unreadable: not a result (refused unless --force replaces it)
        return None


def finished(nc: Path, config_json: str) -> bool:
    """Whether ``nc`` is the finished result of this very sweep configuration, computed by this code."""
    attrs = _attrs(nc, "eig_class")
    return attrs is not None and attrs.get("sweep_config") == config_json and same_code(attrs) is None


def refresh_reason(nc: Path, config_json: str) -> str | None:
    """Why the readable sweep result ``nc``, named as this sweep's result, is not its finished result and is
    recomputed: it does not record its configuration, records another one (the defaults of another version), or was
    computed by other code. None when ``nc`` is no sweep result or is the finished one."""
    from .._provenance import code_label

    attrs = _attrs(nc, "eig_class")
    if attrs is None or finished(nc, config_json):
        return None
    if "sweep_config" not in attrs:
        return f"it does not record its configuration ({code_label(attrs)})"
    if attrs["sweep_config"] != config_json:
        return f"it holds another grid or other settings under this name ({code_label(attrs)})"
    return same_code(attrs)


def reuse(out: Path, stem: str, *, figure: bool, full: bool, json: bool) -> None:
    """A second run of a finished sweep: its result is reused (maps drawn if missing) and summarized, exit 0."""
    import warnings

    import xarray as xr

    from ..reports.sweep import sweep_report
    from ..sweep.predictors import migrate_names

    path = out / f"{stem}.nc"
    with warnings.catch_warnings(record=True) as seen:  # a result written under the predictors' former names
        warnings.simplefilter("always")
        ds = migrate_names(xr.load_dataset(path, engine="h5netcdf"))
    for w in seen:
        warn(f"{path}: {w.message}")
    flush_warnings()
    maps = draw_maps(ds, out, stem, full=full, only_missing=True) if figure else []
    summary = sweep_report(
        ds, dataset=path, store=None, figure=maps[0] if maps else None, figures=maps, seconds=0.0, reused=True
    )
    if json:
        emit_json(summary)
        return
    print_summary(summary)
