#!/usr/bin/env python3
"""Builds issue 5's ablation set: fattn-compile's bf16 kernel shapes with one
schedule feature changed at a time, named for check_sm90.py --bench-matrix.

usage: build_ablation.py FATTN_OPT OUT
then, on the GPU machine: INTERLEAVE=40 check_sm90.py OUT --bench-matrix
(with FATTN_RUNTIME_LIB for the head-dim-64 causal kernels' tail_pairs)

Each kernel is bench_<label>_d<D>[_causal]; "ship" is fattn-compile's shape
(head dim 64: three consumers, 128-key tiles and the split tail, causal 96-key
tiles, the rescale threshold, per-warpgroup KV ranges and the work order's
tail; 128: 160-key tiles, the threshold, two Q buffers and the split tail,
causal 192-key tiles and per-warpgroup KV ranges; 256: 80-key tiles, pingpong
and the threshold; all persistent), the others change one thing: noov (no
intra-warpgroup overlap), nopt (one CTA per Q tile, which also drops the split
tail, the work order's tail and the second Q buffer, all for persistent CTAs),
nows (no warp specialization, which also drops the overlap, persistence and
what needs them), nopp (no pingpong), noT (no conditional rescaling), noq2
(one Q buffer), nost (no split tail), nokvr (one KV range for all consumer
warpgroups), notail (the fixed work order, no tail_pairs), pp (pingpong where
ship has none, which also drops per-warpgroup KV ranges)."""
import json, os, shutil, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
T8 = "rescale-threshold=8"
# What persistent CTAs carry with them: off with nopt and nows.
NOT_PERSISTENT = "persistent=false q-buffers=1 split-tail=false work-order-tail=false"
COMMON = {"noov": "intra-wg-overlap=false", "nopt": NOT_PERSISTENT,
          "nows": "warp-specialize=false " + NOT_PERSISTENT}
# (build_kernels.py kernel, the name's head-dim part, fattn-compile's extra
# options, {label: the change})
# The sets with per-warpgroup KV ranges, which need the producer warpgroup
# and no pingpong.
KVR = "warpgroup-kv-ranges=true"
NO_KVR = "warpgroup-kv-ranges=false"
COMMON_KVR = dict(COMMON, nows=f"{COMMON['nows']} {NO_KVR}", nokvr=NO_KVR)
SETS = [
    ("bench_stc3pt_d64", "d64", "",
     {"ship": "", **COMMON, "nost": "split-tail=false"}),
    ("bench_c3n96ltpt_d64_causal", "d64_causal", f"{KVR} work-order-tail=true",
     {"ship": "", "noT": "rescale-threshold=0", **COMMON_KVR,
      "notail": "work-order-tail=false"}),
    ("bench_stq2lt160pt_d128", "d128", "",
     {"ship": "", "noT": "rescale-threshold=0", "pp": "pingpong=true", **COMMON,
      "noq2": "q-buffers=1", "nost": "split-tail=false"}),
    ("bench_n192pt_d128_causal", "d128_causal", KVR,
     {"ship": "", **COMMON_KVR, "pp": f"pingpong=true {NO_KVR}"}),
]
for causal in ("", "_causal"):
    SETS.append((f"bench_n80pt_d256{causal}", f"d256{causal}", f"pingpong=true {T8}",
                 {"ship": "", "noT": "rescale-threshold=0", "nopp": "pingpong=false",
                  **COMMON}))


def main():
    fattn_opt, out = sys.argv[1], sys.argv[2]
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    env = dict(os.environ, ALLOW_SPILLS="1")
    manifest = []
    for kernel, dims, base, variants in SETS:
        for label, change in variants.items():
            tmp = os.path.join(out, "tmp")
            shutil.rmtree(tmp, ignore_errors=True)
            # Later pipeline options override earlier ones.
            env["EXTRA_OPTS"] = f"{base} {change}".strip()
            r = subprocess.run([sys.executable, os.path.join(HERE, "build_kernels.py"), fattn_opt,
                                tmp, "--only", kernel], env=env, capture_output=True, text=True)
            if r.returncode != 0:
                sys.exit(f"{label} {kernel}: {r.stderr[-2000:]}")
            (desc,) = json.load(open(os.path.join(tmp, "manifest.json")))
            name = f"bench_{label}_{dims}"
            shutil.copy(os.path.join(tmp, desc["cubin"]), os.path.join(out, name + ".cubin"))
            manifest.append(dict(desc, name=name, cubin=name + ".cubin", options=env["EXTRA_OPTS"]))
            print(f"{name}: {r.stdout.strip()}", flush=True)
            shutil.rmtree(tmp)
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)


if __name__ == "__main__":
    main()
