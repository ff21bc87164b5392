#!/usr/bin/env python3
"""Runs one fattn.attention configuration on the CPU and checks it in float64.

Generates an MLIR program (random inputs as constants, output poisoned with
NaN, fattn.attention on BHSD or strided BSHD views), lowers it with
`fattn-opt --fattn-cpu-pipeline`, runs it with mlir-runner, parses the O and
LSE printed by printMemrefF32 and compares them with a float64 reference
computed here, in plain Python, from the same (rounded) inputs.

Prints `PASS o_rel_l2=... lse_max_err=...` or `FAIL ...` (and exits 1).
"""

import argparse
import math
import os
import random
import re
import struct
import subprocess
import sys
import tempfile

NUM_RE = re.compile(r"-?(?:inf|nan|\d+(?:\.\d*)?(?:e[-+]?\d+)?)")
# f8E4M3FN: inputs are exact e4m3 values; the error is P's rounding to e4m3
# (as on the GPU) and the bf16 output. With fresh inputs every run it spreads
# from 1e-2 to 3.3e-2 (72 seeds of the smallest configuration of
# oracle-fp8-layout.test, head dim of V 8, 2026-11-30), so 3e-2 failed now
# and then; a wrong key order gives 0.5 and more.
TOLERANCE = {"f32": 1e-5, "f16": 2e-3, "bf16": 1e-2, "f8E4M3FN": 5e-2}
FP8 = "f8E4M3FN"


def e4m3_value(code):
    e, m = (code >> 3) & 15, code & 7
    return m * 2.0 ** -9 if e == 0 else (1 + m / 8) * 2.0 ** (e - 7)


E4M3_FINITE = [e4m3_value(c) for c in range(127)]  # codes 0..126, increasing


def e4m3_code(value):
    """The e4m3fn code nearest to `value` (ties to even, saturating at 448)."""
    sign = 0x80 if math.copysign(1.0, value) < 0 else 0
    a = abs(value)
    if a >= 448.0:
        return sign | 126
    hi = next(c for c, v in enumerate(E4M3_FINITE) if v >= a)
    lo = max(hi - 1, 0)
    dlo, dhi = a - E4M3_FINITE[lo], E4M3_FINITE[hi] - a
    code = lo if dlo < dhi or (dlo == dhi and lo % 2 == 0) else hi
    return sign | code


def round_to(value, dtype):
    """Rounds a Python float to the nearest value of `dtype` (RNE)."""
    if dtype == FP8:
        code = e4m3_code(value)
        return math.copysign(E4M3_FINITE[code & 127], -1.0 if code & 0x80 else 1.0)
    if dtype == "f16":
        return struct.unpack("<e", struct.pack("<e", value))[0]
    bits = struct.unpack("<I", struct.pack("<f", value))[0]
    if dtype == "bf16":
        bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return struct.unpack("<f", struct.pack("<I", bits))[0]


def add_problem_args(p):
    """The tools and the problem size, shared with quantize_oracle.py; see
    finish_problem_args for the defaults that depend on other arguments."""
    p.add_argument("--opt", required=True, help="path to fattn-opt")
    p.add_argument("--runner", required=True, help="path to mlir-runner")
    p.add_argument("--shared-libs", required=True)
    p.add_argument("--batch", type=int, default=1)
    p.add_argument("--heads-q", type=int, default=2)
    p.add_argument("--heads-kv", type=int, default=None)
    p.add_argument("--seq-q", type=int, default=37)
    p.add_argument("--seq-k", type=int, default=None)
    p.add_argument("--head-dim", type=int, default=16)


def finish_problem_args(a):
    """heads_kv defaults to heads_q, seq_k to seq_q, the seed to a random one."""
    a.heads_kv = a.heads_kv or a.heads_q
    a.seq_k = a.seq_k if a.seq_k is not None else a.seq_q
    if a.seed is None:
        a.seed = random.randrange(1 << 30)
    return a


def add_attention_args(p):
    """V's head dim, the attributes and the operand forms, shared with
    attention_grad_oracle.py."""
    p.add_argument("--head-dim-v", type=int, default=None)
    p.add_argument("--scale", type=float, default=None)
    p.add_argument("--causal", action="store_true")
    p.add_argument("--window-left", type=int, default=None)
    p.add_argument("--window-right", type=int, default=None)
    p.add_argument("--softcap", type=float, default=None)
    p.add_argument("--layout", choices=["bhsd", "bshd"], default="bhsd")
    p.add_argument("--dynamic", action="store_true",
                   help="pass dynamic batch/heads/seq memrefs to the op")


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__)
    add_problem_args(p)
    add_attention_args(p)
    p.add_argument("--dtype", choices=sorted(TOLERANCE), default="f32")
    p.add_argument("--dynamic-head-dim", action="store_true",
                   help="also make the head dims dynamic (row-wise CPU lowering)")
    p.add_argument("--no-lse", action="store_true")
    p.add_argument("--runtime-scalars", action="store_true",
                   help="pass the scale (and the softcap, when given) to the "
                        "attention function as f32 arguments: "
                        "scale(%%s : f32) softcap(%%c : f32)")
    p.add_argument("--pipeline-options", default="",
                   help="e.g. 'block-m=32 block-n=16'")
    p.add_argument("--descale", choices=["none", "tensor", "head", "block"],
                   default="none", help="FP8 descale granularity")
    p.add_argument("--descale-block-q", type=int, default=16)
    p.add_argument("--descale-block-kv", type=int, default=16)
    p.add_argument("--hadamard", action="store_true",
                   help="rotate Q and K by the same random-sign Hadamard "
                        "matrix first (fattn.hadamard_rotate); the result "
                        "must not change")
    p.add_argument("--value-layout", action="store_true",
                   help="f8E4M3FN only: store V as V^T with value_layout = "
                        "\"transposed_wgmma_e4m3_k32\" ([batch, kv_heads, "
                        "head_dim_v, keys], keys permuted per 16); the "
                        "reference reads V un-permuted")
    p.add_argument("--value-pad", type=int, default=0,
                   help="with --value-layout: key slots past seq_k rounded "
                        "up to 16 (a multiple of 16); they hold random "
                        "finite values that must not change the result")
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--keep", help="write the generated program here")
    a = finish_problem_args(p.parse_args(argv))
    a.head_dim_v = a.head_dim_v or a.head_dim
    if a.value_layout and a.dtype != FP8:
        p.error("--value-layout needs --dtype f8E4M3FN")
    if a.value_pad % 16 != 0:
        p.error("--value-pad must be a multiple of 16")
    a.value_keys = -(-a.seq_k // 16) * 16 + a.value_pad
    return a


# fattn.permute_keys "wgmma_e4m3_k32": slot c of every 16 holds key 16g + KEY_PERMUTATION[c]
# (FP8Ops.cpp, wgmmaE4M3K32KeySource).
KEY_PERMUTATION = (0, 1, 8, 9, 2, 3, 10, 11, 4, 5, 12, 13, 6, 7, 14, 15)


def transpose_value(a, v, rng):
    """V (storage order of --layout) as the V^T of value_layout
    "transposed_wgmma_e4m3_k32": [batch, kv_heads, head_dim_v, keys] with
    vt[b, h, n, 16 g + c] = V[b, h, 16 g + KEY_PERMUTATION[c], n]; the slots of
    keys >= seq_k get random finite values."""
    B, H, S, D, keys = a.batch, a.heads_kv, a.seq_k, a.head_dim_v, a.value_keys
    out = []
    for b in range(B):
        for h in range(H):
            for n in range(D):
                for slot in range(keys):
                    key = 16 * (slot // 16) + KEY_PERMUTATION[slot % 16]
                    if key >= S:
                        out.append(round_to(rng.uniform(-400.0, 400.0), a.dtype))
                        continue
                    if a.layout == "bshd":
                        base = ((b * S + key) * H + h) * D
                    else:
                        base = ((b * H + h) * S + key) * D
                    out.append(v[base + n])
    return out


def random_tensor(rng, shape, dtype):
    count = math.prod(shape)
    return [round_to(rng.gauss(0.0, 1.0), dtype) for _ in range(count)]


def descale_shapes(a):
    """Shapes of (dq, dk, dv) for the chosen granularity, or None."""
    if a.descale == "none":
        return None
    if a.descale == "tensor":
        return [], [], []
    if a.descale == "head":
        return [[a.batch, a.heads_kv]] * 3
    bq = -(-a.seq_q // a.descale_block_q)
    bk = -(-a.seq_k // a.descale_block_kv)
    return ([a.batch, a.heads_q, bq], [a.batch, a.heads_kv, bk],
            [a.batch, a.heads_kv, bk])


def random_descales(rng, a):
    shapes = descale_shapes(a)
    if shapes is None:
        return None
    return [[rng.uniform(0.25, 2.0) for _ in range(math.prod(sh))] for sh in shapes]


def descale_at(a, values, shape, b, h, s, block):
    """The descale factor of row s of head h (the tensor's own head)."""
    if values is None:
        return 1.0
    if not shape:
        return values[0]
    if len(shape) == 2:
        return values[b * shape[1] + h]
    return values[(b * shape[1] + h) * shape[2] + s // block]


def mlir_float(x):
    return repr(float(x)).replace("inf", "0x7F800000")


def memref_type(shape, dtype):
    return "memref<" + "".join(f"{d}x" for d in shape) + dtype + ">"


def storage_shape(a, heads, seq, dim):
    if a.layout == "bshd":
        return [a.batch, seq, heads, dim]
    return [a.batch, heads, seq, dim]


def view_type(a, heads, seq, dim, dtype):
    """The logical [B, H, S, D] view of a storage buffer."""
    if a.layout == "bhsd":
        return memref_type([a.batch, heads, seq, dim], dtype)
    s = [seq * heads * dim, dim, heads * dim, 1]
    return (f"memref<{a.batch}x{heads}x{seq}x{dim}x{dtype}, "
            f"strided<[{s[0]}, {s[1]}, {s[2]}, 1]>>")


def dynamic_type(dim, dtype, rank=4):
    dims = "?x" * (rank - 1) + (f"{dim}x" if rank == 4 else "?x")
    strides = ", ".join(["?"] * (rank - 1) + ["1"])
    return f"memref<{dims}{dtype}, strided<[{strides}], offset: ?>>"


def attention_attributes(a):
    """The scale, mask and softcap attributes (MLIR text) that fattn.attention
    and fattn.attention_grad share, from the command line."""
    attrs = []
    if a.scale is not None:
        attrs.append(f"scale = {mlir_float(a.scale)} : f32")
    if a.causal:
        attrs.append("causal = true")
    if a.window_left is not None:
        attrs.append(f"window_left = {a.window_left} : i64")
    if a.window_right is not None:
        attrs.append(f"window_right = {a.window_right} : i64")
    if a.softcap is not None:
        attrs.append(f"softcap = {mlir_float(a.softcap)} : f32")
    return attrs


def build_program(a, q, k, v, descales=None, signs=None):
    d, dv, dt = a.head_dim, a.head_dim_v, a.dtype
    out_dt = "bf16" if dt == FP8 else dt
    shapes = {
        "q": storage_shape(a, a.heads_q, a.seq_q, d),
        "k": storage_shape(a, a.heads_kv, a.seq_k, d),
        "v": storage_shape(a, a.heads_kv, a.seq_k, dv),
        "o": storage_shape(a, a.heads_q, a.seq_q, dv),
    }
    if a.value_layout:
        shapes["v"] = [a.batch, a.heads_kv, dv, a.value_keys]
    views = {
        "q": view_type(a, a.heads_q, a.seq_q, d, dt),
        "k": view_type(a, a.heads_kv, a.seq_k, d, dt),
        "v": view_type(a, a.heads_kv, a.seq_k, dv, dt),
        "o": view_type(a, a.heads_q, a.seq_q, dv, out_dt),
    }
    if a.value_layout:
        views["v"] = memref_type(shapes["v"], dt)
    lse_type = memref_type([a.batch, a.heads_q, a.seq_q], "f32")
    out = []
    for name, data in (("q", q), ("k", k), ("v", v)):
        if dt == FP8:
            # LLVM has no 8-bit floats: the bytes travel as i8.
            codes = (e4m3_code(x) for x in data)
            values = ", ".join(str(c - 256 if c >= 128 else c) for c in codes)
            flat = memref_type([len(data)], "i8")
        else:
            values = ", ".join(mlir_float(x) for x in data)
            flat = memref_type([len(data)], dt)
        out.append(f'memref.global "private" constant @{name}_data : '
                   f'{flat} = dense<[{values}]>')
    if signs is not None:
        out.append(f'memref.global "private" constant @signs : '
                   f'{memref_type([d], "f32")} = dense<[{", ".join(map(mlir_float, signs))}]>')
    dshapes = descale_shapes(a)
    if descales is not None:
        for name, sh, vals in zip(("dq", "dk", "dv"), dshapes, descales):
            lit = mlir_float(vals[0]) if not sh else "[" + ", ".join(map(mlir_float, vals)) + "]"
            if len(sh) == 3:
                lit = "[" + ", ".join(map(mlir_float, vals)) + "]"
                out.append(f'memref.global "private" constant @{name}_flat : '
                           f'{memref_type([len(vals)], "f32")} = dense<{lit}>')
            else:
                if len(sh) == 2:
                    rows = [vals[i * sh[1]:(i + 1) * sh[1]] for i in range(sh[0])]
                    lit = "[" + ", ".join("[" + ", ".join(map(mlir_float, r)) + "]" for r in rows) + "]"
                out.append(f'memref.global "private" constant @{name}_data : '
                           f'{memref_type(sh, "f32")} = dense<{lit}>')

    # The attention function, with static or dynamic operand types.
    has_lse = not a.no_lse
    if a.dynamic:
        width = (lambda w: "?") if a.dynamic_head_dim else (lambda w: w)
        arg_types = {n: dynamic_type(width(d if n in "qk" else dv),
                                     out_dt if n == "o" else dt)
                     for n in "qkvo"}
        arg_types["lse"] = dynamic_type(0, "f32", rank=3)
        if a.value_layout:
            arg_types["v"] = (f"memref<?x?x{width(dv)}x?x{dt}, "
                              "strided<[?, ?, ?, 1], offset: ?>>")
    else:
        arg_types = dict(views)
        arg_types["lse"] = lse_type
    names = ["q", "k", "v", "o"] + (["lse"] if has_lse else [])
    if descales is not None:
        for n, sh in zip(("dq", "dk", "dv"), dshapes):
            arg_types[n] = memref_type(sh, "f32")
        names += ["dq", "dk", "dv"]
    params = ", ".join(f"%{n}: {arg_types[n]}" for n in names)
    if a.scale is None and (a.dynamic_head_dim or a.runtime_scalars):
        a.scale = 1.0 / math.sqrt(d)  # the default needs a static head dim
    # Runtime scalars: the attributes become f32 arguments of @attention.
    scalars = []
    if a.runtime_scalars:
        scalars = [("scale", a.scale)] + ([("softcap", a.softcap)] if a.softcap else [])
        params += "".join(f", %{n}: f32" for n, _ in scalars)
        a = argparse.Namespace(**{**vars(a), "scale": None, "softcap": None})
    attrs = attention_attributes(a)
    if a.value_layout:
        attrs.append('value_layout = "transposed_wgmma_e4m3_k32"')
    lse_clause = f" lse(%lse : {arg_types['lse']})" if has_lse else ""
    scalar_clause = "".join(f" {n}(%{n} : f32)" for n, _ in scalars)
    if descales is not None:
        lse_clause += (f" descale(%dq, %dk, %dv : {arg_types['dq']}, {arg_types['dk']}, "
                       f"{arg_types['dv']})")
        if a.descale == "block":
            attrs.append(f"descale_block_q = {a.descale_block_q} : i64")
            attrs.append(f"descale_block_kv = {a.descale_block_kv} : i64")
    out.append(f"""
func.func @attention({params}) {{
  fattn.attention ins(%q, %k, %v : {arg_types['q']}, {arg_types['k']}, {arg_types['v']})
                  outs(%o : {arg_types['o']}){lse_clause}{scalar_clause} {{{', '.join(attrs)}}}
  return
}}
func.func private @printMemrefF32(memref<*xf32>)
""")

    # main: views of the inputs, a poisoned output, the call, the prints.
    body = []
    perm = "(d0, d1, d2, d3) -> (d0, d2, d1, d3)"
    for n in ("q", "k", "v", "o"):
        st = memref_type(shapes[n], out_dt if n == "o" else dt)
        if n == "o":
            body.append(f"%o_buf = memref.alloc() : {st}")
            body.append(f"%nan_o = arith.constant 0x7FC00000 : f32")
            nan = "%nan_o" if out_dt == "f32" else "%nan_o_t"
            if out_dt != "f32":
                body.append(f"%nan_o_t = arith.truncf %nan_o : f32 to {out_dt}")
            body.append(f"linalg.fill ins({nan} : {out_dt}) outs(%o_buf : {st})")
            src = "%o_buf"
        elif dt == FP8:
            count = math.prod(shapes[n])
            bits = memref_type([count], "i8")
            flat = memref_type([count], dt)
            dims = ", ".join(map(str, shapes[n]))
            body.append(f"%{n}_bits = memref.get_global @{n}_data : {bits}")
            body.append(f"%{n}_flat = memref.alloc() : {flat}")
            body.append(f"""linalg.generic {{indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}} ins(%{n}_bits : {bits}) outs(%{n}_flat : {flat}) {{
  ^bb0(%x: i8, %y: {dt}):
    %c = arith.bitcast %x : i8 to {dt}
    linalg.yield %c : {dt}
  }}""")
            body.append(f"%{n}_buf = memref.expand_shape %{n}_flat [[0, 1, 2, 3]] "
                        f"output_shape [{dims}] : {flat} into {st}")
            src = f"%{n}_buf"
        else:
            flat = memref_type([math.prod(shapes[n])], dt)
            dims = ", ".join(map(str, shapes[n]))
            body.append(f"%{n}_flat = memref.get_global @{n}_data : {flat}")
            body.append(f"%{n}_buf = memref.expand_shape %{n}_flat [[0, 1, 2, 3]] "
                        f"output_shape [{dims}] : {flat} into {st}")
            src = f"%{n}_buf"
        if signs is not None and n in "qk":
            body.append(f"%{n}_signs = memref.get_global @signs : {memref_type([d], 'f32')}")
            body.append(f"%{n}_rot = memref.alloc() : {st}")
            body.append(f"fattn.hadamard_rotate ins({src} : {st}) signs(%{n}_signs : "
                        f"{memref_type([d], 'f32')}) outs(%{n}_rot : {st})")
            src = f"%{n}_rot"
        if a.layout == "bshd" and not (n == "v" and a.value_layout):
            body.append(f"%{n}_view = memref.transpose {src} {perm} : {st} to {views[n]}")
        else:
            body.append(f"%{n}_view = memref.cast {src} : {st} to {views[n]}")
    if has_lse:
        body.append(f"%lse_buf = memref.alloc() : {lse_type}")
        body.append("%nan_l = arith.constant 0x7FC00000 : f32")
        body.append(f"linalg.fill ins(%nan_l : f32) outs(%lse_buf : {lse_type})")
        body.append(f"%lse_view = memref.cast %lse_buf : {lse_type} to {arg_types['lse']}")
    for n in ("q", "k", "v", "o"):
        if arg_types[n] != views[n]:
            body.append(f"%{n}_arg = memref.cast %{n}_view : {views[n]} to {arg_types[n]}")
        else:
            body.append(f"%{n}_arg = memref.cast %{n}_view : {views[n]} to {views[n]}")
    if descales is not None:
        for n, sh in zip(("dq", "dk", "dv"), dshapes):
            t = memref_type(sh, "f32")
            if len(sh) == 3:
                ft = memref_type([math.prod(sh)], "f32")
                dims = ", ".join(map(str, sh))
                body.append(f"%{n}_flat = memref.get_global @{n}_flat : {ft}")
                body.append(f"%{n}_arg = memref.expand_shape %{n}_flat [[0, 1, 2]] "
                            f"output_shape [{dims}] : {ft} into {t}")
            else:
                body.append(f"%{n}_arg = memref.get_global @{n}_data : {t}")
    call_args = ", ".join(f"%{n}_arg" if n != "lse" else "%lse_view" for n in names)
    call_types = ", ".join(arg_types[n] for n in names)
    for n, value in scalars:
        body.append(f"%{n}_value = arith.constant {mlir_float(value)} : f32")
        call_args += f", %{n}_value"
        call_types += ", f32"
    body.append(f"func.call @attention({call_args}) : ({call_types}) -> ()")

    # Print O in f32 (converted when narrower) and the LSE.
    o_f32 = memref_type([a.batch, a.heads_q, a.seq_q, dv], "f32")
    body.append(f"%o_print = memref.alloc() : {o_f32}")
    body.append(f"""linalg.generic {{indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}} ins(%o_view : {views['o']}) outs(%o_print : {o_f32}) {{
  ^bb0(%x: {out_dt}, %y: f32):
    {"%e = arith.extf %x : " + out_dt + " to f32" if out_dt != "f32" else ""}
    linalg.yield {"%e" if out_dt != "f32" else "%x"} : f32
  }}""")
    body.append(f"%o_u = memref.cast %o_print : {o_f32} to memref<*xf32>")
    body.append("call @printMemrefF32(%o_u) : (memref<*xf32>) -> ()")
    if has_lse:
        body.append(f"%lse_u = memref.cast %lse_buf : {lse_type} to memref<*xf32>")
        body.append("call @printMemrefF32(%lse_u) : (memref<*xf32>) -> ()")
    out.append("func.func @main() {\n  " + "\n  ".join(body) + "\n  return\n}")
    return "\n".join(out) + "\n"


def reference(a, q, k, v, descales=None):
    """Float64 attention from the logical BHSD data; returns (O, LSE)."""
    B, Hq, Hkv, Sq, Sk = a.batch, a.heads_q, a.heads_kv, a.seq_q, a.seq_k
    D, Dv = a.head_dim, a.head_dim_v
    scale = a.scale if a.scale is not None else 1.0 / math.sqrt(D)
    wl = a.window_left if a.window_left is not None else -1
    wr = 0 if a.causal else (a.window_right if a.window_right is not None else -1)
    cap = a.softcap or 0.0
    off = Sk - Sq

    def rows(data, heads, seq, dim):
        # data is in storage order; return [b][h][s] -> list of dim floats.
        out = [[[None] * seq for _ in range(heads)] for _ in range(B)]
        for b in range(B):
            for h in range(heads):
                for s in range(seq):
                    if a.layout == "bshd":
                        base = ((b * seq + s) * heads + h) * dim
                    else:
                        base = ((b * heads + h) * seq + s) * dim
                    out[b][h][s] = data[base:base + dim]
        return out

    Q, K, V = rows(q, Hq, Sq, D), rows(k, Hkv, Sk, D), rows(v, Hkv, Sk, Dv)
    O, L = [], []
    group = Hq // Hkv
    if descales is not None:
        dq, dk, dv = descales
        sq, sk, sv = descale_shapes(a)
        for b in range(B):
            for h in range(Hq):
                head = h if len(sq) == 3 else h // group
                for s in range(Sq):
                    f = descale_at(a, dq, sq, b, head, s, a.descale_block_q)
                    Q[b][h][s] = [x * f for x in Q[b][h][s]]
            for h in range(Hkv):
                for s in range(Sk):
                    f = descale_at(a, dk, sk, b, h, s, a.descale_block_kv)
                    K[b][h][s] = [x * f for x in K[b][h][s]]
                    g = descale_at(a, dv, sv, b, h, s, a.descale_block_kv)
                    V[b][h][s] = [x * g for x in V[b][h][s]]
    for b in range(B):
        for h in range(Hq):
            kh = h // group
            for i in range(Sq):
                qi = Q[b][h][i]
                lo = 0 if wl < 0 else max(0, i + off - wl)
                hi = Sk - 1 if wr < 0 else min(Sk - 1, i + off + wr)
                scores = []
                for j in range(lo, hi + 1):
                    s = scale * math.fsum(map(float.__mul__, qi, K[b][kh][j]))
                    if cap > 0:
                        s = cap * math.tanh(s / cap)
                    scores.append((j, s))
                if not scores:
                    O.extend([0.0] * Dv)
                    L.append(-math.inf)
                    continue
                m = max(s for _, s in scores)
                w = [(j, math.exp(s - m)) for j, s in scores]
                total = math.fsum(p for _, p in w)
                acc = [0.0] * Dv
                for j, p in w:
                    vj = V[b][kh][j]
                    for c in range(Dv):
                        acc[c] += p * vj[c]
                O.extend(x / total for x in acc)
                L.append(m + math.log(total))
    return O, L


def run_tool(cmd, stdin=None):
    proc = subprocess.run(cmd, input=stdin, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr[-4000:])
        raise SystemExit(f"FAIL: {cmd[0]} exited with {proc.returncode}")
    return proc.stdout


def parse_printed(text):
    blocks = [b.split("data =", 1)[1] for b in text.split("Unranked Memref")[1:]]
    return [[float(x) for x in NUM_RE.findall(block)] for block in blocks]


def main(argv):
    a = parse_args(argv)
    rng = random.Random(a.seed)
    q = random_tensor(rng, storage_shape(a, a.heads_q, a.seq_q, a.head_dim), a.dtype)
    k = random_tensor(rng, storage_shape(a, a.heads_kv, a.seq_k, a.head_dim), a.dtype)
    v = random_tensor(rng, storage_shape(a, a.heads_kv, a.seq_k, a.head_dim_v), a.dtype)
    descales = random_descales(rng, a)
    signs = [rng.choice((-1.0, 1.0)) for _ in range(a.head_dim)] if a.hadamard else None
    stored_v = transpose_value(a, v, rng) if a.value_layout else v
    program = build_program(a, q, k, stored_v, descales, signs)
    with tempfile.TemporaryDirectory() as tmp:
        path = a.keep or os.path.join(tmp, "attention.mlir")
        with open(path, "w") as f:
            f.write(program)
        pipeline = f"--fattn-cpu-pipeline={a.pipeline_options}" if a.pipeline_options else "--fattn-cpu-pipeline"
        lowered = run_tool([a.opt, path, pipeline])
        stdout = run_tool([a.runner, "-e", "main", "-entry-point-result=void",
                           f"-shared-libs={a.shared_libs}"], stdin=lowered)
    printed = parse_printed(stdout)
    want_o, want_l = reference(a, q, k, v, descales)
    got_o = printed[0]
    if len(got_o) != len(want_o):
        print(f"FAIL seed={a.seed}: printed {len(got_o)} output values, expected {len(want_o)}")
        return 1
    num = math.fsum((g - w) ** 2 for g, w in zip(got_o, want_o))
    den = math.fsum(w * w for w in want_o) or 1.0
    rel = math.sqrt(num / den) if all(math.isfinite(g) for g in got_o) else math.inf
    lse_err = 0.0
    if not a.no_lse:
        got_l = printed[1]
        for g, w in zip(got_l, want_l):
            if math.isinf(w) or math.isinf(g):
                lse_err = max(lse_err, 0.0 if g == w else math.inf)
            else:
                lse_err = max(lse_err, abs(g - w) / max(1.0, abs(w)))
        if len(got_l) != len(want_l):
            lse_err = math.inf
    tol = TOLERANCE[a.dtype]
    ok = rel <= tol and lse_err <= max(tol, 1e-5)
    print(f"{'PASS' if ok else 'FAIL'} o_rel_l2={rel:.3e} lse_max_err={lse_err:.3e} "
          f"tol={tol:g} seed={a.seed}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
