"""The reference that the GPU gradient tests compare with (test_gpu_autograd.py,
test_gpu_backward_sm80.py): attention computed by torch autograd (float64 for the
truth, the input dtype for a 16-bit baseline), torch SDPA's FlashAttention backward
as the other baseline, and the bound a kernel's gradients must meet.

Imports torch: import it after the caller's torch skip.
"""
from __future__ import annotations

import math
from typing import List, Optional, Sequence, Tuple

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

BOUND_FACTOR = 2.0
ABS_FLOOR = 1e-4
RMS_FLOOR = 1e-2


def attention(q, k, v, scale: float, mask, softcap: float = 0.0):
    """[b, s, h, d] inputs (GQA by head counts) -> (out [b, sq, hq, d], lse [b, hq, sq]),
    in the inputs' dtype, scores capped by softcap * tanh(s / softcap) when softcap > 0;
    rows that see no key give out = 0 and lse = -inf, and no NaN in any gradient."""
    rep = q.shape[2] // k.shape[2]
    qh = q.transpose(1, 2)
    kh = k.transpose(1, 2).repeat_interleave(rep, dim=1)
    vh = v.transpose(1, 2).repeat_interleave(rep, dim=1)
    s = torch.matmul(qh, kh.transpose(-1, -2)) * scale
    if softcap > 0:
        s = softcap * torch.tanh(s / softcap)
    s = s.masked_fill(~mask, float("-inf"))
    m = s.amax(dim=-1, keepdim=True).detach()
    m = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
    p = torch.exp(s - m)
    l = p.sum(dim=-1, keepdim=True)
    out = torch.matmul(p / torch.where(l > 0, l, torch.ones_like(l)), vh)
    lse = (m + torch.log(l)).squeeze(-1)
    return out.transpose(1, 2), lse


def reference_gradients(q, k, v, do, scale: float, mask, dtype: torch.dtype,
                        softcap: float = 0.0) -> Tuple:
    """(out, lse, dq, dk, dv) of attention() computed in `dtype` by autograd."""
    leaves = [t.detach().to(dtype).requires_grad_(True) for t in (q, k, v)]
    out, lse = attention(*leaves, scale, mask, softcap)
    out.backward(do.to(dtype))
    return (out.detach(), lse.detach(), *[t.grad for t in leaves])


def sdpa_gradients(q, k, v, do, scale: float, causal: bool, window=(-1, -1),
                   softcap: float = 0.0) -> Optional[List[torch.Tensor]]:
    """dq, dk, dv of torch SDPA's FlashAttention backend in the input dtype, or None
    where it does not take the case (a window, a softcap, causal with sq != sk)."""
    if tuple(window) != (-1, -1) or softcap > 0 or (causal and q.shape[1] != k.shape[1]):
        return None
    rep = q.shape[2] // k.shape[2]
    leaves = [t.detach().clone().requires_grad_(True) for t in (q, k, v)]
    qh = leaves[0].transpose(1, 2)
    kh = leaves[1].transpose(1, 2).repeat_interleave(rep, dim=1)
    vh = leaves[2].transpose(1, 2).repeat_interleave(rep, dim=1)
    try:
        with sdpa_kernel([SDPBackend.FLASH_ATTENTION]):
            out = F.scaled_dot_product_attention(qh, kh, vh, is_causal=causal, scale=scale)
        out.transpose(1, 2).backward(do)
    except RuntimeError:
        return None
    return [t.grad for t in leaves]


def grad_rel_l2(x, ref) -> float:
    """||x - ref|| / ||ref||, with ||ref|| at least an RMS of RMS_FLOOR: a gradient
    that vanishes (one key: dS = P (dP - D) = 0) is not divided by rounding noise."""
    ref = ref.double()
    denom = max(ref.norm().item(), RMS_FLOOR * math.sqrt(ref.numel()))
    return (x.double() - ref).norm().item() / denom


def assert_within_bound(got: Sequence, ref: Sequence, base: Sequence, source: str) -> None:
    """dq, dk, dv in `got` are free of NaN and, against the float64 `ref`, at most
    BOUND_FACTOR times the error of the 16-bit baseline `base` (named `source`) plus
    ABS_FLOOR."""
    for label, x, r, y in zip(("dq", "dk", "dv"), got, ref, base):
        assert not torch.isnan(x).any(), f"{label}: NaN (an element left unwritten?)"
        err, base_err = grad_rel_l2(x, r), grad_rel_l2(y, r)
        print(f"{label}: fattn {err:.3e}, {source} {base_err:.3e}")
        assert err <= BOUND_FACTOR * base_err + ABS_FLOOR, (
            f"{label}: relative L2 error {err:.3e} above {BOUND_FACTOR} x {source}'s "
            f"{base_err:.3e} + {ABS_FLOOR}")
