#!/usr/bin/env python3
"""Correctness (against float64) and timing (beside torch SDPA FlashAttention-2) of the
sm_80 kernels built by bench/sm80/sm80_kernels.py. Runs on the GPU machine (torch + cupy).

usage: python3 bench/sm80/sm80_gpu_check.py [--dir kernels-out/sm80] [--no-bench]
"""
import argparse
import json
import math
import pathlib

import cupy as cp
import numpy as np
import torch
import torch.nn.functional as F

DT = {"bf16": torch.bfloat16, "f16": torch.float16}


class Kernel:
    def __init__(self, path):
        self.desc = json.loads(path.read_text())
        # sm_80 SASS does not run on sm_90: take the sm_80 PTX assembled for the device.
        major, minor = torch.cuda.get_device_capability()
        cubin = self.desc["cubin"]
        if (major, minor) != (8, 0):
            cubin = cubin.replace(".cubin", f".sm_{major}{minor}.cubin")
        mod = cp.RawModule(path=str(path.parent / cubin))
        self.fn = mod.get_function(self.desc["entry"])
        self.fn.max_dynamic_shared_size_bytes = self.desc["dynamic_smem_bytes"]

    def __call__(self, q, k, v, o, lse):
        """q, k, v, o: BSHD torch tensors; lse: [B, H, S] f32 or None."""
        d = self.desc
        B, Sq, Hq, _ = q.shape
        Sk, Hkv = k.shape[1], k.shape[2]
        args = [np.uint64(t.data_ptr()) for t in (q, k, v, o)]
        if d["has_lse"]:
            args.append(np.uint64(lse.data_ptr()))
        args += [np.uint32(x) for x in (B, Hq, Hkv, Sq, Sk)]
        for t in (q, k, v, o):  # logical [b, h, s, d] strides of BSHD storage
            args += [np.uint64(t.stride(0)), np.uint64(t.stride(2)), np.uint64(t.stride(1))]
        if d["has_lse"]:
            args += [np.uint64(lse.stride(0)), np.uint64(lse.stride(1))]
        grid = ((Sq + d["block_m"] - 1) // d["block_m"], Hq, B)
        with cp.cuda.ExternalStream(torch.cuda.current_stream().cuda_stream):
            self.fn(grid, (d["threads"], 1, 1), tuple(args), shared_mem=d["dynamic_smem_bytes"])


def reference(q, k, v, scale, wl, wr, softcap):
    """float64, BSHD in, (O [B,S,H,D], LSE [B,H,S])."""
    q, k, v = (t.double().transpose(1, 2) for t in (q, k, v))
    g = q.shape[1] // k.shape[1]
    k = k.repeat_interleave(g, dim=1)
    v = v.repeat_interleave(g, dim=1)
    s = q @ k.transpose(-1, -2) * scale
    if softcap > 0:
        s = softcap * torch.tanh(s / softcap)
    Sq, Sk = q.shape[2], k.shape[2]
    i = torch.arange(Sq, device=q.device)[:, None] + (Sk - Sq)
    j = torch.arange(Sk, device=q.device)[None, :]
    vis = torch.ones(Sq, Sk, dtype=torch.bool, device=q.device)
    if wl >= 0:
        vis &= j >= i - wl
    if wr >= 0:
        vis &= j <= i + wr
    s = s.masked_fill(~vis, -math.inf)
    lse = torch.logsumexp(s, dim=-1)
    p = torch.exp(s - lse[..., None]).nan_to_num(0.0)
    o = (p @ v).transpose(1, 2)
    return o, lse


def rel_l2(x, ref):
    return ((x.double() - ref).norm() / ref.norm().clamp_min(1e-30)).item()


def check(kern, B, Sq, Sk, Hq, Hkv):
    d = kern.desc
    D = d["head_dim_qk"]
    dt = DT[d["dtype"]]
    q = torch.randn(B, Sq, Hq, D, device="cuda", dtype=dt)
    k = torch.randn(B, Sk, Hkv, D, device="cuda", dtype=dt)
    v = torch.randn(B, Sk, Hkv, D, device="cuda", dtype=dt)
    o = torch.full_like(q, float("nan"))
    lse = torch.full((B, Hq, Sq), float("nan"), device="cuda") if d["has_lse"] else None
    kern(q, k, v, o, lse)
    torch.cuda.synchronize()
    ro, rl = reference(q, k, v, d["scale"], d["window_left"], d["window_right"], d["softcap"])
    err = rel_l2(o, ro)
    nan = torch.isnan(o).any().item()
    line = f"{d['entry']:28s} B={B} Sq={Sq} Sk={Sk} Hq={Hq} Hkv={Hkv}: O rel L2 {err:.2e}"
    ok = err < 1e-2 and not nan
    if lse is not None:
        fin = torch.isfinite(rl)
        lerr = (lse[fin].double() - rl[fin]).abs().max().item() if fin.any() else 0.0
        neg = bool((lse[~fin] == -math.inf).all().item())
        line += f", LSE max abs {lerr:.2e}, -inf rows ok {neg}"
        ok = ok and lerr < 1e-3 and neg and not torch.isnan(lse).any().item()
    print(("PASS " if ok else "FAIL ") + line + (" NaN!" if nan else ""))
    return ok


def bench(fn, iters=20):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(iters):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        ts.append(a.elapsed_time(b))
    return float(np.median(ts))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--dir", default="kernels-out/sm80")
    p.add_argument("--no-bench", action="store_true")
    a = p.parse_args()
    print(torch.cuda.get_device_name(), "torch", torch.__version__)
    kernels = {j.stem: Kernel(j) for j in sorted(pathlib.Path(a.dir).glob("*.json"))}
    ok = True
    for name, kern in kernels.items():
        torch.manual_seed(hash(name) % 1000)
        ok &= check(kern, 2, 1000, 1000, 8, 8)      # tails (not multiples of the tiles)
        ok &= check(kern, 1, 77, 333, 6, 2)         # GQA, seq_q != seq_k, tiny
        ok &= check(kern, 2, 256, 128, 4, 1)        # MQA, seq_q > seq_k (rows without keys when causal)
    print("ALL PASS" if ok else "SOME FAILED")
    if a.no_bench:
        return
    print("\nforward bf16 TFLOP/s (4*B*H*N^2*D, /2 causal), B*N = 16384, H*D = 2048, median of 20")
    from torch.nn.attention import SDPBackend, sdpa_kernel
    for D in (64, 128):
        for N, causal in ((2048, False), (8192, False), (16384, False), (2048, True), (16384, True)):
            name = f"fattn_fwd_d{D}_bf16" + ("_causal" if causal else "")
            if name not in kernels:
                continue
            B, H = 16384 // N, 2048 // D
            q, k, v = (torch.randn(B, N, H, D, device="cuda", dtype=torch.bfloat16) for _ in range(3))
            o = torch.empty_like(q)
            lse = torch.empty(B, H, N, device="cuda")
            kern = kernels[name]
            flops = 4 * B * H * N * N * D / (2 if causal else 1)
            t_f = bench(lambda: kern(q, k, v, o, lse))
            qt, kt, vt = (x.transpose(1, 2) for x in (q, k, v))
            with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
                t_s = bench(lambda: F.scaled_dot_product_attention(qt, kt, vt, is_causal=causal))
            o_ref = F.scaled_dot_product_attention(qt, kt, vt, is_causal=causal).transpose(1, 2)
            kern(q, k, v, o, lse)
            diff = rel_l2(o, o_ref.double())
            print(f"d={D:3d} N={N:5d} causal={causal!s:5}: fattn {flops / t_f / 1e9:6.1f}  "
                  f"SDPA-FA2 {flops / t_s / 1e9:6.1f}  ratio {t_s / t_f:.2f}  (rel diff to SDPA {diff:.1e})")


if __name__ == "__main__":
    main()
