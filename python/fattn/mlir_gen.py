"""The .mlir text that fattn-compile compiles for one KernelConfig."""
from __future__ import annotations

import math

from .config import KernelConfig
from .grad_config import GradKernelConfig

_MLIR_TYPES = {"f16": "f16", "bf16": "bf16", "e4m3": "f8E4M3FN"}


def mlir_float(x: float) -> str:
    """A float literal MLIR parses back to the same float32 (it needs a '.')."""
    if not math.isfinite(x):
        raise ValueError(f"not a finite float: {x!r}")
    s = repr(float(x))
    mantissa, _, exponent = s.partition("e")
    if "." not in mantissa:
        mantissa += ".0"
    return mantissa + ("e" + exponent if exponent else "")


def func_name(config: KernelConfig) -> str:
    return "fattn_fwd_" + "".join(c if c.isalnum() else "_" for c in config.key)


def descale_memref(rank: int) -> str:
    """A strided f32 descale of `rank` dims, all dynamic (the runtime passes strides)."""
    dims = "?x" * rank
    strides = ", ".join("?" * rank)
    return f"memref<{dims}f32, strided<[{strides}], offset: ?>>"


def value_memref(config: KernelConfig) -> str:
    """V's type: [b, h, seq_k, head_dim_v], or with a value_layout the pre-transposed
    [b, h, head_dim_v, keys] (keys >= seq_k, contiguous, permuted within every 16)."""
    et = _MLIR_TYPES[config.dtype]
    dims = (f"?x?x{config.head_dim_v}x?" if config.value_layout is not None
            else f"?x?x?x{config.head_dim_v}")
    return f"memref<{dims}x{et}, strided<[?, ?, ?, 1], offset: ?>>"


def attention_mlir(config: KernelConfig) -> str:
    """A func.func whose body is one fattn.attention on strided [b, h, s, d] views
    (dynamic batch, heads and seq; static head dims). FP8 (e4m3) configurations
    write bf16 and read their descale factors as strided f32 memrefs; with a
    value_layout, V is [b, h, head_dim_v, keys] (value_memref)."""
    et, ot = _MLIR_TYPES[config.dtype], _MLIR_TYPES[config.out_dtype]
    qk = f"memref<?x?x?x{config.head_dim_qk}x{et}, strided<[?, ?, ?, 1], offset: ?>>"
    v = value_memref(config)
    o = f"memref<?x?x?x{config.head_dim_v}x{ot}, strided<[?, ?, ?, 1], offset: ?>>"
    lse = "memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>"
    args = [f"%q: {qk}", f"%k: {qk}", f"%v: {v}", f"%o: {o}"]
    if config.has_lse:
        args.append(f"%lse: {lse}")
    descale_clause = ""
    if config.descale is not None:
        types = [descale_memref(rank) for rank, _ in config.descale]
        args += [f"%{t}_descale: {ty}" for t, ty in zip("qkv", types)]
        descale_clause = (f" descale(%q_descale, %k_descale, %v_descale : "
                          f"{', '.join(types)})")
    attrs = [f"scale = {mlir_float(config.scale)} : f32"]
    if config.causal:
        attrs.append("causal = true")
    if config.window_left >= 0:
        attrs.append(f"window_left = {config.window_left} : i64")
    if config.window_right >= 0 and not config.causal:
        attrs.append(f"window_right = {config.window_right} : i64")
    if config.softcap > 0:
        attrs.append(f"softcap = {mlir_float(config.softcap)} : f32")
    if config.descale is not None:
        (_, block_q), (_, block_k), (_, block_v) = config.descale
        if block_q:
            attrs.append(f"descale_block_q = {block_q} : i64")
        if block_k or block_v:
            attrs.append(f"descale_block_kv = {block_k or block_v} : i64")
    if config.value_layout is not None:
        attrs.append(f'value_layout = "{config.value_layout}"')
    lse_clause = f" lse(%lse : {lse})" if config.has_lse else ""
    return (
        f"// fattn kernel configuration {config.key}\n"
        f"func.func @{func_name(config)}({', '.join(args)}) {{\n"
        f"  fattn.attention ins(%q, %k, %v : {qk}, {qk}, {v})"
        f" outs(%o : {o}){lse_clause}{descale_clause}\n"
        f"                  {{{', '.join(attrs)}}}\n"
        f"  return\n"
        f"}}\n")


def grad_func_name(config: GradKernelConfig) -> str:
    return "fattn_bwd_" + "".join(c if c.isalnum() else "_" for c in config.key)


def attention_grad_mlir(config: GradKernelConfig) -> str:
    """A func.func whose body is one fattn.attention_grad on strided [b, h, s, d]
    views (dynamic batch, heads and seq; a static head dim) for a GradKernelConfig:
    ins q, k, v, o, do and the f32 LSE [b, h, s], outs dq, dk, dv; the unit
    attribute `deterministic` for the kernels that add dQ in a fixed order."""
    et = _MLIR_TYPES[config.dtype]
    t = f"memref<?x?x?x{config.head_dim}x{et}, strided<[?, ?, ?, 1], offset: ?>>"
    lse = "memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>"
    names = ("q", "k", "v", "o", "do", "lse", "dq", "dk", "dv")
    types = [lse if n == "lse" else t for n in names]
    args = ", ".join(f"%{n}: {ty}" for n, ty in zip(names, types))
    attrs = [f"scale = {mlir_float(config.scale)} : f32"]
    if config.causal:
        attrs.append("causal = true")
    else:
        if config.window_left >= 0:
            attrs.append(f"window_left = {config.window_left} : i64")
        if config.window_right >= 0:
            attrs.append(f"window_right = {config.window_right} : i64")
    if config.softcap > 0:
        attrs.append(f"softcap = {mlir_float(config.softcap)} : f32")
    if config.deterministic:
        attrs.append("deterministic")
    return (
        f"// fattn backward kernel configuration {config.key}\n"
        f"func.func @{grad_func_name(config)}({args}) {{\n"
        f"  fattn.attention_grad ins(%q, %k, %v, %o, %do, %lse : "
        f"{', '.join(types[:6])})\n"
        f"                       outs(%dq, %dk, %dv : {', '.join(types[6:])})\n"
        f"                       {{{', '.join(attrs)}}}\n"
        f"  return\n"
        f"}}\n")


def kernel_mlir(config) -> str:
    """The .mlir of a KernelConfig (attention_mlir) or a GradKernelConfig
    (attention_grad_mlir)."""
    if isinstance(config, GradKernelConfig):
        return attention_grad_mlir(config)
    return attention_mlir(config)
