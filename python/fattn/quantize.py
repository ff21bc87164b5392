"""FP8 (e4m3) quantization with per-tensor, per-head or per-block descales and
optional incoherent processing, on BSHD torch tensors.

The semantics and the rounding are those of the MLIR op `fattn.quantize` (and
its CPU lowering, `--fattn-lower-quantize`), bit for bit:

- the rotation R = diag(signs) H / sqrt(d) runs in float32 with the same
  butterfly order (fast Walsh-Hadamard, d log d per row, no d x d matmul);
- for each set of rows that shares a factor, amax = max |x|, scale =
  max(amax / 448, 2**-126) in float32 (the floor gives an all-zero block a
  finite factor), and x / scale rounds to nearest even, saturating at +-448;
- the descale returned is that scale, in the shape fattn.attention (and
  FlashAttention-3's q_descale/k_descale/v_descale) takes.

quantize_fp8's `search` (off by default) is an extension of this module: it
picks each factor among scales above amax / 448 for the least rounding error.

The e4m3 rounding is done with integer ops here rather than by torch's float8
cast, so it cannot depend on the device or the torch version. See docs/FP8.md.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Optional, Tuple

from .config import VALUE_LAYOUT_SM90

if TYPE_CHECKING:  # torch is imported lazily: the package works without it
    import torch

E4M3_MAX = 448.0
SCALE_FLOOR = 2.0 ** -126  # float32's smallest normal
MAX_SEARCH = 1024  # quantize_fp8's search: candidate scales per factor
_GRANULARITIES = ("tensor", "head", "block")
# The "wgmma_e4m3_k32" key order (fattn.permute_keys): slot c of every 16 keys holds
# key KEY_PERMUTATION[c] = 2*(c//4) + c%2 + 8*((c%4)//2), the order in which the
# e4m3 P V wgmma pairs P's registers with V's rows.
KEY_PERMUTATION = (0, 1, 8, 9, 2, 3, 10, 11, 4, 5, 12, 13, 6, 7, 14, 15)
KEY_GROUP = len(KEY_PERMUTATION)

__all__ = [
    "E4M3_MAX", "KEY_PERMUTATION", "MAX_SEARCH", "SCALE_FLOOR", "VALUE_LAYOUT_SM90",
    "dequantize_fp8",
    "fa3_accuracy_inputs", "hadamard_rotate", "hadamard_signs", "outlier_normal",
    "quantize_fp8", "transpose_value_fp8",
]


def _torch():
    try:
        import torch
    except ImportError as e:  # pragma: no cover - exercised only without torch
        raise ImportError("fattn's FP8 helpers need torch") from e
    return torch


def _check_float_tensor(name: str, x, ranks: Optional[Tuple[int, ...]]) -> None:
    torch = _torch()
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(x).__name__}")
    if x.dtype not in (torch.float32, torch.float16, torch.bfloat16):
        raise TypeError(f"{name} must be float32, float16 or bfloat16, got {x.dtype}")
    if ranks is not None and x.dim() not in ranks:
        want = " or ".join(str(r) for r in ranks)
        raise ValueError(f"{name} must have rank {want}, got shape {tuple(x.shape)}")


def hadamard_signs(d: int, seed: int = 0, device=None) -> "torch.Tensor":
    """The random +1/-1 (float32) diagonal of the rotation for head dim `d`,
    the same for every call with the same seed and on every device."""
    torch = _torch()
    if not isinstance(d, int) or d <= 0:
        raise ValueError(f"d must be a positive int, got {d!r}")
    gen = torch.Generator(device="cpu")
    gen.manual_seed(int(seed))
    bits = torch.randint(0, 2, (d,), generator=gen, dtype=torch.int64)
    return (bits * 2 - 1).to(dtype=torch.float32, device=device)


def _check_signs(signs, d: int, device) -> "torch.Tensor":
    torch = _torch()
    if not isinstance(signs, torch.Tensor):
        raise TypeError(f"signs must be a torch.Tensor, got {type(signs).__name__}")
    if tuple(signs.shape) != (d,):
        raise ValueError(f"signs must have shape ({d},) to match the head dim, "
                         f"got {tuple(signs.shape)}")
    if d & (d - 1):
        raise ValueError(f"the Hadamard rotation needs a power-of-two head dim, got {d}")
    signs = signs.to(dtype=torch.float32, device=device)
    if not bool(((signs == 1) | (signs == -1)).all()):
        raise ValueError("signs must hold only +1 and -1")
    return signs


def _walsh_hadamard_f32(y: "torch.Tensor") -> "torch.Tensor":
    """y H along the last dim (unnormalized), in log2(d) butterfly stages: stage
    h pairs element i of each 2h-block with element i + h (a + b, a - b), in
    the order of fattn's lowering, so that float32 results agree to the bit."""
    torch = _torch()
    d = y.shape[-1]
    lead = y.shape[:-1]
    h = 1
    while h < d:
        pairs = y.reshape(*lead, d // (2 * h), 2, h)
        a, b = pairs[..., 0, :], pairs[..., 1, :]
        y = torch.stack((a + b, a - b), dim=-2).reshape(*lead, d)
        h *= 2
    return y


def _norm(d: int, device) -> "torch.Tensor":
    # 1/sqrt(d) rounded once to float32, as the MLIR lowering does.
    torch = _torch()
    return torch.tensor(1.0 / math.sqrt(d), dtype=torch.float32, device=device)


def _rotate_f32(x: "torch.Tensor", signs: "torch.Tensor") -> "torch.Tensor":
    """float32 x diag(signs) H / sqrt(d)."""
    torch = _torch()
    y = x.to(torch.float32) * signs
    return _walsh_hadamard_f32(y) * _norm(x.shape[-1], x.device)


def hadamard_rotate(x: "torch.Tensor", signs: "torch.Tensor", inverse: bool = False,
                    out_dtype=None) -> "torch.Tensor":
    """Rotates the last dim of `x`: x diag(signs) H / sqrt(d) (as the MLIR op
    fattn.hadamard_rotate), or with inverse=True the transpose, x H diag(signs)
    / sqrt(d). Computed in float32 with O(d log d) butterflies; the result has
    `out_dtype` (default: x's dtype). Rotating Q and K with the same signs
    leaves Q K^T unchanged."""
    torch = _torch()
    _check_float_tensor("x", x, None)
    if x.dim() == 0:
        raise ValueError("x must have at least one dim (the rows to rotate), got a scalar")
    d = x.shape[-1]
    signs = _check_signs(signs, d, x.device)
    if inverse:
        y = _walsh_hadamard_f32(x.to(torch.float32)) * _norm(d, x.device) * signs
    else:
        y = _rotate_f32(x, signs)
    return y.to(out_dtype or x.dtype)


def _e4m3_codes(y: "torch.Tensor") -> "torch.Tensor":
    """The e4m3fn bytes (uint8) nearest to float32 `y`: to nearest even,
    saturating at +-448, NaN to 0x7F. Integer ops, as fattn's Float8Emulation."""
    torch = _torch()
    a = y.abs()
    bits = a.view(torch.int32)
    # Normal range: round the mantissa to 3 bits (a carry into the exponent is
    # right) and rebias the exponent from 127 to 7.
    rounded = bits + (0x7FFFF + ((bits >> 20) & 1))
    normal = (rounded >> 20) - (120 << 3)
    # Below 2**-6: multiples of 2**-9 (torch.round rounds half to even).
    subnormal = torch.round(a * 512.0).to(torch.int32)
    code = torch.where(a < 2.0 ** -6, subnormal, normal)
    code = torch.where(a < E4M3_MAX, code, torch.full_like(code, 0x7E))
    code = torch.where(torch.isnan(y), torch.full_like(code, 0x7F), code)
    sign = (y.view(torch.int32) < 0).to(torch.int32) << 7
    return (code | sign).to(torch.uint8)


def _amax(t: "torch.Tensor", dims: Tuple[int, ...]) -> "torch.Tensor":
    torch = _torch()
    if t.numel() == 0:
        shape = [n for i, n in enumerate(t.shape) if i not in dims]
        return torch.zeros(shape, dtype=torch.float32, device=t.device)
    return t.abs().amax(dim=dims)


def _scales(amax: "torch.Tensor") -> "torch.Tensor":
    torch = _torch()
    scale = amax / torch.tensor(E4M3_MAX, dtype=torch.float32, device=amax.device)
    # maximum, not clamp_min: NaN must propagate as in the MLIR lowering.
    return torch.maximum(scale, torch.full_like(scale, SCALE_FLOOR))


def _resolve_granularity(per: Optional[str], block: Optional[int]) -> str:
    if per is None:
        per = "tensor" if block is None else "block"
    if per not in _GRANULARITIES:
        raise ValueError(f"per must be one of {', '.join(_GRANULARITIES)}, got {per!r}")
    if per == "block":
        if isinstance(block, bool) or not isinstance(block, int):
            raise TypeError(f"per='block' needs an int block (rows per factor), got {block!r}")
        if block <= 0:
            raise ValueError(f"block must be positive, got {block}")
    elif block is not None:
        raise ValueError(f"block={block} is only meaningful with per='block', got per={per!r}")
    return per


def quantize_fp8(x: "torch.Tensor", block: Optional[int] = None, per: Optional[str] = None,
                 hadamard: bool = False, seed: int = 0, signs: Optional["torch.Tensor"] = None,
                 groups: Optional[int] = None,
                 search: int = 0) -> Tuple["torch.Tensor", "torch.Tensor"]:
    """Quantizes a BSHD tensor x [batch, seq, heads, d] (float32, float16 or
    bfloat16; CUDA or CPU; any strides) to float8_e4m3fn.

    per="tensor" (the default without `block`): one factor, descale shape [].
    per="head": one factor per batch and group of heads / groups consecutive
    heads, descale [batch, groups]; groups defaults to heads (what K and V
    need). For Q of a GQA attention pass groups = the KV head count: the
    attention reads Q's per-head descale per KV head, as FlashAttention-3.
    per="block" (the default with `block`): one factor per `block` consecutive
    rows of each head, descale [batch, heads, ceil(seq / block)].

    With hadamard=True (or an explicit `signs`), the rows are first rotated by
    diag(signs) H / sqrt(d), signs = hadamard_signs(d, seed) unless given, so
    d must be a power of two; rotate Q and K with the same signs.

    search=n > 0 (at most MAX_SEARCH) tries, for each factor, the n scales
    amax / 448 * 2**(k / n), k < n, and keeps the one whose e4m3 values come
    closest to x (least squared error over the factor's rows; the first on a
    tie). e4m3's rounding error is relative to each value, but which values
    round far depends on where the scale puts them in their binades, and a
    row with outliers owes most of its error to a few values. On the
    FlashAttention-3 protocol through the kernel (docs/FP8.md), n = 64 gives
    attention 2-3% less RMSE with per-block factors at head dim 128, and
    with a factor per query row (block=1 for Q) 5.7-9.4% less than per-block
    Q factors. The factors stay one per tensor, head or block, so the kernel
    does nothing more. The MLIR op
    fattn.quantize has no search: search=0, the default, is its rule bit for
    bit; with a search the sums of squared errors, and so a near tie, may
    resolve differently on CPU and CUDA.

    Returns (x_fp8 [batch, seq, heads, d] contiguous float8_e4m3fn, descale
    float32); x is approximately descale * x_fp8 (in the rotated basis).
    """
    torch = _torch()
    _check_float_tensor("x", x, (4,))
    if isinstance(search, bool) or not isinstance(search, int) or \
            not 0 <= search <= MAX_SEARCH:
        raise ValueError(f"search must be an int in [0, {MAX_SEARCH}], got {search!r}")
    if not hasattr(torch, "float8_e4m3fn"):
        raise TypeError(f"torch {torch.__version__} has no float8_e4m3fn (needs torch >= 2.1)")
    per = _resolve_granularity(per, block)
    b, s, h, d = x.shape
    if groups is not None and per != "head":
        raise ValueError(f"groups={groups} is only meaningful with per='head', got per={per!r}")
    if per == "head":
        groups = h if groups is None else groups
        if isinstance(groups, bool) or not isinstance(groups, int) or groups <= 0 or h % groups:
            raise ValueError(f"groups must be a positive divisor of the head count ({h}), "
                             f"got {groups!r}")
    codes, descale = _quantize_codes(x, per, block, groups, hadamard, seed, signs, search)
    return codes.view(torch.float8_e4m3fn), descale


def _searched_scales(y: "torch.Tensor", scale: "torch.Tensor", expand, dims: Tuple[int, ...],
                     n: int) -> "torch.Tensor":
    """Of the scales scale * 2**(k / n), k < n (float32), per factor the one
    whose e4m3 rounding of y (grouped so that expand(scale) broadcasts over
    it, dims the factor's rows) has the least squared error, summed in
    float64. k = 0 is scale itself; all are >= it, so nothing saturates."""
    torch = _torch()
    best, best_err = scale, None
    for k in range(n):
        factor = torch.tensor(2.0 ** (k / n), dtype=torch.float32, device=scale.device)
        candidate = scale * factor
        wide = expand(candidate)
        values = _e4m3_codes(y / wide).view(torch.float8_e4m3fn).to(torch.float32) * wide
        err = (values.to(torch.float64) - y.to(torch.float64)).pow(2).sum(dim=dims)
        if best_err is None:
            best_err = err
            continue
        better = err < best_err  # NaN (a NaN in the rows) never wins: k = 0 stays
        best = torch.where(better, candidate, best)
        best_err = torch.where(better, err, best_err)
    return best


def _quantize_codes(x, per, block, groups, hadamard, seed, signs, search=0):
    """quantize_fp8 with the e4m3 values as uint8 codes."""
    torch = _torch()
    b, s, h, d = x.shape
    if hadamard or signs is not None:
        if d & (d - 1):
            raise ValueError(f"the Hadamard rotation needs a power-of-two head dim, got {d}")
        signs = hadamard_signs(d, seed, x.device) if signs is None else signs
        y = _rotate_f32(x, _check_signs(signs, d, x.device))
    else:
        y = x.to(torch.float32)

    def pick(grouped, scale, expand, dims):
        if not search or grouped.numel() == 0:
            return scale
        return _searched_scales(grouped, scale, expand, dims, search)

    if per == "tensor":
        dims = (0, 1, 2, 3)
        scale = pick(y, _scales(_amax(y, dims)), lambda t: t, dims)
        codes = _e4m3_codes(y / scale)
    elif per == "head":
        yg = y.reshape(b, s, groups, h // groups, d)
        dims = (1, 3, 4)

        def expand(t):  # [b, groups] over yg
            return t[:, None, :, None, None]
        scale = pick(yg, _scales(_amax(yg, dims)), expand, dims)  # [b, groups]
        codes = _e4m3_codes(yg / expand(scale)).reshape(b, s, h, d)
    else:
        nb = -(-s // block)
        padded = y.new_zeros(b, nb * block, h, d)  # zeros leave every amax unchanged
        padded[:, :s] = y
        yb = padded.reshape(b, nb, block, h, d)
        dims = (2, 4)

        def expand(t):  # [b, nb, h] over yb
            return t[:, :, None, :, None]
        scale = pick(yb, _scales(_amax(yb, dims)), expand, dims)  # [b, nb, h]
        codes = _e4m3_codes(yb / expand(scale))
        codes = codes.reshape(b, nb * block, h, d)[:, :s]
        scale = scale.transpose(1, 2)  # [b, h, nb]
    return codes.contiguous(), scale.contiguous()


def dequantize_fp8(x_fp8: "torch.Tensor", descale: "torch.Tensor",
                   block: Optional[int] = None) -> "torch.Tensor":
    """float32 descale * x_fp8 for the outputs of quantize_fp8 (the granularity
    follows from descale's rank; `block` is needed for rank 3). The result is
    in the rotated basis when the quantization rotated; undo it with
    hadamard_rotate(..., inverse=True)."""
    torch = _torch()
    if x_fp8.dim() != 4:
        raise ValueError(f"x_fp8 must have rank 4 (BSHD), got shape {tuple(x_fp8.shape)}")
    b, s, h, d = x_fp8.shape
    x = x_fp8.to(torch.float32)
    descale = descale.to(device=x.device, dtype=torch.float32)
    if descale.dim() == 0:
        return x * descale
    if descale.dim() == 2:
        g = descale.shape[1]
        if tuple(descale.shape) != (b, g) or g == 0 or h % g:
            raise ValueError(f"descale of shape {tuple(descale.shape)} does not fit "
                             f"x_fp8 of shape {tuple(x_fp8.shape)}")
        return x * descale.repeat_interleave(h // g, dim=1)[:, None, :, None]
    if descale.dim() == 3:
        if block is None or block <= 0:
            raise ValueError("a per-block descale needs the positive block it was made with")
        nb = -(-s // block)
        if tuple(descale.shape) != (b, h, nb):
            raise ValueError(f"descale of shape {tuple(descale.shape)} does not fit "
                             f"x_fp8 of shape {tuple(x_fp8.shape)} with block {block}")
        rows = descale.repeat_interleave(block, dim=2)[:, :, :s]  # [b, h, s]
        return x * rows.transpose(1, 2)[..., None]
    raise ValueError(f"descale must have rank 0, 2 or 3, got shape {tuple(descale.shape)}")


def transpose_value_fp8(v: "torch.Tensor") -> "torch.Tensor":
    """V for flash_attn_func(..., v_layout=fattn.VALUE_LAYOUT_SM90):

        v8, dv = fattn.quantize_fp8(v, block=128)
        vt = fattn.transpose_value_fp8(v8)      # once, e.g. when the KV cache is written
        out = fattn.flash_attn_func(q8, k8, vt, v_layout=fattn.VALUE_LAYOUT_SM90,
                                    v_descale=dv, ...)

    v: BSHD float8_e4m3fn [batch, seq_k, heads_kv, d] (CPU or CUDA, any strides).
    Returns the contiguous float8_e4m3fn [batch, heads_kv, d, keys], keys = seq_k
    rounded up to a multiple of 16, with vt[b, h, n, 16*g + c] = v[b, 16*g +
    KEY_PERMUTATION[c], h, n] and 0 for the padding keys (>= seq_k). The values and
    so v's descale factors are unchanged. The sm_90a kernel loads this layout straight
    into shared memory instead of transposing V there."""
    torch = _torch()
    if not isinstance(v, torch.Tensor):
        raise TypeError(f"v must be a torch.Tensor, got {type(v).__name__}")
    if v.dtype != getattr(torch, "float8_e4m3fn", None):
        raise TypeError(f"v must be float8_e4m3fn (fattn.quantize_fp8 makes it), got {v.dtype}")
    if v.dim() != 4:
        raise ValueError(f"v must have 4 dims [batch, seq_k, heads_kv, d], got shape "
                         f"{tuple(v.shape)}")
    b, s, h, d = v.shape
    keys = -(-s // KEY_GROUP) * KEY_GROUP
    # uint8 codes: torch's float8 lacks indexing and copies on some versions; the
    # padding keys are the code 0x00, i.e. +0.0.
    padded = torch.zeros(b, keys, h, d, dtype=torch.uint8, device=v.device)
    padded[:, :s] = v.view(torch.uint8)
    perm = torch.tensor(KEY_PERMUTATION, dtype=torch.long, device=v.device)
    slots = padded.view(b, keys // KEY_GROUP, KEY_GROUP, h, d).index_select(2, perm)
    # [b, groups, slot, h, d] -> [b, h, d, groups * 16 + slot]
    vt = slots.permute(0, 3, 4, 1, 2).reshape(b, h, d, keys).contiguous()
    return vt.view(torch.float8_e4m3fn)


def outlier_normal(*shape: int, generator=None, device=None, dtype=None, rate: float = 0.001,
                   outlier_std: float = 10.0) -> "torch.Tensor":
    """N(0, 1) + N(0, outlier_std**2) * Bernoulli(rate): the inputs of the FP8
    accuracy protocol of the FlashAttention-3 paper (rate 0.001, variance 100),
    drawn in float32 and converted to `dtype` (default float32)."""
    torch = _torch()
    kw = dict(generator=generator, device=device, dtype=torch.float32)
    x = torch.randn(*shape, **kw)
    hit = torch.rand(*shape, **kw) < rate
    x = x + torch.randn(*shape, **kw) * outlier_std * hit
    return x.to(dtype or torch.float32)


def fa3_accuracy_inputs(batch: int, seqlen: int, heads: int, head_dim: int, *,
                        heads_kv: Optional[int] = None, seqlen_k: Optional[int] = None,
                        dtype=None, device=None, seed: int = 0):
    """(q, k, v), BSHD, drawn by outlier_normal from a generator seeded with
    `seed` on `device` (default CPU; default dtype bfloat16)."""
    torch = _torch()
    gen = torch.Generator(device=device or "cpu")
    gen.manual_seed(seed)
    heads_kv = heads_kv or heads
    seqlen_k = seqlen_k or seqlen
    dtype = dtype or torch.bfloat16
    q = outlier_normal(batch, seqlen, heads, head_dim, generator=gen, device=device, dtype=dtype)
    k = outlier_normal(batch, seqlen_k, heads_kv, head_dim, generator=gen, device=device,
                       dtype=dtype)
    v = outlier_normal(batch, seqlen_k, heads_kv, head_dim, generator=gen, device=device,
                       dtype=dtype)
    return q, k, v
