"""What the forward and backward benchmarks share (bench_fwd.py, bench_bwd.py): the cells
of ../shared/ANCHORS.md, SDPA as a peer, the correctness measure, the timer of one
column alone, and the pieces of their JSON files and markdown tables.

Nothing here needs torch at import time, so --dry-run, --table-from and the CPU tests
run without it.
"""
from __future__ import annotations

import json
import math
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, List, Sequence

try:
    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel
except ImportError:
    torch = F = SDPBackend = sdpa_kernel = None

# SDPA's backends timed beside fattn, by column name.
PEERS = ({"FA2": SDPBackend.FLASH_ATTENTION, "cuDNN": SDPBackend.CUDNN_ATTENTION}
         if SDPBackend is not None else {})

TOKENS = 16384      # batch x seqlen of every grid cell (ANCHORS.md)
HEAD_WIDTH = 2048   # heads x head dim of every grid cell
NOT_RUN = "—"       # a contender that cannot run the cell (the reason goes to "why")


@dataclass(frozen=True)
class Case:
    """One row: batch b, seqlen n (queries = keys), h query heads, hkv K/V heads,
    head dim d; model names a GQA preset ("" for the head dim x seqlen grid)."""
    d: int
    n: int
    b: int
    h: int
    hkv: int
    causal: bool
    model: str = ""

    @property
    def name(self) -> str:
        shape = (f"{self.model} B{self.b} {self.h}/{self.hkv}" if self.model
                 else f"d{self.d}")
        return f"{shape} {seq_label(self.n)}" + (" causal" if self.causal else "")


def grid_case(d: int, n: int, causal: bool) -> Case:
    """The anchor cell of head dim d and seqlen n: batch x seqlen = TOKENS (batch at
    least 1), heads x head dim = HEAD_WIDTH."""
    h = HEAD_WIDTH // d
    return Case(d, n, max(1, TOKENS // n), h, h, causal)


def seq_label(n: int) -> str:
    return f"{n // 1024}k" if n % 1024 == 0 else str(n)


def flops(b, h, n, d, causal):
    """The forward's FLOPs: two n x n x d matmuls per head, halved when causal."""
    return 4.0 * b * h * n * n * d / (2 if causal else 1)


def int_list(text: str) -> List[int]:
    return [int(x) for x in text.split(",") if x.strip()]


def tflops_of(f: float, ms: float) -> float:
    return round(f / (ms * 1e-3) / 1e12, 1)


def is_number(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


# ---------------------------------------------------------------------------- GPU side

def time_ms(fn, warmup, rep):
    """Median milliseconds of `rep` calls of fn alone, after `warmup` untimed ones."""
    for _ in range(warmup):
        fn()
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(rep)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(rep)]
    for s, e in zip(starts, ends):
        s.record()
        fn()
        e.record()
    torch.cuda.synchronize()
    return statistics.median(s.elapsed_time(e) for s, e in zip(starts, ends))


def sdpa(q, k, v, causal, backend):
    # SDPA takes [b, h, s, d]; the BSHD storage is passed as a transposed view.
    kw = {"enable_gqa": True} if q.shape[2] != k.shape[2] else {}
    with sdpa_kernel([backend]):
        return F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2),
                                              v.transpose(1, 2), is_causal=causal,
                                              **kw).transpose(1, 2)


def rel_l2(a, b):
    a, b = a.float(), b.float()
    return ((a - b).norm() / b.norm()).item()


_SAID = set()


def say_once(text: str):
    if text not in _SAID:
        _SAID.add(text)
        print(f"  {text}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------- output

def timing(meta: Dict) -> str:
    return (f"median of {meta['rep']}" + (" interleaved calls" if meta["interleave"] else "")
            + f" after {meta['warmup']} warm-up calls")


def fmt_tflops(x) -> str:
    if is_number(x):
        return f"{x:,.0f}"
    return "-" if x is None else str(x)


def fmt_ratio(x) -> str:
    return f"{x:.3f}" if is_number(x) else "-"


def fmt_err(x) -> str:
    return f"{x:.1e}" if is_number(x) else "-"


def joined(values: Sequence, fmt: Callable) -> str:
    """One cell of several runs: "a / b"; "-" if no run has it."""
    if all(v is None for v in values):
        return "-"
    return " / ".join(fmt(v) for v in values)


def md_table(header: List[str], rows: List[List[str]]) -> List[str]:
    return (["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
            + ["| " + " | ".join(r) + " |" for r in rows])


def write_json(path, json_format: str, meta: Dict, rows: List[Dict]):
    Path(path).write_text(json.dumps({"format": json_format, "meta": meta, "cells": rows},
                                     indent=1, ensure_ascii=False) + "\n")


def read_json(path, json_format: str, tool: str) -> Dict:
    data = json.loads(Path(path).read_text())
    if not isinstance(data, dict) or data.get("format") != json_format:
        raise SystemExit(f"{path}: not a {tool} --json file of format {json_format}")
    return data


def tables_from(paths: Sequence[str], json_format: str, tool: str,
                format_tables: Callable[[Dict, List[List[Dict]]], str]) -> str:
    """The markdown tables of one or more runs of one dtype (several: "a / b" cells)."""
    data = [read_json(p, json_format, tool) for p in paths]
    dtypes = {d["meta"]["dtype"] for d in data}
    if len(dtypes) > 1:
        raise SystemExit(f"--table-from: runs of different dtypes {sorted(dtypes)}")
    return format_tables(data[0]["meta"], [d["cells"] for d in data])


def ratios(tflops: Dict, mine: Sequence[str], peers: Sequence[str]) -> Dict[str, float]:
    """"mine/peer" -> the ratio of their TFLOP/s, for each pair that both have."""
    out = {}
    for m in mine:
        for peer in peers:
            a, b = tflops.get(m), tflops.get(peer)
            if is_number(a) and is_number(b) and b > 0:
                out[f"{m}/{peer}"] = round(a / b, 4)
    return out
