"""flash_attn_func as a PyTorch operator, torch.ops.fattn.fwd, for torch.compile.

A kernel launch goes through ctypes, which torch.compile cannot trace: it would
break the graph there. Registered with torch.library.custom_op (torch 2.4 or
later), the forward becomes one opaque node of the graph; register_fake gives
the shapes and dtypes of its results without running it. fattn/__init__.py
imports this module when torch is installed, and flash_attn_func calls the
operator only while torch.compile traces it (eager calls launch directly: the
dispatcher would add host time to every call).

No `from __future__ import annotations` here: custom_op reads the annotations.
"""
from typing import Optional, Sequence, Tuple

import torch

from . import interface
from .config import check_flag

# FP8 inputs write a bfloat16 output.
_FP8_DTYPES = tuple(getattr(torch, name) for name in ("float8_e4m3fn",) if hasattr(torch, name))


@torch.library.custom_op("fattn::fwd", mutates_args=())
def fwd(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, softmax_scale: Optional[float],
        causal: bool, window_size: Sequence[int], softcap: float, return_lse: bool,
        arch: Optional[str], q_descale: Optional[torch.Tensor],
        k_descale: Optional[torch.Tensor], v_descale: Optional[torch.Tensor],
        descale_block_q: Optional[int], descale_block_kv: Optional[int],
        v_layout: Optional[str]) -> Tuple[torch.Tensor, torch.Tensor]:
    """flash_attn_func's forward: (out, lse), lse empty ([0]) without return_lse."""
    result = interface._forward(q, k, v, softmax_scale, causal, tuple(window_size), softcap,
                                return_lse, arch, None, None, q_descale, k_descale, v_descale,
                                descale_block_q, descale_block_kv, v_layout)
    if return_lse:
        return result
    return result, q.new_empty((0,), dtype=torch.float32)


@fwd.register_fake
def _fwd_fake(q, k, v, softmax_scale, causal, window_size, softcap, return_lse, arch,
              q_descale, k_descale, v_descale, descale_block_q, descale_block_kv, v_layout):
    """The results' metadata, as flash_attn_func allocates them (contiguous)."""
    b, sq, hq = q.shape[0], q.shape[1], q.shape[2]
    dv = v.shape[3] if v_layout is None else v.shape[2]
    out_dtype = torch.bfloat16 if q.dtype in _FP8_DTYPES else q.dtype
    out = q.new_empty((b, sq, hq, dv), dtype=out_dtype)
    lse = q.new_empty((b, hq, sq) if return_lse else (0,), dtype=torch.float32)
    return out, lse


def compiled_call(q, k, v, softmax_scale, causal, window_size, softcap, return_lse, arch, out,
                  lse_out, q_descale, k_descale, v_descale, descale_block_q, descale_block_kv,
                  v_layout):
    """flash_attn_func while torch.compile traces it: the operator, then the
    results copied into out / lse_out where given. Arguments are brought to
    the operator's schema types here; every other check runs in the operator."""
    return_lse = check_flag("return_lse", return_lse)
    if not (isinstance(window_size, (tuple, list)) and len(window_size) == 2):
        raise ValueError(f"window_size must be a pair of ints (left, right), got {window_size!r}")
    o, lse = torch.ops.fattn.fwd(
        q, k, v, None if softmax_scale is None else float(softmax_scale),
        check_flag("causal", causal), list(window_size), float(softcap), return_lse, arch,
        q_descale, k_descale, v_descale, descale_block_q, descale_block_kv, v_layout)
    if out is not None:
        out.copy_(o)
        o = out
    if lse_out is not None:
        if not return_lse:
            raise ValueError("lse_out is given but return_lse is False (pass return_lse=True)")
        lse_out.copy_(lse)
        lse = lse_out
    return (o, lse) if return_lse else o


interface._compiled_call = compiled_call
interface._is_compiling = torch.compiler.is_compiling


BACKWARD_MESSAGE = (
    "fattn.flash_attn_func has no backward pass yet: its results cannot be "
    "differentiated. Call it under torch.no_grad() or torch.inference_mode() "
    "(or on detached inputs) for inference, and use "
    "torch.nn.functional.scaled_dot_product_attention where gradients are needed.")


class _NoBackward(torch.autograd.Function):
    """The identity on one result of flash_attn_func, tied to q, k and v so
    that autograd reaches it, whose backward raises."""

    @staticmethod
    def forward(ctx, result, q, k, v):
        return result.view_as(result)

    @staticmethod
    def backward(ctx, grad):
        raise NotImplementedError(BACKWARD_MESSAGE)


def without_backward(result, q, k, v):
    """flash_attn_func's results, each with a grad_fn that raises in backward,
    where grad mode is on (q, k or v requires grad: the caller checked)."""
    if not torch.is_grad_enabled():
        return result
    if isinstance(result, tuple):
        return tuple(_NoBackward.apply(t, q, k, v) for t in result)
    return _NoBackward.apply(result, q, k, v)


interface._without_backward = without_backward
