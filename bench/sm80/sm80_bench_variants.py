#!/usr/bin/env python3
"""Times several sm_80 kernel libraries beside torch SDPA's FlashAttention-2 in one run.

usage: python3 bench/sm80/sm80_bench_variants.py --variant NAME=DIR [--variant NAME=DIR ...]
           [--dims 64,128,256] [--seqs 2048,8192,16384] [--causal both|0|1] [--rep 30]
           [--rounds 1]

Each DIR is a library of `python -m fattn.build_library --arch sm_80` (its PTX is JIT-compiled
by the driver on other GPUs). For every configuration the inputs are made once; FA2 and every
variant are timed on them in turn (CUDA events around each call, median of --rep after
warm-up), and each variant's output is checked against SDPA's first. With --rounds R the
turn repeats R times, each round starting one column later, and a column's best round is
printed (so a clock dip during one column does not decide the comparison). Configurations of
../shared/ANCHORS.md: bf16, batch x seqlen = 16384 tokens, heads x head_dim = 2048, BSHD;
TFLOP/s = 4*B*H*N^2*D / time, halved when causal.
"""
import argparse
import math
import sys
from pathlib import Path

import torch
from torch.nn.attention import SDPBackend

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))
sys.path.insert(0, str(ROOT / "bench"))
import fattn  # noqa: E402
import fattn.kernels  # noqa: E402
from bench_fwd import CHECK_TOLERANCE, flops, rel_l2, sdpa, time_ms  # noqa: E402


_loaded = {}


def use_library(path):
    """Points fattn at the library `path`, keeping each library's loaded kernels (set_kernel_dir
    would drop them, and a reload JIT-compiles the PTX again where the driver does not cache)."""
    fattn.kernels._cache = {}  # what set_kernel_dir clears
    fattn.set_kernel_dir(path)
    fattn.kernels._cache = _loaded.setdefault(path, {})


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--variant", action="append", required=True, help="NAME=DIR")
    p.add_argument("--dims", default="64,128,256")
    p.add_argument("--seqs", default="2048,8192,16384")
    p.add_argument("--causal", default="both", choices=["both", "0", "1"])
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--rep", type=int, default=30)
    p.add_argument("--rounds", type=int, default=1)
    a = p.parse_args()
    variants = [v.split("=", 1) for v in a.variant]
    causals = {"both": [False, True], "0": [False], "1": [True]}[a.causal]
    print(f"device: {torch.cuda.get_device_name()}, torch {torch.__version__}", flush=True)
    names = [n for n, _ in variants]
    print("| head dim | seqlen | causal | FA2 | " + " | ".join(names) + " | "
          + " | ".join(f"{n}/FA2" for n in names) + " |")
    print("|---" * (4 + 2 * len(names)) + "|")
    for d in (int(x) for x in a.dims.split(",")):
        for n in (int(x) for x in a.seqs.split(",")):
            for causal in causals:
                b, h = 16384 // n, 2048 // d
                gen = torch.Generator(device="cuda")
                gen.manual_seed(n * 1000 + d)
                q, k, v = (torch.randn(b, n, h, d, device="cuda", generator=gen).to(torch.bfloat16)
                           for _ in range(3))
                f = flops(b, h, n, d, causal)

                def fa2():
                    return sdpa(q, k, v, causal, SDPBackend.FLASH_ATTENTION)

                ref = fa2()
                runs = {"FA2": fa2}
                dirs = dict(variants)
                tflops = {}

                def run():
                    return fattn.flash_attn_func(q, k, v, causal=causal, arch="sm_80")

                for name, path in variants:
                    try:
                        use_library(path)
                        err = rel_l2(run(), ref)
                        if not math.isfinite(err) or err > CHECK_TOLERANCE:
                            tflops[name] = f"WRONG({err:.1e})"
                            continue
                        runs[name] = run
                    except Exception as e:  # report and go on with the other variants
                        tflops[name] = "ERR"
                        print(f"  {name} d={d} n={n} causal={causal}: {str(e)[:200]}", file=sys.stderr)
                order = list(runs)
                for r in range(a.rounds):
                    for name in order[r % len(order):] + order[:r % len(order)]:
                        if name in dirs:
                            use_library(dirs[name])
                        t = f / time_ms(runs[name], a.warmup, a.rep) / 1e9
                        tflops[name] = max(t, tflops.get(name, 0.0))
                cells = [f"{tflops[x]:.1f}" if isinstance(tflops[x], float) else tflops[x]
                         for x in ["FA2"] + names]
                ratios = [f"{tflops[x] / tflops['FA2']:.3f}" if isinstance(tflops[x], float) else "-"
                          for x in names]
                print(f"| {d} | {n} | {'yes' if causal else 'no'} | " + " | ".join(cells) + " | "
                      + " | ".join(ratios) + " |", flush=True)


if __name__ == "__main__":
    main()
