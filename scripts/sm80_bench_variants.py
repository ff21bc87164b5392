#!/usr/bin/env python3
"""Times several sm_80 kernel libraries beside torch SDPA's FlashAttention-2 in one run.

usage: python3 scripts/sm80_bench_variants.py --variant NAME=DIR [--variant NAME=DIR ...]
           [--dims 64,128,256] [--seqs 2048,8192,16384] [--causal both|0|1] [--rep 30]

Each DIR is a library of `python -m fattn.build_library --arch sm_80` (its PTX is JIT-compiled
by the driver on other GPUs). For every configuration the inputs are made once; FA2 and every
variant are timed on them in turn (CUDA events around each call, median of --rep after
warm-up), and each variant's output is checked against SDPA's first. Configurations of
../shared/ANCHORS.md: bf16, batch x seqlen = 16384 tokens, heads x head_dim = 2048, BSHD;
TFLOP/s = 4*B*H*N^2*D / time, halved when causal.
"""
import argparse
import math
import statistics
import sys
from pathlib import Path

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))
import fattn  # noqa: E402

CHECK_TOLERANCE = 1e-2  # rel L2 against SDPA; each alone is ~2e-3 in bf16


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


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--variant", action="append", required=True, help="NAME=DIR")
    p.add_argument("--dims", default="64,128,256")
    p.add_argument("--seqs", default="2048,8192,16384")
    p.add_argument("--causal", default="both", choices=["both", "0", "1"])
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--rep", type=int, default=30)
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
                flops = 4.0 * b * h * n * n * d / (2 if causal else 1)
                qt, kt, vt = (x.transpose(1, 2) for x in (q, k, v))

                def fa2():
                    with sdpa_kernel([SDPBackend.FLASH_ATTENTION]):
                        return F.scaled_dot_product_attention(qt, kt, vt, is_causal=causal)

                ref = fa2().transpose(1, 2).float()
                tflops = {"FA2": flops / time_ms(fa2, a.warmup, a.rep) / 1e9}
                for name, path in variants:
                    fattn.set_kernel_dir(path)

                    def run():
                        return fattn.flash_attn_func(q, k, v, causal=causal, arch="sm_80")

                    try:
                        out = run().float()
                        err = ((out - ref).norm() / ref.norm()).item()
                        if not math.isfinite(err) or err > CHECK_TOLERANCE:
                            tflops[name] = f"WRONG({err:.1e})"
                            continue
                        tflops[name] = flops / time_ms(run, a.warmup, a.rep) / 1e9
                    except Exception as e:  # report and go on with the other variants
                        tflops[name] = "ERR"
                        print(f"  {name} d={d} n={n} causal={causal}: {str(e)[:200]}", file=sys.stderr)
                cells = [f"{tflops[x]:.1f}" if isinstance(tflops[x], float) else tflops[x]
                         for x in ["FA2"] + names]
                ratios = [f"{tflops[x] / tflops['FA2']:.3f}" if isinstance(tflops[x], float) else "-"
                          for x in names]
                print(f"| {d} | {n} | {'yes' if causal else 'no'} | " + " | ".join(cells) + " | "
                      + " | ".join(ratios) + " |", flush=True)


if __name__ == "__main__":
    main()
