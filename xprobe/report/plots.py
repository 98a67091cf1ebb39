"""Annotated heatmaps (matplotlib, Agg backend) for the report.

Example::

    heatmap(diff, ["bilstm-max"], ["SentLen"], Path("de.png"), "de − en", diverging=True)
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from xprobe.files import atomic_write

__all__ = ["GREY", "compare", "heatmap", "label"]

GREY = "Grey: not significant after Holm's correction, or a side at chance (°): not a finding."


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def label(text: str) -> str:
    """A name (Markdown-escaped in the report) as plain figure text: no mathtext (``$``)."""
    from xprobe.report.md import unescape

    return unescape(str(text)).replace("$", r"\$")


def _draw(ax, m, rows, cols, cmap, vmin, vmax, fmt, sub=None, empty=None, muted=None):
    """Colour the finite cells of ``m`` and write their values; a cell where ``muted`` is True
    is grey with grey text (not a finding), a non-finite one white with its ``empty`` label
    (``n/a``): no cell is left blank."""
    mute = np.zeros(m.shape, dtype=bool) if muted is None else np.asarray(muted, dtype=bool)
    ax.set_facecolor("white")
    im = ax.imshow(np.ma.masked_where(~np.isfinite(m) | mute, m), cmap=cmap, vmin=vmin,
                   vmax=vmax, aspect="auto")  # fmt: skip
    ax.set_xticks(range(len(cols)), labels=[label(c) for c in cols], rotation=45, ha="right")
    ax.set_yticks(range(len(rows)), labels=[label(r) for r in rows])
    span = (vmax - vmin) or 1.0
    for i in range(m.shape[0]):
        for j in range(m.shape[1]):
            if not np.isfinite(m[i, j]):
                text = empty[i][j] if empty is not None and empty[i][j] else "–"
                ax.text(j, i, text, ha="center", va="center", fontsize=8, color="0.45")
                continue
            rel = (m[i, j] - vmin) / span
            dark = not mute[i, j] and (abs(rel - 0.5) > 0.3 if cmap == "RdBu" else rel < 0.45)
            extra = sub[i][j] if sub is not None and sub[i][j] else ""
            text = fmt.format(m[i, j]) + (f"\n{extra}" if extra else "")
            if mute[i, j]:
                ax.add_patch(_rect(j, i, "0.9"))
            ax.text(j, i, text, ha="center", va="center", fontsize=8 if not extra else 7,
                    color="0.4" if mute[i, j] else ("white" if dark else "black"))  # fmt: skip
    return im


def _rect(j: int, i: int, colour: str):
    from matplotlib.patches import Rectangle

    return Rectangle((j - 0.5, i - 0.5), 1, 1, facecolor=colour, edgecolor="white", linewidth=1)


def _size(rows: Sequence[str], cols: Sequence[str], panels: int = 1) -> tuple[float, float]:
    per_row = 0.45 if len(rows) < 12 else 0.3  # many languages: the figure fits one screen
    return (1.6 + 0.75 * len(cols)) * panels + 1.5, 1.4 + per_row * len(rows)


def _save(fig, path: Path) -> None:
    with atomic_write(path, "wb") as f:
        fig.savefig(f, format="png", dpi=110, bbox_inches="tight")


def heatmap(
    m: np.ndarray,
    rows: Sequence[str],
    cols: Sequence[str],
    path: Path,
    title: str,
    diverging: bool = False,
    vlim: float | None = None,
    fmt: str = "{:+.1f}",
    sub: Sequence[Sequence[str]] | None = None,
    muted: np.ndarray | None = None,
    empty: Sequence[Sequence[str]] | None = None,
    legend: str = "",
) -> Path:
    """An annotated heatmap; ``diverging`` centres a red-blue colormap at 0 (symmetric limits);
    ``sub`` adds a second line of text per cell (e.g. ``n=200`` on cells with few test items);
    cells where ``muted`` is True are grey (differences that are not significant: no colour to
    read as a finding); ``empty`` labels the cells without a value (``n/a``); ``legend`` is
    written under the figure."""
    plt = _plt()
    m = np.asarray(m, dtype=float)
    keep = np.isfinite(m) & (True if muted is None else ~np.asarray(muted, dtype=bool))
    finite = m[keep] if keep.any() else m[np.isfinite(m)]
    if diverging:
        lim = vlim or (float(np.abs(finite).max()) if finite.size else 1.0) or 1.0
        vmin, vmax, cmap = -lim, lim, "RdBu"
    else:
        vmin = float(finite.min()) if finite.size else 0.0
        vmax = float(finite.max()) if finite.size else 1.0
        cmap = "viridis"
    fig, ax = plt.subplots(figsize=_size(rows, cols))
    im = _draw(ax, m, rows, cols, cmap, vmin, vmax, fmt, sub, empty, muted)
    fig.colorbar(im, ax=ax, shrink=0.8)
    ax.set_title(label(title))
    if legend:  # under the tick labels
        ax.set_xlabel(label(legend), fontsize=8, color="0.3", loc="left")
    _save(fig, path)
    plt.close(fig)
    return path


def compare(
    a: np.ndarray,
    b: np.ndarray,
    rows: Sequence[str],
    cols: Sequence[str],
    names: tuple[str, str],
    path: Path,
) -> Path:
    """Two datasets side by side (accuracy %) and their difference (X-Probe Figure 2)."""
    plt = _plt()
    both = np.concatenate([a[np.isfinite(a)], b[np.isfinite(b)]])
    vmin, vmax = (float(both.min()), float(both.max())) if both.size else (0.0, 100.0)
    fig, axes = plt.subplots(1, 3, figsize=_size(rows, cols, 3))
    for ax, m, name in zip(axes[:2], (a, b), names, strict=False):
        _draw(ax, m, rows, cols, "viridis", vmin, vmax, "{:.1f}")
        ax.set_title(label(name))
    d = b - a
    fin = d[np.isfinite(d)]
    lim = (float(np.abs(fin).max()) if fin.size else 1.0) or 1.0
    im = _draw(axes[2], d, rows, cols, "RdBu", -lim, lim, "{:+.1f}")
    axes[2].set_title(label(f"{names[1]} − {names[0]}"))
    fig.colorbar(im, ax=axes[2], shrink=0.8)
    _save(fig, path)
    plt.close(fig)
    return path
