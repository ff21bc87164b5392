"""Forward attention: fattn next to torch SDPA's FlashAttention-2 and cuDNN backends,
timed in one run on the same inputs (docs/GPU-TESTING.md).

    python3 bench/bench_fwd.py [--quick] [--dims 64,128,256] [--seqs 1024,...,16384]
                               [--causal both|0|1] [--kernel-dir DIR] [--json FILE]
    python3 bench/bench_fwd.py --dtype fp8      # head dims 128, 256; seqlens 4k, 8k, 16k

Configurations of ../shared/ANCHORS.md: bf16, batch x seqlen = 16384 tokens,
heads x head_dim = 2048, BSHD inputs. TFLOP/s = 4*B*H*N^2*D / time, halved when causal.
Time: CUDA events around each call after a warm-up, median of --rep calls (with
--interleave, the --rep calls of fattn and the peers alternate one by one, so that the
GPU's clock drift during the run does not favour one column). The default warm-up, 100
calls of each, lets the H200's clock settle: after only 10, the first timed calls of a
2k row still run 3-5% faster than the GPU sustains, the peers more than fattn, and a
median of 40 calls lands in that transient (docs/PERF.md, 2026-12-02, twenty-sixth
session).
fattn's output is checked against SDPA's before it is timed; a kernel that is not
available (no library entry, no fattn-compile) is reported as missing.

--dtype fp8 (issue 6): fattn's e4m3 kernel (flash_attn_func on float8_e4m3fn inputs,
quantized by fattn.quantize_fp8 outside the timed region with per-block factors: one
per 128 rows of Q and of K/V, the preset "fp8" kernels) beside SDPA's cuDNN and
FlashAttention-2 backends in bf16 on the same values, same run. The check against
SDPA allows FP8_CHECK_TOLERANCE (the inputs' e4m3 rounding). The fp8 table has two
fattn columns: V as given (BSHD) and V^T, the same e4m3 V pre-transposed once by
fattn.transpose_value_fp8 outside the timed region (flash_attn_func(...,
v_layout=fattn.VALUE_LAYOUT_SM90)); --fp8-v-layout bshd|transposed times one of them.
"""
from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
from pathlib import Path

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))
import fattn  # noqa: E402
from interleaved import median_ms_interleaved  # noqa: E402  (bench/, the script's folder)

PEERS = {"FA2": SDPBackend.FLASH_ATTENTION, "cuDNN": SDPBackend.CUDNN_ATTENTION}
CHECK_TOLERANCE = 1e-2  # rel L2 between fattn and SDPA; each alone is ~2e-3 in bf16
# fp8 inputs: e4m3 keeps 3 mantissa bits (rel. rounding <= 2^-4 per element); the CPU
# oracle measured 4e-2 - 8e-2 against the unquantized inputs (docs/FP8.md).
FP8_CHECK_TOLERANCE = 0.15
FP8_BLOCK = 128  # rows per descale factor, Q and K/V


def flops(b, h, n, d, causal):
    return 4.0 * b * h * n * n * d / (2 if causal else 1)


def time_ms(fn, warmup, rep):
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
    with sdpa_kernel([backend]):
        return F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2),
                                              v.transpose(1, 2), is_causal=causal).transpose(1, 2)


def rel_l2(a, b):
    a, b = a.float(), b.float()
    return ((a - b).norm() / b.norm()).item()


def run_case(d, n, causal, dtype, args, prepare, tolerance, label):
    """One row: the SDPA peers and fattn on the same random inputs (in `dtype`).
    prepare(q, k, v) returns {column: fattn call}; each call is checked against the
    first peer's output (rel L2 <= tolerance) and timed."""
    b, h = 16384 // n, 2048 // d
    row = {"d": d, "n": n, "b": b, "h": h, "causal": causal}
    gen = torch.Generator(device="cuda")
    gen.manual_seed(n * 1000 + d)
    q, k, v = (torch.randn(b, n, h, d, device="cuda", generator=gen).to(dtype)
               for _ in range(3))
    f = flops(b, h, n, d, causal)
    reference = None
    timed = {}  # --interleave: the calls that work, timed together at the end
    for name, backend in PEERS.items():
        try:
            out = sdpa(q, k, v, causal, backend)
            reference = out if reference is None else reference
            peer = lambda backend=backend: sdpa(q, k, v, causal, backend)
            if args.interleave:
                timed[name] = peer
                continue
            ms = time_ms(peer, args.warmup, args.rep)
            row[name] = round(f / (ms * 1e-3) / 1e12, 1)
        except RuntimeError as e:
            row[name] = "ERR"
            print(f"  {name} d={d} n={n} causal={causal}: {str(e)[:120]}", file=sys.stderr)
    for column, call in prepare(q, k, v).items():
        call = check_column(row, column, call, reference, tolerance,
                            f"{label} d={d} n={n} causal={causal}")
        if call is not None and args.interleave:
            timed[column] = call
        elif call is not None:
            ms = time_ms(call, args.warmup, args.rep)
            row[column] = round(f / (ms * 1e-3) / 1e12, 1)
    if timed:
        for name, ms in median_ms_interleaved(timed, args.warmup, args.rep).items():
            row[name] = round(f / (ms * 1e-3) / 1e12, 1)
    return row


def check_column(row, column, call, reference, tolerance, where):
    """Runs one fattn call once: the call to time, or None with row[column] saying
    why not (missing kernel, error, WRONG against the reference)."""
    try:
        out = call()
    except fattn.KernelNotFoundError:
        row[column] = "missing"
        return None
    except (RuntimeError, ValueError) as e:
        row[column] = "ERR"
        print(f"  {where} [{column}]: {str(e)[:300]}", file=sys.stderr)
        return None
    if reference is not None:
        err = rel_l2(out, reference)
        row[f"{column}_vs_sdpa_rel_l2"] = float(f"{err:.2e}")
        if not math.isfinite(err) or err > tolerance:
            row[column] = "WRONG"
            return None
    return call


def bench_one(d, n, causal, dtype, args):
    def prepare(q, k, v):
        return {"fattn": lambda: fattn.flash_attn_func(q, k, v, causal=causal, arch=args.arch)}
    return run_case(d, n, causal, dtype, args, prepare, CHECK_TOLERANCE, "fattn")


def fp8_inputs(q, k, v, per="block"):
    """(q8, k8, v8, flash_attn_func keywords): e4m3 quantization with one
    descale per block of FP8_BLOCK rows, per (batch, head) or per tensor."""
    block = FP8_BLOCK if per == "block" else None
    q8, dq = fattn.quantize_fp8(q, block=block, per=per)
    k8, dk = fattn.quantize_fp8(k, block=block, per=per)
    v8, dv = fattn.quantize_fp8(v, block=block, per=per)
    kw = dict(q_descale=dq, k_descale=dk, v_descale=dv)
    if per == "block":
        kw.update(descale_block_q=FP8_BLOCK, descale_block_kv=FP8_BLOCK)
    return q8, k8, v8, kw


def bench_fp8(d, n, causal, args):
    """fattn fp8 beside SDPA cuDNN / FA2 in bf16, on the same (bf16) values: column
    "fattn" with BSHD V, "fattn_vt" with V pre-transposed (once, untimed)."""
    def prepare(q, k, v):
        q8, k8, v8, kw = fp8_inputs(q, k, v, args.fp8_descale)
        calls = {}
        if args.fp8_v_layout in ("both", "bshd"):
            calls["fattn"] = lambda: fattn.flash_attn_func(q8, k8, v8, causal=causal, **kw)
        if args.fp8_v_layout in ("both", "transposed"):
            vt = fattn.transpose_value_fp8(v8)
            calls["fattn_vt"] = lambda: fattn.flash_attn_func(
                q8, k8, vt, causal=causal, v_layout=fattn.VALUE_LAYOUT_SM90, **kw)
        return calls
    return run_case(d, n, causal, torch.bfloat16, args, prepare, FP8_CHECK_TOLERANCE,
                    "fattn fp8")


def timing(args):
    return f"median of {args.rep}" + (" interleaved calls" if args.interleave else "")


def print_fp8_table(rows, args):
    form = (f"per-block descales of {FP8_BLOCK} rows" if args.fp8_descale == "block"
            else f"per-{args.fp8_descale} descales")
    print(f"\nForward, fattn fp8 (e4m3, {form}) vs SDPA bf16, "
          f"TFLOP/s ({timing(args)}), batch x seqlen = 16384, heads x head_dim = 2048\n")
    print("V^T: V pre-transposed by fattn.transpose_value_fp8 (v_layout), untimed.\n")
    print("| head dim | seqlen | causal | fattn fp8 | fp8 V^T | cuDNN bf16 | FA2 bf16 | "
          "fp8/cuDNN | V^T/cuDNN | rel L2 vs SDPA (V, V^T) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['d']} | {r['n']} | {'yes' if r['causal'] else 'no'} | "
              f"{r.get('fattn', '-')} | {r.get('fattn_vt', '-')} | {r.get('cuDNN')} | "
              f"{r.get('FA2')} | {ratio(r.get('fattn'), r.get('cuDNN'))} | "
              f"{ratio(r.get('fattn_vt'), r.get('cuDNN'))} | "
              f"{r.get('fattn_vs_sdpa_rel_l2', '-')}, {r.get('fattn_vt_vs_sdpa_rel_l2', '-')} |")


def ratio(a, b):
    return f"{a / b:.2f}" if isinstance(a, float) and isinstance(b, float) and b > 0 else "-"


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--dims", help="default 64,128,256 (fp8: 128,256)")
    p.add_argument("--seqs", help="default 1024,2048,4096,8192,16384 (fp8: 4096,8192,16384)")
    p.add_argument("--causal", default="both", choices=["both", "0", "1"])
    p.add_argument("--dtype", default="bf16", choices=["bf16", "f16", "fp8"])
    p.add_argument("--quick", action="store_true", help="head dim 128, seqlens 2048 and 8192")
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
    p.add_argument("--kernel-dir", help="kernel library (default: FATTN_KERNEL_DIR)")
    p.add_argument("--arch", help="fattn pipeline (default: by device)")
    p.add_argument("--json", help="also write the rows to this file")
    args = p.parse_args()
    if args.kernel_dir:
        fattn.set_kernel_dir(args.kernel_dir)
    fp8 = args.dtype == "fp8"
    args.dims = args.dims or ("128,256" if fp8 else "64,128,256")
    args.seqs = args.seqs or ("4096,8192,16384" if fp8 else "1024,2048,4096,8192,16384")
    dims = [128] if args.quick else [int(x) for x in args.dims.split(",")]
    seqs = [2048, 8192] if args.quick else [int(x) for x in args.seqs.split(",")]
    causals = {"both": [False, True], "0": [False], "1": [True]}[args.causal]

    print(f"device: {torch.cuda.get_device_name()}, torch {torch.__version__}, "
          f"cudnn {torch.backends.cudnn.version()}, fattn kernels: {fattn.kernel_dir()}",
          flush=True)
    rows = []
    for d in dims:
        for n in seqs:
            for causal in causals:
                if fp8:
                    rows.append(bench_fp8(d, n, causal, args))
                else:
                    dtype = {"bf16": torch.bfloat16, "f16": torch.float16}[args.dtype]
                    rows.append(bench_one(d, n, causal, dtype, args))
                print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    if fp8:
        print_fp8_table(rows, args)
        if args.json:
            Path(args.json).write_text(json.dumps(rows, indent=1))
        return

    print(f"\nForward, {args.dtype}, TFLOP/s ({timing(args)}), batch x seqlen = 16384, "
          "heads x head_dim = 2048\n")
    print("| head dim | seqlen | causal | fattn | FA2 | cuDNN | fattn/FA2 | fattn/cuDNN |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['d']} | {r['n']} | {'yes' if r['causal'] else 'no'} | {r.get('fattn')} | "
              f"{r.get('FA2')} | {r.get('cuDNN')} | {ratio(r.get('fattn'), r.get('FA2'))} | "
              f"{ratio(r.get('fattn'), r.get('cuDNN'))} |")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
