"""flash_attn_func: FlashAttention-2's interface on fattn kernels, with its
packed-input variants flash_attn_qkvpacked_func and flash_attn_kvpacked_func."""
from __future__ import annotations

import contextlib
import math
import os
from typing import Any, Dict, NamedTuple, Optional, Tuple

from ._runtime import TensorDesc
from .config import (INT32_MAX, VALUE_LAYOUT_SM90, VALUE_LAYOUTS, KernelConfig, check_arch,
                     check_flag, check_head_dims, check_scale, check_softcap, default_arch,
                     per_head_routing, runtime_scalars_wanted)
from .descale import DESCALE_NAMES, resolve_descale_form
from .kernels import KernelNotFoundError, get_kernel_for_lengths
from .quantize import KEY_GROUP

_TORCH_DTYPES = None
_ONES = {}  # device -> a float32 1.0: the factor of a descale not given


def _torch():
    # Imported on first use: the package (library building, CPU tests) works without torch.
    import torch
    global _TORCH_DTYPES
    if _TORCH_DTYPES is None:
        _TORCH_DTYPES = {torch.float16: "f16", torch.bfloat16: "bf16"}
        if hasattr(torch, "float8_e4m3fn"):
            _TORCH_DTYPES[torch.float8_e4m3fn] = "e4m3"
    return torch


def _check_dense(name: str, t) -> None:
    """A strided (dense) tensor, whose strides and data pointer the kernels can read,
    with sizes that fit the kernels' 32-bit indices."""
    torch = _torch()
    if t.layout != torch.strided or getattr(t, "is_nested", False):
        raise TypeError(f"{name} must be a dense (strided) tensor, got layout {t.layout}"
                        + (" (nested)" if getattr(t, "is_nested", False) else ""))
    if any(n > INT32_MAX for n in t.shape):
        raise ValueError(f"{name} has shape {tuple(t.shape)}; fattn takes sizes up to "
                         "2**31 - 1")


def _check_tensor(name: str, t) -> None:
    """A BSHD input: a torch tensor of a supported dtype, 4 dims, last dim contiguous."""
    torch = _torch()
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(t).__name__}")
    _check_dense(name, t)
    if t.dtype not in _TORCH_DTYPES:
        raise TypeError(f"{name} has dtype {t.dtype}; fattn supports torch.float16, "
                        "torch.bfloat16 and torch.float8_e4m3fn")
    if t.dim() != 4:
        raise ValueError(f"{name} must have 4 dims [batch, seqlen, heads, head_dim], got "
                         f"shape {tuple(t.shape)}")
    if t.stride(-1) != 1 and t.shape[-1] > 1:
        raise ValueError(f"{name} must have a contiguous last dim (stride 1), got strides "
                         f"{tuple(t.stride())}")


def _check_inputs(q, k, v, v_layout: Optional[str] = None) -> str:
    """Raises TypeError/ValueError naming the tensor and the problem; returns the dtype name."""
    if v_layout is not None:
        _check_qk(q, k)
        _check_transposed_v(q, k, v, v_layout)
        return _TORCH_DTYPES[q.dtype]
    for name, t in (("q", q), ("k", k), ("v", v)):
        _check_tensor(name, t)
    if not (q.dtype == k.dtype == v.dtype):
        raise TypeError(f"q, k, v must have one dtype, got {q.dtype}, {k.dtype}, {v.dtype}")
    _check_qk(q, k)
    (b, sk, hk), (bv, sv, hv) = (k.shape[0], k.shape[1], k.shape[2]), v.shape[:3]
    if bv != b:
        raise ValueError(f"batch sizes differ: q {tuple(q.shape)}, k {tuple(k.shape)}, "
                         f"v {tuple(v.shape)}")
    if sv != sk or hv != hk:
        raise ValueError(f"k and v must have the same seqlen and heads, got k {tuple(k.shape)}, "
                         f"v {tuple(v.shape)}")
    return _TORCH_DTYPES[q.dtype]


def _check_qk(q, k) -> None:
    """q and k: tensors, one dtype, matching batch and head dim, GQA head counts."""
    for name, t in (("q", q), ("k", k)):
        _check_tensor(name, t)
    if q.dtype != k.dtype:
        raise TypeError(f"q and k must have one dtype, got {q.dtype}, {k.dtype}")
    (b, sq, hq, d), (bk, sk, hk, dk) = q.shape, k.shape
    if bk != b:
        raise ValueError(f"batch sizes differ: q {tuple(q.shape)}, k {tuple(k.shape)}")
    if dk != d:
        raise ValueError(f"k has head_dim {dk} but q has {d} (shapes q {tuple(q.shape)}, "
                         f"k {tuple(k.shape)})")
    if hk == 0 or hq % hk != 0:
        raise ValueError(f"q and k: the number of query heads ({hq}) must be a multiple of the "
                         f"number of key/value heads ({hk})")


def _check_transposed_v(q, k, v, v_layout: str) -> None:
    """v for v_layout=VALUE_LAYOUT_SM90: e4m3 [batch, heads_kv, head_dim_v, keys],
    keys >= seqlen_k and a multiple of 16, as transpose_value_fp8 returns it."""
    torch = _torch()
    if not isinstance(v_layout, str) or v_layout not in VALUE_LAYOUTS:
        raise ValueError(f"v_layout must be None or {VALUE_LAYOUT_SM90!r}, got {v_layout!r}")
    f8 = getattr(torch, "float8_e4m3fn", None)
    if q.dtype != f8:
        raise ValueError(f"v_layout={v_layout!r} is for float8_e4m3fn q, k and v; q and k "
                         f"have dtype {q.dtype}")
    if not isinstance(v, torch.Tensor):
        raise TypeError(f"v must be a torch.Tensor, got {type(v).__name__}")
    _check_dense("v", v)
    if v.dtype != f8:
        raise ValueError(f"v_layout={v_layout!r} needs a float8_e4m3fn v (from "
                         f"fattn.transpose_value_fp8), got {v.dtype}")
    b, sk, hk = k.shape[0], k.shape[1], k.shape[2]
    want = f"[batch, heads_kv, head_dim_v, keys] = [{b}, {hk}, head_dim_v, keys >= {sk}]"
    if v.dim() != 4 or v.shape[0] != b or v.shape[1] != hk:
        raise ValueError(f"with v_layout={v_layout!r}, v must have shape {want} "
                         f"(fattn.transpose_value_fp8 makes it), got {tuple(v.shape)}")
    keys = v.shape[3]
    if keys < sk or keys % KEY_GROUP:
        raise ValueError(f"with v_layout={v_layout!r}, v's last dim (keys, {keys}) must be at "
                         f"least seqlen_k ({sk}) and a multiple of {KEY_GROUP}; v has shape "
                         f"{tuple(v.shape)}")
    if v.stride(-1) != 1 and keys > 1:
        raise ValueError(f"v must have a contiguous last dim (stride 1), got strides "
                         f"{tuple(v.stride())}")


def _check_devices(q, k, v, descales):
    """Devices last, so that the other checks also run (and are tested) on CPU tensors."""
    for name, t in (("q", q), ("k", k), ("v", v)):
        if not t.is_cuda:
            raise ValueError(f"{name} must be a CUDA tensor, got device {t.device}")
    if not (q.device == k.device == v.device):
        raise ValueError(f"q, k, v must be on one device, got {q.device}, {k.device}, {v.device}")
    for name, t in zip(DESCALE_NAMES, descales):
        if t is not None and t.device != q.device:
            raise ValueError(f"{name} must be on q's device {q.device}, got {t.device}")


def _check_descales(q, k, descales, descale_block_q, descale_block_kv, fp8: bool):
    """The descale form of the call (None without fp8); raises TypeError/ValueError
    naming the argument (devices: _check_devices)."""
    torch = _torch()
    given = [(n, t) for n, t in zip(DESCALE_NAMES, descales) if t is not None]
    given += [(n, b) for n, b in (("descale_block_q", descale_block_q),
                                  ("descale_block_kv", descale_block_kv)) if b is not None]
    if not fp8:
        if given:
            raise ValueError(f"{given[0][0]} is only for float8_e4m3fn inputs; q has dtype "
                             f"{q.dtype}")
        return None
    for name, t in zip(DESCALE_NAMES, descales):
        if t is None:
            continue
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor, got {type(t).__name__}")
        _check_dense(name, t)
        if t.dtype != torch.float32:
            raise TypeError(f"{name} must be float32, got {t.dtype}")
    form = resolve_descale_form(tuple(q.shape), tuple(k.shape),
                                [None if t is None else tuple(t.shape) for t in descales],
                                descale_block_q, descale_block_kv)
    for name, block in (("descale_block_q", descale_block_q),
                        ("descale_block_kv", descale_block_kv)):
        if block is not None and block > INT32_MAX:
            raise ValueError(f"{name} must be at most 2**31 - 1, got {block}")
    return form


def _descale_desc(t, device, per_head=None) -> TensorDesc:
    """A descale as the runtime's f32 tensor (any strides); None is a 1.0.
    per_head=(batch, heads_kv): a per-tensor factor as a stride-0 view of
    that shape, for a per-(batch, head) kernel (per_head_routing)."""
    if t is None:
        t = _ONES.get(device)
        if t is None:
            t = _ONES[device] = _torch().ones((), dtype=_torch().float32, device=device)
    if per_head is not None:
        return TensorDesc.make(t.data_ptr(), "f32", per_head, (0, 0))
    return TensorDesc.make(t.data_ptr(), "f32", tuple(t.shape), t.stride())


def _select_kernel(key, checked: _Checked, seq_q: int, seq_k: int):
    """(kernel, whether it is the per-(batch, head) kernel of per-tensor
    descales). Without that kernel (a library without it, no compiler) the
    call, and later ones with the same metadata, run config's own."""
    if checked.per_head is not None:
        try:
            return get_kernel_for_lengths(checked.per_head, seq_q, seq_k), True
        except KernelNotFoundError:
            if key is not None and key in _CHECKED:
                _CHECKED[key] = checked._replace(per_head=None)
    return get_kernel_for_lengths(checked.config, seq_q, seq_k), False


def _result(t, name, shape, dtype, device):
    """A caller's output buffer, checked, or a new one."""
    torch = _torch()
    if t is None:
        return torch.empty(shape, dtype=dtype, device=device)
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(t).__name__}")
    _check_dense(name, t)
    if tuple(t.shape) != shape or t.dtype != dtype or t.device != device:
        raise ValueError(f"{name} must be a {dtype} tensor of shape {shape} on {device}, got "
                         f"{t.dtype} {tuple(t.shape)} on {t.device}")
    if t.stride(-1) != 1 and t.shape[-1] > 1:
        raise ValueError(f"{name} must have a contiguous last dim, got strides {t.stride()}")
    if not _aligned(t, 16 if len(shape) == 4 else 4):
        raise ValueError(f"{name} must be 16-byte aligned with 16-byte aligned strides")
    if t.numel() and _overlaps_itself(t):
        raise ValueError(f"{name} has overlapping elements (strides {t.stride()} for shape "
                         f"{tuple(t.shape)}): the kernel writes every element")
    return t


def _overlaps_itself(t) -> bool:
    """Whether two elements of t may share memory: with its dims ordered by
    stride, each stride must exceed the span of the dims below it (a sufficient
    test, exact for dense and padded layouts in any dim order)."""
    span = 0
    for n, stride in sorted(((n, s) for n, s in zip(t.shape, t.stride()) if n > 1),
                            key=lambda ns: ns[1]):
        if stride <= span:
            return True
        span += stride * (n - 1)
    return False


def _byte_range(t) -> Tuple[int, int]:
    """[first, last + 1) bytes of a non-empty tensor's elements."""
    last = sum(s * (n - 1) for n, s in zip(t.shape, t.stride()))
    return t.data_ptr(), t.data_ptr() + (last + 1) * t.element_size()


def _check_output_memory(outputs, inputs) -> None:
    """A caller's out / lse_out must not share memory with an input or with each
    other: the kernel would read what it has written (or write one element
    twice). Byte ranges are compared, which also refuses outputs interleaved
    with an input's elements without sharing any."""
    outputs = [(n, t) for n, t in outputs if t is not None and t.numel()]
    if not outputs:
        return
    others = [(n, t) for n, t in inputs if t is not None and t.numel()] + outputs
    for name, t in outputs:
        lo, hi = _byte_range(t)
        for other, u in others:
            if other == name:
                continue
            ulo, uhi = _byte_range(u)
            if lo < uhi and ulo < hi:
                raise ValueError(f"{name} shares memory with {other}: outputs must not overlap "
                                 "the inputs or each other")


def _aligned(t, align: int = 16) -> bool:
    """Kernels load 16-byte vectors: rows must start on 16-byte boundaries."""
    return _pointer_aligned(t, align) and _strides_aligned(t, align)


def _pointer_aligned(t, align: int = 16) -> bool:
    return t.data_ptr() % align == 0


def _strides_aligned(t, align: int = 16) -> bool:
    es = t.element_size()
    return all(t.stride(i) * es % align == 0 for i in range(t.dim() - 1) if t.shape[i] > 1)


def _device_guard(device: int):
    """A context on CUDA device `device` for a launch: a guard only where it is not the
    current device (the guard's device lookups took about 15 microseconds a call under
    cProfile)."""
    torch = _torch()
    return contextlib.nullcontext() if device == torch.cuda.current_device() \
        else torch.cuda.device(device)


def _reads_by_tma(arch: str) -> bool:
    """Whether `arch`'s forward kernels read q, k and v through TMA tensor maps."""
    return arch.startswith("sm_90")


def _readable_in_place(t, tma: bool) -> bool:
    """Whether a kernel reads `t` through its own strides (its data pointer
    aside): a contiguous last dim and 16-byte aligned strides, and for a kernel
    that reads it through TMA tensor maps (the sm_90 forward), whose strides are
    nonzero, no broadcast dim (stride 0 over several indices)."""
    if (t.stride(-1) != 1 and t.shape[-1] > 1) or not _strides_aligned(t):
        return False
    return not tma or all(t.stride(i) != 0 for i in range(t.dim()) if t.shape[i] > 1)


def _readable(t, tma: bool, in_place: Optional[bool] = None):
    """`t` where a kernel can read it, else a contiguous copy: the forward's q, k
    and v, the backward's q, k, v, out and dout. `in_place` is
    _readable_in_place's answer where the caller kept it; the data pointer's
    alignment is checked on every call. (clone: contiguous() would return a
    contiguous view at a misaligned address as it is.)"""
    if in_place is None:
        in_place = _readable_in_place(t, tma)
    if in_place and _pointer_aligned(t):
        return t
    return t.clone(memory_format=_torch().contiguous_format)


class _Checked(NamedTuple):
    """A call whose arguments passed the checks: its kernel configuration,
    whether q, k and v are read in place (_readable_in_place), and the
    per-(batch, head) configuration that runs its per-tensor descales
    (config.per_head_routing; None: config's own kernel)."""
    config: KernelConfig
    in_place: Tuple[bool, bool, bool]
    per_head: Optional[KernelConfig] = None
    # The launch's (scale, softcap) for a kernel that takes them at run time.
    scalars: Optional[Tuple[float, float]] = None


# Calls whose arguments passed the checks, by their metadata (_call_key): a
# later call with the same metadata skips the checks and the configuration,
# which read nothing else (about 70 of flash_attn_func's 160 microseconds per
# call, docs/PERF.md); the data pointers' alignment is checked on every call.
# Cleared when full.
_CHECKED: Dict[Any, _Checked] = {}
_CHECKED_MAX = 1024


def _call_key(tensors, args):
    """What the checks read of a call: each tensor's shape, strides, dtype and
    device, the other arguments with their types, and the environment that picks
    the default arch. None when an argument is neither a tensor nor None, or is
    unhashable: such a call takes the checks every time."""
    torch = _torch()
    metadata = []
    for t in tensors:
        if t is None:
            metadata.append(None)
        elif isinstance(t, torch.Tensor):
            try:
                metadata.append((t.shape, t.stride(), t.dtype, t.device))
            except (RuntimeError, NotImplementedError):  # no strides (sparse, nested)
                return None
        else:
            return None
    typed = []
    for a in args:
        if isinstance(a, (tuple, list)):
            typed.append((type(a), tuple((type(x), x) for x in a)))
        elif isinstance(a, torch.Tensor):
            return None
        else:
            typed.append((type(a), a))
    if args[5] is None:  # arch: default_arch reads these
        typed.append((os.environ.get("FATTN_ARCH"), os.environ.get("FATTN_ENABLE_SM90")))
    typed.append(os.environ.get("FATTN_PER_TENSOR_KERNELS"))  # per_head_routing
    key = (tuple(metadata), tuple(typed))
    try:
        hash(key)
    except TypeError:
        return None
    return key


def _logical(t, dtype: str) -> TensorDesc:
    """BSHD storage as the runtime's logical [batch, heads, seq, head_dim] view."""
    b, s, h, d = t.shape
    sb, ss, sh, sd = t.stride()
    return TensorDesc.make(t.data_ptr(), dtype, (b, h, s, d), (sb, sh, ss, 1))


def _check_arguments(q, k, v, descales, softmax_scale, causal, window_size, softcap,
                     return_lse, arch, descale_block_q, descale_block_kv, v_layout):
    """Every check of flash_attn_func's arguments that reads only their metadata
    (_call_key); returns the dtype name and the descale form."""
    dtype = _check_inputs(q, k, v, v_layout)
    descale = _check_descales(q, k, descales, descale_block_q, descale_block_kv,
                              fp8=dtype == "e4m3")
    if not (isinstance(window_size, (tuple, list)) and len(window_size) == 2 and
            all(isinstance(w, int) and not isinstance(w, bool) for w in window_size)):
        raise ValueError(f"window_size must be a pair of ints (left, right), got {window_size!r}")
    if max(window_size) > INT32_MAX:
        raise ValueError(f"window_size must be at most 2**31 - 1 on each side (-1: unbounded), "
                         f"got {tuple(window_size)}")
    if softmax_scale is not None:
        check_scale(softmax_scale)
    check_softcap(softcap)
    check_flag("causal", causal)
    check_flag("return_lse", return_lse)
    if arch is not None:
        check_arch(arch)
    _check_devices(q, k, v, descales)
    return dtype, descale


def _check_unsupported(dropout_p, alibi_slopes, deterministic, return_attn_probs) -> None:
    """FlashAttention-2's arguments that fattn takes only at their defaults
    (deterministic: any bool; the forward pass is deterministic, and with it the
    backward adds dQ in a fixed order)."""
    if isinstance(dropout_p, (bool, str, bytes)) or dropout_p is None:
        raise TypeError(f"dropout_p must be a number, got {dropout_p!r}")
    if isinstance(dropout_p, (int, float)):  # without try: torch.compile traces this
        dropout = float(dropout_p)
    else:
        try:
            dropout = float(dropout_p)
        except (TypeError, ValueError):
            raise TypeError(f"dropout_p must be a number, got "
                            f"{type(dropout_p).__name__}") from None
    if dropout != 0.0:
        raise ValueError(f"dropout_p={dropout_p!r} is not supported: fattn computes attention "
                         "without dropout (pass dropout_p=0.0, as at inference)")
    if alibi_slopes is not None:
        raise ValueError("alibi_slopes is not supported: fattn adds no ALiBi bias "
                         "(pass alibi_slopes=None)")
    check_flag("deterministic", deterministic)
    if check_flag("return_attn_probs", return_attn_probs):
        raise ValueError("return_attn_probs=True is not supported: fattn never forms the "
                         "attention matrix (return_lse=True returns the log-sum-exp)")


def flash_attn_func(q, k, v, dropout_p: float = 0.0, softmax_scale: Optional[float] = None,
                    causal: bool = False, window_size: Tuple[int, int] = (-1, -1),
                    softcap: float = 0.0, alibi_slopes=None, deterministic: bool = False,
                    return_attn_probs: bool = False, *, return_lse: bool = False,
                    arch: Optional[str] = None, out=None, lse_out=None, q_descale=None,
                    k_descale=None, v_descale=None, descale_block_q: Optional[int] = None,
                    descale_block_kv: Optional[int] = None, v_layout: Optional[str] = None):
    """Exact attention softmax(softmax_scale * q k^T + mask) v on BSHD tensors.

    The arguments up to return_attn_probs are FlashAttention-2's, in its order, so
    that a call written for flash_attn.flash_attn_func runs unchanged; dropout_p,
    alibi_slopes and return_attn_probs must keep their defaults (a ValueError
    names the one that does not). fattn's own arguments are keyword-only.

    q: [batch, seqlen_q, heads_q, head_dim]; k: [batch, seqlen_k, heads_kv, head_dim];
    v: [batch, seqlen_k, heads_kv, head_dim_v]; heads_q a multiple of heads_kv (GQA/MQA).
    Head dims the arch does not compile raise a ValueError naming those it does
    (fattn.config.check_head_dims, the compiler's rule in fattn/tuning.json).
    Any strides with the last dim contiguous (misaligned views are copied first).
    softmax_scale: default 1/sqrt(head_dim). causal and window_size=(left, right) follow
    FlashAttention-2 (aligned bottom-right when seqlen_q != seqlen_k; -1 = unbounded).
    softcap > 0 applies softcap * tanh(s / softcap) to the scores.
    Returns out [batch, seqlen_q, heads_q, head_dim_v] and, with return_lse, the
    natural-log LSE [batch, heads_q, seqlen_q] in float32 (-inf for rows that see no key).
    out / lse_out: optional preallocated results of those shapes (any strides, last
    dim contiguous; lse_out's seq dim contiguous).

    Training: with grad mode on and q, k or v requiring grad, out is differentiable
    (the operator fattn::fwd, whose backward fattn::bwd runs the sm_90a backward
    kernels on sm_90 GPUs at head dims 64 and 128, the sm_80 ones otherwise; the
    returned LSE carries no gradient).
    The backward takes float16/bfloat16 with one head dim for q, k, v, a multiple of
    16 up to 128; any other call raises NotImplementedError naming the limit when
    its backward runs. deterministic=True makes the backward run the kernels that add
    dQ in a fixed order (KV tile by KV tile), so that two backward passes on the same
    inputs give bit-identical gradients; without it dQ is accumulated with atomics in
    no fixed order and may differ in the last bits run to run. The forward pass is
    deterministic either way.

    FP8 (sm_90a): q, k, v all torch.float8_e4m3fn, out bfloat16, computing
    softmax(softmax_scale * (dq q)(dk k)^T + mask)(dv v) with the float32 factors
    q_descale, k_descale, v_descale (FlashAttention-3's names) as quantize_fp8
    returns them: shape [] (per tensor), [batch, heads_kv] (per KV head; also
    q's) or [batch, heads, ceil(seqlen / block)] (per block of rows, with
    descale_block_q for q and descale_block_kv for k and v). A factor not given
    is 1. See fattn.descale.

    v_layout=fattn.VALUE_LAYOUT_SM90 ("transposed_wgmma_e4m3_k32", FP8 only): v is
    given as fattn.transpose_value_fp8(v8) returns it, e4m3 [batch, heads_kv,
    head_dim_v, keys] (keys >= seqlen_k, a multiple of 16, the last dim contiguous;
    keys permuted within every 16, padding keys finite), so that the kernel need not
    transpose V; seqlen_k is k's. v_descale is as for the BSHD v (blocks count keys):

        vt = fattn.transpose_value_fp8(v8)  # once, outside the hot loop
        out = fattn.flash_attn_func(q8, k8, vt, v_layout=fattn.VALUE_LAYOUT_SM90,
                                    q_descale=dq, k_descale=dk, v_descale=dv)

    torch.compile: with torch 2.4 or later, a call traced by torch.compile becomes
    one node, the operator torch.ops.fattn.fwd (fattn._torch_ops), so that
    fullgraph=True compiles; out= and lse_out= are then filled by a copy.
    CUDA graphs: a call may be captured once a call with the same shapes and
    arguments ran on the capturing stream (it loads the kernel and, for
    the kernels that have one, allocates their workspace).
    """
    _check_unsupported(dropout_p, alibi_slopes, deterministic, return_attn_probs)
    grad = _grad_wanted(q, k, v)
    if grad and _compiled_call is None:
        raise NotImplementedError("fattn.flash_attn_func's backward needs torch 2.4 or "
                                  "later (torch.library.custom_op); call it under "
                                  "torch.no_grad() for inference")
    if _compiled_call is not None and (grad or _is_compiling()):
        return _compiled_call(q, k, v, softmax_scale, causal, window_size, softcap, return_lse,
                              arch, out, lse_out, q_descale, k_descale, v_descale,
                              descale_block_q, descale_block_kv, v_layout, need_lse=grad,
                              deterministic=deterministic)
    return _forward(q, k, v, softmax_scale, causal, window_size, softcap, return_lse, arch,
                    out, lse_out, q_descale, k_descale, v_descale, descale_block_q,
                    descale_block_kv, v_layout)


# Set by fattn._torch_ops where torch has torch.library.custom_op: under
# torch.compile, or where autograd records the call, flash_attn_func calls the
# operator fattn::fwd (whose backward is fattn::bwd) instead of launching
# through ctypes, which would break the graph.
_compiled_call = None


def _is_compiling() -> bool:
    return False


def _grad_wanted(q, k, v) -> bool:
    """Whether autograd records the call (fattn._torch_ops sets the real test;
    without torch there is no autograd)."""
    return any(getattr(t, "requires_grad", False) for t in (q, k, v)) and \
        _torch().is_grad_enabled()


def _forward(q, k, v, softmax_scale, causal, window_size, softcap, return_lse, arch, out,
             lse_out, q_descale, k_descale, v_descale, descale_block_q, descale_block_kv,
             v_layout):
    """flash_attn_func's work, once FlashAttention-2's unsupported arguments
    are refused: checks (or the checked-call cache), then the launch."""
    torch = _torch()
    descales = (q_descale, k_descale, v_descale)
    args = (softmax_scale, causal, window_size, softcap, return_lse, arch, descale_block_q,
            descale_block_kv, v_layout)
    key = _call_key((q, k, v, out, lse_out) + descales, args)
    checked = _CHECKED.get(key) if key is not None else None
    if checked is None:
        dtype, descale = _check_arguments(q, k, v, descales, *args)
    else:
        dtype, descale = checked.config.dtype, checked.config.descale
    b, sq, hq, d = q.shape
    sk, dv = k.shape[1], (v.shape[3] if v_layout is None else v.shape[2])
    out_dtype = torch.bfloat16 if dtype == "e4m3" else q.dtype
    given_out = out
    out = _result(out, "out", (b, sq, hq, dv), out_dtype, q.device)
    lse = _result(lse_out, "lse_out", (b, hq, sq), torch.float32, q.device) if return_lse \
        else None
    if given_out is not None or lse_out is not None:
        if lse_out is not None and not return_lse:
            raise ValueError("lse_out is given but return_lse is False (pass return_lse=True)")
        _check_output_memory((("out", out), ("lse_out", lse)),
                             (("q", q), ("k", k), ("v", v)) + tuple(zip(DESCALE_NAMES, descales)))
    if out.numel() == 0 or sk == 0:
        out.zero_()  # no query, or no key to attend to: O = 0, LSE = -inf
        if lse is not None:
            lse.fill_(float("-inf"))
        return (out, lse) if return_lse else out

    if checked is None:
        if arch is None:
            arch = default_arch(torch.cuda.get_device_capability(q.device))
        if descale is not None and arch != "sm_90a":
            raise ValueError(f"float8_e4m3fn inputs need the sm_90a pipeline (an sm_90 GPU), "
                             f"got arch {arch!r}")
        config = KernelConfig.make(arch, dtype, d, dv, causal, window_size[0],
                                   window_size[1], softcap, softmax_scale, return_lse, descale,
                                   v_layout, runtime_scalars=runtime_scalars_wanted())
        check_head_dims(config)  # before any lookup or compile
        # A kernel with the values compiled in takes none at launch.
        scalars = (check_scale(1.0 / math.sqrt(d) if softmax_scale is None else softmax_scale),
                   check_softcap(softcap)) if config.runtime_scalars else None
        checked = _Checked(config,
                           tuple(_readable_in_place(t, _reads_by_tma(arch)) for t in (q, k, v)),
                           per_head_routing(config), scalars)
        if key is not None:
            if len(_CHECKED) >= _CHECKED_MAX:
                _CHECKED.clear()
            _CHECKED[key] = checked
    config = checked.config
    kernel, per_head = _select_kernel(key, checked, sq, sk)
    # A view the kernel cannot read in place is copied.
    q, k, v = (_readable(t, _reads_by_tma(config.arch), ok)
               for t, ok in zip((q, k, v), checked.in_place))
    # A pre-transposed V is already the logical [b, h, head_dim_v, keys] view.
    v_desc = _logical(v, dtype) if v_layout is None else \
        TensorDesc.make(v.data_ptr(), dtype, tuple(v.shape), v.stride())
    tensors = [_logical(q, dtype), _logical(k, dtype), v_desc,
               _logical(out, config.out_dtype)]
    if lse is not None:
        tensors.append(TensorDesc.make(lse.data_ptr(), "f32", tuple(lse.shape), lse.stride()))
    if descale is not None:
        if lse is None:
            tensors.append(TensorDesc.make(0, "f32", (), ()))  # slot 4: no LSE
        expand = (b, k.shape[2]) if per_head else None
        tensors += [_descale_desc(t, q.device, expand) for t in descales]
    device = q.device.index
    with _device_guard(device):
        kernel.launch(tensors, torch.cuda.current_stream(device).cuda_stream, checked.scalars)
    return (out, lse) if return_lse else out


def _unpack(name: str, packed, dim: int, count: int, layout: str):
    """The `count` tensors packed along `dim` of `packed` (views, no copy)."""
    torch = _torch()
    if not isinstance(packed, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(packed).__name__}")
    if packed.dim() != 5 or packed.shape[dim] != count:
        raise ValueError(f"{name} must have shape {layout}, got {tuple(packed.shape)}")
    return packed.unbind(dim)


def flash_attn_qkvpacked_func(qkv, dropout_p: float = 0.0,
                              softmax_scale: Optional[float] = None, causal: bool = False,
                              window_size: Tuple[int, int] = (-1, -1), softcap: float = 0.0,
                              alibi_slopes=None, deterministic: bool = False,
                              return_attn_probs: bool = False, **fattn_kwargs):
    """flash_attn_func on q, k, v packed in one tensor, as FlashAttention-2's
    flash_attn_qkvpacked_func: qkv [batch, seqlen, 3, heads, head_dim] (q, k, v
    along dim 2, one head count). The positional arguments are FlashAttention-2's;
    fattn_kwargs are flash_attn_func's keyword-only ones (return_lse, out, ...)."""
    q, k, v = _unpack("qkv", qkv, 2, 3, "[batch, seqlen, 3, heads, head_dim]")
    return flash_attn_func(q, k, v, dropout_p, softmax_scale, causal, window_size, softcap,
                           alibi_slopes, deterministic, return_attn_probs, **fattn_kwargs)


def flash_attn_kvpacked_func(q, kv, dropout_p: float = 0.0,
                             softmax_scale: Optional[float] = None, causal: bool = False,
                             window_size: Tuple[int, int] = (-1, -1), softcap: float = 0.0,
                             alibi_slopes=None, deterministic: bool = False,
                             return_attn_probs: bool = False, **fattn_kwargs):
    """flash_attn_func with k and v packed in one tensor, as FlashAttention-2's
    flash_attn_kvpacked_func: q [batch, seqlen_q, heads_q, head_dim], kv [batch,
    seqlen_k, 2, heads_kv, head_dim] (k, v along dim 2; GQA by head counts). The
    positional arguments are FlashAttention-2's; fattn_kwargs are
    flash_attn_func's keyword-only ones (return_lse, out, ...)."""
    k, v = _unpack("kv", kv, 2, 2, "[batch, seqlen_k, 2, heads_kv, head_dim]")
    return flash_attn_func(q, k, v, dropout_p, softmax_scale, causal, window_size, softcap,
                           alibi_slopes, deterministic, return_attn_probs, **fattn_kwargs)
