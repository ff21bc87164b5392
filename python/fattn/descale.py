"""The FP8 descale arguments of flash_attn_func, checked on shapes alone (no torch).

flash_attn_func(q, k, v, q_descale=..., k_descale=..., v_descale=...,
descale_block_q=..., descale_block_kv=...) takes the factors quantize_fp8
returns; each one's form follows from its shape:

| shape                                  | form                          |
| -------------------------------------- | ----------------------------- |
| ``[]``                                 | per tensor (rank 0)           |
| ``[batch, heads_kv]``                  | per (batch, KV head) (rank 2) |
| ``[batch, heads, ceil(seq / block)]``  | per block of rows (rank 3)    |

A rank-2 q_descale is read per KV head (FlashAttention-3's q_descale). The block of
a rank-3 factor cannot be read off its shape (blocks of 125 and 128 rows both give 8
blocks for 1000 rows, and split them differently), so it is passed: descale_block_q
for q, descale_block_kv for k and v (one block for both, as fattn.attention's
descale_block_kv). A factor that is not given is 1 (per tensor).
"""
from __future__ import annotations

from typing import Optional, Sequence, Tuple

from .config import DescaleForm

DESCALE_NAMES = ("q_descale", "k_descale", "v_descale")


def _ceildiv(a: int, b: int) -> int:
    return -(-a // b)


def check_block(name: str, block) -> None:
    """descale_block_q / descale_block_kv: None or a positive int."""
    if block is None:
        return
    if isinstance(block, bool) or not isinstance(block, int):
        raise TypeError(f"{name} must be an int (rows per descale factor), got {block!r}")
    if block <= 0:
        raise ValueError(f"{name} must be positive, got {block}")


def descale_form(name: str, shape: Optional[Tuple[int, ...]], block: Optional[int],
                 block_name: str, *, batch: int, heads: int, heads_kv: int,
                 seqlen: int) -> Tuple[int, int]:
    """(rank, block) of one descale tensor of `shape` (None: not given, 1);
    `heads` and `seqlen` are those of the tensor it scales. Raises ValueError
    naming the argument."""
    if shape is None:
        return (0, 0)
    shape = tuple(shape)
    rank = len(shape)
    if rank == 3 and block is None:
        raise ValueError(f"{name} has shape {list(shape)}, a per-block factor: pass "
                         f"{block_name}, the block (rows per factor) it was quantized with")
    forms = (f"[] (per tensor), [batch, heads_kv] = {[batch, heads_kv]} or [batch, heads, "
             f"ceil(seqlen / {block_name})]"
             + (f" = {[batch, heads, _ceildiv(seqlen, block)]}" if block else ""))
    if rank == 0:
        return (0, 0)
    if rank == 2 and shape == (batch, heads_kv):
        return (2, 0)
    if rank == 3 and shape == (batch, heads, _ceildiv(seqlen, block)):
        return (3, block)
    raise ValueError(f"{name} must have shape {forms}, got {list(shape)}")


def resolve_descale_form(q_shape: Sequence[int], k_shape: Sequence[int],
                         shapes: Sequence[Optional[Tuple[int, ...]]],
                         descale_block_q: Optional[int] = None,
                         descale_block_kv: Optional[int] = None) -> DescaleForm:
    """The descale form of a call with BSHD q [b, sq, hq, d] and k [b, sk, hkv, d]
    and the q/k/v descale shapes (None for a factor not given)."""
    check_block("descale_block_q", descale_block_q)
    check_block("descale_block_kv", descale_block_kv)
    b, sq, hq, _ = q_shape
    sk, hkv = k_shape[1], k_shape[2]
    q_form = descale_form("q_descale", shapes[0], descale_block_q, "descale_block_q",
                          batch=b, heads=hq, heads_kv=hkv, seqlen=sq)
    k_form, v_form = (descale_form(name, shape, descale_block_kv, "descale_block_kv", batch=b,
                                   heads=hkv, heads_kv=hkv, seqlen=sk)
                      for name, shape in zip(DESCALE_NAMES[1:], shapes[1:]))
    if descale_block_q is not None and q_form[0] != 3:
        raise ValueError(f"descale_block_q={descale_block_q} is only for a per-block q_descale "
                         "[batch, heads, blocks]")
    if descale_block_kv is not None and k_form[0] != 3 and v_form[0] != 3:
        raise ValueError(f"descale_block_kv={descale_block_kv} is only for a per-block "
                         "k_descale or v_descale [batch, heads_kv, blocks]")
    return (q_form, k_form, v_form)
