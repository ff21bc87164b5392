"""Forward attention: fattn next to torch SDPA's FlashAttention-2 and cuDNN backends, and
FlashAttention-3 with --fa3, timed in one run on the same inputs (docs/GPU-TESTING.md §4).

    python3 bench/bench_fwd.py [--quick] [--dims 64,128,256] [--seqs 1024,...,16384]
                               [--causal both|0|1] [--kernel-dir DIR] [--json FILE]
                               [--fa3 DIR] [--gqa-presets [NAMES]] [--gqa-only]
    python3 bench/bench_fwd.py --dtype fp8      # head dims 128, 256; seqlens 4k, 8k, 16k
    python3 bench/bench_fwd.py ... --dry-run    # the cells and columns, no GPU needed
    python3 bench/bench_fwd.py --table-from A.json [B.json ...]   # tables of earlier runs

Configurations of ../shared/ANCHORS.md: bf16, batch x seqlen = 16384 tokens,
heads x head_dim = 2048, BSHD inputs. TFLOP/s = 4*B*H*N^2*D / time (H the query heads),
halved when causal.
Time: CUDA events around each call after a warm-up, median of --rep calls (with
--interleave, the --rep calls of fattn and the peers alternate one by one, so that the
GPU's clock drift during the run does not favour one column). The default warm-up, 100
calls of each, lets the H200's clock settle: after only 10, the first timed calls of a
2k row still run 3-5% faster than the GPU sustains, the peers more than fattn, and a
median of 40 calls lands in that transient (docs/PERF.md, 2026-12-02).
fattn's output, and FA3's, is checked against SDPA's (the first backend that runs)
before it is timed; a fattn kernel that is not available (no library entry, no
fattn-compile) is reported as missing.

--fa3 DIR (issue 40): FlashAttention-3 as a column, from the folder holding fa3_load.py
(a copy of ../shared/peers/fa3 carried to the GPU machine, docs/GPU-TESTING.md §4),
called as fa3_load.fa3_fwd(q, k, v, causal=...) in the same loop as the other columns.
That build has bf16 head dims 64/128/256 and e4m3 head dims 128/256 only: other cells
read "—", with the reason printed once. Ratio columns fattn / FA3 beside fattn / cuDNN.

--gqa-presets [NAMES] adds GQA prefill rows at head dim 128, causal: Llama-3-8B (32/8
heads), Qwen2-7B (28/4), Mistral-7B (32/8), seqlens 2k-32k (--gqa-seqs), batch
16384 // seqlen (at least 1; --gqa-batch fixes it). SDPA runs them with enable_gqa;
a backend that refuses gets K/V expanded to the query heads (noted once).
--gqa-only leaves the head dim x seqlen grid out.

--dtype fp8 (issue 6): fattn's e4m3 kernel (flash_attn_func on float8_e4m3fn inputs,
quantized by fattn.quantize_fp8 outside the timed region with per-block factors: one
per 128 rows of Q and of K/V, the preset "fp8" kernels) beside SDPA's cuDNN and
FlashAttention-2 backends in bf16 on the same values, same run. The check against
SDPA allows FP8_CHECK_TOLERANCE (the inputs' e4m3 rounding). The fp8 table has two
fattn columns: V as given (BSHD) and V^T, the same e4m3 V pre-transposed once by
fattn.transpose_value_fp8 outside the timed region (flash_attn_func(...,
v_layout=fattn.VALUE_LAYOUT_SM90)); --fp8-v-layout bshd|transposed times one of them.
FA3's fp8 column takes per-(batch, KV head) descales, its only form: with
--fp8-descale head it gets fattn's e4m3 tensors and factors, otherwise its own
per-head quantization of the same values.

--json FILE writes {"format", "meta", "cells"} after every cell (a run cut short keeps
the cells it finished): per cell its case, shape, TFLOP/s per contender (or why none:
missing, ERR, WRONG, —), the ratios fattn / peer, and each checked column's relative
L2 error against SDPA. --table-from prints the markdown tables of one or more such
files; with several (runs one after the other), each cell reads "first / second".
"""
from __future__ import annotations

import argparse
import datetime
import json
import math
import sys
import time
from pathlib import Path
from typing import Dict, List, Optional, Sequence

try:
    import torch
except ImportError:  # --dry-run, --table-from and the CPU tests need no torch
    torch = None

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))
import fattn  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench/, this folder
from bench_common import (HEAD_WIDTH, NOT_RUN, PEERS, TOKENS, Case, flops,  # noqa: E402,F401
                          fmt_err, fmt_ratio, fmt_tflops, grid_case, int_list, is_number,
                          joined, md_table, rel_l2, say_once, sdpa, seq_label, tflops_of,
                          time_ms, timing)
import bench_common  # noqa: E402

if torch is not None:
    from interleaved import median_ms_interleaved  # noqa: E402

CHECK_TOLERANCE = 1e-2  # rel L2 between fattn and SDPA; each alone is ~2e-3 in bf16
# fp8 inputs: e4m3 keeps 3 mantissa bits (rel. rounding <= 2^-4 per element); the CPU
# oracle measured 4e-2 - 8e-2 against the unquantized inputs (docs/FP8.md).
FP8_CHECK_TOLERANCE = 0.15
FP8_BLOCK = 128  # rows per descale factor, Q and K/V

JSON_FORMAT = "bench_fwd/2"

# GQA prefill shapes (issue 40): name -> (model, query heads, KV heads), head dim 128.
GQA_PRESETS = {"llama3-8b": ("Llama-3-8B", 32, 8),
               "qwen2-7b": ("Qwen2-7B", 28, 4),
               "mistral-7b": ("Mistral-7B", 32, 8)}
GQA_HEAD_DIM = 128
GQA_SEQS = "2048,4096,8192,16384,32768"

# What the FlashAttention-3 build of ../shared/peers/fa3 runs (its README).
FA3_HEAD_DIMS = {"bf16": (64, 128, 256), "fp8": (128, 256)}

# Contender columns in table order, and the peers fattn's columns are divided by.
COLUMN_ORDER = ("fattn", "fattn_vt", "FA3", "cuDNN", "FA2")
RATIO_PEERS = ("FA3", "cuDNN", "FA2")
# Nominal TFLOP/s (H100/H200, the sustained clock) for the --dry-run time estimate.
NOMINAL_TFLOPS = {"bf16": {"fattn": 650, "FA3": 650, "cuDNN": 560, "FA2": 290},
                  "fp8": {"fattn": 1100, "fattn_vt": 1200, "FA3": 1000, "cuDNN": 560,
                          "FA2": 290}}
CELL_OVERHEAD_S = 0.2  # inputs, quantization, the check calls (0.1 s on an H100)


# ---------------------------------------------------------------------------- cells

def case_flops(case: Case) -> float:
    return flops(case.b, case.h, case.n, case.d, case.causal)


def enumerate_cases(args) -> List[Case]:
    """The rows of a run, in order: the head dim x seqlen grid (unless --gqa-only),
    then the GQA presets' rows."""
    cases = []
    if not args.gqa_only:
        causals = {"both": [False, True], "0": [False], "1": [True]}[args.causal]
        for d in args.dim_list:
            for n in args.seq_list:
                for causal in causals:
                    cases.append(grid_case(d, n, causal))
    for key in args.gqa_list:
        model, h, hkv = GQA_PRESETS[key]
        for n in args.gqa_seq_list:
            b = args.gqa_batch or max(1, TOKENS // n)
            cases.append(Case(GQA_HEAD_DIM, n, b, h, hkv, True, model))
    return cases


def fa3_unsupported(case: Case, dtype: str) -> Optional[str]:
    """Why the FlashAttention-3 build cannot run this cell, or None if it can."""
    if dtype == "f16":
        return "FA3: the build has no fp16 kernels (bf16 and e4m3 only)"
    if case.d not in FA3_HEAD_DIMS[dtype]:
        dims = "/".join(map(str, FA3_HEAD_DIMS[dtype]))
        return f"FA3: the build has {'e4m3' if dtype == 'fp8' else 'bf16'} head dims {dims} only"
    if case.h % case.hkv:
        return "FA3: query heads must be a multiple of the K/V heads"
    return None


def new_row(case: Case, dtype: str) -> Dict:
    return {"case": f"{dtype} {case.name}", "dtype": dtype, "model": case.model,
            "d": case.d, "n": case.n, "b": case.b, "h": case.h, "hkv": case.hkv,
            "causal": case.causal, "tflops": {}, "ratios": {}, "rel_l2": {}, "why": {}}


def add_ratios(row: Dict) -> Dict:
    """row["ratios"]["fattn/FA3"] etc.: each fattn column over each peer, where
    both have a number."""
    t = row["tflops"]
    row["ratios"] = bench_common.ratios(t, [c for c in COLUMN_ORDER if c.startswith("fattn")],
                                        RATIO_PEERS)
    return row


# ---------------------------------------------------------------------------- GPU side

def run_case(case, dtype, args, prepare, tolerance, label):
    """One row: the SDPA peers, fattn and FA3 on the same random inputs (in `dtype`).
    prepare(q, k, v) returns {column: call} (fattn's, and FA3's where it runs); each
    call is checked against the first peer's output (rel L2 <= tolerance) and timed."""
    row = new_row(case, args.dtype)
    where = f"{label} {case.name}"
    gen = torch.Generator(device="cuda")
    gen.manual_seed(case.n * 1000 + case.d + 100000 * case.hkv * (case.h != case.hkv))
    q = torch.randn(case.b, case.n, case.h, case.d, device="cuda", generator=gen).to(dtype)
    k, v = (torch.randn(case.b, case.n, case.hkv, case.d, device="cuda",
                        generator=gen).to(dtype) for _ in range(2))
    f = case_flops(case)
    reference = None
    timed = {}  # --interleave: the calls that work, timed together at the end
    for name, backend in PEERS.items():
        peer = sdpa_call(q, k, v, case, name, backend, row)
        if peer is None:
            continue
        reference = peer[1] if reference is None else reference
        if args.interleave:
            timed[name] = peer[0]
        else:
            row["tflops"][name] = tflops_of(f, time_ms(peer[0], args.warmup, args.rep))
    for column, call in prepare(q, k, v, row).items():
        call = check_column(row, column, call, reference, tolerance, where)
        if call is not None and args.interleave:
            timed[column] = call
        elif call is not None:
            row["tflops"][column] = tflops_of(f, time_ms(call, args.warmup, args.rep))
    if timed:
        for name, ms in median_ms_interleaved(timed, args.warmup, args.rep).items():
            row["tflops"][name] = tflops_of(f, ms)
    return add_ratios(row)


def sdpa_call(q, k, v, case, name, backend, row):
    """(call, output) of one SDPA backend, or None with row["tflops"][name] = "ERR".
    GQA runs with enable_gqa; a backend that refuses it gets K/V expanded to the
    query heads (once, untimed), noted in row["why"]."""
    causal = case.causal
    try:
        return (lambda: sdpa(q, k, v, causal, backend)), sdpa(q, k, v, causal, backend)
    except RuntimeError as e:
        first = e
    if case.h != case.hkv:
        ke, ve = (t.repeat_interleave(case.h // case.hkv, dim=2) for t in (k, v))
        try:
            out = sdpa(q, ke, ve, causal, backend)
            row["why"][name] = "K/V expanded to the query heads (no enable_gqa)"
            say_once(f"{name}: {row['why'][name]}, from {case.name}")
            return (lambda: sdpa(q, ke, ve, causal, backend)), out
        except RuntimeError:
            pass
    row["tflops"][name] = "ERR"
    print(f"  {name} {case.name}: {str(first)[:120]}", file=sys.stderr)
    return None


def check_column(row, column, call, reference, tolerance, where):
    """Runs one fattn (or FA3) call once: the call to time, or None with
    row["tflops"][column] saying why not (missing kernel, error, WRONG against the
    reference)."""
    try:
        out = call()
    except fattn.KernelNotFoundError:
        row["tflops"][column] = "missing"
        return None
    except (RuntimeError, ValueError, TypeError) as e:
        row["tflops"][column] = "ERR"
        print(f"  {where} [{column}]: {str(e)[:300]}", file=sys.stderr)
        return None
    if reference is not None:
        err = rel_l2(out, reference)
        row["rel_l2"][column] = float(f"{err:.2e}")
        if not math.isfinite(err) or err > tolerance:
            row["tflops"][column] = "WRONG"
            return None
    return call


def fa3_column(fa3, case, dtype, row):
    """True if FA3 runs this cell; otherwise row says "—" and why (printed once)."""
    if fa3 is None:
        return False
    why = fa3_unsupported(case, dtype)
    if why is None:
        return True
    row["tflops"]["FA3"] = NOT_RUN
    row["why"]["FA3"] = why
    say_once(f"{why}: {NOT_RUN} in those cells")
    return False


def bench_one(case, dtype, args, fa3=None):
    def prepare(q, k, v, row):
        calls = {"fattn": lambda: fattn.flash_attn_func(q, k, v, causal=case.causal,
                                                        arch=args.arch)}
        if fa3_column(fa3, case, args.dtype, row):
            calls["FA3"] = lambda: fa3.fa3_fwd(q, k, v, causal=case.causal)
        return calls
    return run_case(case, dtype, args, prepare, CHECK_TOLERANCE, "fattn")


def fp8_inputs(q, k, v, per="block"):
    """(q8, k8, v8, flash_attn_func keywords): e4m3 quantization with one
    descale per block of FP8_BLOCK rows, per (batch, KV head) or per tensor."""
    block = FP8_BLOCK if per == "block" else None
    # Per head, Q's factors go by KV head, as FlashAttention-3's (quantize_fp8).
    groups = {"groups": k.shape[2]} if per == "head" else {}
    q8, dq = fattn.quantize_fp8(q, block=block, per=per, **groups)
    k8, dk = fattn.quantize_fp8(k, block=block, per=per)
    v8, dv = fattn.quantize_fp8(v, block=block, per=per)
    kw = dict(q_descale=dq, k_descale=dk, v_descale=dv)
    if per == "block":
        kw.update(descale_block_q=FP8_BLOCK, descale_block_kv=FP8_BLOCK)
    return q8, k8, v8, kw


def bench_fp8(case, args, fa3=None):
    """fattn fp8 beside SDPA cuDNN / FA2 in bf16, on the same (bf16) values: column
    "fattn" with BSHD V, "fattn_vt" with V pre-transposed (once, untimed); "FA3" its
    fp8 kernel with per-(batch, KV head) descales."""
    causal = case.causal

    def prepare(q, k, v, row):
        q8, k8, v8, kw = fp8_inputs(q, k, v, args.fp8_descale)
        calls = {}
        if args.fp8_v_layout in ("both", "bshd"):
            calls["fattn"] = lambda: fattn.flash_attn_func(q8, k8, v8, causal=causal, **kw)
        if args.fp8_v_layout in ("both", "transposed"):
            vt = fattn.transpose_value_fp8(v8)
            calls["fattn_vt"] = lambda: fattn.flash_attn_func(
                q8, k8, vt, causal=causal, v_layout=fattn.VALUE_LAYOUT_SM90, **kw)
        if fa3_column(fa3, case, "fp8", row):
            h8 = ((q8, k8, v8, kw) if args.fp8_descale == "head"
                  else fp8_inputs(q, k, v, "head"))
            fq, fk, fv = h8[:3]
            ds = {n: h8[3][n].float().contiguous()
                  for n in ("q_descale", "k_descale", "v_descale")}
            calls["FA3"] = lambda: fa3.fa3_fwd(fq, fk, fv, causal=causal, **ds)
        return calls
    return run_case(case, torch.bfloat16, args, prepare, FP8_CHECK_TOLERANCE, "fp8")


def load_fa3(folder: Path):
    """fa3_load from the folder (it imports torch, then the extension)."""
    sys.path.insert(0, str(folder))
    import fa3_load  # noqa: E402
    return fa3_load


# ---------------------------------------------------------------------------- output

def column_headers(fp8: bool) -> Dict[str, str]:
    if fp8:
        return {"fattn": "fattn fp8", "fattn_vt": "fattn fp8 V^T", "FA3": "FA3 fp8",
                "cuDNN": "cuDNN bf16", "FA2": "FA2 bf16"}
    return {c: c for c in COLUMN_ORDER}


def ratio_headers(fp8: bool, present: Sequence[str]) -> List[str]:
    """The ratio columns: fattn / FA3, fattn / cuDNN (and fattn / FA2 in 16-bit);
    with V^T, V^T / FA3 and V^T / cuDNN too."""
    keys = []
    for mine in (c for c in COLUMN_ORDER if c.startswith("fattn") and c in present):
        for peer in RATIO_PEERS:
            if peer in present and not (fp8 and peer == "FA2"):
                keys.append(f"{mine}/{peer}")
    return keys


def format_tables(meta: Dict, runs: Sequence[Sequence[Dict]]) -> str:
    """Markdown tables of one or more runs of the same cells (matched by "case";
    a cell of several runs reads "first / second"): the grid, then the GQA rows."""
    first = runs[0]
    by_case = [{r["case"]: r for r in run} for run in runs]
    fp8 = meta["dtype"] == "fp8"
    present = [c for c in COLUMN_ORDER
               if any(c in r["tflops"] for run in runs for r in run)]
    heads = column_headers(fp8)
    ratios = ratio_headers(fp8, present)
    errs = [c for c in present if any(c in r["rel_l2"] for run in runs for r in run)]

    def ratio_label(key):
        mine, peer = key.split("/")
        return f"{'V^T' if mine == 'fattn_vt' else 'fattn'} / {peer}"

    def cells(case):
        rows = [m.get(case) for m in by_case]
        out = [joined([r["tflops"].get(c) if r else None for r in rows], fmt_tflops)
               for c in present]
        out += [joined([r["ratios"].get(k) if r else None for r in rows], fmt_ratio)
                for k in ratios]
        if fp8:
            out.append(", ".join(joined([r["rel_l2"].get(c) if r else None for r in rows],
                                        fmt_err) for c in errs) or "-")
        return out

    tail = [heads[c] for c in present] + [ratio_label(k) for k in ratios]
    if fp8:
        tail.append("rel L2 vs SDPA (" + ", ".join(heads[c] for c in errs) + ")")
    lines = []
    dtype_text = ("fattn fp8 (e4m3, " + fp8_form(meta) + ") vs SDPA bf16"
                  if fp8 else meta["dtype"])
    runs_text = f", {len(runs)} runs: first / second ..." if len(runs) > 1 else ""
    grid = [r for r in first if not r["model"]]
    gqa = [r for r in first if r["model"]]
    if grid:
        lines.append(f"Forward, {dtype_text}, TFLOP/s ({timing(meta)}{runs_text}), "
                     f"batch x seqlen = {TOKENS}, heads x head_dim = {HEAD_WIDTH}")
        lines.append("")
        lines += md_table(["head dim", "seqlen", "causal"] + tail,
                          [[str(r["d"]), seq_label(r["n"]), "yes" if r["causal"] else "no"]
                           + cells(r["case"]) for r in grid])
    if gqa:
        if lines:
            lines.append("")
        lines.append(f"GQA prefill, {dtype_text}, head dim {GQA_HEAD_DIM}, TFLOP/s "
                     f"({timing(meta)}{runs_text})")
        lines.append("")
        lines += md_table(["model", "heads q/kv", "batch", "seqlen", "causal"] + tail,
                          [[r["model"], f"{r['h']}/{r['hkv']}", str(r["b"]), seq_label(r["n"]),
                            "yes" if r["causal"] else "no"] + cells(r["case"]) for r in gqa])
    notes = notes_of(runs)
    if notes:
        lines.append("")
        lines += [f"- {text}" for _, text in notes]
    return "\n".join(lines)


def fp8_form(meta: Dict) -> str:
    form = {"block": f"per-block descales of {FP8_BLOCK} rows",
            "head": "per-(batch, KV head) descales",
            "tensor": "per-tensor descales"}[meta.get("fp8_descale", "block")]
    extra = ("; V^T: V pre-transposed by fattn.transpose_value_fp8, untimed"
             if meta.get("fp8_v_layout", "both") != "bshd" else "")
    fa3 = ("; FA3: per-(batch, KV head) descales" if meta.get("fa3") else "")
    return form + extra + fa3


def notes_of(runs) -> List:
    """(column, note) for each distinct reason a column has no number or was run
    differently, with the cells it concerns."""
    found: Dict = {}
    for run in runs:
        for r in run:
            for col, why in r.get("why", {}).items():
                found.setdefault((col, why), [])
                if r["case"] not in found[(col, why)]:
                    found[(col, why)].append(r["case"])
    out = []
    for (col, why), cases in found.items():
        mark = f"{NOT_RUN} " if col == "FA3" and why.startswith("FA3") else f"{col}: "
        out.append((col, f"{mark}{why} ({len(cases)} cell{'s' if len(cases) > 1 else ''})"))
    return out


def write_json(path, meta: Dict, rows: List[Dict]):
    bench_common.write_json(path, JSON_FORMAT, meta, rows)


def read_json(path) -> Dict:
    return bench_common.read_json(path, JSON_FORMAT, "bench_fwd.py")


def tables_from(paths: Sequence[str]) -> str:
    return bench_common.tables_from(paths, JSON_FORMAT, "bench_fwd.py", format_tables)


def dry_run(cases: List[Case], args) -> str:
    """The cells, the columns and an estimate of the run time at nominal rates."""
    dtype = "fp8" if args.dtype == "fp8" else "bf16"
    cols = ["FA2", "cuDNN"]
    if args.dtype == "fp8":
        cols += [c for c, on in (("fattn", args.fp8_v_layout in ("both", "bshd")),
                                 ("fattn_vt", args.fp8_v_layout in ("both", "transposed")))
                 if on]
    else:
        cols.append("fattn")
    lines = [f"{len(cases)} cells, {args.dtype}, columns: {', '.join(cols)}"
             + (", FA3 (where it runs)" if args.fa3 else "")]
    total = 0.0
    rates = NOMINAL_TFLOPS[dtype]
    calls = args.warmup + args.rep + 1
    for c in cases:
        fa3_why = fa3_unsupported(c, args.dtype) if args.fa3 else "no --fa3"
        here = cols + (["FA3"] if fa3_why is None else [])
        per_round = sum(case_flops(c) / (rates[x] * 1e12) for x in here)
        total += calls * per_round + CELL_OVERHEAD_S
        fa3_text = ("" if not args.fa3 else
                    " FA3" if fa3_why is None else f" {NOT_RUN} ({fa3_why})")
        lines.append(f"  {args.dtype} {c.name}: B={c.b} H={c.h} Hkv={c.hkv} D={c.d} "
                     f"N={c.n}, {case_flops(c) / 1e12:.2f} TFLOP per call{fa3_text}")
    lines.append(f"estimated run time: {total / 60:.1f} min ({args.warmup} warm-up + "
                 f"{args.rep} timed calls of each column per cell, at nominal TFLOP/s "
                 f"{', '.join(f'{k} {v}' for k, v in rates.items())}, plus "
                 f"{CELL_OVERHEAD_S} s per cell)")
    return "\n".join(lines)


# ---------------------------------------------------------------------------- main

def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--dims", help="default 64,128,256 (fp8: 128,256)")
    p.add_argument("--seqs", help="default 1024,2048,4096,8192,16384 (fp8: 4096,8192,16384)")
    p.add_argument("--causal", default="both", choices=["both", "0", "1"])
    p.add_argument("--dtype", default="bf16", choices=["bf16", "f16", "fp8"])
    p.add_argument("--quick", action="store_true",
                   help="head dim 128, seqlens 2048 and 8192 (GQA rows too)")
    p.add_argument("--fp8-descale", default="block", choices=["block", "head", "tensor"],
                   help="fp8: one descale per block of rows (default), per (batch, head) "
                        "as FlashAttention-3, or per tensor")
    p.add_argument("--fp8-v-layout", default="both", choices=["both", "bshd", "transposed"],
                   help="fp8: time fattn with V as given (bshd), pre-transposed by "
                        "fattn.transpose_value_fp8 (transposed), or both side by side")
    p.add_argument("--warmup", type=int, default=100,
                   help="untimed calls of each before timing (default 100)")
    p.add_argument("--rep", type=int, default=200,
                   help="timed calls of each; the median is reported (default 200)")
    p.add_argument("--interleave", action="store_true",
                   help="time fattn and the peers by --rep interleaved single calls "
                        "(rotated order, median) instead of --rep calls of each in turn")
    p.add_argument("--fa3", metavar="DIR",
                   help="FlashAttention-3 as a column: the folder holding fa3_load.py "
                        "(a copy of ../shared/peers/fa3)")
    p.add_argument("--gqa-presets", nargs="?", const="all", default=None, metavar="NAMES",
                   help="add GQA prefill rows (head dim 128, causal): all, or some of "
                        + ",".join(GQA_PRESETS))
    p.add_argument("--gqa-seqs", help=f"seqlens of the GQA rows (default {GQA_SEQS})")
    p.add_argument("--gqa-batch", type=int,
                   help=f"batch of the GQA rows (default {TOKENS} // seqlen, at least 1)")
    p.add_argument("--gqa-only", action="store_true",
                   help="only the GQA rows (implies --gqa-presets all unless given)")
    p.add_argument("--kernel-dir", help="kernel library (default: FATTN_KERNEL_DIR)")
    p.add_argument("--arch", help="fattn pipeline (default: by device)")
    p.add_argument("--json", help="also write the cells to this file (after every cell)")
    p.add_argument("--dry-run", action="store_true",
                   help="list the cells and an estimated run time; no GPU, no torch needed")
    p.add_argument("--table-from", nargs="+", metavar="JSON",
                   help="print the tables of earlier --json runs (several: 'a / b' cells)")
    args = p.parse_args(argv)

    fp8 = args.dtype == "fp8"
    try:
        args.dim_list = [128] if args.quick else int_list(args.dims or
                                                          ("128,256" if fp8 else "64,128,256"))
        args.seq_list = [2048, 8192] if args.quick else int_list(
            args.seqs or ("4096,8192,16384" if fp8 else "1024,2048,4096,8192,16384"))
        args.gqa_seq_list = int_list(args.gqa_seqs or ("2048,8192" if args.quick else GQA_SEQS))
    except ValueError as e:
        p.error(f"a list of integers, comma-separated: {e}")
    if any(x <= 0 for x in args.dim_list + args.seq_list + args.gqa_seq_list):
        p.error("head dims and seqlens must be positive")
    if args.gqa_batch is not None and args.gqa_batch <= 0:
        p.error("--gqa-batch must be positive")
    if args.warmup < 0 or args.rep <= 0:
        p.error("--warmup must be >= 0 and --rep > 0")
    if args.gqa_only and args.gqa_presets is None:
        args.gqa_presets = "all"
    if args.gqa_presets is None:
        args.gqa_list = []
    elif args.gqa_presets == "all":
        args.gqa_list = list(GQA_PRESETS)
    else:
        args.gqa_list = [x.strip().lower() for x in args.gqa_presets.split(",") if x.strip()]
        unknown = [x for x in args.gqa_list if x not in GQA_PRESETS]
        if unknown or not args.gqa_list:
            p.error(f"--gqa-presets: unknown {unknown}; known: all, {', '.join(GQA_PRESETS)}")
    if args.fa3:
        args.fa3 = str(Path(args.fa3).resolve())
        if not (Path(args.fa3) / "fa3_load.py").is_file():
            p.error(f"--fa3 {args.fa3}: no fa3_load.py there (copy ../shared/peers/fa3, "
                    "docs/GPU-TESTING.md §4)")
    return args


def run_meta(args) -> Dict:
    return {"dtype": args.dtype, "warmup": args.warmup, "rep": args.rep,
            "interleave": args.interleave, "fp8_descale": args.fp8_descale,
            "fp8_v_layout": args.fp8_v_layout, "fa3": args.fa3, "arch": args.arch,
            "argv": sys.argv[1:], "date": datetime.datetime.now(datetime.timezone.utc)
            .strftime("%Y-%m-%d %H:%M UTC")}


def main(argv=None):
    args = parse_args(argv)
    if args.table_from:
        print(tables_from(args.table_from))
        return
    cases = enumerate_cases(args)
    if args.dry_run:
        print(dry_run(cases, args))
        return
    if torch is None:
        raise SystemExit("bench_fwd.py needs torch (only --dry-run and --table-from run "
                         "without it)")
    if args.kernel_dir:
        fattn.set_kernel_dir(args.kernel_dir)
    fa3 = load_fa3(Path(args.fa3)) if args.fa3 else None
    meta = run_meta(args)
    meta.update(device=torch.cuda.get_device_name(), torch=torch.__version__,
                cudnn=torch.backends.cudnn.version(), kernel_dir=str(fattn.kernel_dir()))
    print(f"device: {meta['device']}, torch {meta['torch']}, cudnn {meta['cudnn']}, "
          f"fattn kernels: {meta['kernel_dir']}" + (f", FA3: {args.fa3}" if fa3 else ""),
          flush=True)
    start = time.monotonic()
    rows = []
    for case in cases:
        if args.dtype == "fp8":
            rows.append(bench_fp8(case, args, fa3))
        else:
            dtype = {"bf16": torch.bfloat16, "f16": torch.float16}[args.dtype]
            rows.append(bench_one(case, dtype, args, fa3))
        print(json.dumps(rows[-1], ensure_ascii=False), file=sys.stderr, flush=True)
        meta["wall_s"] = round(time.monotonic() - start, 1)
        if args.json:
            write_json(args.json, meta, rows)
    print("\n" + format_tables(meta, [rows]))
    print(f"\n({len(rows)} cells in {meta['wall_s']:.0f} s)", file=sys.stderr)


if __name__ == "__main__":
    main()
