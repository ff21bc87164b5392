"""flash_attn_func as PyTorch operators, torch.ops.fattn.fwd and torch.ops.fattn.bwd,
for autograd and torch.compile.

A kernel launch goes through ctypes, which torch.compile cannot trace: it would
break the graph there. Registered with torch.library.custom_op (torch 2.4 or
later), the forward and the backward each become one opaque node of the graph;
register_fake gives the shapes and dtypes of their results without running
them, and register_autograd makes fattn::bwd the backward of fattn::fwd, so that
torch.compile(fullgraph=True) traces a training step. fattn/__init__.py imports
this module when torch is installed, and flash_attn_func calls the operator
while torch.compile traces it or when a gradient is wanted (inference calls
launch directly: the dispatcher would add host time to every call).

No `from __future__ import annotations` here: custom_op reads the annotations.
"""
from typing import Optional, Sequence, Tuple

import torch

from . import backward as _backward
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
        v_layout: Optional[str], deterministic: bool) -> Tuple[torch.Tensor, torch.Tensor]:
    """flash_attn_func's forward: (out, lse), lse empty ([0]) without return_lse.
    `deterministic` changes nothing here: it is the backward's (fattn::bwd)."""
    result = interface._forward(q, k, v, softmax_scale, causal, tuple(window_size), softcap,
                                return_lse, arch, None, None, q_descale, k_descale, v_descale,
                                descale_block_q, descale_block_kv, v_layout)
    if return_lse:
        return result
    return result, q.new_empty((0,), dtype=torch.float32)


@fwd.register_fake
def _fwd_fake(q, k, v, softmax_scale, causal, window_size, softcap, return_lse, arch,
              q_descale, k_descale, v_descale, descale_block_q, descale_block_kv, v_layout,
              deterministic):
    """The results' metadata, as flash_attn_func allocates them (contiguous)."""
    b, sq, hq = q.shape[0], q.shape[1], q.shape[2]
    dv = v.shape[3] if v_layout is None else v.shape[2]
    out_dtype = torch.bfloat16 if q.dtype in _FP8_DTYPES else q.dtype
    out = q.new_empty((b, sq, hq, dv), dtype=out_dtype)
    lse = q.new_empty((b, hq, sq) if return_lse else (0,), dtype=torch.float32)
    return out, lse


@torch.library.custom_op("fattn::bwd", mutates_args=())
def bwd(dout: torch.Tensor, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
        out: torch.Tensor, lse: torch.Tensor, softmax_scale: Optional[float], causal: bool,
        window_size: Sequence[int], softcap: float, deterministic: bool
        ) -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """flash_attn_func's backward: (dq, dk, dv) for the output's gradient dout;
    `deterministic`: by the kernels that add dQ in a fixed order."""
    return _backward.backward(dout, q, k, v, out, lse, softmax_scale, causal,
                              tuple(window_size), softcap, deterministic=deterministic)


@bwd.register_fake
def _bwd_fake(dout, q, k, v, out, lse, softmax_scale, causal, window_size, softcap,
              deterministic):
    """dq, dk, dv: contiguous, shaped and typed like q, k, v."""
    return tuple(t.new_empty(t.shape) for t in (q, k, v))


# fattn::fwd's arguments after q, k, v (none of them differentiable).
_FWD_OTHER_ARGS = 13


def _setup_context(ctx, inputs, output):
    (q, k, v, softmax_scale, causal, window_size, softcap, return_lse, arch, q_descale,
     k_descale, v_descale, descale_block_q, descale_block_kv, v_layout, deterministic) = inputs
    out, lse = output
    ctx.save_for_backward(q, k, v, out, lse)
    ctx.args = (softmax_scale, causal, list(window_size), softcap, deterministic)
    # Why there would be no backward, told when one is asked for (not for a
    # forward of inputs that merely require grad).
    ctx.unsupported = None
    if q_descale is not None or k_descale is not None or v_descale is not None or \
            v_layout is not None:
        ctx.unsupported = "FP8 attention (descale factors, v_layout) has no backward"
    elif not return_lse:
        ctx.unsupported = "the forward wrote no LSE (flash_attn_func asks for it)"
    # The LSE is returned without a gradient: the kernels differentiate O only.
    ctx.mark_non_differentiable(lse)


def _fwd_backward(ctx, grad_out, grad_lse):
    if ctx.unsupported is not None:
        raise NotImplementedError(f"fattn.flash_attn_func has no backward for this call: "
                                  f"{ctx.unsupported}")
    none = (None,) * _FWD_OTHER_ARGS
    if grad_out is None:
        return (None, None, None) + none
    q, k, v, out, lse = ctx.saved_tensors
    dq, dk, dv = torch.ops.fattn.bwd(grad_out, q, k, v, out, lse, *ctx.args)
    return (dq, dk, dv) + none


fwd.register_autograd(_fwd_backward, setup_context=_setup_context)


def op_call(q, k, v, softmax_scale, causal, window_size, softcap, return_lse, arch, out,
            lse_out, q_descale, k_descale, v_descale, descale_block_q, descale_block_kv,
            v_layout, need_lse=False, deterministic=False):
    """flash_attn_func through the operator (under torch.compile, or when a
    gradient is wanted: need_lse, the LSE the backward reads; deterministic, the
    backward's kernels), then the results copied into out / lse_out where given.
    Arguments are brought to the operator's schema types here; every other check
    runs in the operator."""
    return_lse = check_flag("return_lse", return_lse)
    if not (isinstance(window_size, (tuple, list)) and len(window_size) == 2):
        raise ValueError(f"window_size must be a pair of ints (left, right), got {window_size!r}")
    o, lse = torch.ops.fattn.fwd(
        q, k, v, None if softmax_scale is None else float(softmax_scale),
        check_flag("causal", causal), list(window_size), float(softcap), return_lse or need_lse,
        arch, q_descale, k_descale, v_descale, descale_block_q, descale_block_kv, v_layout,
        check_flag("deterministic", deterministic))
    if out is not None:
        out.copy_(o)
        o = out
    if lse_out is not None:
        if not return_lse:
            raise ValueError("lse_out is given but return_lse is False (pass return_lse=True)")
        lse_out.copy_(lse)
        lse = lse_out
    return (o, lse) if return_lse else o


def grad_wanted(q, k, v) -> bool:
    """Whether autograd records the call: grad mode on and q, k or v requiring grad."""
    return torch.is_grad_enabled() and any(
        isinstance(t, torch.Tensor) and t.requires_grad for t in (q, k, v))


interface._compiled_call = op_call
interface._is_compiling = torch.compiler.is_compiling
interface._grad_wanted = grad_wanted
