#!/usr/bin/env python3
"""Runs fattn.quantize, then FP8 fattn.attention on its outputs, on the CPU.

Generates Q, K, V (bf16, f16 or f32; BHSD or strided BSHD views), quantizes
each with fattn.quantize (Q and K rotated by the same random signs with
--hadamard) at the chosen granularity, feeds the e4m3 tensors and their
descales to fattn.attention, lowers everything with --fattn-cpu-pipeline and
runs it with mlir-runner. Checks:

- the descales and every e4m3 byte against `quantize_reference` below, a
  plain-Python model of the op (float32 arithmetic emulated exactly): they
  must be equal, bit for bit;
- the attention output against float64 attention of the dequantized inputs
  (the attention's own error: P's rounding to e4m3, the bf16 output), and
  against float64 attention of the original, unquantized inputs (adds the
  quantization error), each under its bound.

Prints `PASS ...` or `FAIL ...` (and exits 1). python/tests/test_quantize.py
imports `quantize_reference` to hold the torch quantizer to the same model.
"""

import argparse
import json
import math
import os
import random
import re
import struct
import sys
import tempfile
from types import SimpleNamespace

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from attention_oracle import (E4M3_FINITE, NUM_RE, add_problem_args,  # noqa: E402
                              e4m3_code, finish_problem_args, memref_type,
                              mlir_float, reference, round_to, run_tool)

E4M3_MAX = 448.0
SCALE_FLOOR = 2.0 ** -126
INT_RE = re.compile(r"-?\d+")


def f32(x):
    """Rounds a Python float to float32. One IEEE operation on float32
    operands, done in double and rounded once, is the correctly rounded
    float32 result (+, -, *, / and sqrt), so this emulates float32 exactly."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


def f32_bits(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def e4m3_decode(code):
    v = E4M3_FINITE[code & 127] if code & 127 != 127 else math.nan
    return -v if code & 0x80 else v


def rotate_row(row, signs):
    """row diag(signs) H / sqrt(d) in float32, butterflies in the lowering's
    order."""
    y = [f32(x * s) for x, s in zip(row, signs)]
    d, h = len(y), 1
    while h < d:
        for p in range(d // 2):
            lo = (p // h) * 2 * h + p % h
            a, b = y[lo], y[lo + h]
            y[lo], y[lo + h] = f32(a + b), f32(a - b)
        h *= 2
    norm = f32(1.0 / math.sqrt(d))
    return [f32(v * norm) for v in y]


def quantize_reference(rows, per, groups=None, block=None, signs=None):
    """fattn.quantize in plain Python. `rows[b][h][s]` is a list of d floats
    (exact float32 values). Returns (codes[b][h][s] lists of e4m3 bytes,
    descale as a flat row-major list) for per = tensor (shape []), head
    ([B, groups]) or block ([B, H, ceil(S / block)])."""
    B, H, S = len(rows), len(rows[0]), len(rows[0][0])
    if signs is not None:
        rows = [[[rotate_row(r, signs) for r in head] for head in batch] for batch in rows]
    if per == "tensor":
        sets = [[(b, h, s) for b in range(B) for h in range(H) for s in range(S)]]
    elif per == "head":
        g = H // groups
        sets = [[(b, h, s) for h in range(i * g, (i + 1) * g) for s in range(S)]
                for b in range(B) for i in range(groups)]
    else:
        nb = -(-S // block)
        sets = [[(b, h, s) for s in range(i * block, min(S, (i + 1) * block))]
                for b in range(B) for h in range(H) for i in range(nb)]
    codes = [[[None] * S for _ in range(H)] for _ in range(B)]
    descale = []
    for members in sets:
        amax = max((abs(x) for b, h, s in members for x in rows[b][h][s]), default=0.0)
        scale = max(f32(amax / E4M3_MAX), SCALE_FLOOR)
        descale.append(scale)
        for b, h, s in members:
            codes[b][h][s] = [e4m3_code(f32(x / scale)) for x in rows[b][h][s]]
    return codes, descale


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__)
    add_problem_args(p)
    p.add_argument("--dtype", choices=["f32", "f16", "bf16"], default="bf16")
    p.add_argument("--layout", choices=["bhsd", "bshd"], default="bhsd")
    p.add_argument("--causal", action="store_true")
    p.add_argument("--per", choices=["tensor", "head", "block"], default="tensor")
    p.add_argument("--block-q", type=int, default=16)
    p.add_argument("--block-kv", type=int, default=16)
    p.add_argument("--hadamard", action="store_true",
                   help="rotate Q and K (fused into fattn.quantize)")
    p.add_argument("--outliers", type=float, default=0.0,
                   help="add N(0, 100) to this fraction of the inputs "
                        "(the FlashAttention-3 accuracy protocol uses 0.001)")
    p.add_argument("--tol-dequantized", type=float, default=4e-2,
                   help="bound on O's relative L2 error against float64 "
                        "attention of the dequantized inputs")
    p.add_argument("--tol-input", type=float, default=1.5e-1,
                   help="bound against float64 attention of the inputs")
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--keep", help="write the generated program here")
    p.add_argument("--dump", help="write the inputs (BHSD rows), the signs and "
                   "what the op produced (bytes, descale bits) here, as JSON")
    return finish_problem_args(p.parse_args(argv))


class Tensor:
    """One of Q, K, V: its values, storage and view types, quantization."""

    def __init__(self, a, name, heads, seq, rng):
        self.name, self.heads, self.seq = name, heads, seq
        B, D = a.batch, a.head_dim
        self.logical = [B, heads, seq, D]
        self.storage = [B, seq, heads, D] if a.layout == "bshd" else list(self.logical)
        data = []
        for _ in range(math.prod(self.storage)):
            x = rng.gauss(0.0, 1.0)
            if rng.random() < a.outliers:
                x += rng.gauss(0.0, 10.0)
            data.append(round_to(x, a.dtype))
        self.data = data  # storage order
        if a.layout == "bshd":
            st = [seq * heads * D, D, heads * D, 1]
            self.view = (f"memref<{B}x{heads}x{seq}x{D}x{a.dtype}, "
                         f"strided<[{st[0]}, {st[1]}, {st[2]}, 1]>>")
        else:
            self.view = memref_type(self.logical, a.dtype)
        self.rows = [[[self.row(a, b, h, s) for s in range(seq)] for h in range(heads)]
                     for b in range(B)]

    def row(self, a, b, h, s):
        D = a.head_dim
        if a.layout == "bshd":
            base = ((b * self.seq + s) * self.heads + h) * D
        else:
            base = ((b * self.heads + h) * self.seq + s) * D
        return self.data[base:base + D]


def descale_shape(a, t, groups, block):
    if a.per == "tensor":
        return []
    if a.per == "head":
        return [a.batch, groups]
    return [a.batch, t.heads, -(-t.seq // block)]


def build_program(a, tensors, signs, plans):
    """main(): the inputs as globals, fattn.quantize for each, fattn.attention
    on the results; prints each descale (as f32 bits), each tensor's e4m3
    bytes, then O (f32)."""
    D, dt = a.head_dim, a.dtype
    out, body = [], []
    for t in tensors:
        vals = ", ".join(mlir_float(x) for x in t.data)
        out.append(f'memref.global "private" constant @{t.name}_data : '
                   f'{memref_type([len(t.data)], dt)} = dense<[{vals}]>')
    sign_t = memref_type([D], "f32")
    if signs is not None:
        out.append(f'memref.global "private" constant @signs : {sign_t} = '
                   f'dense<[{", ".join(map(mlir_float, signs))}]>')
        body.append(f"%signs = memref.get_global @signs : {sign_t}")
    perm = "(d0, d1, d2, d3) -> (d0, d2, d1, d3)"
    for t, (groups, block, rotate) in zip(tensors, plans):
        n = t.name
        flat = memref_type([len(t.data)], dt)
        st = memref_type(t.storage, dt)
        dims = ", ".join(map(str, t.storage))
        body.append(f"%{n}_flat = memref.get_global @{n}_data : {flat}")
        body.append(f"%{n}_buf = memref.expand_shape %{n}_flat [[0, 1, 2, 3]] "
                    f"output_shape [{dims}] : {flat} into {st}")
        if a.layout == "bshd":
            body.append(f"%{n} = memref.transpose %{n}_buf {perm} : {st} to {t.view}")
        else:
            body.append(f"%{n} = memref.cast %{n}_buf : {st} to {t.view}")
        f8 = memref_type(t.logical, "f8E4M3FN")
        dsh = descale_shape(a, t, groups, block)
        dty = memref_type(dsh, "f32")
        t.f8_type, t.descale_type = f8, dty
        body.append(f"%{n}8 = memref.alloc() : {f8}")
        body.append(f"%d{n} = memref.alloc() : {dty}")
        sig = f" signs(%signs : {sign_t})" if rotate else ""
        attr = f" {{block = {block} : i64}}" if a.per == "block" else ""
        body.append(f"fattn.quantize ins(%{n} : {t.view}){sig} outs(%{n}8 : {f8}) "
                    f"descale(%d{n} : {dty}){attr}")
    q, k, v = tensors
    o_t = memref_type([a.batch, a.heads_q, a.seq_q, D], "bf16")
    body.append(f"%o = memref.alloc() : {o_t}")
    body.append("%nan = arith.constant 0x7FC0 : bf16")
    body.append(f"linalg.fill ins(%nan : bf16) outs(%o : {o_t})")
    attrs = ["causal = true"] if a.causal else []
    if a.per == "block":
        attrs += [f"descale_block_q = {a.block_q} : i64",
                  f"descale_block_kv = {a.block_kv} : i64"]
    body.append(f"fattn.attention ins(%q8, %k8, %v8 : {q.f8_type}, {k.f8_type}, {v.f8_type}) "
                f"outs(%o : {o_t}) descale(%dq, %dk, %dv : {q.descale_type}, "
                f"{k.descale_type}, {v.descale_type}) {{{', '.join(attrs)}}}")

    def print_as(src, src_t, src_elem, shape, elem, convert, printer):
        """Copies `src` into a fresh buffer of `elem` through `convert` (a
        block body from %x to %y) and prints it with `printer`."""
        name = f"%p{len(body)}"
        if not shape:  # rank 0: through a one-element buffer
            flat = memref_type([1], src_elem)
            body.append(f"{name}_s = memref.load {src}[] : {src_t}")
            body.append(f"{name}_src = memref.alloc() : {flat}")
            body.append(f"{name}_c0 = arith.constant 0 : index")
            body.append(f"memref.store {name}_s, {name}_src[{name}_c0] : {flat}")
            src, src_t, shape = f"{name}_src", flat, [1]
        ids = ", ".join(f"d{i}" for i in range(len(shape)))
        iters = ", ".join(['"parallel"'] * len(shape))
        dst_t = memref_type(shape, elem)
        body.append(f"{name} = memref.alloc() : {dst_t}")
        body.append(
            f"linalg.generic {{indexing_maps = [affine_map<({ids}) -> ({ids})>, "
            f"affine_map<({ids}) -> ({ids})>], iterator_types = [{iters}]}} "
            f"ins({src} : {src_t}) outs({name} : {dst_t}) {{\n"
            f"  ^bb0(%x: {src_elem}, %y: {elem}):\n{convert}\n  }}")
        body.append(f"{name}_u = memref.cast {name} : {dst_t} to memref<*x{elem}>")
        body.append(f"call @{printer}({name}_u) : (memref<*x{elem}>) -> ()")

    bits = ("    %b = arith.bitcast %x : f32 to i32\n    linalg.yield %b : i32")
    codes = ("    %b = arith.bitcast %x : f8E4M3FN to i8\n"
             "    %c = arith.extui %b : i8 to i32\n    linalg.yield %c : i32")
    widen = "    %e = arith.extf %x : bf16 to f32\n    linalg.yield %e : f32"
    for t, (groups, block, _) in zip(tensors, plans):
        print_as(f"%d{t.name}", t.descale_type, "f32", descale_shape(a, t, groups, block),
                 "i32", bits, "printMemrefI32")
    for t in tensors:
        print_as(f"%{t.name}8", t.f8_type, "f8E4M3FN", t.logical, "i32", codes,
                 "printMemrefI32")
    print_as("%o", o_t, "bf16", [a.batch, a.heads_q, a.seq_q, D], "f32", widen,
             "printMemrefF32")
    out.append("func.func private @printMemrefF32(memref<*xf32>)")
    out.append("func.func private @printMemrefI32(memref<*xi32>)")
    out.append("func.func @main() {\n  " + "\n  ".join(body) + "\n  return\n}")
    return "\n".join(out) + "\n"


def rel_l2(got, want):
    num = math.fsum((g - w) ** 2 for g, w in zip(got, want))
    den = math.fsum(w * w for w in want) or 1.0
    return math.sqrt(num / den) if all(math.isfinite(g) for g in got) else math.inf


def attention_reference(a, q_rows, k_rows, v_rows):
    """float64 attention of BHSD rows (lists), through the attention oracle."""
    ns = SimpleNamespace(batch=a.batch, heads_q=a.heads_q, heads_kv=a.heads_kv,
                         seq_q=a.seq_q, seq_k=a.seq_k, head_dim=a.head_dim,
                         head_dim_v=a.head_dim, scale=None, causal=a.causal,
                         window_left=None, window_right=None, softcap=None,
                         layout="bhsd")
    flat = lambda rows: [x for batch in rows for head in batch for r in head for x in r]
    o, _ = reference(ns, flat(q_rows), flat(k_rows), flat(v_rows))
    return o


def main(argv):
    a = parse_args(argv)
    rng = random.Random(a.seed)
    tensors = [Tensor(a, "q", a.heads_q, a.seq_q, rng), Tensor(a, "k", a.heads_kv, a.seq_k, rng),
               Tensor(a, "v", a.heads_kv, a.seq_k, rng)]
    signs = [rng.choice((-1.0, 1.0)) for _ in range(a.head_dim)] if a.hadamard else None
    # (groups, block, rotate) per tensor: Q's per-head factors are per KV
    # head, as fattn.attention reads them.
    plans = [(a.heads_kv, a.block_q, a.hadamard), (a.heads_kv, a.block_kv, a.hadamard),
             (a.heads_kv, a.block_kv, False)]
    program = build_program(a, tensors, signs, plans)
    with tempfile.TemporaryDirectory() as tmp:
        path = a.keep or os.path.join(tmp, "quantize.mlir")
        with open(path, "w") as f:
            f.write(program)
        lowered = run_tool([a.opt, path, "--fattn-cpu-pipeline"])
        stdout = run_tool([a.runner, "-e", "main", "-entry-point-result=void",
                           f"-shared-libs={a.shared_libs}"], stdin=lowered)
    blocks = [b.split("data =", 1)[1] for b in stdout.split("Unranked Memref")[1:]]
    got_descales = [[int(x) & 0xFFFFFFFF for x in INT_RE.findall(b)] for b in blocks[:3]]
    got_codes = [[int(x) for x in INT_RE.findall(b)] for b in blocks[3:6]]
    got_o = [float(x) for x in NUM_RE.findall(blocks[6])]

    mismatches, deq = 0, []
    for t, (groups, block, rotate), gd, gc in zip(tensors, plans, got_descales, got_codes):
        codes, descale = quantize_reference(t.rows, a.per, groups, block,
                                            signs if rotate else None)
        want_codes = [c for batch in codes for head in batch for r in head for c in r]
        want_bits = [f32_bits(x) for x in descale]
        bad = sum(g != w for g, w in zip(gc, want_codes)) + abs(len(gc) - len(want_codes))
        bad += sum(g != w for g, w in zip(gd, want_bits)) + abs(len(gd) - len(want_bits))
        if bad:
            print(f"{t.name}: {bad} bytes or descales differ from the reference")
        mismatches += bad
        # The dequantized rows, from the reference's codes and descales.
        B, H, S = len(codes), len(codes[0]), len(codes[0][0])
        rows = [[[None] * S for _ in range(H)] for _ in range(B)]
        for b in range(B):
            for h in range(H):
                for s in range(S):
                    if a.per == "tensor":
                        f = descale[0]
                    elif a.per == "head":
                        f = descale[b * groups + h // (H // groups)]
                    else:
                        nb = -(-S // block)
                        f = descale[(b * H + h) * nb + s // block]
                    rows[b][h][s] = [e4m3_decode(c) * f for c in codes[b][h][s]]
        deq.append(rows)
    if a.dump:
        with open(a.dump, "w") as f:
            json.dump({"per": a.per, "signs": signs, "tensors": [
                {"name": t.name, "rows": t.rows, "groups": groups, "block": block,
                 "rotate": rotate, "codes": gc, "descale_bits": gd}
                for t, (groups, block, rotate), gc, gd in zip(tensors, plans, got_codes,
                                                              got_descales)]}, f)
    want_deq = attention_reference(a, *deq)
    want_in = attention_reference(a, *(t.rows for t in tensors))
    err_deq, err_in = rel_l2(got_o, want_deq), rel_l2(got_o, want_in)
    if len(got_o) != len(want_in):
        err_deq = err_in = math.inf
    ok = mismatches == 0 and err_deq <= a.tol_dequantized and err_in <= a.tol_input
    print(f"{'PASS' if ok else 'FAIL'} quantize_mismatches={mismatches} "
          f"o_rel_l2_vs_dequantized={err_deq:.3e} o_rel_l2_vs_input={err_in:.3e} "
          f"seed={a.seed}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
