#!/usr/bin/env python3
"""Runs the sm_90a kernels of build_kernels.py on the GPU: correctness against a
float64 reference (fresh random inputs, output poisoned with NaN first) and
timing beside torch SDPA (FlashAttention-2 backend) in the same run.

Launches through the CUDA driver API with ctypes (cuModuleLoadData,
cuTensorMapEncodeTiled, cuLaunchKernel), following docs/KERNEL-ABI.md and the
tensormap parameters of each kernel's JSON description.

usage: check_sm90.py KERNEL_DIR [NAME ...] [--bench] [--bench-matrix] [--check-bench] [--bench-fp8]
  --bench-matrix: the bench_* schedule variants beside SDPA FA2/cuDNN (SEQS, ROUNDS; INTERLEAVE=n times interleaved single launches instead)
  --check-bench: also run the correctness cases on the bench_* kernels
  --bench-fp8: the FP8 kernels (e4m3) beside SDPA cuDNN in bf16 (FP8_SEQS, default 4096,8192,16384)

FP8 kernels (dtype e4m3) are checked against float64 attention of the
dequantized inputs: Q, K, V quantized here with torch (the descale shapes of
the kernel's "descale" description: per tensor, per (batch, KV head), per
block), inputs scaled by random factors per block so that the descales differ
(FP8_PLAIN=1: N(0, 1) throughout, as bench/bench_fwd.py's inputs).
A kernel whose description has "value_layout" gets V pre-transposed by
fattn.transpose_value_fp8 ([B, H, D, keys]; the parameters follow the logical dims).
"""
import ctypes, json, math, os, sys, time
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
from interleaved import median_ms_interleaved  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from fattn.quantize import transpose_value_fp8  # noqa: E402

cuda = ctypes.CDLL("libcuda.so.1")
DT = {"bf16": (torch.bfloat16, 9), "f16": (torch.float16, 6),
      "e4m3": (torch.float8_e4m3fn, 0)}  # CU_TENSOR_MAP_DATA_TYPE_UINT8


def check(res, what):
    if res != 0:
        name = ctypes.c_char_p()
        cuda.cuGetErrorName(res, ctypes.byref(name))
        raise RuntimeError(f"{what}: {name.value.decode()}")


def runtime_tensor(t):
    """The runtime's view of a [B, H, S, D] tensor (check_sm90's layout)."""
    from fattn._runtime import TensorDesc
    dtype = next(name for name, (torch_dtype, _) in DT.items() if torch_dtype == t.dtype)
    return TensorDesc.make(t.data_ptr(), dtype, tuple(t.shape), t.stride())


class Kernel:
    def __init__(self, kdir, desc):
        self.desc = desc
        torch.cuda.init()
        torch.zeros(1, device="cuda")
        data = open(os.path.join(kdir, desc["cubin"]), "rb").read()
        self.module = ctypes.c_void_p()
        check(cuda.cuModuleLoadData(ctypes.byref(self.module), data), "cuModuleLoadData")
        self.func = ctypes.c_void_p()
        check(cuda.cuModuleGetFunction(ctypes.byref(self.func), self.module,
                                       desc["entry"].encode()), "cuModuleGetFunction")
        check(cuda.cuFuncSetAttribute(self.func, 8, desc["dynamic_smem_bytes"]),
              "cuFuncSetAttribute")
        # Kernels with the work order's tail: the runtime chooses
        # tail_pairs (KERNEL-ABI.md), from the description as fattn-opt
        # wrote it (the manifest adds build_kernels.py's own keys).
        self.runtime = None
        if "work_order" in desc:
            from fattn._runtime import Kernel as RuntimeKernel
            own = {"name", "registers", "options", "spills", "wgmma_serialized"}
            text = json.dumps({k: v for k, v in desc.items() if k not in own})
            self.runtime = RuntimeKernel.from_data(text, data, desc["name"])
        # split-tail kernels: one zeroed slot per CTA (SM), reused by every
        # launch (each launch leaves its arrival counters zero again).
        self.workspace = None
        if "workspace_bytes_per_cta" in desc:
            sms = torch.cuda.get_device_properties(0).multi_processor_count
            self.workspace = torch.zeros(sms * desc["workspace_bytes_per_cta"],
                                         device="cuda", dtype=torch.uint8)

    def counters_clear(self):
        """split-tail: every arrival counter (the first 256 bytes of each
        slot) back to zero after the launches so far."""
        if self.workspace is None:
            return True
        slots = self.workspace.view(-1, self.desc["workspace_bytes_per_cta"])
        return not slots[:, :256].any().item()

    def tensor_map(self, t, spec):
        """t: [B, H, S, D] view (V^T: [B, H, D, keys]) with unit last stride."""
        m = (ctypes.c_uint8 * 192)()  # 128 bytes, 64-aligned inside
        addr = (ctypes.addressof(m) + 63) // 64 * 64
        es = t.element_size()
        dims = (ctypes.c_uint64 * 4)(*[t.shape[3], t.shape[2], t.shape[1], t.shape[0]])
        strides = (ctypes.c_uint64 * 3)(*[t.stride(2) * es, t.stride(1) * es, t.stride(0) * es])
        box = (ctypes.c_uint32 * 4)(*reversed(spec["box"]))
        ones = (ctypes.c_uint32 * 4)(1, 1, 1, 1)
        check(cuda.cuTensorMapEncodeTiled(ctypes.c_void_p(addr), DT[self.desc["dtype"]][1], 4,
                                          ctypes.c_void_p(t.data_ptr()), dims, strides, box, ones,
                                          0, 3, 3, 0), "cuTensorMapEncodeTiled")
        return m, addr

    def __call__(self, q, k, v, o, lse=None, descales=None):
        self.prepare(q, k, v, o, lse, descales)()

    def prepare(self, q, k, v, o, lse=None, descales=None):
        """Encodes the parameters (tensor maps included) once and returns a
        function that only launches: timing the returned function leaves the
        Python encoding outside the CUDA events."""
        d = self.desc
        keep, ptrs = [], []
        sizes = {"batch": q.shape[0], "heads_q": q.shape[1], "heads_kv": k.shape[1],
                 "seq_q": q.shape[2], "seq_k": k.shape[2],
                 "num_sms": torch.cuda.get_device_properties(q.device).multi_processor_count}
        tensors = {"q": q, "k": k, "v": v, "o": o, "lse": lse, "workspace": self.workspace}
        for t, x in zip("qkv", descales or ()):
            tensors[t + "_descale"] = x
        if self.runtime is not None:
            sizes["tail_pairs"] = self.runtime.tail_pairs(
                [runtime_tensor(x) for x in (q, k, v, o)], sizes["num_sms"])
            if os.environ.get("TAIL_PAIRS"):  # exploration: a forced tail
                sizes["tail_pairs"] = int(os.environ["TAIL_PAIRS"])
        for p in d["params"]:
            n, ty = p["name"], p["type"]
            if ty == "ptr":
                val = ctypes.c_uint64(tensors[n].data_ptr())
            elif ty == "u32":
                val = ctypes.c_uint32(sizes[n])
            elif ty == "u64" and "_descale_stride_" in n:
                # [b, h, blk] strides in elements; 0 for dims it lacks.
                t, dim = n.split("_descale_stride_")
                x = tensors[t + "_descale"]
                dims = {0: [], 2: ["b", "h"], 3: ["b", "h", "blk"]}[x.dim()]
                val = ctypes.c_uint64(x.stride(dims.index(dim)) if dim in dims else 0)
            elif ty == "u64":
                t, _, dim = n.split("_")
                val = ctypes.c_uint64(tensors[t].stride("bhs".index(dim)))
            elif ty == "tensormap":
                m, addr = self.tensor_map(tensors[p["tensor"]], p)
                keep.append(m)
                ptrs.append(ctypes.c_void_p(addr))
                continue
            keep.append(val)
            ptrs.append(ctypes.cast(ctypes.pointer(val), ctypes.c_void_p))
        args = (ctypes.c_void_p * len(ptrs))(*ptrs)
        grid = [math.ceil(sizes[name] / div) for name, div in d["grid"]]
        grid += [1] * (3 - len(grid))
        stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
        func, threads, smem = self.func, d["threads"], d["dynamic_smem_bytes"]

        def launch():
            # `keep` and `args` live as long as this closure: the driver reads
            # the parameter buffers at launch time.
            check(cuda.cuLaunchKernel(func, *grid, threads, 1, 1, smem, stream, args, None),
                  "cuLaunchKernel")
            return keep
        return launch

def reference(q, k, v, desc):
    """float64 attention with the kernel's semantics; returns (O, LSE)."""
    q, k, v = (x.double() for x in (q, k, v))
    group = q.shape[1] // k.shape[1]
    k = k.repeat_interleave(group, 1)
    v = v.repeat_interleave(group, 1)
    s = q @ k.transpose(-1, -2) * desc["scale"]
    if desc["softcap"] > 0:
        s = desc["softcap"] * torch.tanh(s / desc["softcap"])
    sq, sk = q.shape[2], k.shape[2]
    i = torch.arange(sq, device=q.device)[:, None] + (sk - sq)
    j = torch.arange(sk, device=q.device)[None, :]
    visible = torch.ones(sq, sk, dtype=torch.bool, device=q.device)
    if desc["window_left"] >= 0:
        visible &= j >= i - desc["window_left"]
    if desc["window_right"] >= 0:
        visible &= j <= i + desc["window_right"]
    s = s.masked_fill(~visible, -math.inf)
    lse = torch.logsumexp(s, -1)
    p = torch.exp(s - lse[..., None]).nan_to_num(0.0)
    o = p @ v
    return o, lse


def bshd(b, s, h, d, dtype):
    """A BSHD tensor seen as [B, H, S, D] (the layout flash_attn_func takes)."""
    return torch.randn(b, s, h, d, device="cuda", dtype=dtype).transpose(1, 2)


def run_case(kern, b, hq, hkv, sq, sk):
    desc = kern.desc
    dtype = DT[desc["dtype"]][0]
    d = desc["head_dim_qk"]
    q, k, v = bshd(b, sq, hq, d, dtype), bshd(b, sk, hkv, d, dtype), bshd(b, sk, hkv, d, dtype)
    o = torch.full((b, sq, hq, d), float("nan"), device="cuda", dtype=dtype).transpose(1, 2)
    lse = torch.full((b, hq, sq), float("nan"), device="cuda") if desc["has_lse"] else None
    kern(q, k, v, o, lse)
    torch.cuda.synchronize()
    ro, rlse = reference(q, k, v, desc)
    nan = torch.isnan(o).any().item()
    err = ((o.double() - ro).norm() / ro.norm().clamp_min(1e-30)).item()
    # The same error measure for the output rounded to the element type: the floor.
    floor = ((ro.to(dtype).double() - ro).norm() / ro.norm().clamp_min(1e-30)).item()
    line = f"  B={b} Hq={hq} Hkv={hkv} Sq={sq} Sk={sk}: rel L2 err {err:.2e} (rounding floor {floor:.2e})"
    ok = not nan and err < max(4 * floor, 1e-2)
    if lse is not None:
        fin = torch.isfinite(rlse)
        lerr = (lse.double()[fin] - rlse[fin]).abs().max().item() if fin.any() else 0.0
        inf_ok = bool((lse[~fin] == -math.inf).all().item())
        line += f", LSE max abs err {lerr:.2e}, -inf rows ok {inf_ok}"
        ok = ok and lerr < 2e-3 and inf_ok and not torch.isnan(lse).any().item()
    if not kern.counters_clear():
        ok, line = False, line + ", split-tail counters left nonzero"
    print(("PASS" if ok else "FAIL") + line + (" NaN in output" if nan else ""))
    return ok


def quantize(x, spec, heads_kv):
    """x: float [B, H, S, D] -> (e4m3 tensor of x's layout, f32 descale of
    the kernel's shape for `spec` = {"rank": r, "block": n}), like
    fattn.quantize_fp8: descale = max(amax / 448, 2^-126), RNE, saturated."""
    b, h, s, _ = x.shape
    xf = x.float()
    if spec["rank"] == 0:
        amax = xf.abs().amax()
        scale = (amax / 448).clamp_min(2.0 ** -126)
        full = scale
    elif spec["rank"] == 2:  # [B, Hkv]: the heads that share a KV head
        g = h // heads_kv
        amax = xf.abs().reshape(b, heads_kv, g * s * x.shape[3]).amax(-1)
        scale = (amax / 448).clamp_min(2.0 ** -126)
        full = scale.repeat_interleave(g, 1)[:, :, None, None]
    else:
        blk = spec["block"]
        nb = (s + blk - 1) // blk
        pad = torch.zeros(b, h, nb * blk, x.shape[3], device=x.device)
        pad[:, :, :s] = xf
        amax = pad.abs().reshape(b, h, nb, blk * x.shape[3]).amax(-1)
        scale = (amax / 448).clamp_min(2.0 ** -126)
        full = scale.repeat_interleave(blk, 2)[:, :, :s, None]
    x8 = (xf / full).clamp(-448, 448).to(torch.float8_e4m3fn)
    return x8, scale.contiguous().float()


def dequantize(x8, scale, spec, heads_kv):
    b, h, s, _ = x8.shape
    if spec["rank"] == 0:
        full = scale
    elif spec["rank"] == 2:
        full = scale.repeat_interleave(h // heads_kv, 1)[:, :, None, None]
    else:
        full = scale.repeat_interleave(spec["block"], 2)[:, :, :s, None]
    return x8.double() * full.double()


def fp8_inputs(desc, b, hq, hkv, sq, sk):
    """Random BSHD Q, K, V with per-128-row factors 2^U(-3, 3), quantized by
    the kernel's descale spec (per tensor without one); returns the e4m3
    tensors, the descales (or None) and the dequantized float64 tensors."""
    d = desc["head_dim_qk"]
    spec = desc.get("descale") or {"q": {"rank": 0}, "k": {"rank": 0}, "v": {"rank": 0}}
    out, scales, deq = [], [], []
    for t, h, s in (("q", hq, sq), ("k", hkv, sk), ("v", hkv, sk)):
        x = torch.randn(b, s, h, d, device="cuda").transpose(1, 2)
        nb = (s + 127) // 128
        f = torch.exp2(torch.empty(b, h, nb, device="cuda").uniform_(-3, 3))
        if os.environ.get("FP8_PLAIN"):  # N(0, 1) throughout, as bench_fwd.py's inputs
            f = torch.ones_like(f)
        x = x * f.repeat_interleave(128, 2)[:, :, :s, None]
        if desc.get("descale"):
            x8, sc = quantize(x, spec[t], hkv)
        else:  # no descales: the values themselves (|x| <= 448)
            x8, sc = x.clamp(-448, 448).to(torch.float8_e4m3fn), torch.ones((), device="cuda")
        # BSHD storage for the kernel, as flash_attn_func takes it.
        x8 = x8.transpose(1, 2).contiguous().transpose(1, 2)
        out.append(x8); scales.append(sc); deq.append(dequantize(x8, sc, spec[t], hkv))
    if desc.get("value_layout"):  # [B, H, D, keys], as flash_attn_func(v_layout=...) takes it
        out[2] = transpose_value_fp8(out[2].transpose(1, 2))
    return out, (scales if desc.get("descale") else None), deq


def run_fp8_case(kern, b, hq, hkv, sq, sk):
    desc = kern.desc
    d = desc["head_dim_qk"]
    (q, k, v), descales, (dq, dk, dv) = fp8_inputs(desc, b, hq, hkv, sq, sk)
    o = torch.full((b, sq, hq, d), float("nan"), device="cuda", dtype=torch.bfloat16).transpose(1, 2)
    lse = torch.full((b, hq, sq), float("nan"), device="cuda") if desc["has_lse"] else None
    kern(q, k, v, o, lse, descales)
    torch.cuda.synchronize()
    ro, rlse = reference(dq, dk, dv, desc)
    nan = torch.isnan(o).any().item()
    err = ((o.double() - ro).norm() / ro.norm().clamp_min(1e-30)).item()
    # P is rounded to e4m3 (3 mantissa bits) in the kernel: about 2e-2. Bytes from a
    # linear 2^x ("exp2": "linear") add the line's own 1.9% RMS to the rounding's
    # 3.6%: about 1.13 times as much.
    bound = 4.5e-2 if desc.get("meta", {}).get("exp2") == "linear" else 4e-2
    line = f"  B={b} Hq={hq} Hkv={hkv} Sq={sq} Sk={sk}: rel L2 err {err:.2e} (bound {bound:g})"
    ok = not nan and err < bound
    if lse is not None:
        fin = torch.isfinite(rlse)
        lerr = (lse.double()[fin] - rlse[fin]).abs().max().item() if fin.any() else 0.0
        inf_ok = bool((lse[~fin] == -math.inf).all().item())
        # The LSE error grows with the scores while O stays accurate
        # (measured 2026-11-29: up to 1.2e-1 at head dim 256 on these inputs,
        # |LSE| up to ~200; bf16 kernels 2e-6): presumably the e4m3 wgmma's
        # accumulation, which keeps fewer bits than f32 (DeepSeek-V3 reports
        # about 14 on H800). Hence a bound relative to |LSE|; a mask error
        # moves the LSE by O(1).
        rel = ((lse.double()[fin] - rlse[fin]).abs() / (2e-3 + 1e-3 * rlse[fin].abs())).max().item() if fin.any() else 0.0
        line += f", LSE max abs err {lerr:.2e} (bound 2e-3 + 1e-3 |LSE|: {rel:.2f} of it), -inf rows ok {inf_ok}"
        ok = ok and rel <= 1.0 and inf_ok and not torch.isnan(lse).any().item()
    if not kern.counters_clear():
        ok, line = False, line + ", split-tail counters left nonzero"
    print(("PASS" if ok else "FAIL") + line + (" NaN in output" if nan else ""), flush=True)
    return ok


def bench_fp8(kernels, rounds):
    """FP8 kernels beside SDPA cuDNN in bf16 (the same shapes, bf16 inputs),
    causal and not (no windows), H * D = 2048; best of `rounds` rotated
    rounds."""
    from torch.nn.attention import sdpa_kernel, SDPBackend
    fp8 = {n: k for n, k in kernels.items() if k.desc["dtype"] == "e4m3"
           and (k.desc["causal"] or k.desc["window_left"] < 0 and k.desc["window_right"] < 0)}
    print(f"BENCH-FP8 TFLOP/s ({timing_method(rounds)}, FLOPs 4 B H S^2 D, halved when "
          f"causal), cuDNN bf16 same run")
    for d, causal in sorted({(k.desc["head_dim_qk"], k.desc["causal"]) for k in fp8.values()}):
        group = {n: k for n, k in fp8.items()
                 if k.desc["head_dim_qk"] == d and k.desc["causal"] == causal}
        for s in [int(x) for x in os.environ.get("FP8_SEQS", "4096,8192,16384").split(",")]:
            b, h = max(1, 16384 // s), 2048 // d
            fns = {}
            for n, kern in group.items():
                (q, k, v), descales, _ = fp8_inputs(kern.desc, b, h, h, s, s)
                o = torch.empty(b, s, h, d, device="cuda", dtype=torch.bfloat16).transpose(1, 2)
                lse = torch.empty(b, h, s, device="cuda") if kern.desc["has_lse"] else None
                fns[n] = kern.prepare(q, k, v, o, lse, descales)
            qb, kb, vb = (bshd(b, s, h, d, torch.bfloat16) for _ in range(3))
            def cudnn():
                with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
                    F.scaled_dot_product_attention(qb, kb, vb, is_causal=causal)
            fns["cuDNN-bf16"] = cudnn
            flops = 4 * b * h * s * s * d / (2 if causal else 1)
            names = list(fns)
            best = time_functions(fns, flops, rounds)
            cells = " ".join(f"{n}={best[n]:.0f}" for n in names)
            print(f"BENCH-FP8 d={d} S={s} causal={causal} B={b} H={h}: {cells}", flush=True)


def timeit(fn, flops, iters=20):
    """TFLOP/s of the median of `iters` CUDA-event timings after 3 warm-ups."""
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(iters):
        e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        e0.record(); fn(); e1.record()
        torch.cuda.synchronize()
        times.append(e0.elapsed_time(e1))
    times.sort()
    return flops / (times[len(times) // 2] * 1e-3) / 1e12


def time_functions(fns, flops, rounds):
    """TFLOP/s per function: interleaved single launches (INTERLEAVE=n
    launches each), or else the best of `rounds` rotated rounds of timeit."""
    iters = int(os.environ.get("INTERLEAVE", "0"))
    if iters:
        ms = median_ms_interleaved(fns, 1, iters)
        return {n: flops / (t * 1e-3) / 1e12 for n, t in ms.items()}
    names = list(fns)
    best = {n: 0.0 for n in names}
    for r in range(rounds):
        for n in names[r % len(names):] + names[:r % len(names)]:
            best[n] = max(best[n], timeit(fns[n], flops))
    return best


def timing_method(rounds):
    iters = int(os.environ.get("INTERLEAVE", "0"))
    return (f"median of {iters} interleaved launches" if iters
            else f"best of {rounds} rounds")


def bench_matrix(kernels, seqs, rounds):
    """The schedule variants (kernels named bench_<variant>_d<D>[_causal])
    beside SDPA FA2 and cuDNN, bf16, B*N = 16384, H*D = 2048. Each round
    times the peers and every variant once, in rotated order; the table
    shows the best of the rounds for every column. The kernels' parameters
    are encoded before timing (Kernel.prepare)."""
    from torch.nn.attention import sdpa_kernel, SDPBackend
    groups = {}
    for name, kern in kernels.items():
        if name.startswith("bench_"):
            _, variant, rest = name.split("_", 2)
            groups.setdefault(rest, {})[variant] = kern
    print(f"BENCH variant TFLOP/s ({timing_method(rounds)}), fattn/cuDNN in brackets")
    for rest in sorted(groups, key=lambda r: (int(r.split("_")[0][1:]), r)):
        variants = groups[rest]
        any_kern = next(iter(variants.values()))
        d, causal = any_kern.desc["head_dim_qk"], any_kern.desc["causal"]
        for s in seqs:
            b, h = max(1, 16384 // s), 2048 // d
            q, k, v = (bshd(b, s, h, d, torch.bfloat16) for _ in range(3))
            o = torch.empty(b, s, h, d, device="cuda", dtype=torch.bfloat16).transpose(1, 2)
            flops = 4 * b * h * s * s * d / (2 if causal else 1)
            fns = {}
            for vname, kern in variants.items():
                fns[vname] = kern.prepare(q, k, v, o)
            def fa2():
                with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
                    F.scaled_dot_product_attention(q, k, v, is_causal=causal)
            def cudnn():
                with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
                    F.scaled_dot_product_attention(q, k, v, is_causal=causal)
            fns["FA2"], fns["cuDNN"] = fa2, cudnn
            names = list(fns)
            best = time_functions(fns, flops, rounds)
            cu = best["cuDNN"]
            cells = " ".join(f"{n}={best[n]:.0f}" + ("" if n in ("FA2", "cuDNN") else f"[{best[n] / cu:.2f}]")
                             for n in names)
            print(f"BENCH d={d} N={s} causal={causal} B={b} H={h}: {cells}", flush=True)


def bench(kern, b, h, s, iters=20):
    desc = kern.desc
    dtype = DT[desc["dtype"]][0]
    d = desc["head_dim_qk"]
    causal = desc["causal"]
    q, k, v = bshd(b, s, h, d, dtype), bshd(b, s, h, d, dtype), bshd(b, s, h, d, dtype)
    o = torch.empty(b, s, h, d, device="cuda", dtype=dtype).transpose(1, 2)
    lse = torch.empty(b, h, s, device="cuda") if desc["has_lse"] else None
    flops = 4 * b * h * s * s * d / (2 if causal else 1)

    ours = timeit(kern.prepare(q, k, v, o, lse), flops, iters)
    from torch.nn.attention import sdpa_kernel, SDPBackend
    with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
        fa2 = timeit(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal), flops, iters)
    try:
        with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
            cudnn = timeit(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal),
                           flops, iters)
    except RuntimeError:
        cudnn = float("nan")
    print(f"BENCH {desc['entry']} B={b} H={h} S={s} D={d} causal={causal}: fattn {ours:.0f} "
          f"TFLOP/s, SDPA FA2 {fa2:.0f}, SDPA cuDNN {cudnn:.0f}, fattn/FA2 {ours / fa2:.2f}")


CASES = [  # (B, Hq, Hkv, Sq, Sk)
    (2, 4, 4, 512, 512), (1, 8, 2, 1000, 1000), (2, 4, 1, 77, 300), (1, 4, 4, 300, 77),
    (1, 2, 2, 1, 129), (1, 4, 2, 1537, 2049),
    # More work items than SMs: persistent CTAs take several, some empty.
    (4, 16, 8, 1000, 1000), (2, 32, 32, 600, 300),
    # A partial last round of long items (split-tail: pieces of 5-6 tiles).
    (3, 23, 23, 2000, 1500),
    # Last KV tiles of 1 and 32 keys (224- and 192-key tiles), in whole rounds
    # of work items (split-tail kernels cut a partial round into pieces).
    (4, 16, 4, 1000, 1345), (2, 32, 16, 1100, 1376),
]


def main():
    kdir = sys.argv[1]
    torch.manual_seed(int(time.time()))
    manifest = json.load(open(os.path.join(kdir, "manifest.json")))
    only = [a for a in sys.argv[2:] if not a.startswith("--")]
    failures = 0
    kernels = {}
    for desc in manifest:
        if only and desc["name"] not in only:
            continue
        print(f"{desc['name']} ({desc['registers']} registers, {desc['dynamic_smem_bytes']} B smem)")
        try:
            kern = Kernel(kdir, desc)
        except RuntimeError as e:
            print("FAIL load:", e); failures += 1; continue
        kernels[desc["name"]] = kern
        if desc["name"].startswith("bench_") and "--check-bench" not in sys.argv:
            continue
        runner = run_fp8_case if desc["dtype"] == "e4m3" else run_case
        for case in CASES:
            try:
                failures += not runner(kern, *case)
            except RuntimeError as e:
                print("FAIL", case, e); failures += 1; break
    if "--bench-fp8" in sys.argv:
        bench_fp8(kernels, int(os.environ.get("ROUNDS", "2")))
    if "--bench-matrix" in sys.argv:
        seqs = [int(x) for x in os.environ.get("SEQS", "2048,8192,16384").split(",")]
        bench_matrix(kernels, seqs, int(os.environ.get("ROUNDS", "2")))
    if "--bench" in sys.argv:
        for name, b, h, s in [("bf16_d128", 4, 16, 4096), ("bf16_d128", 2, 16, 8192),
                              ("bf16_d128_narrowpv", 4, 16, 4096), ("bf16_d128_s3_n96", 4, 16, 4096),
                              ("bf16_d128_causal_lse", 2, 16, 8192), ("bf16_d64", 4, 32, 4096),
                              ("bf16_d256", 4, 8, 4096)]:
            if name in kernels:
                bench(kernels[name], b, h, s)
    print(f"{failures} failures")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
