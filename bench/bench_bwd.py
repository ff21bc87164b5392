"""Backward attention: fattn's backward kernels (sm_80's, and sm_90a's on sm_90 GPUs) next
to torch SDPA's cuDNN and FlashAttention-2 backwards, timed call by call in one run on the
same inputs (issue 41).

    python3 bench/bench_bwd.py [--quick] [--dims 64,128] [--seqs 1024,...,16384]
                               [--causal both|0|1] [--no-gqa] [--deterministic]
                               [--kernel-dir DIR] [--json FILE]
    python3 bench/bench_bwd.py ... --dry-run    # the cells, columns and kernels, no GPU needed
    python3 bench/bench_bwd.py --table-from A.json [B.json ...]   # tables of earlier runs

Kernels (fattn-compile, anywhere): `python3 -m fattn.build_library --preset bench-grad -o DIR`
builds the forwards with their LSE (sm_90a and sm_80) and both archs' backwards, and with
--grad-deterministic their deterministic twins too (what --deterministic reads); the GPU
machine reads them from FATTN_KERNEL_DIR (or --kernel-dir).

Configurations of ../shared/ANCHORS.md: batch x seqlen = 16384 tokens, heads x head_dim
= 2048, BSHD inputs, bf16, at the head dims fattn's backward takes (grad_config: 64 and
128 of the anchors' 64/128/256); one GQA row, Llama-3-8B (32/8 heads, head dim 128) at 4k
causal, unless --no-gqa. TFLOP/s = 2.5 x 4*B*H*N^2*D / time (H the query heads; the
backward's five n x n x d matmuls against the forward's two), halved when causal.

Each cell runs one forward first, untimed: fattn's (flash_attn_func with return_lse) gives
the O and LSE its backward reads, each SDPA backend's (on q, k, v that require grad) the
graph its backward runs. What is timed is one backward from the same dO:
  fattn         fattn.backward.backward(..., arch="sm_80"): the sm_80 kernels (the default
                but on sm_90 GPUs at head dims 64 and 128), as torch.ops.fattn.bwd runs them;
  fattn_sm90a   the same with arch="sm_90a" (the default on sm_90 GPUs): sm_90 GPUs,
                head dims 64 and 128 only, otherwise "—" with the reason;
  fattn_det, fattn_sm90a_det
                with --deterministic only: the same two with deterministic=True, the
                kernels that add dQ in a fixed order (bit-identical runs), under the
                same conditions as their twins;
  cuDNN, FA2    torch.autograd.grad(out, (q, k, v), dO, retain_graph=True) of SDPA's
                CUDNN_ATTENTION and FLASH_ATTENTION backends.
Before timing, each column's dQ, dK, dV are compared with the first SDPA backend that runs
(relative L2 of each, recorded; above CHECK_TOLERANCE the column reads WRONG and is not
timed); a deterministic column runs twice and reads WRONG unless both give the same bits.
A fattn kernel that is not in the library reads "missing", with the kernel's key in "why";
an error in one column or cell is recorded and the run goes on.
Time: CUDA events around each call; the columns' calls interleaved one by one in rotated
order (bench/interleaved.py), --warmup rounds, then the median of --rep rounds.

The probe: a backward kernel that faults would take the process's CUDA context (every
later cell) with it, one that hangs the whole run. So before the first cell, each fattn
backward the run needs (arch, deterministic or not, head dim, mask, head counts) runs once
at PROBE_SEQ tokens in a process of its own; one that crashes or gives no result in
PROBE_TIMEOUT_S is left out of the run (its cells read ERR, the probe's finding in "why";
meta "probe" lists them). --no-probe skips it.

--json FILE writes {"format", "meta", "cells"} after every cell: per cell its case, shape,
TFLOP/s per column (or why none: missing, ERR, WRONG, —), the ratios fattn / peer (and
each deterministic column over its twin, fattn_det/fattn and fattn_sm90a_det/fattn_sm90a:
what determinism costs), and each checked column's relative L2 errors (dq, dk, dv)
against the reference backend.
--table-from prints the markdown tables of one or more such files; with several (runs one
after the other), each cell reads "first / second".
"""
from __future__ import annotations

import argparse
import datetime
import json
import math
import re
import subprocess
import sys
import time
import traceback
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

try:
    import torch
except ImportError:  # --dry-run, --table-from and the CPU tests need no torch
    torch = None

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))
import fattn  # noqa: E402
from fattn.backward import backward as fattn_backward  # noqa: E402
from fattn.build_library import make_configs  # noqa: E402
from fattn.grad_config import GradKernelConfig  # noqa: E402
from fattn.presets import BENCH_GRAD_HEAD_DIMS, bench_grad_specs  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench/, this folder
from bench_common import (NOT_RUN, PEERS, Case, flops, fmt_err, fmt_ratio,  # noqa: E402
                          fmt_tflops, grid_case, int_list, is_number, joined, md_table,
                          rel_l2, say_once, sdpa, seq_label, tflops_of, timing)
import bench_common  # noqa: E402

if torch is not None:
    from interleaved import median_ms_interleaved  # noqa: E402

JSON_FORMAT = "bench_bwd/1"
# The backward's FLOPs against the forward's (issue 41, FlashAttention's convention):
# S = QK^T recomputed, dV = P^T dO, dP = dO V^T, dQ = dS K, dK = dS^T Q.
BWD_FLOP_FACTOR = 2.5
# rel L2 of dQ, dK, dV between fattn and SDPA, each from its own O in bf16: both columns
# round differently (bf16 P and dS, f32 atomics for dQ), ~3e-3 apart where they agree.
CHECK_TOLERANCE = 2e-2

# fattn's columns and the arch of their backward kernels; the peers they are divided by.
FATTN_COLUMNS = {"fattn": "sm_80", "fattn_sm90a": "sm_90a"}
# --deterministic's columns: the deterministic kernels of their twin's arch, each divided
# by its twin (what adding dQ in a fixed order costs) besides the peers.
DETERMINISTIC_TWINS = {"fattn_det": "fattn", "fattn_sm90a_det": "fattn_sm90a"}
# Every column, in the tables' order (a run has those of run_columns).
COLUMN_ORDER = ("fattn", "fattn_det", "fattn_sm90a", "fattn_sm90a_det", "cuDNN", "FA2")
RATIO_PEERS = ("cuDNN", "FA2")
HEADERS = {"fattn": "fattn sm_80", "fattn_sm90a": "fattn sm_90a",
           "fattn_det": "fattn sm_80 det", "fattn_sm90a_det": "fattn sm_90a det",
           "cuDNN": "cuDNN", "FA2": "FA2"}
GRADS = ("dq", "dk", "dv")

DEFAULT_DIMS = "64,128"
DEFAULT_SEQS = "1024,2048,4096,8192,16384"
# The GQA row (issue 40's presets): Llama-3-8B's 32 query and 8 KV heads at head dim 128.
GQA_MODEL, GQA_HEADS, GQA_KV_HEADS, GQA_HEAD_DIM, GQA_SEQ = "Llama-3-8B", 32, 8, 128, 4096

# Rough TFLOP/s of each column on an H100 (the 2.5x convention) for the --dry-run estimate.
NOMINAL_TFLOPS = {"fattn": 250, "fattn_det": 220, "fattn_sm90a": 250, "fattn_sm90a_det": 220,
                  "cuDNN": 450, "FA2": 250}
CELL_OVERHEAD_S = 0.3  # inputs, the forwards, the check calls
START_S = 30.0         # CUDA, cuDNN, the probe, the kernels' first loads (sm_80 PTX on sm_90)

# The probe (probe()): each fattn backward of the run once, in processes of their own,
# at PROBE_SEQ tokens; a process that gives no result in PROBE_TIMEOUT_S is taken as
# hung, and the probe as a whole stops after PROBE_BUDGET_S.
PROBE_SEQ = 1024
PROBE_TIMEOUT_S = 45.0
PROBE_BUDGET_S = 100.0


# ---------------------------------------------------------------------------- cells

def run_columns(deterministic: bool) -> Tuple[str, ...]:
    """The columns of a run, in order: the deterministic ones only with --deterministic."""
    return tuple(c for c in COLUMN_ORDER if deterministic or c not in DETERMINISTIC_TWINS)


def fattn_column_names(deterministic: bool) -> Tuple[str, ...]:
    """fattn's columns of a run, in order."""
    return tuple(c for c in run_columns(deterministic) if c not in RATIO_PEERS)


def column_kernels(column: str) -> Tuple[str, bool]:
    """(arch, deterministic) of a fattn column's backward kernels."""
    return FATTN_COLUMNS[DETERMINISTIC_TWINS.get(column, column)], column in DETERMINISTIC_TWINS


def bwd_flops(b, h, n, d, causal) -> float:
    return BWD_FLOP_FACTOR * flops(b, h, n, d, causal)


def case_flops(case: Case) -> float:
    return bwd_flops(case.b, case.h, case.n, case.d, case.causal)


def enumerate_cases(args) -> List[Case]:
    """The rows of a run, in order: the head dim x seqlen grid, then the GQA row."""
    causals = {"both": [False, True], "0": [False], "1": [True]}[args.causal]
    cases = [grid_case(d, n, c) for d in args.dim_list for n in args.seq_list for c in causals]
    if args.gqa:
        b = max(1, bench_common.TOKENS // GQA_SEQ)
        cases.append(Case(GQA_HEAD_DIM, GQA_SEQ, b, GQA_HEADS, GQA_KV_HEADS, True, GQA_MODEL))
    return cases


def kernel_configs(cases: Sequence[Case], dtype: str, fwd_arch: str,
                   deterministic: bool = False) -> List:
    """The library entries a run reads (what `--preset bench-grad` builds of them):
    the forwards with their LSE by `fwd_arch`, the sm_80 and sm_90a backwards, and
    with `deterministic` (`--grad-deterministic`) the deterministic ones of both."""
    specs = []
    for d, causal in dict.fromkeys((c.d, c.causal) for c in cases):
        specs += bench_grad_specs(head_dims=(d,), causals=(causal,), dtype=dtype,
                                  archs=(fwd_arch,))
    return make_configs(specs, fwd_arch, grad_deterministic=deterministic)


def new_row(case: Case, dtype: str) -> Dict:
    return {"case": f"{dtype} {case.name}", "dtype": dtype, "model": case.model,
            "d": case.d, "n": case.n, "b": case.b, "h": case.h, "hkv": case.hkv,
            "causal": case.causal, "reference": None, "tflops": {}, "ratios": {},
            "rel_l2": {}, "why": {}}


def ratio_keys() -> List[str]:
    """Every "mine/peer" a row can have, in the JSON's and the tables' order: each
    fattn column over each peer, then each deterministic column over its twin (the
    cost of determinism), then the deterministic columns over the peers."""
    return ([f"{mine}/{peer}" for mine in FATTN_COLUMNS for peer in RATIO_PEERS]
            + [f"{det}/{twin}" for det, twin in DETERMINISTIC_TWINS.items()]
            + [f"{det}/{peer}" for det in DETERMINISTIC_TWINS for peer in RATIO_PEERS])


def add_ratios(row: Dict) -> Dict:
    """row["ratios"]["fattn/cuDNN"], ["fattn_det/fattn"] etc. (ratio_keys), where
    both columns have a number."""
    t = row["tflops"]
    row["ratios"] = {}
    for key in ratio_keys():
        mine, peer = key.split("/")
        row["ratios"].update(bench_common.ratios(t, (mine,), (peer,)))
    return row


def worst_error(errors) -> Optional[float]:
    """The largest of a column's dq/dk/dv errors (NaN if any is not finite)."""
    if not isinstance(errors, dict) or not errors:
        return None
    values = list(errors.values())
    if not all(is_number(x) for x in values):
        return math.nan
    return max(values)


def missing_kernel(error: Exception) -> str:
    """"no kernel KEY" from a KernelNotFoundError's message (it names the folders too)."""
    found = re.search(r"no fattn kernel for (\S+)", str(error))
    return f"no kernel {found.group(1)}" if found else str(error)[:200]


# ---------------------------------------------------------------------------- GPU side

def inputs(case: Case, dtype):
    """q, dout [b, n, h, d] and k, v [b, n, hkv, d], random, seeded by the cell."""
    gen = torch.Generator(device="cuda")
    gen.manual_seed(case.n * 1000 + case.d + 100000 * case.hkv * (case.h != case.hkv)
                    + 7 * case.causal)
    q = torch.randn(case.b, case.n, case.h, case.d, device="cuda", generator=gen).to(dtype)
    k, v = (torch.randn(case.b, case.n, case.hkv, case.d, device="cuda",
                        generator=gen).to(dtype) for _ in range(2))
    dout = torch.randn(case.b, case.n, case.h, case.d, device="cuda", generator=gen).to(dtype)
    return q, k, v, dout


def peer_backward(q, k, v, dout, case: Case, name: str, backend, row: Dict):
    """(call, (dq, dk, dv)) of one SDPA backend's backward, or None with
    row["tflops"][name] = "ERR". GQA runs with enable_gqa; a backend that refuses
    it gets K/V expanded to the query heads as leaves of their own (its dK, dV are
    summed over each group for the check; the sums are not timed), noted in "why"."""
    def attempt(expand: bool):
        qs = q.detach().requires_grad_()
        if expand:
            g = case.h // case.hkv
            ks, vs = (t.repeat_interleave(g, dim=2).requires_grad_() for t in (k, v))
        else:
            ks, vs = (t.detach().requires_grad_() for t in (k, v))
        with torch.enable_grad():
            out = sdpa(qs, ks, vs, case.causal, backend)

        def call():
            return torch.autograd.grad(out, (qs, ks, vs), dout, retain_graph=True)
        dq, dk, dv = call()
        if expand:
            dk, dv = (t.float().view(case.b, case.n, case.hkv, g, case.d).sum(3)
                      for t in (dk, dv))
        return call, (dq, dk, dv)

    try:
        return attempt(False)
    except (RuntimeError, TypeError) as e:  # TypeError: a torch without enable_gqa
        first = e
    if case.h != case.hkv:
        try:
            peer = attempt(True)
            row["why"][name] = "K/V expanded to the query heads (no enable_gqa)"
            say_once(f"{name}: {row['why'][name]}, from {case.name}")
            return peer
        except (RuntimeError, TypeError):
            pass
    row["tflops"][name] = "ERR"
    row["why"][name] = str(first)[:200]
    print(f"  {name} {case.name}: {str(first)[:300]}", file=sys.stderr)
    return None


def fattn_columns(case: Case, dtype: str, sm90: bool,
                  deterministic: bool = False) -> Tuple[Dict, Dict]:
    """({column: arch} of fattn's columns that can run the cell, {column: why} of
    those that cannot: the sm_90a kernels need an sm_90 GPU and head dims 64, 128).
    `deterministic`: the deterministic columns too (column_kernels)."""
    columns, why = {}, {}
    for column in fattn_column_names(deterministic):
        arch, det = column_kernels(column)
        if arch == "sm_90a" and not sm90:
            why[column] = "the sm_90a backward kernels run on sm_90 GPUs only"
            continue
        try:
            GradKernelConfig.make(dtype, case.d, case.causal, arch=arch, deterministic=det)
        except ValueError as e:
            why[column] = str(e)
            continue
        columns[column] = arch
    return columns, why


def fattn_calls(q, k, v, dout, case: Case, args, row: Dict, crashed: Dict) -> Dict:
    """{column: call} of fattn's backward columns that can run; the others get
    their marker and reason in row (also those whose kernels crashed or hung in
    the probe: `crashed`). fattn's forward writes the O and LSE they read."""
    columns, why = fattn_columns(case, args.dtype, is_sm90(), args.deterministic)
    for column, text in why.items():
        row["tflops"][column] = NOT_RUN
        row["why"][column] = text
    for column in list(columns):
        arch, deterministic = column_kernels(column)
        text = crashed.get(probe_key(arch, case, deterministic))
        if text is not None:
            row["tflops"][column] = "ERR"
            row["why"][column] = f"not run: in the probe, {text}"
            del columns[column]
    if not columns:
        return {}
    try:
        out, lse = fattn.flash_attn_func(q, k, v, causal=case.causal, return_lse=True,
                                         arch=args.fwd_arch)
    except fattn.KernelNotFoundError as e:
        for column in columns:
            row["tflops"][column] = "missing"
            row["why"][column] = f"forward: {missing_kernel(e)}"
        return {}
    except (RuntimeError, ValueError, TypeError, OSError) as e:
        for column in columns:
            row["tflops"][column] = "ERR"
            row["why"][column] = f"forward: {str(e)[:200]}"
        print(f"  fattn forward {case.name}: {str(e)[:300]}", file=sys.stderr)
        return {}

    def call_of(arch, deterministic):
        return lambda: fattn_backward(dout, q, k, v, out, lse, None, case.causal, (-1, -1),
                                      0.0, arch=arch, deterministic=deterministic)
    return {column: call_of(*column_kernels(column)) for column in columns}


def is_sm90() -> bool:
    return tuple(torch.cuda.get_device_capability()) == (9, 0)


def check_column(row: Dict, column: str, call, reference, where: str):
    """Runs one column's backward once (a deterministic one twice): the call to
    time, or None with row["tflops"][column] saying why not (missing kernel,
    error, WRONG against the reference's gradients or, deterministic, between
    its two runs)."""
    try:
        grads = call()
        torch.cuda.synchronize()
    except fattn.KernelNotFoundError as e:
        row["tflops"][column] = "missing"
        row["why"][column] = missing_kernel(e)
        return None
    except (RuntimeError, ValueError, TypeError, OSError) as e:
        row["tflops"][column] = "ERR"
        row["why"][column] = str(e)[:200]
        print(f"  {where} [{column}]: {str(e)[:300]}", file=sys.stderr)
        return None
    if reference is not None:
        errors = {g: float(f"{rel_l2(mine, ref):.2e}")
                  for g, mine, ref in zip(GRADS, grads, reference)}
        row["rel_l2"][column] = errors
        worst = worst_error(errors)
        if not math.isfinite(worst) or worst > CHECK_TOLERANCE:
            row["tflops"][column] = "WRONG"
            row["why"][column] = (f"max rel L2 of dQ, dK, dV against {row['reference']} "
                                  f"above {CHECK_TOLERANCE}")
            return None
    if column in DETERMINISTIC_TWINS:
        # Its point: a second run gives the same bits.
        again = call()
        torch.cuda.synchronize()
        if not all(torch.equal(x, y) for x, y in zip(grads, again)):
            row["tflops"][column] = "WRONG"
            row["why"][column] = "two runs gave different dQ, dK or dV"
            return None
    return call


def run_case(case: Case, args, crashed: Dict) -> Dict:
    """One row: the SDPA peers' and fattn's backwards on the same inputs, checked
    against the first peer that runs, then timed together (interleaved)."""
    dtype = {"bf16": torch.bfloat16, "f16": torch.float16}[args.dtype]
    row = new_row(case, args.dtype)
    q, k, v, dout = inputs(case, dtype)
    reference = None
    timed = {}
    for name, backend in PEERS.items():
        peer = peer_backward(q, k, v, dout, case, name, backend, row)
        if peer is None:
            continue
        call, grads = peer
        if reference is None:
            reference, row["reference"] = grads, name
            timed[name] = call
        elif check_column(row, name, lambda: grads, reference, case.name) is not None:
            timed[name] = call
    for column, call in fattn_calls(q, k, v, dout, case, args, row, crashed).items():
        call = check_column(row, column, call, reference, case.name)
        if call is not None:
            timed[column] = call
    if timed:
        f = case_flops(case)
        for name, ms in median_ms_interleaved(timed, args.warmup, args.rep).items():
            row["tflops"][name] = tflops_of(f, ms)
    return add_ratios(row)


def run_case_safely(case: Case, args, crashed: Dict) -> Dict:
    """run_case, or a row of ERR with the error where the cell itself failed (out
    of memory, a launch error): the run goes on with the next cell."""
    try:
        return run_case(case, args, crashed)
    except Exception as e:  # noqa: BLE001  (one cell's failure must not end the run)
        traceback.print_exc()
        row = new_row(case, args.dtype)
        for column in run_columns(args.deterministic):
            row["tflops"][column] = "ERR"
        row["why"]["cell"] = f"{type(e).__name__}: {str(e)[:200]}"
        return row
    finally:
        try:
            torch.cuda.empty_cache()
        except RuntimeError:  # a CUDA error: the next cells report it
            pass


# ---------------------------------------------------------------------------- probe

def probe_key(arch: str, case: Case, deterministic: bool = False) -> str:
    """What a probe item stands for: an arch's backward (deterministic or not: another
    kernel) at a cell's configuration and head counts."""
    kernels = f"{arch} det" if deterministic else arch
    return f"{kernels} d{case.d} {'causal' if case.causal else 'full'} {case.h}/{case.hkv}"


def probe_cases(cases: Sequence[Case]) -> List[Case]:
    """One small cell (PROBE_SEQ queries and keys, batch 1) per configuration
    and head counts of the run's cells."""
    shapes = dict.fromkeys((c.d, c.h, c.hkv, c.causal, c.model) for c in cases)
    return [Case(d, PROBE_SEQ, 1, h, hkv, causal, model)
            for d, h, hkv, causal, model in shapes]


def probe_child(items: List, args) -> int:
    """The probe's process: fattn's forward and the arch's backward once per item
    ([arch, deterministic, d, h, hkv, causal]), each announced ("start I") and
    reported ("done I STATUS") on stdout. A CUDA error leaves the context unusable:
    the process then ends, and the parent starts another for the items after it."""
    dtype = {"bf16": torch.bfloat16, "f16": torch.float16}[args.dtype]
    # CUDA itself first: a process that cannot start it (a GPU in exclusive mode,
    # say) ends before any item, and the parent blames no kernel for it.
    torch.ones(1, device="cuda").add_(1)
    torch.cuda.synchronize()
    for i, (arch, deterministic, d, h, hkv, causal) in enumerate(items):
        case = Case(d, PROBE_SEQ, 1, h, hkv, causal)
        print(f"start {i}", flush=True)
        try:
            q, k, v, dout = inputs(case, dtype)
            out, lse = fattn.flash_attn_func(q, k, v, causal=causal, return_lse=True,
                                             arch=args.fwd_arch)
            grads = fattn_backward(dout, q, k, v, out, lse, None, causal, (-1, -1), 0.0,
                                   arch=arch, deterministic=deterministic)
            torch.cuda.synchronize()
            finite = all(bool(torch.isfinite(g).all()) for g in grads)
            status = "ok" if finite else "not-finite"
        except fattn.KernelNotFoundError:
            status = "missing"
        except Exception:  # noqa: BLE001
            traceback.print_exc()
            try:  # still usable after a Python-side error; not after a CUDA error
                torch.ones(1, device="cuda").add_(1)
                torch.cuda.synchronize()
            except Exception:  # noqa: BLE001
                return 1
            status = "error"
        print(f"done {i} {status}", flush=True)
    return 0


def probe(cases: Sequence[Case], args) -> Dict[str, str]:
    """{probe_key: what happened} of the fattn backwards that crashed (a CUDA
    error) or hung in a process of their own, so that the run itself leaves
    them out instead of losing its CUDA context or its time: every kernel of
    the run once, at a small size, before any cell."""
    sm90 = is_sm90()
    items = []
    for case in probe_cases(cases):
        for column in fattn_columns(case, args.dtype, sm90, args.deterministic)[0]:
            items.append([*column_kernels(column), case.d, case.h, case.hkv, case.causal])
    crashed: Dict[str, str] = {}
    deadline = time.monotonic() + PROBE_BUDGET_S
    base = [sys.executable, str(Path(__file__).resolve()), "--dtype", args.dtype]
    if args.kernel_dir:
        base += ["--kernel-dir", args.kernel_dir]
    if args.fwd_arch:
        base += ["--fwd-arch", args.fwd_arch]
    while items:
        left = deadline - time.monotonic()
        if left < 5:
            for item in items:
                crashed[item_key(item)] = "not probed (its time ran out); left out"
            break
        timeout = min(PROBE_TIMEOUT_S, left)
        try:
            done = subprocess.run(base + ["--probe-child", json.dumps(items)],
                                  capture_output=True, text=True, timeout=timeout)
            out, err, rc = done.stdout, done.stderr, done.returncode
        except subprocess.TimeoutExpired as e:
            out, err, rc = text_of(e.stdout), text_of(e.stderr), None
        started, finished = -1, {}
        for line in out.splitlines():
            word = line.split()
            if len(word) >= 2 and word[0] == "start":
                started = int(word[1])
            elif len(word) >= 3 and word[0] == "done":
                finished[int(word[1])] = word[2]
        for i, status in finished.items():
            print(f"  probe {item_key(items[i])}: {status}", file=sys.stderr, flush=True)
        if rc == 0:
            break
        if started < 0 or started in finished:
            # Nothing started, or it ended between items: no kernel to blame.
            say_once(f"probe: the process ended ({'timeout' if rc is None else f'rc {rc}'}) "
                     f"outside a kernel; the run goes on unprobed:\n{err[-1500:]}")
            break
        last = [l for l in err.strip().splitlines() if l.strip()]
        what = (f"hung (no result in {timeout:.0f} s)" if rc is None else
                f"crashed: {last[-1][:200] if last else f'rc {rc}'}")
        crashed[item_key(items[started])] = what
        print(f"  probe {item_key(items[started])}: {what}\n{err[-1500:]}", file=sys.stderr,
              flush=True)
        items = items[started + 1:]
    return crashed


def text_of(output) -> str:
    """A timed-out process's output (bytes, or None when it wrote nothing)."""
    return output.decode(errors="replace") if isinstance(output, bytes) else (output or "")


def item_key(item) -> str:
    arch, deterministic, d, h, hkv, causal = item
    return probe_key(arch, Case(d, PROBE_SEQ, 1, h, hkv, causal), deterministic)


# ---------------------------------------------------------------------------- output

def column_notes(runs) -> List[str]:
    """One line per distinct reason a column has no number or ran differently,
    with the number of cells it concerns."""
    found: Dict = {}
    for run in runs:
        for r in run:
            for col, why in r.get("why", {}).items():
                cases = found.setdefault((col, why), [])
                if r["case"] not in cases:
                    cases.append(r["case"])
    return [f"{HEADERS.get(col, col)}: {why} ({len(cases)} cell{'s' if len(cases) > 1 else ''})"
            for (col, why), cases in found.items()]


def format_tables(meta: Dict, runs: Sequence[Sequence[Dict]]) -> str:
    """Markdown tables of one or more runs of the same cells (matched by "case"; a
    cell of several runs reads "first / second"): the grid, then the GQA row."""
    first = runs[0]
    by_case = [{r["case"]: r for r in run} for run in runs]
    present = [c for c in COLUMN_ORDER if any(c in r["tflops"] for run in runs for r in run)]
    ratios = [k for k in ratio_keys() if all(c in present for c in k.split("/"))]
    checked = [c for c in COLUMN_ORDER if c not in RATIO_PEERS
               and any(c in r["rel_l2"] for run in runs for r in run)]

    def cells(case):
        rows = [m.get(case) for m in by_case]
        out = [joined([r["tflops"].get(c) if r else None for r in rows], fmt_tflops)
               for c in present]
        out += [joined([r["ratios"].get(k) if r else None for r in rows], fmt_ratio)
                for k in ratios]
        if checked:
            out.append(", ".join(
                joined([worst_error(r["rel_l2"].get(c)) if r else None for r in rows], fmt_err)
                for c in checked))
        return out

    def short(column):
        return HEADERS[column].replace("fattn ", "")

    def ratio_label(key):
        mine, peer = key.split("/")
        return f"{short(mine)} / {short(peer)}"

    references = sorted({r["reference"] for run in runs for r in run if r.get("reference")})
    tail = [HEADERS[c] for c in present] + [ratio_label(k) for k in ratios]
    if checked:
        tail.append(f"max rel L2 of dQ, dK, dV vs {'/'.join(references) or 'SDPA'} ("
                    + ", ".join(short(c) for c in checked) + ")")
    runs_text = f", {len(runs)} runs: first / second ..." if len(runs) > 1 else ""
    what = (f"{meta['dtype']}, TFLOP/s = {BWD_FLOP_FACTOR} x forward FLOPs / time "
            f"({timing(meta)}{runs_text})")
    lines = []
    grid = [r for r in first if not r["model"]]
    gqa = [r for r in first if r["model"]]
    if grid:
        lines.append(f"Backward, {what}, batch x seqlen = {bench_common.TOKENS}, "
                     f"heads x head_dim = {bench_common.HEAD_WIDTH}")
        lines.append("")
        lines += md_table(["head dim", "seqlen", "causal"] + tail,
                          [[str(r["d"]), seq_label(r["n"]), "yes" if r["causal"] else "no"]
                           + cells(r["case"]) for r in grid])
    if gqa:
        if lines:
            lines.append("")
        lines.append(f"Backward, GQA, {what}")
        lines.append("")
        lines += md_table(["model", "heads q/kv", "head dim", "batch", "seqlen", "causal"] + tail,
                          [[r["model"], f"{r['h']}/{r['hkv']}", str(r["d"]), str(r["b"]),
                            seq_label(r["n"]), "yes" if r["causal"] else "no"]
                           + cells(r["case"]) for r in gqa])
    notes = column_notes(runs)
    if notes:
        lines.append("")
        lines += [f"- {text}" for text in notes]
    return "\n".join(lines)


def write_json(path, meta: Dict, rows: List[Dict]):
    bench_common.write_json(path, JSON_FORMAT, meta, rows)


def read_json(path) -> Dict:
    return bench_common.read_json(path, JSON_FORMAT, "bench_bwd.py")


def tables_from(paths: Sequence[str]) -> str:
    return bench_common.tables_from(paths, JSON_FORMAT, "bench_bwd.py", format_tables)


def dry_run(cases: List[Case], args) -> str:
    """The cells, the columns, the kernels they read and an estimate of the run time."""
    fwd_arch = args.fwd_arch or "sm_90a"
    columns = run_columns(args.deterministic)
    sm90_only = [c for c in fattn_column_names(args.deterministic)
                 if column_kernels(c)[0] == "sm_90a"]
    lines = [f"{len(cases)} cells, {args.dtype}, columns: {', '.join(columns)} "
             f"({', '.join(sm90_only)} on sm_90 GPUs only)"]
    total = START_S
    calls = args.warmup + args.rep + 1
    for c in cases:
        per_round = sum(case_flops(c) / (NOMINAL_TFLOPS[x] * 1e12) for x in columns)
        total += calls * per_round + CELL_OVERHEAD_S
        lines.append(f"  {args.dtype} {c.name}: B={c.b} H={c.h} Hkv={c.hkv} D={c.d} N={c.n}, "
                     f"{case_flops(c) / 1e12:.2f} TFLOP per backward")
    configs = kernel_configs(cases, args.dtype, fwd_arch, args.deterministic)
    lines.append(f"kernels read ({len(configs)}; forwards by {fwd_arch}"
                 + ("" if args.fwd_arch else ", an sm_90 GPU's default; --fwd-arch") + "):")
    lines += [f"  {c.key}" for c in configs]
    lines.append("build them (where fattn-compile is): "
                 f"{build_command(cases, args.dtype, args.deterministic)}  "
                 "(then FATTN_KERNEL_DIR=DIR)")
    lines.append(f"estimated run time: {total / 60:.1f} min ({args.warmup} warm-up + "
                 f"{args.rep} timed calls of each column per cell, at nominal TFLOP/s "
                 f"{', '.join(f'{k} {NOMINAL_TFLOPS[k]}' for k in columns)}, plus "
                 f"{CELL_OVERHEAD_S} s per cell and {START_S:.0f} s to start)")
    return "\n".join(lines)


def build_command(cases: Sequence[Case], dtype: str, deterministic: bool = False) -> str:
    """The build_library command of the kernels a run reads: the bench-grad preset
    where it holds them, else the same configurations as a --configs spec; with
    `deterministic`, --grad-deterministic for the deterministic backwards too."""
    dims = sorted({c.d for c in cases})
    command = "PYTHONPATH=python python3 -m fattn.build_library -j 2 -o DIR "
    extra = " --grad-deterministic" if deterministic else ""
    if dtype == "bf16" and set(dims) <= set(BENCH_GRAD_HEAD_DIMS):
        return command + "--preset bench-grad" + extra
    causals = "|".join(sorted({str(int(c.causal)) for c in cases}))
    return (command + f'--configs "dtype={dtype},head_dim={"|".join(map(str, dims))},'
            f'causal={causals},lse=1,grad=1,arch=sm_90a|sm_80" --grad-sm90a' + extra)


# ---------------------------------------------------------------------------- main

def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--dims", help=f"head dims (default {DEFAULT_DIMS}: the anchors' that "
                   "the backward takes)")
    p.add_argument("--seqs", help=f"seqlens (default {DEFAULT_SEQS})")
    p.add_argument("--causal", default="both", choices=["both", "0", "1"])
    p.add_argument("--dtype", default="bf16", choices=["bf16", "f16"],
                   help="default bf16 (the bench-grad preset's kernels)")
    p.add_argument("--quick", action="store_true", help="head dim 128, seqlens 2048 and 8192")
    p.add_argument("--no-gqa", dest="gqa", action="store_false",
                   help=f"leave out the GQA row ({GQA_MODEL}, {GQA_HEADS}/{GQA_KV_HEADS} heads, "
                   f"head dim {GQA_HEAD_DIM}, {seq_label(GQA_SEQ)} causal)")
    p.add_argument("--warmup", type=int, default=20,
                   help="untimed rounds of every column before timing (default 20)")
    p.add_argument("--rep", type=int, default=50,
                   help="timed rounds (one call of each column, interleaved); the median is "
                   "reported (default 50)")
    p.add_argument("--deterministic", action="store_true",
                   help="also time the deterministic backward kernels (dQ added in a fixed "
                   "order): columns fattn_det and fattn_sm90a_det, each also divided by its "
                   "twin (fattn_det/fattn: the cost of determinism)")
    p.add_argument("--kernel-dir", help="kernel library (default: FATTN_KERNEL_DIR)")
    p.add_argument("--fwd-arch", help="arch of fattn's forward that writes O and the LSE "
                   "(default: by device)")
    p.add_argument("--no-probe", dest="probe", action="store_false",
                   help="time without first running each fattn backward once in a process "
                   "of its own (the probe leaves out kernels that crash or hang)")
    p.add_argument("--probe-child", metavar="ITEMS", help=argparse.SUPPRESS)
    p.add_argument("--json", help="also write the cells to this file (after every cell)")
    p.add_argument("--dry-run", action="store_true",
                   help="list the cells, the kernels and an estimated run time; no GPU, "
                   "no torch needed")
    p.add_argument("--table-from", nargs="+", metavar="JSON",
                   help="print the tables of earlier --json runs (several: 'a / b' cells)")
    args = p.parse_args(argv)
    try:
        args.dim_list = [128] if args.quick else int_list(args.dims or DEFAULT_DIMS)
        args.seq_list = [2048, 8192] if args.quick else int_list(args.seqs or DEFAULT_SEQS)
    except ValueError as e:
        p.error(f"a list of integers, comma-separated: {e}")
    if any(x <= 0 for x in args.dim_list + args.seq_list):
        p.error("head dims and seqlens must be positive")
    for d in args.dim_list:
        try:
            GradKernelConfig.make(args.dtype, d)
        except ValueError as e:
            p.error(f"--dims: {e}")
    if args.warmup < 0 or args.rep <= 0:
        p.error("--warmup must be >= 0 and --rep > 0")
    return args


def run_meta(args) -> Dict:
    return {"dtype": args.dtype, "warmup": args.warmup, "rep": args.rep, "interleave": True,
            "fwd_arch": args.fwd_arch, "tolerance": CHECK_TOLERANCE,
            "flop_factor": BWD_FLOP_FACTOR, "argv": sys.argv[1:],
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")}


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
        raise SystemExit("bench_bwd.py needs torch (only --dry-run and --table-from run "
                         "without it)")
    if args.kernel_dir:
        fattn.set_kernel_dir(args.kernel_dir)
    if args.probe_child:
        sys.exit(probe_child(json.loads(args.probe_child), args))
    meta = run_meta(args)
    meta.update(device=torch.cuda.get_device_name(), torch=torch.__version__,
                cudnn=torch.backends.cudnn.version(), kernel_dir=str(fattn.kernel_dir()),
                capability=".".join(map(str, torch.cuda.get_device_capability())))
    print(f"device: {meta['device']} (sm_{meta['capability'].replace('.', '')}), torch "
          f"{meta['torch']}, cudnn {meta['cudnn']}, fattn kernels: {meta['kernel_dir']}",
          flush=True)
    start = time.monotonic()
    crashed = probe(cases, args) if args.probe else {}
    meta["probe"] = {"run": args.probe, "crashed": crashed,
                     "seconds": round(time.monotonic() - start, 1)}
    rows = []
    for case in cases:
        rows.append(run_case_safely(case, args, crashed))
        print(json.dumps(rows[-1], ensure_ascii=False), file=sys.stderr, flush=True)
        meta["wall_s"] = round(time.monotonic() - start, 1)
        if args.json:
            write_json(args.json, meta, rows)
    print("\n" + format_tables(meta, [rows]))
    print(f"\n({len(rows)} cells in {meta['wall_s']:.0f} s)", file=sys.stderr)


if __name__ == "__main__":
    main()
