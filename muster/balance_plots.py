"""PNG plots of a balance report (engine/balance.py): outcome shares with their
95 % intervals, and the tracked values over turns. matplotlib is the optional
`plots` extra, imported only when a report is drawn."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def write_plots(report: dict[str, Any], folder: Path, stem: str) -> list[Path]:
    """Outcome shares with their intervals, and the tracked values over turns (PNG).
    Needs matplotlib, the optional `plots` extra."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as e:
        raise RuntimeError("--out plots need matplotlib: pip install -e '.[plots]'") from e
    written = []
    names = list(report["outcomes"])
    shares = [report["outcomes"][k]["share"] for k in names]
    low = [s - report["outcomes"][k]["low"] for k, s in zip(names, shares, strict=True)]
    high = [report["outcomes"][k]["high"] - s for k, s in zip(names, shares, strict=True)]
    fig, ax = plt.subplots(figsize=(8, 4.5), dpi=100)
    ax.barh(names, shares, xerr=[low, high], color="#6b8fb3", ecolor="#333333", capsize=3)
    ax.set_xlim(0, 1)
    ax.invert_yaxis()
    ax.set_xlabel("share of games (bars: 95 % Wilson interval)")
    ax.set_title(
        f"{report['battle']} — {report['scenario']}: "
        f"{report['games']} games, {report['bots_given']}"
    )
    fig.tight_layout()
    path = folder / f"{stem}_outcomes.png"
    fig.savefig(path, metadata={"Software": None})
    plt.close(fig)
    written.append(path)
    tracked = [v for v in report["over_turns"] if v != "vp"] or list(report["over_turns"])
    fig, axes = plt.subplots(
        1, len(tracked), figsize=(5 * len(tracked), 3.8), dpi=100, squeeze=False
    )
    for ax, var in zip(axes[0], tracked, strict=True):
        for side, values in report["over_turns"][var].items():
            ax.plot(range(len(values)), values, marker="o", label=side)
        ax.set_xlabel("turns played (0: the start)")
        ax.set_ylabel(f"mean {var}")
        ax.legend()
        ax.set_title(f"{var} over turns")
    fig.tight_layout()
    path = folder / f"{stem}_over_turns.png"
    fig.savefig(path, metadata={"Software": None})
    plt.close(fig)
    written.append(path)
    return written
