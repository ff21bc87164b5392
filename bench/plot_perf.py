"""Plots of bench_fwd.py runs: forward TFLOP/s against seqlen, fattn beside each peer.

    python3 bench/plot_perf.py --json RUN.json [MORE.json ...] [--out docs/perf]

Reads one or more files that `bench_fwd.py --json` wrote and writes one PNG per
(dtype, table) into --out:

  <dtype>-forward.png  the head dim x seqlen grid: one panel per head dim, a row of
                       panels without a mask and a row with the causal mask
  <dtype>-gqa.png      the GQA prefill rows (--gqa-presets): one panel per model

Runs made with --arch get it in the name (bf16-forward-sm_80.png). Each panel has a
line per contender (fattn, fattn with V^T for fp8, FA3, cuDNN, FA2), TFLOP/s on a
shared axis from 0, seqlen on a log2 axis. A cell that several files hold (the same
run repeated) is plotted at the median of its numbers; a contender with no number
in a cell (missing, ERR, WRONG, —) leaves a gap. The titles name the GPU, the date
and the timing method from the files' meta. The output depends only on the input
files (no timestamps in the PNGs), so regenerating from the same JSON gives the
same bytes with the same matplotlib.
"""
from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path
from typing import Dict, List, Sequence, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_fwd  # noqa: E402  (bench/, this folder: the JSON format and column names)

# One colour and marker per contender, the same in every figure.
STYLE = {"fattn": ("tab:red", "o"), "fattn_vt": ("tab:purple", "D"),
         "FA3": ("tab:blue", "s"), "cuDNN": ("tab:green", "^"), "FA2": ("tab:gray", "v")}
PANEL_INCHES = (3.6, 2.9)
DPI = 110

Key = Tuple[str, str, str]  # (dtype, "forward" | "gqa", arch or "")


def figure_name(key: Key) -> str:
    dtype, table, arch = key
    return f"{dtype}-{table}" + (f"-{arch}" if arch else "") + ".png"


def load_runs(paths: Sequence[str]) -> List[Dict]:
    """The files' {"meta", "cells"}, checked by bench_fwd's reader."""
    return [bench_fwd.read_json(p) for p in paths]


def group_cells(runs: Sequence[Dict]) -> Dict[Key, Dict]:
    """Cells grouped by figure: {key: {"metas": [...], "cells": {case: [row, ...]}}},
    cases in first-seen order."""
    groups: Dict[Key, Dict] = {}
    for run in runs:
        meta = run["meta"]
        for row in run["cells"]:
            key = (row["dtype"], "gqa" if row["model"] else "forward", meta.get("arch") or "")
            group = groups.setdefault(key, {"metas": [], "cells": {}})
            if meta not in group["metas"]:
                group["metas"].append(meta)
            group["cells"].setdefault(row["case"], []).append(row)
    return groups


def median_tflops(rows: Sequence[Dict], column: str):
    """The median of the numbers the rows hold for a column, or None."""
    values = [r["tflops"].get(column) for r in rows]
    numbers = [v for v in values if bench_fwd.is_number(v)]
    return statistics.median(numbers) if numbers else None


def series(cells: Dict[str, List[Dict]], select) -> Dict[str, Tuple[List[int], List]]:
    """{column: (seqlens, TFLOP/s or None)} of the cells select(row) keeps, by seqlen;
    a column with no number there is left out."""
    picked = sorted((rows for rows in cells.values() if select(rows[0])),
                    key=lambda rows: rows[0]["n"])
    out = {}
    for column in bench_fwd.COLUMN_ORDER:
        ys = [median_tflops(rows, column) for rows in picked]
        if any(y is not None for y in ys):
            out[column] = ([rows[0]["n"] for rows in picked], ys)
    return out


def panels_of(key: Key, cells: Dict[str, List[Dict]]) -> List[List[Tuple[str, object]]]:
    """Rows of (panel title, cell filter): grid figures by causal x head dim, GQA
    figures one row by model."""
    first = [rows[0] for rows in cells.values()]
    if key[1] == "gqa":
        models = list(dict.fromkeys(r["model"] for r in first))
        return [[(f"{m} ({next(r['h'] for r in first if r['model'] == m)}/"
                  f"{next(r['hkv'] for r in first if r['model'] == m)} heads), causal",
                  lambda r, m=m: r["model"] == m) for m in models]]
    dims = sorted({r["d"] for r in first})
    causals = sorted({r["causal"] for r in first})
    return [[(f"head dim {d}" + (", causal" if c else ""),
              lambda r, d=d, c=c: r["d"] == d and r["causal"] == c) for d in dims]
            for c in causals]


def title_of(key: Key, metas: Sequence[Dict]) -> str:
    dtype, table, arch = key
    what = {"forward": "forward", "gqa": f"GQA prefill, head dim {bench_fwd.GQA_HEAD_DIM}"}[table]
    if dtype == "fp8":
        what += " (fattn and FA3 in e4m3, cuDNN and FA2 in bf16)"
    devices = ", ".join(dict.fromkeys(m.get("device", "GPU ?") for m in metas))
    dates = ", ".join(dict.fromkeys(str(m.get("date", "?"))[:10] for m in metas))
    runs = f", {len(metas)} runs (median)" if len(metas) > 1 else ""
    return (f"fattn {dtype} {what}" + (f", {arch}" if arch else "")
            + f"\n{devices}, {dates}; {bench_fwd.timing(metas[0])}{runs}")


def figures(runs: Sequence[Dict]):
    """{file name: matplotlib Figure} for the runs (bench_fwd.py JSON objects)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FixedLocator, NullLocator

    out = {}
    for key, group in sorted(group_cells(runs).items()):
        cells = group["cells"]
        grid = panels_of(key, cells)
        nrows, ncols = len(grid), max(len(row) for row in grid)
        fig, axes = plt.subplots(nrows, ncols, squeeze=False, sharey=True,
                                 figsize=(PANEL_INCHES[0] * ncols,
                                          PANEL_INCHES[1] * nrows + 1.1))
        headers = bench_fwd.column_headers(key[0] == "fp8")
        top = 0.0
        for i, row in enumerate(grid):
            for j in range(ncols):
                ax = axes[i][j]
                if j >= len(row):
                    ax.set_visible(False)
                    continue
                title, select = row[j]
                ax.set_title(title, fontsize=10)
                seqs = []
                lines = series(cells, select)
                if not lines:
                    ax.text(0.5, 0.5, "no contender measured", transform=ax.transAxes,
                            ha="center", va="center", color="gray")
                for column, (xs, ys) in lines.items():
                    color, marker = STYLE[column]
                    ax.plot(xs, [float("nan") if y is None else y for y in ys],
                            color=color, marker=marker, markersize=4, linewidth=1.5,
                            label=headers[column])
                    top = max([top] + [y for y in ys if y is not None])
                    seqs = sorted(set(seqs) | set(xs))
                ax.set_xscale("log", base=2)
                ax.xaxis.set_major_locator(FixedLocator(seqs))
                ax.xaxis.set_minor_locator(NullLocator())
                ax.set_xticklabels([bench_fwd.seq_label(n) for n in seqs])
                ax.grid(True, linewidth=0.4, alpha=0.6)
                if i == nrows - 1:
                    ax.set_xlabel("seqlen")
                if j == 0:
                    ax.set_ylabel("TFLOP/s")
        axes[0][0].set_ylim(0, top * 1.08 if top > 0 else 1)
        labels: Dict[str, object] = {}
        for ax in fig.axes:
            for line in ax.get_lines():
                labels.setdefault(line.get_label(), line)
        fig.legend(list(labels.values()), list(labels), loc="lower center",
                   ncol=len(labels), frameon=False, fontsize=9)
        fig.suptitle(title_of(key, group["metas"]), fontsize=10)
        fig.tight_layout(rect=(0, 0.07, 1, 1))
        out[figure_name(key)] = fig
    return out


def write_plots(paths: Sequence[str], out_dir: Path) -> List[Path]:
    """Writes the PNGs of the runs in paths into out_dir; returns their paths."""
    import matplotlib.pyplot as plt
    figs = figures(load_runs(paths))
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for name, fig in figs.items():
        path = out_dir / name
        # No "Software" (matplotlib's version) or date chunk: the same JSON, the same bytes.
        fig.savefig(path, dpi=DPI, metadata={"Software": None})
        plt.close(fig)
        written.append(path)
    return written


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--json", nargs="+", required=True, metavar="FILE",
                   help="bench_fwd.py --json files (several: the same cells are plotted "
                        "at their median, other cells side by side)")
    p.add_argument("--out", default="docs/perf", help="folder for the PNGs (default docs/perf)")
    args = p.parse_args(argv)
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise SystemExit("plot_perf.py needs matplotlib (Debian: python3-matplotlib)")
    for path in write_plots(args.json, Path(args.out)):
        print(path)


if __name__ == "__main__":
    main()
