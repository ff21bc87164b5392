#!/usr/bin/env python3
"""Checks examples/downstream's attention-lower against the installed fattn.

1. attention-lower's CPU pipeline (built with fattn::buildCPUPipeline) prints
   exactly what the installed `fattn-opt --fattn-cpu-pipeline` prints;
2. that program runs under mlir-runner and prints the O and LSE of a float64
   reference of examples/attention.mlir (relative error <= 1e-5);
3. a textual pipeline of fattn's passes (fattn-tile) runs and leaves the
   tiled form;
4. the GPU pipelines (fattn-sm80-pipeline, fattn-sm90-pipeline) named in a
   textual pipeline lower examples/gpu-attention.mlir to what fattn-opt
   prints: the dialects and interfaces that fattn::registerFAttnDialects
   registers are enough for them.
"""
import os
import argparse
import math
import re
import subprocess
import sys

# examples/attention.mlir: causal GQA, 4 query heads over 2 KV heads, 6 queries
# and keys, head dim 8; q[h, s, d] = sin(h + 3s + d), k = cos(h + 3s + d),
# v = s + d / 8 (k and v by KV head).
HEADS_Q, HEADS_KV, SEQ, DIM, SCALE = 4, 2, 6, 8, 0.35355339


def reference():
    """O [h][i][d] and LSE [h][i] in float64."""
    q = [[[math.sin(h + 3 * s + d) for d in range(DIM)] for s in range(SEQ)]
         for h in range(HEADS_Q)]
    k = [[[math.cos(h + 3 * s + d) for d in range(DIM)] for s in range(SEQ)]
         for h in range(HEADS_KV)]
    v = [[[s + d / 8 for d in range(DIM)] for s in range(SEQ)] for _ in range(HEADS_KV)]
    out, lse = [], []
    for h in range(HEADS_Q):
        kv = h // (HEADS_Q // HEADS_KV)
        out_h, lse_h = [], []
        for i in range(SEQ):
            scores = [SCALE * sum(a * b for a, b in zip(q[h][i], k[kv][j]))
                      for j in range(i + 1)]  # causal: keys 0..i
            top = max(scores)
            weights = [math.exp(s - top) for s in scores]
            total = sum(weights)
            out_h.append([sum(w * v[kv][j][d] for j, w in enumerate(weights)) / total
                          for d in range(DIM)])
            lse_h.append(top + math.log(total))
        out.append(out_h)
        lse.append(lse_h)
    return [x for h in out for row in h for x in row], [x for h in lse for x in h]


def run(command, stdin=None):
    result = subprocess.run(command, input=stdin, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"FAIL: {' '.join(command)} exited with {result.returncode}:\n"
                 f"{result.stderr}")
    return result.stdout


def printed_memrefs(text):
    """The data of each memref that printMemrefF32 printed, flattened."""
    blocks = re.split(r"Unranked Memref[^\n]*\n", text)[1:]
    number = r"-?(?:nan|inf|\d+(?:\.\d*)?(?:e[-+]?\d+)?)"
    return [[float(x) for x in re.findall(number, block)] for block in blocks]


def check_close(name, got, want, tolerance=1e-5):
    if len(got) != len(want):
        sys.exit(f"FAIL: {name}: {len(got)} values printed, expected {len(want)}")
    error = math.sqrt(sum((g - w) ** 2 for g, w in zip(got, want)))
    norm = math.sqrt(sum(w * w for w in want))
    if not error <= tolerance * norm:
        sys.exit(f"FAIL: {name}: relative L2 error {error / norm:.3g} > {tolerance}")
    print(f"ok: {name} matches the float64 reference (relative L2 error {error / norm:.2g})")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tool", required=True, help="attention-lower")
    parser.add_argument("--fattn-opt", required=True, help="the installed fattn-opt")
    parser.add_argument("--mlir-runner", required=True)
    parser.add_argument("--shared-libs", required=True,
                        help="mlir-runner's -shared-libs (the runner utils)")
    parser.add_argument("--examples", required=True,
                        help="the folder of attention.mlir and gpu-attention.mlir")
    args = parser.parse_args()
    cpu_input = os.path.join(args.examples, "attention.mlir")
    gpu_input = os.path.join(args.examples, "gpu-attention.mlir")

    lowered = run([args.tool, cpu_input])
    if lowered != run([args.fattn_opt, cpu_input, "--fattn-cpu-pipeline"]):
        sys.exit("FAIL: attention-lower's CPU pipeline differs from "
                 "fattn-opt --fattn-cpu-pipeline")
    print("ok: attention-lower prints what fattn-opt --fattn-cpu-pipeline prints")

    printed = run([args.mlir_runner, "-e", "main", "-entry-point-result=void",
                   f"-shared-libs={args.shared_libs}"], stdin=lowered)
    memrefs = printed_memrefs(printed)
    if len(memrefs) != 2:
        sys.exit(f"FAIL: expected O and LSE printed, found {len(memrefs)} memrefs:\n{printed}")
    want_out, want_lse = reference()
    check_close("O", memrefs[0], want_out)
    check_close("LSE", memrefs[1], want_lse)

    tiled = run([args.tool, cpu_input, "--pass-pipeline=builtin.module(fattn-tile{block-m=4 block-n=2})"])
    if "fattn.tiled_attention" not in tiled or "fattn.attention " in tiled:
        sys.exit(f"FAIL: the textual fattn-tile pipeline did not leave the tiled form:\n{tiled}")
    print("ok: a textual pipeline of fattn's passes (fattn-tile) runs")

    for pipeline in ("fattn-sm80-pipeline", "fattn-sm90-pipeline"):
        option = f"--pass-pipeline=builtin.module({pipeline})"
        kernels = run([args.tool, gpu_input, option])
        if "gpu.module" not in kernels or kernels != run([args.fattn_opt, gpu_input, option]):
            sys.exit(f"FAIL: attention-lower's {pipeline} differs from fattn-opt's")
        print(f"ok: attention-lower's {pipeline} prints what fattn-opt prints")


if __name__ == "__main__":
    main()
