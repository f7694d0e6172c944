"""The results of ``dwtcp-fluid sweep`` next to its dataset: the maps it draws, whether a dataset is this very
sweep's finished result, and the reuse of one by a second run (``make sweep`` twice)."""

from __future__ import annotations

from pathlib import Path

from .common import emit_json, flush_warnings, warn
from .sweep_print import print_summary

__all__ = ["draw_maps", "finished", "unrecorded", "reuse"]


def draw_maps(ds, out: Path, stem: str, *, full: bool, only_missing: bool = False) -> Path:
    """Draw the sweep's maps next to its dataset (``only_missing``: those not there yet); the condition map's path."""
    from ..plots.style import save_figure, style
    from ..studies.dwtcp.plots_sweep_maps import plot_condition_map

    def draw(path: Path, plot) -> None:
        if not (only_missing and path.exists()):
            save_figure(plot(ds), path)

    with style():
        draw(out / f"{stem}.png", plot_condition_map)
        if full:
            from ..studies.dwtcp.plots_sweep_outcomes import plot_outcome_maps

            draw(out / f"{stem}-outcomes.png", plot_outcome_maps)
        if "packet_class" in ds:
            from ..studies.dwtcp.figures_packet_truth import plot_packet_truth

            draw(out / f"{stem}-packet.png", plot_packet_truth)
    return out / f"{stem}.png"


def finished(nc: Path, config_json: str) -> bool:
    """Whether ``nc`` is the finished result of this very sweep configuration (readable, its config recorded)."""
    if not nc.is_file():
        return False
    try:
        import xarray as xr

        with xr.open_dataset(nc, engine="h5netcdf") as ds:
            return ds.attrs.get("sweep_config") == config_json and "eig_class" in ds
    except Exception:  # unreadable: not a finished result (refused unless --force replaces it)
        return False


def unrecorded(nc: Path) -> bool:
    """Whether ``nc`` is a readable sweep result that does not record its configuration (written by an earlier
    version): its name says it is this sweep's, so it is refreshed rather than refused."""
    if not nc.is_file():
        return False
    try:
        import xarray as xr

        with xr.open_dataset(nc, engine="h5netcdf") as ds:
            return "sweep_config" not in ds.attrs and "eig_class" in ds
    except Exception:
        return False


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
    fig_path = draw_maps(ds, out, stem, full=full, only_missing=True) if figure else None
    summary = sweep_report(ds, dataset=path, store=None, figure=fig_path, seconds=0.0, reused=True)
    if json:
        emit_json(summary)
        return
    print_summary(summary)
