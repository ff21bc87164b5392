#!/usr/bin/env python3
"""Builds the sm_80 kernels that bench/sm80/sm80_gpu_check.py tests, with fattn-compile.

usage: bench/sm80/sm80_kernels.py [--compiler build-sm80/bin/fattn-compile] [--out kernels-out/sm80]
Each configuration becomes <out>/<entry>.json + .cubin + .ptx; ptxas -v goes to <out>/<entry>.ptxas.txt.
"""
import argparse
import math
import pathlib
import subprocess
import sys

# (entry suffix, dtype, head dim, causal, window_left, window_right, softcap, has_lse)
CONFIGS = [
    ("d64_bf16", "bf16", 64, False, -1, -1, 0.0, True),
    ("d128_bf16", "bf16", 128, False, -1, -1, 0.0, True),
    ("d64_bf16_causal", "bf16", 64, True, -1, 0, 0.0, True),
    ("d128_bf16_causal", "bf16", 128, True, -1, 0, 0.0, True),
    ("d128_f16_causal", "f16", 128, True, -1, 0, 0.0, False),
    ("d96_bf16_window", "bf16", 96, False, 100, 20, 0.0, True),
    ("d256_bf16", "bf16", 256, False, -1, -1, 0.0, True),
    ("d64_f16_softcap", "f16", 64, False, -1, -1, 30.0, True),
]


def mlir(entry, dtype, d, causal, wl, wr, softcap, has_lse):
    t = f"memref<?x?x?x{d}x{dtype}, strided<[?, ?, ?, 1], offset: ?>>"
    lt = "memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>"
    args = [f"%q: {t}", f"%k: {t}", f"%v: {t}", f"%o: {t}"] + ([f"%lse: {lt}"] if has_lse else [])
    attrs = [f"scale = {1.0 / math.sqrt(d)!r} : f32"]
    if causal:
        attrs.append("causal = true")
    elif wr >= 0:
        attrs.append(f"window_right = {wr} : i64")
    if wl >= 0:
        attrs.append(f"window_left = {wl} : i64")
    if softcap > 0:
        attrs.append(f"softcap = {softcap!r} : f32")
    lse = f" lse(%lse : {lt})" if has_lse else ""
    return (f"func.func @{entry}({', '.join(args)}) {{\n"
            f"  fattn.attention ins(%q, %k, %v : {t}, {t}, {t}) outs(%o : {t}){lse}"
            f" {{{', '.join(attrs)}}}\n  return\n}}\n")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--compiler", default="build-sm80/bin/fattn-compile")
    p.add_argument("--out", default="kernels-out/sm80")
    a = p.parse_args()
    out = pathlib.Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    for name, *cfg in CONFIGS:
        entry = "fattn_fwd_" + name
        src = out / f"{entry}.mlir"
        src.write_text(mlir(entry, *cfg))
        r = subprocess.run([a.compiler, str(src), "--arch", "sm_80", "--emit", "json", "-o", str(out), "-v"],
                           capture_output=True, text=True)
        (out / f"{entry}.ptxas.txt").write_text(r.stdout + r.stderr)
        if r.returncode:
            sys.exit(f"{entry}: {r.stderr}")
        # The H200 (sm_90) cannot run sm_80 SASS: the same sm_80 PTX, assembled for sm_90.
        r2 = subprocess.run(["/usr/local/cuda/bin/ptxas", "-arch=sm_90", "-O3", "-v", str(out / f"{entry}.ptx"),
                             "-o", str(out / f"{entry}.sm_90.cubin")], capture_output=True, text=True)
        if r2.returncode:
            sys.exit(f"{entry} (sm_90): {r2.stderr}")
        regs = [l.strip() for l in (r.stdout + r.stderr).splitlines() if "registers" in l or "spill" in l]
        print(entry, "|", " | ".join(regs))


if __name__ == "__main__":
    main()
