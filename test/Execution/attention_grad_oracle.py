#!/usr/bin/env python3
"""Runs one fattn.attention_grad configuration on the CPU and checks it in float64.

Draws random Q, K, V and dO, computes the forward's O and LSE in float64
(attention_oracle.reference), passes O rounded to the element type and LSE in
f32 to fattn.attention_grad (dQ, dK and dV poisoned with NaN, on BHSD or
strided BSHD views), lowers the program with `fattn-opt --fattn-cpu-pipeline`,
runs it with mlir-runner and compares dQ, dK and dV with the analytic
gradients of sum(dO * O), computed here in float64 from the same (rounded)
inputs:

  P = exp(S - LSE), D = rowsum(dO * O), dV = P^T dO, dP = dO V^T,
  dS = P (dP - D) (1 - tanh^2 with a softcap), dK = scale dS^T Q, dQ = scale dS K.

With --forward, O and LSE come from fattn.attention in the same program
instead (the forward and backward of a training step), so the two ops'
conventions (LSE in natural log of the scaled, capped scores; O = 0 and
LSE = -inf on rows without keys) are checked against each other.

Prints `PASS dq_rel_l2=... dk_rel_l2=... dv_rel_l2=...` or `FAIL ...` (and
exits 1).
"""

import argparse
import math
import os
import random
import sys
import tempfile

import attention_oracle as fwd

# Relative L2 error of each gradient. f32: the inputs are exact, the error is
# f32 accumulation. f16/bf16: O is rounded to the element type (D = rowsum(dO
# O) inherits its error) and P and dS are rounded before their products, as on
# the GPU. Measured (2026-12-06, 6 seeds each of a causal softcap GQA and a
# window configuration): f32 1.0e-6 to 1.7e-6, f16 2.8e-4 to 3.2e-4, bf16
# 2.1e-3 to 2.8e-3.
TOLERANCE = {"f32": 1e-5, "f16": 2e-3, "bf16": 1e-2}


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__)
    fwd.add_problem_args(p)
    fwd.add_attention_args(p)
    p.add_argument("--dtype", choices=sorted(TOLERANCE), default="f32")
    p.add_argument("--dynamic-head-dim", action="store_true",
                   help="also make the head dims dynamic (needs a scale: "
                        "1/sqrt(head_dim) is passed when --scale is not)")
    p.add_argument("--deterministic", action="store_true")
    p.add_argument("--forward", action="store_true",
                   help="compute O and LSE in the program with fattn.attention "
                        "(NaN-poisoned first) instead of passing the float64 "
                        "forward's: the training step's forward and backward")
    p.add_argument("--pipeline-options", default="",
                   help="e.g. 'block-m=32 block-n=16'")
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--keep", help="write the generated program here")
    a = fwd.finish_problem_args(p.parse_args(argv))
    a.head_dim_v = a.head_dim_v or a.head_dim
    if a.dynamic_head_dim:
        a.dynamic = True
        if a.scale is None:
            a.scale = 1.0 / math.sqrt(a.head_dim)
    # attention_oracle.reference reads these.
    a.value_layout = False
    return a


def logical_rows(a, data, heads, seq, dim):
    """[b][h][s] -> list of dim floats, from data in storage order."""
    out = [[[None] * seq for _ in range(heads)] for _ in range(a.batch)]
    for b in range(a.batch):
        for h in range(heads):
            for s in range(seq):
                if a.layout == "bshd":
                    base = ((b * seq + s) * heads + h) * dim
                else:
                    base = ((b * heads + h) * seq + s) * dim
                out[b][h][s] = data[base:base + dim]
    return out


def to_storage(a, logical, heads, seq, dim):
    """Flat BHSD data in the storage order of --layout."""
    if a.layout == "bhsd":
        return list(logical)
    out = [0.0] * len(logical)
    for b in range(a.batch):
        for h in range(heads):
            for s in range(seq):
                src = ((b * heads + h) * seq + s) * dim
                dst = ((b * seq + s) * heads + h) * dim
                out[dst:dst + dim] = logical[src:src + dim]
    return out


def dot(x, y):
    return math.fsum(map(float.__mul__, x, y))


def reference_grads(a, q, k, v, do, o, lse):
    """Float64 dQ, dK, dV (flat BHSD) of sum(dO * O) at the given inputs; o
    and lse are the float64 forward's (flat BHSD)."""
    B, Hq, Hkv, Sq, Sk = a.batch, a.heads_q, a.heads_kv, a.seq_q, a.seq_k
    D, Dv = a.head_dim, a.head_dim_v
    scale = a.scale if a.scale is not None else 1.0 / math.sqrt(D)
    wl = a.window_left if a.window_left is not None else -1
    wr = 0 if a.causal else (a.window_right if a.window_right is not None else -1)
    cap = a.softcap or 0.0
    off = Sk - Sq
    group = Hq // Hkv
    Q, K, V = (logical_rows(a, q, Hq, Sq, D), logical_rows(a, k, Hkv, Sk, D),
               logical_rows(a, v, Hkv, Sk, Dv))
    dO = logical_rows(a, do, Hq, Sq, Dv)
    dq = [0.0] * (B * Hq * Sq * D)
    dk = [[[[0.0] * D for _ in range(Sk)] for _ in range(Hkv)] for _ in range(B)]
    dv = [[[[0.0] * Dv for _ in range(Sk)] for _ in range(Hkv)] for _ in range(B)]
    for b in range(B):
        for h in range(Hq):
            kh = h // group
            for i in range(Sq):
                row = (b * Hq + h) * Sq + i
                if lse[row] == -math.inf:
                    continue
                qi, doi = Q[b][h][i], dO[b][h][i]
                delta = dot(doi, o[row * Dv:(row + 1) * Dv])
                lo = 0 if wl < 0 else max(0, i + off - wl)
                hi = Sk - 1 if wr < 0 else min(Sk - 1, i + off + wr)
                gq = [0.0] * D
                for j in range(lo, hi + 1):
                    s = scale * dot(qi, K[b][kh][j])
                    slope = 1.0
                    if cap > 0:
                        t = math.tanh(s / cap)
                        s = cap * t
                        slope = 1.0 - t * t
                    p = math.exp(s - lse[row])
                    ds = p * (dot(doi, V[b][kh][j]) - delta) * slope * scale
                    kj, gk, gv = K[b][kh][j], dk[b][kh][j], dv[b][kh][j]
                    for c in range(D):
                        gq[c] += ds * kj[c]
                        gk[c] += ds * qi[c]
                    for c in range(Dv):
                        gv[c] += p * doi[c]
                dq[row * D:(row + 1) * D] = gq
    flat = lambda t: [x for per_b in t for per_h in per_b for per_s in per_h for x in per_s]
    return dq, flat(dk), flat(dv)


def lse_literal(x):
    return "0xFF800000" if x == -math.inf else fwd.mlir_float(x)


def build_program(a, data):
    """data: name -> flat values in storage order (lse: BHS)."""
    d, dv, dt = a.head_dim, a.head_dim_v, a.dtype
    dims = {"q": (a.heads_q, a.seq_q, d), "k": (a.heads_kv, a.seq_k, d),
            "v": (a.heads_kv, a.seq_k, dv), "o": (a.heads_q, a.seq_q, dv),
            "do": (a.heads_q, a.seq_q, dv)}
    dims.update(dq=dims["q"], dk=dims["k"], dv=dims["v"])
    tensors = ["q", "k", "v", "o", "do", "dq", "dk", "dv"]
    shapes = {n: fwd.storage_shape(a, *dims[n]) for n in tensors}
    views = {n: fwd.view_type(a, *dims[n], dt) for n in tensors}
    lse_type = fwd.memref_type([a.batch, a.heads_q, a.seq_q], "f32")
    if a.dynamic:
        width = (lambda w: "?") if a.dynamic_head_dim else (lambda w: w)
        arg_types = {n: fwd.dynamic_type(width(dims[n][2]), dt) for n in tensors}
        arg_types["lse"] = fwd.dynamic_type(0, "f32", rank=3)
    else:
        arg_types = dict(views)
        arg_types["lse"] = lse_type

    out = []
    for n in ("q", "k", "v", "do") + (() if a.forward else ("o",)):
        values = ", ".join(fwd.mlir_float(x) for x in data[n])
        flat = fwd.memref_type([len(data[n])], dt)
        out.append(f'memref.global "private" constant @{n}_data : {flat} = dense<[{values}]>')
    lse_flat = fwd.memref_type([len(data["lse"])], "f32")
    if not a.forward:
        out.append(f'memref.global "private" constant @lse_data : {lse_flat} = '
                   f'dense<[{", ".join(lse_literal(x) for x in data["lse"])}]>')

    attrs = fwd.attention_attributes(a)
    forward = ""
    if a.forward:
        forward = (f"fattn.attention ins(%q, %k, %v : {arg_types['q']}, {arg_types['k']}, "
                   f"{arg_types['v']}) outs(%o : {arg_types['o']}) lse(%lse : "
                   f"{arg_types['lse']}) {{{', '.join(attrs)}}}\n  ")
    if a.deterministic:
        attrs.append("deterministic")
    names = ["q", "k", "v", "o", "do", "lse", "dq", "dk", "dv"]
    params = ", ".join(f"%{n}: {arg_types[n]}" for n in names)
    ins = ", ".join(arg_types[n] for n in names[:6])
    outs = ", ".join(arg_types[n] for n in names[6:])
    attr_dict = " {" + ", ".join(attrs) + "}" if attrs else ""
    out.append(f"""
func.func @attention_grad({params}) {{
  {forward}fattn.attention_grad ins(%q, %k, %v, %o, %do, %lse : {ins})
                       outs(%dq, %dk, %dv : {outs}){attr_dict}
  return
}}
func.func private @printMemrefF32(memref<*xf32>)
""")

    body = ["%nan = arith.constant 0x7FC00000 : f32"]
    if dt != "f32":
        body.append(f"%nan_t = arith.truncf %nan : f32 to {dt}")
    nan = "%nan" if dt == "f32" else "%nan_t"
    perm = "(d0, d1, d2, d3) -> (d0, d2, d1, d3)"
    for n in tensors:
        st = fwd.memref_type(shapes[n], dt)
        if (n.startswith("d") and n != "do") or (n == "o" and a.forward):
            body.append(f"%{n}_buf = memref.alloc() : {st}")
            body.append(f"linalg.fill ins({nan} : {dt}) outs(%{n}_buf : {st})")
        else:
            flat = fwd.memref_type([math.prod(shapes[n])], dt)
            sizes = ", ".join(map(str, shapes[n]))
            body.append(f"%{n}_flat = memref.get_global @{n}_data : {flat}")
            body.append(f"%{n}_buf = memref.expand_shape %{n}_flat [[0, 1, 2, 3]] "
                        f"output_shape [{sizes}] : {flat} into {st}")
        if a.layout == "bshd":
            body.append(f"%{n}_view = memref.transpose %{n}_buf {perm} : {st} to {views[n]}")
        else:
            body.append(f"%{n}_view = memref.cast %{n}_buf : {st} to {views[n]}")
        body.append(f"%{n}_arg = memref.cast %{n}_view : {views[n]} to {arg_types[n]}")
    if a.forward:
        body.append(f"%lse_buf = memref.alloc() : {lse_type}")
        body.append(f"linalg.fill ins(%nan : f32) outs(%lse_buf : {lse_type})")
    else:
        body.append(f"%lse_flat = memref.get_global @lse_data : {lse_flat}")
        body.append(f"%lse_buf = memref.expand_shape %lse_flat [[0, 1, 2]] output_shape "
                    f"[{a.batch}, {a.heads_q}, {a.seq_q}] : {lse_flat} into {lse_type}")
    body.append(f"%lse_arg = memref.cast %lse_buf : {lse_type} to {arg_types['lse']}")
    call_args = ", ".join(f"%{n}_arg" for n in names)
    body.append(f"func.call @attention_grad({call_args}) : "
                f"({', '.join(arg_types[n] for n in names)}) -> ()")

    # Print dQ, dK, dV in logical BHSD order, in f32.
    for n in ("dq", "dk", "dv"):
        heads, seq, dim = dims[n]
        f32_type = fwd.memref_type([a.batch, heads, seq, dim], "f32")
        ext = f"%e = arith.extf %x : {dt} to f32" if dt != "f32" else ""
        body.append(f"%{n}_print = memref.alloc() : {f32_type}")
        body.append(f"""linalg.generic {{indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}} ins(%{n}_view : {views[n]}) outs(%{n}_print : {f32_type}) {{
  ^bb0(%x: {dt}, %y: f32):
    {ext}
    linalg.yield {"%e" if dt != "f32" else "%x"} : f32
  }}""")
        body.append(f"%{n}_u = memref.cast %{n}_print : {f32_type} to memref<*xf32>")
        body.append(f"call @printMemrefF32(%{n}_u) : (memref<*xf32>) -> ()")
    out.append("func.func @main() {\n  " + "\n  ".join(body) + "\n  return\n}")
    return "\n".join(out) + "\n"


def rel_l2(got, want):
    if len(got) != len(want) or not all(math.isfinite(g) for g in got):
        return math.inf
    num = math.fsum((g - w) ** 2 for g, w in zip(got, want))
    den = math.fsum(w * w for w in want)
    if den == 0.0:
        return math.sqrt(num)
    return math.sqrt(num / den)


def main(argv):
    a = parse_args(argv)
    rng = random.Random(a.seed)
    dt = a.dtype
    q = fwd.random_tensor(rng, fwd.storage_shape(a, a.heads_q, a.seq_q, a.head_dim), dt)
    k = fwd.random_tensor(rng, fwd.storage_shape(a, a.heads_kv, a.seq_k, a.head_dim), dt)
    v = fwd.random_tensor(rng, fwd.storage_shape(a, a.heads_kv, a.seq_k, a.head_dim_v), dt)
    do = fwd.random_tensor(rng, fwd.storage_shape(a, a.heads_q, a.seq_q, a.head_dim_v), dt)
    o, lse = fwd.reference(a, q, k, v)
    o_in = [fwd.round_to(x, dt) for x in o]
    lse_in = [x if x == -math.inf else fwd.round_to(x, "f32") for x in lse]
    data = {"q": q, "k": k, "v": v, "do": do, "lse": lse_in,
            "o": to_storage(a, o_in, a.heads_q, a.seq_q, a.head_dim_v)}
    program = build_program(a, data)
    with tempfile.TemporaryDirectory() as tmp:
        path = a.keep or os.path.join(tmp, "attention_grad.mlir")
        with open(path, "w") as f:
            f.write(program)
        pipeline = (f"--fattn-cpu-pipeline={a.pipeline_options}"
                    if a.pipeline_options else "--fattn-cpu-pipeline")
        lowered = fwd.run_tool([a.opt, path, pipeline])
        stdout = fwd.run_tool([a.runner, "-e", "main", "-entry-point-result=void",
                               f"-shared-libs={a.shared_libs}"], stdin=lowered)
    printed = fwd.parse_printed(stdout)
    want = reference_grads(a, q, k, v, do, o, lse)
    errors = [rel_l2(got, w) for got, w in zip(printed, want)]
    if len(printed) != 3:
        errors = [math.inf] * 3
    tol = TOLERANCE[dt]
    ok = all(e <= tol for e in errors)
    masked_rows = sum(1 for x in lse if x == -math.inf)
    print(f"{'PASS' if ok else 'FAIL'} dq_rel_l2={errors[0]:.3e} dk_rel_l2={errors[1]:.3e} "
          f"dv_rel_l2={errors[2]:.3e} tol={tol:g} rows_without_keys={masked_rows} seed={a.seed}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
