#!/usr/bin/env python3
"""Builds the sm_90a test kernels: fattn.attention -> fattn-sm90-pipeline ->
PTX (mlir-opt gpu-module-to-binary) -> cubin (ptxas -v, no spills allowed).

Writes OUT/<name>.{mlir,ptx,cubin,json,ptxas.txt} and OUT/manifest.json, which
scripts/sm90/check_sm90.py reads on the GPU machine.

usage: build_kernels.py FATTN_OPT OUT [--only NAME ...]
"""
import json, os, re, subprocess, sys

MLIR_OPT = "/usr/lib/llvm-22/bin/mlir-opt"
EXTRACT = os.path.join(os.path.dirname(__file__), "extract_ptx.py")

# (name, dtype, head_dim, attrs, lse, block_n, stages, extra pipeline options)
CONFIGS = [
    ("bf16_d128", "bf16", 128, {}, False, 128, 2, ""),
    ("bf16_d128_causal_lse", "bf16", 128, {"causal": True}, True, 128, 2, ""),
    ("bf16_d128_narrowpv", "bf16", 128, {}, False, 128, 2, "wide-value-mma=false"),
    ("bf16_d128_s3_n96", "bf16", 128, {}, False, 96, 3, ""),
    ("bf16_d128_window_lse", "bf16", 128, {"window_left": 100, "window_right": 20}, True, 128, 2, ""),
    ("bf16_d128_softcap", "bf16", 128, {"softcap": 30.0}, False, 128, 2, ""),
    ("f16_d128_causal", "f16", 128, {"causal": True}, False, 128, 2, ""),
    ("bf16_d64", "bf16", 64, {}, False, 128, 2, ""),
    ("f16_d64_causal_lse", "f16", 64, {"causal": True}, True, 128, 3, ""),
    ("bf16_d96", "bf16", 96, {}, False, 128, 2, ""),
    ("bf16_d256", "bf16", 256, {}, False, 64, 2, ""),
    ("bf16_d256_causal_lse", "bf16", 256, {"causal": True}, True, 64, 2, ""),
]


def attr_text(attrs):
    parts = []
    for k, v in attrs.items():
        if isinstance(v, bool):
            parts.append(f"{k} = {'true' if v else 'false'}")
        elif isinstance(v, float):
            parts.append(f"{k} = {v} : f32")
        else:
            parts.append(f"{k} = {v} : i64")
    return "{" + ", ".join(parts) + "}" if parts else ""


def source(dtype, d, attrs, lse):
    t = f"memref<?x?x?x{d}x{dtype}>"
    lse_arg = ", %lse: memref<?x?x?xf32>" if lse else ""
    lse_use = " lse(%lse : memref<?x?x?xf32>)" if lse else ""
    return (f"func.func @attn(%q: {t}, %k: {t}, %v: {t}, %o: {t}{lse_arg}) {{\n"
            f"  fattn.attention ins(%q, %k, %v : {t}, {t}, {t}) outs(%o : {t}){lse_use} {attr_text(attrs)}\n"
            f"  return\n}}\n")


def run(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{r.stderr[:3000]}")
    return r


def main():
    fattn_opt, out = sys.argv[1], sys.argv[2]
    only = sys.argv[4:] if len(sys.argv) > 3 and sys.argv[3] == "--only" else None
    os.makedirs(out, exist_ok=True)
    manifest = []
    for name, dtype, d, attrs, lse, bn, stages, extra in CONFIGS:
        if only and name not in only:
            continue
        base = os.path.join(out, name)
        with open(base + ".in.mlir", "w") as f:
            f.write(source(dtype, d, attrs, lse))
        opts = f"block-n={bn} stages={stages} kernel-name=fattn_{name} {extra}".strip()
        run([fattn_opt, base + ".in.mlir", f"--fattn-sm90-pipeline={opts}", "-o", base + ".mlir"])
        run([MLIR_OPT, base + ".mlir", "--convert-nvvm-to-llvm", "--reconcile-unrealized-casts",
             "--gpu-module-to-binary=format=isa", "-o", base + ".isa.mlir"])
        run([sys.executable, EXTRACT, base + ".isa.mlir", base + ".ptx"])
        r = run(["ptxas", "-arch=sm_90a", "-v", base + ".ptx", "-o", base + ".cubin"])
        info = r.stderr
        with open(base + ".ptxas.txt", "w") as f:
            f.write(info)
        regs = int(re.search(r"Used (\d+) registers", info).group(1))
        spills = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", info)
        stack = int(re.search(r"(\d+) bytes stack frame", info).group(1))
        if int(spills.group(1)) or int(spills.group(2)) or stack:
            sys.exit(f"{name}: ptxas reports spills or a stack frame:\n{info}")
        text = open(base + ".mlir").read()
        m = re.search(r'fattn\.kernel_description = "((?:[^"\\]|\\.)*)"', text)
        raw = re.sub(r"\\([0-9A-Fa-f]{2})", lambda x: chr(int(x.group(1), 16)), m.group(1))
        desc = json.loads(raw)
        desc["cubin"] = name + ".cubin"
        with open(base + ".json", "w") as f:
            json.dump(desc, f, indent=1)
        manifest.append({"name": name, "registers": regs, **desc})
        print(f"{name}: {regs} registers, 0 spills, smem {desc['dynamic_smem_bytes']}")
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)


if __name__ == "__main__":
    main()
