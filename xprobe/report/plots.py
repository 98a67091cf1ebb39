"""Annotated heatmaps (matplotlib, Agg backend) for the report.

Example::

    heatmap(diff, ["bilstm-max"], ["SentLen"], Path("de.png"), "de − en", diverging=True)
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from xprobe.files import atomic_write

__all__ = ["compare", "heatmap", "label"]


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def label(text: str) -> str:
    """A name (Markdown-escaped in the report) as plain figure text: no mathtext (``$``)."""
    from xprobe.report.md import unescape

    return unescape(str(text)).replace("$", r"\$")


def _draw(ax, m, rows, cols, cmap, vmin, vmax, fmt, sub=None):
    im = ax.imshow(np.ma.masked_invalid(m), cmap=cmap, vmin=vmin, vmax=vmax, aspect="auto")
    ax.set_xticks(range(len(cols)), labels=[label(c) for c in cols], rotation=45, ha="right")
    ax.set_yticks(range(len(rows)), labels=[label(r) for r in rows])
    span = (vmax - vmin) or 1.0
    for i in range(m.shape[0]):
        for j in range(m.shape[1]):
            if np.isfinite(m[i, j]):
                rel = (m[i, j] - vmin) / span
                dark = abs(rel - 0.5) > 0.3 if cmap == "RdBu" else rel < 0.45
                extra = sub[i][j] if sub is not None and sub[i][j] else ""
                text = fmt.format(m[i, j]) + (f"\n{extra}" if extra else "")
                ax.text(j, i, text, ha="center", va="center", fontsize=8 if not extra else 7,
                        color="white" if dark else "black")  # fmt: skip
    return im


def _size(rows: Sequence[str], cols: Sequence[str], panels: int = 1) -> tuple[float, float]:
    return (1.6 + 0.75 * len(cols)) * panels + 1.5, 1.4 + 0.45 * len(rows)


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
    hatch: np.ndarray | None = None,
) -> Path:
    """An annotated heatmap; ``diverging`` centres a red-blue colormap at 0 (symmetric limits);
    ``sub`` adds a second line of text per cell (e.g. ``n=200`` on cells with few test items);
    cells where ``hatch`` is True are hatched (differences that are not significant)."""
    plt = _plt()
    m = np.asarray(m, dtype=float)
    finite = m[np.isfinite(m)]
    if diverging:
        lim = vlim or (float(np.abs(finite).max()) if finite.size else 1.0) or 1.0
        vmin, vmax, cmap = -lim, lim, "RdBu"
    else:
        vmin = float(finite.min()) if finite.size else 0.0
        vmax = float(finite.max()) if finite.size else 1.0
        cmap = "viridis"
    fig, ax = plt.subplots(figsize=_size(rows, cols))
    im = _draw(ax, m, rows, cols, cmap, vmin, vmax, fmt, sub)
    if hatch is not None:
        from matplotlib.patches import Rectangle

        for i, j in zip(*np.nonzero(np.asarray(hatch, dtype=bool)), strict=True):
            ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, hatch="///",
                                   edgecolor="0.35", linewidth=0))  # fmt: skip
    fig.colorbar(im, ax=ax, shrink=0.8)
    ax.set_title(label(title))
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
