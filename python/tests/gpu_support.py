"""Helpers of the GPU tests: inputs, the float64 reference, the SDPA-class
baseline, and naive reference kernels built with nvcc (FATTN_TEST_BACKEND=naive)."""
from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Optional

import pytest
import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

import fattn
from fattn.config import KernelConfig, default_arch, runtime_scalars_wanted, short_seqs_tuning
from fattn.library import KernelLibrary

HERE = Path(__file__).resolve().parent
TORCH_DTYPES = {"bf16": torch.bfloat16, "f16": torch.float16}
ABS_FLOOR = 5e-5  # relative-L2 slack for cases where both errors are ~0 (one key, say)
BOUND_FACTOR = 1.25


# ---------------------------------------------------------------------------
# Inputs and layouts
# ---------------------------------------------------------------------------

def make_bshd(b, s, h, d, dtype, layout, gen):
    """A [b, s, h, d] tensor of N(0, 1) values stored as `layout`:
    bshd (contiguous), bhsd (a transposed view), strided (a slice of padded rows)."""
    if layout == "bshd":
        return torch.randn(b, s, h, d, generator=gen, device="cuda").to(dtype)
    if layout == "bhsd":
        return torch.randn(b, h, s, d, generator=gen, device="cuda").to(dtype).transpose(1, 2)
    if layout == "strided":
        # Every row padded by 8 elements (keeps 16-byte alignment) and every token by 2 heads.
        base = torch.randn(b, s, h + 2, d + 8, generator=gen, device="cuda").to(dtype)
        return base[:, :, 1:h + 1, :d]
    raise ValueError(layout)


def new_generator():
    """Fresh inputs every run; the seed is printed so a failure can be replayed
    with FATTN_TEST_SEED."""
    seed = int(os.environ.get("FATTN_TEST_SEED", "0")) or int.from_bytes(os.urandom(4), "little")
    print(f"seed={seed} (FATTN_TEST_SEED={seed} reproduces)")
    gen = torch.Generator(device="cuda")
    gen.manual_seed(seed)
    return gen


# ---------------------------------------------------------------------------
# Reference and baseline
# ---------------------------------------------------------------------------

def visible(sq, sk, window_left, window_right, device):
    """FlashAttention-2 masks, aligned bottom-right: query i sees key j iff
    i + sk - sq - left <= j <= i + sk - sq + right (-1: unbounded)."""
    i = torch.arange(sq, device=device)[:, None]
    j = torch.arange(sk, device=device)[None, :]
    diag = i + sk - sq
    ok = torch.ones(sq, sk, dtype=torch.bool, device=device)
    if window_left >= 0:
        ok &= j >= diag - window_left
    if window_right >= 0:
        ok &= j <= diag + window_right
    return ok


def _scores(q, k, scale, softcap, mask, dtype):
    """[b, h, sq, sk] scores in `dtype` with GQA heads expanded, softcap, mask."""
    qh, kh = q.transpose(1, 2).to(dtype), k.transpose(1, 2).to(dtype)
    kh = kh.repeat_interleave(qh.shape[1] // kh.shape[1], dim=1)
    s = torch.matmul(qh, kh.transpose(-1, -2)) * scale
    if softcap > 0:
        s = softcap * torch.tanh(s / softcap)
    return s.masked_fill(~mask, float("-inf"))


def _softmax_pv(s, v, p_dtype):
    lse = torch.logsumexp(s, dim=-1)
    p = torch.exp(s - lse[..., None]).nan_to_num(0.0)  # rows with no key: p = 0, not NaN
    vh = v.transpose(1, 2)
    vh = vh.repeat_interleave(s.shape[1] // vh.shape[1], dim=1)
    return torch.matmul(p.to(p_dtype), vh.to(p_dtype)), lse


def reference(q, k, v, scale, window_left, window_right, softcap):
    """float64 attention: (out [b, sq, h, dv] f64, lse [b, h, sq] f64)."""
    mask = visible(q.shape[1], k.shape[1], window_left, window_right, q.device)
    s = _scores(q, k, scale, softcap, mask, torch.float64)
    o, lse = _softmax_pv(s, v, torch.float64)
    return o.transpose(1, 2), lse


def baseline(q, k, v, scale, window_left, window_right, softcap):
    """What torch SDPA gives in the input dtype: its FlashAttention backend where
    it supports the case (no mask, or causal with sq == sk; no softcap), else the
    same numerics emulated (fp32 scores and softmax, P rounded to the input dtype
    for P V, output rounded), as flash kernels compute."""
    sq, sk = q.shape[1], k.shape[1]
    plain = softcap == 0 and window_left < 0 and (window_right < 0 or (window_right == 0 and
                                                                        sq == sk))
    if plain:
        # Fresh copies: SDPA's flash kernel faults (misaligned address) on a
        # view whose data pointer is off a 16-byte boundary instead of refusing it.
        rep = q.shape[2] // k.shape[2]
        qh = q.transpose(1, 2).clone(memory_format=torch.contiguous_format)
        kh = k.transpose(1, 2).repeat_interleave(rep, dim=1).clone(memory_format=torch.contiguous_format)
        vh = v.transpose(1, 2).repeat_interleave(rep, dim=1).clone(memory_format=torch.contiguous_format)
        try:
            with sdpa_kernel([SDPBackend.FLASH_ATTENTION]):
                o = F.scaled_dot_product_attention(qh, kh, vh, is_causal=window_right == 0,
                                                   scale=scale)
            return o.transpose(1, 2)
        except RuntimeError:
            pass  # e.g. head dim 96 on some builds: fall through to the emulation
    mask = visible(sq, sk, window_left, window_right, q.device)
    s = _scores(q, k, scale, softcap, mask, torch.float32)
    o, _ = _softmax_pv(s, v, q.dtype)
    return o.transpose(1, 2).to(q.dtype)


def rel_l2(x, ref):
    ref = ref.double()
    denom = ref.norm().item()
    return (x.double() - ref).norm().item() / (denom if denom > 0 else 1.0)


# ---------------------------------------------------------------------------
# Kernels under test
# ---------------------------------------------------------------------------

def backend() -> str:
    return os.environ.get("FATTN_TEST_BACKEND", "fattn")


def config_for(q, k, v, causal, window, softcap, scale, lse) -> KernelConfig:
    """The configuration flash_attn_func will ask for (BSHD q, k, v)."""
    arch = default_arch(torch.cuda.get_device_capability())
    config = KernelConfig.make(arch, {torch.bfloat16: "bf16", torch.float16: "f16"}[q.dtype],
                               q.shape[3], v.shape[3], causal, window[0], window[1], softcap,
                               scale, lse, runtime_scalars=runtime_scalars_wanted())
    return short_seqs_tuning(config, q.shape[1], k.shape[1])


def ensure_kernel(config: KernelConfig) -> None:
    """Skips (or, with FATTN_REQUIRE_KERNELS=1, fails) when no kernel can be had."""
    if backend() == "naive":
        NaiveKernels.get().ensure(config)
        return
    try:
        fattn.get_kernel(config)
    except fattn.KernelNotFoundError as e:
        if os.environ.get("FATTN_REQUIRE_KERNELS") == "1":
            pytest.fail(str(e))
        pytest.skip(f"kernel not available: {config.key}")


def cuda_tool(name: str) -> Optional[str]:
    """A CUDA toolkit program (nvcc, cuobjdump): on PATH, else in CUDA_HOME/bin."""
    found = shutil.which(name)
    if found:
        return found
    default = Path(os.environ.get("CUDA_HOME", "/usr/local/cuda")) / "bin" / name
    return str(default) if default.exists() else None


def nvcc() -> Optional[str]:
    return cuda_tool("nvcc")


def device_sm() -> str:
    major, minor = torch.cuda.get_device_capability()
    return f"sm_{major}{minor}"


def abi_params(has_lse: bool, extra=()):
    names = ["q", "k", "v", "o"] + (["lse"] if has_lse else [])
    params = [{"name": n, "type": "ptr"} for n in names]
    params += [{"name": n, "type": "u32"} for n in ("batch", "heads_q", "heads_kv", "seq_q",
                                                     "seq_k")]
    params += [{"name": f"{t}_stride_{d}", "type": "u64"} for t in "qkvo" for d in "bhs"]
    if has_lse:
        params += [{"name": "lse_stride_b", "type": "u64"}, {"name": "lse_stride_h",
                                                             "type": "u64"}]
    return params + list(extra)


def compile_cu(source: Path, out: Path, defines: dict) -> None:
    tool = nvcc()
    if tool is None:
        pytest.skip("nvcc not found (needed to build the test kernels)")
    cmd = [tool, "-cubin", f"-arch={device_sm()}", "-O3", "-o", str(out), str(source)]
    cmd += [f"-D{k}={v}" for k, v in defines.items()]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{proc.stderr}")


def naive_description(config: KernelConfig, entry="naive_attention", cluster=None) -> dict:
    desc = {"version": 1, "arch": config.arch, "entry": entry, "cubin": "naive.cubin",
            "dtype": config.dtype, "head_dim_qk": config.head_dim_qk,
            "head_dim_v": config.head_dim_v, "scale": config.scale, "causal": config.causal,
            "window_left": config.window_left, "window_right": config.window_right,
            "softcap": config.softcap, "has_lse": config.has_lse, "block_m": 128, "block_n": 1,
            "threads": 128, "dynamic_smem_bytes": 0,
            "grid": [["seq_q", 128], ["heads_q", 1], ["batch", 1]],
            "params": abi_params(config.has_lse, [{"name": "scale", "type": "f32"},
                                                  {"name": "softcap", "type": "f32"}])}
    if config.runtime_scalars:  # the naive kernel reads both as parameters anyway
        desc["runtime_scalars"] = ["scale"] + (["softcap"] if config.softcap > 0 else [])
        desc["softcap"] = 0.0
    if cluster:
        desc["cluster"] = list(cluster)
    return desc


def build_naive(config: KernelConfig, out_dir: Path, cluster=None) -> Path:
    """A naive kernel for `config`: out_dir/naive.json + naive.cubin."""
    out_dir.mkdir(parents=True, exist_ok=True)
    compile_cu(HERE / "gpu_kernels" / "naive_attention.cu", out_dir / "naive.cubin", {
        "ELEM": "__nv_bfloat16" if config.dtype == "bf16" else "half",
        "D_QK": config.head_dim_qk, "D_V": config.head_dim_v, "HAS_LSE": int(config.has_lse),
        "WINDOW_LEFT": config.window_left, "WINDOW_RIGHT": config.window_right})
    path = out_dir / "naive.json"
    path.write_text(json.dumps(naive_description(config, cluster=cluster)))
    return path


class NaiveKernels:
    """A kernel library of naive kernels, built on demand, for the whole session."""
    _instance = None

    @classmethod
    def get(cls) -> "NaiveKernels":
        if cls._instance is None:
            cls._instance = cls()
        return cls._instance

    def __init__(self):
        root = os.environ.get("FATTN_TEST_KERNEL_CACHE")
        self.dir = Path(root) if root else Path(tempfile.mkdtemp(prefix="fattn-naive-"))
        self.library = KernelLibrary(self.dir)
        fattn.set_kernel_dir(self.dir)

    def ensure(self, config: KernelConfig) -> None:
        if self.library.find(config) is None:
            with tempfile.TemporaryDirectory() as tmp:
                build_naive(config, Path(tmp) / "k")
                self.library.add(config, Path(tmp) / "k")
