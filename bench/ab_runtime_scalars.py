"""Interleaved A/B of one configuration's two kernels: the scale and the softcap
compiled in (A, flash_attn_func's default) or passed at each launch (B, with
FATTN_RUNTIME_SCALARS=1); docs/PERF.md has the last run.

    python3 -m fattn.build_library --config-file CELLS.json -o LIB   # both variants:
    python3 bench/ab_runtime_scalars.py --print-configs > CELLS.json  #   this list
    FATTN_KERNEL_DIR=LIB python3 bench/ab_runtime_scalars.py [--rep 200]

Each cell (bf16, BSHD, 16384 tokens, heads x head_dim = 2048 as bench_fwd.py; GQA
Llama-3-8B; a softcap) launches both kernels on the same inputs through the runtime,
alternating call by call (interleaved.py), after checking that both write the same
output as a float32 reference (on a slice) within the bf16 bound. Prints TFLOP/s of each and B / A.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "python"), str(REPO / "bench")]

from fattn.config import KernelConfig  # noqa: E402

# (head dim, seqlen, causal, heads_q, heads_kv, softcap)
CELLS = [(d, n, c, 2048 // d, 2048 // d, 0.0)
         for d in (64, 128, 256) for n in (1024, 4096, 16384) for c in (False, True)]
CELLS += [(128, n, True, 32, 8, 0.0) for n in (4096, 8192)]  # Llama-3-8B prefill
CELLS += [(128, 4096, True, 16, 16, 50.0)]                   # a softcap


def config(d: int, causal: bool, softcap: float, runtime_scalars: bool) -> KernelConfig:
    return KernelConfig.make("sm_90a", "bf16", d, d, causal, -1, 0 if causal else -1,
                             softcap, None, False, runtime_scalars=runtime_scalars)


def print_configs() -> None:
    seen = []
    for d, _, causal, _, _, softcap in CELLS:
        for rt in (False, True):
            spec = dict(arch="sm_90a", dtype="bf16", head_dim_qk=d, head_dim_v=d,
                        causal=causal, softcap=softcap, runtime_scalars=rt)
            if spec not in seen:
                seen.append(spec)
    print(json.dumps(seen, indent=1))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--print-configs", action="store_true",
                   help="print the kernel configurations (build_library --config-file)")
    p.add_argument("--warmup", type=int, default=100)
    p.add_argument("--rep", type=int, default=200)
    args = p.parse_args()
    if args.print_configs:
        return print_configs()

    import torch
    from fattn.interface import _logical
    from fattn.kernels import get_kernel_for_lengths
    from interleaved import median_ms_interleaved

    stream = torch.cuda.current_stream().cuda_stream
    print(f"{torch.cuda.get_device_name()}, warm-up {args.warmup}, {args.rep} interleaved "
          "calls each, medians")
    print("| d | seqlen | mask | heads | A compiled-in | B at launch | B / A |")
    print("|---|---|---|---|---|---|---|")
    worst = 1e9
    for d, n, causal, hq, hkv, softcap in CELLS:
        b = max(1, 16384 // n)
        torch.manual_seed(n + d)
        q = torch.randn(b, n, hq, d, dtype=torch.bfloat16, device="cuda")
        k = torch.randn(b, n, hkv, d, dtype=torch.bfloat16, device="cuda")
        v = torch.randn(b, n, hkv, d, dtype=torch.bfloat16, device="cuda")
        scale = 1.0 / math.sqrt(d)
        outs, calls = {}, {}
        for name, rt in (("A", False), ("B", True)):
            kernel = get_kernel_for_lengths(config(d, causal, softcap, rt), n, n)
            out = torch.full_like(q, float("nan"))
            tensors = [_logical(t, "bf16") for t in (q, k, v, out)]
            scalars = (scale, softcap) if rt else None
            calls[name] = (lambda kern=kernel, ts=tensors, sc=scalars:
                           kern.launch(ts, stream, sc))
            outs[name] = out
        for call in calls.values():
            call()
        torch.cuda.synchronize()
        # The reference on the last 256 queries of batch 0, heads 0 and the last.
        rows = torch.arange(n - 256, n, device="cuda")
        heads = [0, hq - 1]
        qf = q[0, n - 256:, heads].float().transpose(0, 1)
        kf, vf = (t[0, :, [h // (hq // hkv) for h in heads]].float().transpose(0, 1)
                  for t in (k, v))
        s = qf @ kf.transpose(-1, -2) * scale
        if softcap:
            s = softcap * torch.tanh(s / softcap)
        if causal:
            s = s.masked_fill(torch.arange(n, device="cuda")[None, :] > rows[:, None],
                              float("-inf"))
        ref = (s.softmax(-1) @ vf).transpose(0, 1)
        for name, out in outs.items():
            got = out[0, n - 256:, heads].float()
            err = ((got - ref).norm() / ref.norm()).item()
            if not err < 1e-2:
                raise SystemExit(f"d{d} n{n} causal={causal}: kernel {name} rel. L2 error {err}")
        ms = median_ms_interleaved(calls, args.warmup, args.rep)
        f = 4 * b * hq * n * n * d / (2 if causal else 1)
        ta, tb = (f / ms[x] / 1e9 for x in ("A", "B"))
        worst = min(worst, tb / ta)
        mask = ("causal" if causal else "none") + (f" softcap {softcap:g}" if softcap else "")
        print(f"| {d} | {n} | {mask} | {hq}/{hkv} | {ta:.0f} | {tb:.0f} | {tb / ta:.3f} |",
              flush=True)
    print(f"worst B / A: {worst:.3f}")


if __name__ == "__main__":
    main()
