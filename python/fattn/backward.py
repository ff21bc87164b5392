"""flash_attn_func's backward pass: dQ, dK, dV from the forward's O and LSE.

The sm_90a backward kernels (fattn.attention_grad; docs/KERNEL-ABI.md, "Backward")
run on sm_90 GPUs for head dims 64 and 128, the sm_80 ones everywhere else (on sm_90
GPUs through their PTX), whichever kernels ran the forward; FATTN_GRAD_ARCH=sm_80
asks for the sm_80 ones on sm_90 GPUs too (grad_config.grad_arch_for).
deterministic=True runs the kernels of either arch that add dQ in a fixed order
(fattn.attention_grad's `deterministic`), so that two runs on the same inputs give
bit-identical dq, dk and dv.
fattn._torch_ops registers this as the operator torch.ops.fattn.bwd, the backward
of torch.ops.fattn.fwd.
"""
from __future__ import annotations

import dataclasses
import math
import warnings
from typing import Dict, Optional, Sequence, Tuple

from ._runtime import TensorDesc
from .grad_config import GRAD_ARCH, GradKernelConfig, grad_arch_for, requested_grad_arch
from .interface import _device_guard, _logical, _readable, _torch
from .kernels import KernelNotFoundError, get_kernel

_GRAD_DTYPES = {"float16": "f16", "bfloat16": "bf16"}


def grad_config(dtype, head_dim: int, head_dim_v: int, softmax_scale: Optional[float],
                causal: bool, window_size: Sequence[int], softcap: float,
                arch: str = GRAD_ARCH, deterministic: bool = False) -> GradKernelConfig:
    """The backward kernel of a forward call by `arch`'s kernels (with
    `deterministic`, those that add dQ in a fixed order); NotImplementedError
    naming the limit where the backward kernels do not take it (FP8, head dims, ...)."""
    name = str(dtype).replace("torch.", "")
    if name not in _GRAD_DTYPES:
        raise NotImplementedError(f"fattn.flash_attn_func has no backward for {dtype} inputs: "
                                  "the backward kernels take float16 or bfloat16")
    if head_dim_v != head_dim:
        raise NotImplementedError(f"fattn.flash_attn_func has no backward for a v head dim "
                                  f"({head_dim_v}) other than q's and k's ({head_dim})")
    scale = 1.0 / math.sqrt(head_dim) if softmax_scale is None else softmax_scale
    try:
        return GradKernelConfig.make(_GRAD_DTYPES[name], head_dim, causal, window_size[0],
                                     window_size[1], softcap, scale, arch, deterministic)
    except ValueError as e:
        raise NotImplementedError(f"fattn.flash_attn_func has no backward for this call: "
                                  f"{e}") from None


def backward(dout, q, k, v, out, lse, softmax_scale: Optional[float], causal: bool,
             window_size: Sequence[int], softcap: float, arch: Optional[str] = None,
             deterministic: bool = False) -> Tuple:
    """dq, dk, dv (contiguous, q's, k's and v's shapes and dtype) of flash_attn_func's
    out = attention(q, k, v) for the output's gradient dout, from the forward's out
    and lse ([batch, heads_q, seqlen_q], float32). `arch`: the backward kernels'
    ("sm_80" or "sm_90a"; the sm_90a ones need an sm_90 GPU), where a caller such as
    bench/bench_bwd.py runs both side by side; None: grad_arch_for's choice.
    `deterministic`: the kernels that add dQ in a fixed order (bit-identical runs)."""
    torch = _torch()
    chosen = arch is None
    if chosen:
        arch = grad_arch_for(torch.cuda.get_device_capability(q.device), q.shape[3])
    config = grad_config(q.dtype, q.shape[3], v.shape[3], softmax_scale, causal, window_size,
                         softcap, arch, deterministic)
    b, sq, hq, d = q.shape
    sk = k.shape[1]
    if b == 0 or hq == 0 or sq == 0 or sk == 0:
        # No query or no key: every gradient is 0 (rows without keys contribute nothing).
        return tuple(torch.zeros(t.shape, dtype=t.dtype, device=t.device) for t in (q, k, v))
    dq = torch.empty(q.shape, dtype=q.dtype, device=q.device)
    dk = torch.empty(k.shape, dtype=k.dtype, device=k.device)
    dv = torch.empty(v.shape, dtype=v.dtype, device=v.device)
    # The backward kernels copy their tiles with cp.async (no TMA), on either arch.
    q, k, v, out, dout = (_readable(t, tma=False) for t in (q, k, v, out, dout.to(q.dtype)))
    if lse.stride(-1) != 1 or lse.data_ptr() % 4:
        lse = lse.contiguous()
    dtype = config.dtype
    tensors = [_logical(t, dtype) for t in (q, k, v, out, dout)]
    tensors.append(TensorDesc.make(lse.data_ptr(), "f32", tuple(lse.shape), lse.stride()))
    tensors += [_logical(t, dtype) for t in (dq, dk, dv)]
    config, kernel = backward_kernel(config, fallback=chosen and requested_grad_arch() is None)
    # The workspaces from torch's allocator: ordered on the stream, and CUDA-graph safe
    # (the deterministic kernels' dQ counters too: their preprocess zeroes them).
    size = kernel.workspace_bytes(tensors)
    workspace = torch.empty(size, dtype=torch.uint8, device=q.device)
    device = q.device.index
    with _device_guard(device):
        kernel.launch(tensors, workspace.data_ptr(), size,
                      torch.cuda.current_stream(device).cuda_stream)
    return dq, dk, dv


# The sm_90a backward configurations found missing, and the sm_80 ones that stand in
# (backward_kernel): one search and one warning each, not one per step.
_stand_ins: Dict[GradKernelConfig, GradKernelConfig] = {}


def backward_kernel(config: GradKernelConfig, fallback: bool):
    """(config, kernel) of the backward: `config`'s, or, where its sm_90a kernel is
    missing (a library built without it, no compiler) and `fallback` (the arch was
    the device's default, not asked for), the sm_80 one, with a warning."""
    if fallback and config in _stand_ins:
        config = _stand_ins[config]
        return config, get_kernel(config)
    try:
        return config, get_kernel(config)
    except KernelNotFoundError as e:
        if not fallback or config.arch == GRAD_ARCH:
            raise
        sm80 = dataclasses.replace(config, arch=GRAD_ARCH)
        kernel = get_kernel(sm80)
        _stand_ins[config] = sm80
        warnings.warn(f"{e}; running the slower sm_80 backward kernel {sm80.key} instead "
                      "(FATTN_GRAD_ARCH=sm_80 asks for it without this warning)", stacklevel=3)
        return sm80, kernel
