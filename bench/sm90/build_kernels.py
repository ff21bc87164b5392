#!/usr/bin/env python3
"""Builds the sm_90a test kernels: fattn.attention -> fattn-sm90-pipeline ->
PTX (mlir-opt gpu-module-to-binary) -> cubin (ptxas -v, no spills allowed).

Writes OUT/<name>.{mlir,ptx,cubin,json,ptxas.txt} and OUT/manifest.json, which
bench/sm90/check_sm90.py reads on the GPU machine.

usage: build_kernels.py FATTN_OPT OUT [--only NAME ...]   (JOBS=n parallel builds;
EXTRA_OPTS="..." appends pipeline options to every kernel, for A/B builds)
"""
import json, os, re, subprocess, sys

MLIR_OPT = "/usr/lib/llvm-22/bin/mlir-opt"
EXTRACT = os.path.join(os.path.dirname(__file__), "extract_ptx.py")

# (name, dtype, head_dim, attrs, lse, block_n, stages, extra pipeline options)
# Correctness set: every feature with the default schedule, and each schedule
# variant on a few of the hard cases (causal, windows, LSE, GQA, tails).
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
    # Schedule variants on hard cases.
    ("q2pt_bf16_d128_causal_lse", "bf16", 128, {"causal": True}, True, 128, 2, "persistent=true q-buffers=2"),
    ("q2ptpp_bf16_d128_n160_lse", "bf16", 128, {}, True, 160, 2, "persistent=true pingpong=true rescale-threshold=8 q-buffers=2"),
    ("q2pt_f16_d64_c3_causal", "f16", 64, {"causal": True}, False, 96, 2, "consumers=3 block-m=192 persistent=true rescale-threshold=8 q-buffers=2"),
    # O by TMA stores out of the item's Q buffer (tma-store=true): rows and
    # head-dim columns clipped by the tensor map, the sequential loop too
    ("tsq2ptpp_bf16_d128_n160_lse", "bf16", 128, {}, True, 160, 2, "persistent=true pingpong=true rescale-threshold=8 q-buffers=2 tma-store=true"),
    ("tsq2pt_f16_d64_c3_causal_lse", "f16", 64, {"causal": True}, True, 96, 2, "consumers=3 block-m=192 persistent=true rescale-threshold=8 q-buffers=2 tma-store=true"),
    ("tsq2pt_bf16_d96_causal", "bf16", 96, {"causal": True}, False, 128, 2, "persistent=true q-buffers=2 tma-store=true"),
    ("tsq2seq_bf16_d128_window_lse", "bf16", 128, {"window_left": 100, "window_right": 20}, True, 128, 2, "persistent=true intra-wg-overlap=false q-buffers=2 tma-store=true"),
    ("q2pt_fp8_d128_ds3_causal_lse", "e4m3:3b64,3b128,3b128", 128, {"causal": True}, True, 128, 2, "persistent=true q-buffers=2"),
    ("pp_bf16_d128_window_lse", "bf16", 128, {"window_left": 100, "window_right": 20}, True, 128, 2, "pingpong=true"),
    ("pp_f16_d64_causal_lse", "f16", 64, {"causal": True}, True, 128, 3, "pingpong=true"),
    ("seqpp_bf16_d256_causal_lse", "bf16", 256, {"causal": True}, True, 64, 2, "intra-wg-overlap=false pingpong=true"),
    ("seq_bf16_d128_softcap", "bf16", 128, {"softcap": 30.0}, False, 128, 2, "intra-wg-overlap=false"),
    ("nows_bf16_d128_causal_lse", "bf16", 128, {"causal": True}, True, 128, 2, "warp-specialize=false"),
    ("nows_bf16_d96_window_lse", "bf16", 96, {"window_left": 100, "window_right": 20}, True, 128, 3, "warp-specialize=false pingpong=true"),
    ("nowsseq_f16_d256", "f16", 256, {}, False, 64, 2, "warp-specialize=false intra-wg-overlap=false"),
    ("c3_bf16_d64_causal_lse", "bf16", 64, {"causal": True}, True, 128, 2, "consumers=3 block-m=192"),
    ("c3_f16_d64_window", "f16", 64, {"window_left": 100, "window_right": 20}, False, 128, 2, "consumers=3 block-m=192"),
    # Persistent CTAs (--fattn-persistent-tiles): work items of every length
    # (empty ones included) through one CTA.
    ("pt_bf16_d128_causal_lse", "bf16", 128, {"causal": True}, True, 128, 2, "persistent=true"),
    ("pt_bf16_d128_n176", "bf16", 128, {}, False, 176, 2, "persistent=true"),
    ("pt_bf16_d128_window_lse", "bf16", 128, {"window_left": 100, "window_right": 20}, True, 128, 2, "persistent=true"),
    ("ptseq_f16_d256_causal", "f16", 256, {"causal": True}, False, 80, 2, "persistent=true intra-wg-overlap=false"),
    ("ptc3_f16_d64_causal_lse", "f16", 64, {"causal": True}, True, 128, 2, "persistent=true consumers=3 block-m=192"),
    ("ptnorev_bf16_d96_causal", "bf16", 96, {"causal": True}, False, 128, 2, "persistent=true reverse-q-tiles=false"),
    # Pingpong's turns alternate across the work items of a persistent CTA
    # (a handshake per item hung at 8k causal before).
    ("ptpp_bf16_d128_causal_lse", "bf16", 128, {"causal": True}, True, 128, 2, "persistent=true pingpong=true"),
    ("ptpp_f16_d64_n192_causal", "f16", 64, {"causal": True}, False, 192, 2, "persistent=true pingpong=true"),
    # The row sums on the tensor cores (row-sum-mma: an m64n8 wgmma on a
    # ones tile per P V step) under masks, softcap, GQA and tails, in each
    # schedule (FP8 ones further down).
    ("rs_bf16_d128_window", "bf16", 128, {"window_left": 100, "window_right": 20}, False, 128, 2, "row-sum-mma=true"),
    ("rs_c3_f16_d64_causal", "f16", 64, {"causal": True}, False, 128, 2, "consumers=3 block-m=192 row-sum-mma=true"),
    ("rs_nows_bf16_d96_causal", "bf16", 96, {"causal": True}, False, 128, 2, "warp-specialize=false row-sum-mma=true"),
    ("rs_pt_bf16_d256_softcap", "bf16", 256, {"softcap": 30.0}, False, 64, 2, "persistent=true row-sum-mma=true"),
    ("rs_seq_bf16_d128_causal", "bf16", 128, {"causal": True}, False, 128, 2, "intra-wg-overlap=false row-sum-mma=true"),
    # Conditional rescaling (rescale-threshold): with a threshold of 8 a row
    # of random scores keeps its first max, with 0.25 it moves often; LSEs
    # (in units of the kept max), masks, softcap and every schedule.
    ("lz_pt_bf16_d128_causal_lse", "bf16", 128, {"causal": True}, True, 128, 2, "persistent=true rescale-threshold=8"),
    ("lz_pt_bf16_d256_n80", "bf16", 256, {}, False, 80, 2, "persistent=true rescale-threshold=0.25"),
    ("lz_ptc3_bf16_d64_window_lse", "bf16", 64, {"window_left": 100, "window_right": 20}, True, 128, 2, "persistent=true consumers=3 block-m=192 rescale-threshold=8"),
    ("lz_seq_f16_d128_softcap", "f16", 128, {"softcap": 30.0}, False, 128, 2, "intra-wg-overlap=false rescale-threshold=0.25"),
    ("lz_nows_bf16_d96_causal_lse", "bf16", 96, {"causal": True}, True, 128, 2, "warp-specialize=false rescale-threshold=0.25"),
    ("lz_pp_f16_d128_causal", "f16", 128, {"causal": True}, False, 128, 2, "pingpong=true rescale-threshold=8"),
    ("lz_rs_pt_bf16_d256_causal", "bf16", 256, {"causal": True}, False, 80, 2, "persistent=true row-sum-mma=true rescale-threshold=0.25"),
]

# Speed set: variant -> (extra options, block_n by head dim, stages). Each is
# built for bf16, causal and not, for the head dims of BENCH_HEAD_DIMS, and
# timed by check_sm90.py --bench-matrix beside SDPA FA2 and cuDNN. "best" is
# the default schedule; the others turn one feature off (or on) in turn.
C3 = "consumers=3 block-m=192 "
SCHEDULES = {
    # head dim 64: three consumer warpgroups
    "c3": (C3 + "intra-wg-overlap=true", 128, 2),
    "c3seq": (C3 + "intra-wg-overlap=false", 128, 2),
    "c3nows": (C3 + "warp-specialize=false", 128, 2),
    # two consumer warpgroups, 128-row KV tiles
    "ov": ("intra-wg-overlap=true", 128, 2),
    "seq": ("intra-wg-overlap=false", 128, 2),
    "ovpp": ("intra-wg-overlap=true pingpong=true", 128, 2),
    "nows": ("warp-specialize=false", 128, 2),
    "nowss3": ("warp-specialize=false", 128, 3),
    "n176": ("intra-wg-overlap=true", 176, 2),
    "n160": ("intra-wg-overlap=true", 160, 2),
    "n144": ("intra-wg-overlap=true", 144, 2),
    "n192": ("intra-wg-overlap=true", 192, 2),
    "s3": ("intra-wg-overlap=true", 128, 3),
    "ppn176": ("intra-wg-overlap=true pingpong=true", 176, 2),
    # head dim 256: 80-row KV tiles (64 is ov there)
    "n80": ("intra-wg-overlap=true", 80, 2),
    "seqn80": ("intra-wg-overlap=false", 80, 2),
    "ppn80": ("intra-wg-overlap=true pingpong=true", 80, 2),
    "nowsn80": ("warp-specialize=false", 80, 2),
    # persistent CTAs with each head dim's default tiles
    "c3pt": (C3 + "intra-wg-overlap=true persistent=true", 128, 2),
    "ovpt": ("intra-wg-overlap=true persistent=true", 128, 2),
    "n176pt": ("intra-wg-overlap=true persistent=true", 176, 2),
    "n80pt": ("intra-wg-overlap=true persistent=true", 80, 2),
    "ppn176pt": ("intra-wg-overlap=true pingpong=true persistent=true", 176, 2),
    "s3pt": ("intra-wg-overlap=true persistent=true", 128, 3),
    # the 2026-11-30 tile sweep (docs/PERF.md)
    "n192pt": ("intra-wg-overlap=true persistent=true", 192, 2),
    "n160pt": ("intra-wg-overlap=true persistent=true", 160, 2),
    "n144pt": ("intra-wg-overlap=true persistent=true", 144, 2),
    "ppovpt": ("intra-wg-overlap=true pingpong=true persistent=true", 128, 2),
    "n64pt": ("intra-wg-overlap=true persistent=true", 64, 2),
    "c3n96pt": (C3 + "intra-wg-overlap=true persistent=true", 96, 2),
    "c3n64pt": (C3 + "intra-wg-overlap=true persistent=true", 64, 2),
    "c3n80pt": (C3 + "intra-wg-overlap=true persistent=true", 80, 2),
    "c3n112pt": (C3 + "intra-wg-overlap=true persistent=true", 112, 2),
    "c3n96s3pt": (C3 + "intra-wg-overlap=true persistent=true", 96, 3),
    # fattn-compile's schedules (2026-11-30: head dim 128 without a mask, 64
    # causal) and the 2026-11-30 sweep of pingpong, the threshold and
    # tiles around them
    "lt160pppt": ("pingpong=true persistent=true rescale-threshold=8", 160, 2),
    "c3n96ltpt": (C3 + "persistent=true rescale-threshold=8", 96, 2),
    "pp160pt": ("pingpong=true persistent=true", 160, 2),
    "lt160pt": ("persistent=true rescale-threshold=8", 160, 2),
    "lt176pppt": ("pingpong=true persistent=true rescale-threshold=8", 176, 2),
    "lt128pps3pt": ("pingpong=true persistent=true rescale-threshold=8", 128, 3),
    "lt192pt": ("persistent=true rescale-threshold=8", 192, 2),
    "pp192pt": ("pingpong=true persistent=true", 192, 2),
    "c3n128ltpt": (C3 + "persistent=true rescale-threshold=8", 128, 2),
    "c3n96lts3pt": (C3 + "persistent=true rescale-threshold=8", 96, 3),
    # two Q buffers (q-buffers=2): the next work item's Q copied early
    "q2lt160pppt": ("pingpong=true persistent=true rescale-threshold=8 q-buffers=2", 160, 2),
    "q2lt160pt": ("persistent=true rescale-threshold=8 q-buffers=2", 160, 2),
    "q2n160pt": ("persistent=true q-buffers=2", 160, 2),
    "q2c3n96ltpt": (C3 + "persistent=true rescale-threshold=8 q-buffers=2", 96, 2),
    # and O by TMA stores out of the item's Q buffer (tma-store=true)
    "tsq2lt160pppt": ("pingpong=true persistent=true rescale-threshold=8 q-buffers=2 tma-store=true", 160, 2),
    "tsq2n160pt": ("persistent=true q-buffers=2 tma-store=true", 160, 2),
    "tsq2c3n96ltpt": (C3 + "persistent=true rescale-threshold=8 q-buffers=2 tma-store=true", 96, 2),
    "tsq2n128pt": ("persistent=true q-buffers=2 tma-store=true", 128, 2),
    "q2n128pt": ("persistent=true q-buffers=2", 128, 2),
    # around fattn-compile --short-seqs' causal kernel (tsq2n128pt)
    "tsq2lt128pt": ("persistent=true rescale-threshold=8 q-buffers=2 tma-store=true", 128, 2),
    "tsq2pp128pt": ("pingpong=true persistent=true q-buffers=2 tma-store=true", 128, 2),
    "tsq2ltpp128pt": ("pingpong=true persistent=true rescale-threshold=8 q-buffers=2 tma-store=true", 128, 2),
    "tsq2n144pt": ("persistent=true q-buffers=2 tma-store=true", 144, 2),
    "tsq2n112pt": ("persistent=true q-buffers=2 tma-store=true", 112, 2),
    # with the row sums on the tensor cores
    "rsq2lt160pppt": ("pingpong=true persistent=true rescale-threshold=8 q-buffers=2 row-sum-mma=true", 160, 2),
    "rstsq2ltpp128pt": ("pingpong=true persistent=true rescale-threshold=8 q-buffers=2 tma-store=true row-sum-mma=true", 128, 2),
    # head dim 128 with three consumer warpgroups and the plain loop (no
    # intra-warpgroup overlap, so S and P need not be live together)
    "c3seqn128ltpt": (C3 + "intra-wg-overlap=false persistent=true rescale-threshold=8", 128, 2),
    "c3seqn112ltpt": (C3 + "intra-wg-overlap=false persistent=true rescale-threshold=8", 112, 2),
    "c3seqn96ltpt": (C3 + "intra-wg-overlap=false persistent=true rescale-threshold=8", 96, 2),
    "c3seqn112lts3pt": (C3 + "intra-wg-overlap=false persistent=true rescale-threshold=8", 112, 3),
    "q2c3seqn112ltpt": (C3 + "intra-wg-overlap=false persistent=true rescale-threshold=8 q-buffers=2", 112, 2),
}
BENCH_HEAD_DIMS = {64: ["c3", "c3seq", "c3nows", "ov", "c3pt", "ovpt", "c3n96pt", "c3n64pt",
                        "c3n80pt", "c3n112pt", "c3n96s3pt", "c3n96ltpt", "c3n128ltpt",
                        "c3n96lts3pt", "q2c3n96ltpt",
                        "tsq2c3n96ltpt", "lt160pppt", "lt192pt", "lt128pps3pt",
                        "tsq2ltpp128pt", "tsq2lt160pppt", "tsq2lt128pt"],
                   128: ["ov", "seq", "ovpp", "nows", "nowss3", "n176", "n160", "n144",
                         "n192", "s3", "ppn176", "ovpt", "n176pt", "ppn176pt", "s3pt",
                         "n192pt", "n160pt", "n144pt", "ppovpt", "lt160pppt",
                         "pp160pt", "lt160pt", "lt176pppt", "lt128pps3pt", "lt192pt",
                         "pp192pt", "q2lt160pppt", "q2lt160pt", "q2n160pt",
                         "tsq2lt160pppt", "tsq2n160pt", "tsq2n128pt", "q2n128pt",
                         "tsq2lt128pt", "tsq2pp128pt", "tsq2ltpp128pt", "tsq2n144pt",
                         "tsq2n112pt", "rsq2lt160pppt", "rstsq2ltpp128pt", "c3seqn128ltpt",
                         "c3seqn112ltpt", "c3seqn96ltpt", "c3seqn112lts3pt", "q2c3seqn112ltpt"],
                   256: ["n80", "seqn80", "ppn80", "nowsn80", "ov", "n80pt", "n64pt"]}
# The split tail (split-tail=true, unmasked only) beside fattn-compile's
# schedules without a mask: head dim 64 (three consumers), 128 (160-key
# tiles, pingpong, the threshold, two Q buffers), 256 (80-key tiles,
# pingpong, the threshold).
SPLIT_TAIL = " split-tail=true"
UNMASKED_BENCH = {
    64: {"c3pt": SCHEDULES["c3pt"],
         "stc3pt": (SCHEDULES["c3pt"][0] + SPLIT_TAIL, 128, 2)},
    128: {"q2lt160pppt": SCHEDULES["q2lt160pppt"],
          "stq2lt160pppt": (SCHEDULES["q2lt160pppt"][0] + SPLIT_TAIL, 160, 2),
          "stq2lt160pt": (SCHEDULES["q2lt160pt"][0] + SPLIT_TAIL, 160, 2),
          "stlt160pppt": (SCHEDULES["lt160pppt"][0] + SPLIT_TAIL, 160, 2),
          "stn192pt": (SCHEDULES["n192pt"][0] + SPLIT_TAIL, 192, 2)},
    256: {"ltpp80pt": ("pingpong=true persistent=true rescale-threshold=8", 80, 2),
          "stltpp80pt": ("pingpong=true persistent=true rescale-threshold=8" + SPLIT_TAIL, 80, 2)},
}
for _d, _variants in UNMASKED_BENCH.items():
    for _v, (_extra, _bn, _stages) in _variants.items():
        CONFIGS.append((f"bench_{_v}_d{_d}", "bf16", _d, {}, False, _bn, _stages, _extra))
CONFIGS += [
    # split-tail correctness: the shipped unmasked schedules, with an LSE,
    # f16, GQA through check_sm90's cases.
    ("st_bf16_d128_lse", "bf16", 128, {}, True, 160, 2, SCHEDULES["q2lt160pppt"][0] + SPLIT_TAIL),
    ("st_f16_d64", "f16", 64, {}, False, 128, 2, SCHEDULES["c3pt"][0] + SPLIT_TAIL),
    ("st_bf16_d256_lse", "bf16", 256, {}, True, 80, 2, UNMASKED_BENCH[256]["stltpp80pt"][0]),
    ("st_bf16_d128_softcap", "bf16", 128, {"softcap": 30.0}, False, 128, 2, "persistent=true" + SPLIT_TAIL),
    ("st_bf16_d96_seq", "bf16", 96, {}, False, 128, 2, "persistent=true intra-wg-overlap=false" + SPLIT_TAIL),
]
for _d, _variants in BENCH_HEAD_DIMS.items():
    for _v in _variants:
        _extra, _bn, _stages = SCHEDULES[_v]
        if _d > 128 and _v == "ov":
            _bn = 64
        for _causal in (False, True):
            CONFIGS.append((f"bench_{_v}_d{_d}" + ("_causal" if _causal else ""), "bf16", _d,
                            {"causal": True} if _causal else {}, False, _bn, _stages, _extra))

# FP8 (e4m3 Q, K, V, bf16 O; issue 6): the dtype field names the descales,
# "e4m3" (none), "e4m3:Q,K,V" with ranks 0/2/3 and, for rank 3, the blocks
# "e4m3:3b64,3b128,3b128" (descale_block_q = 64, descale_block_kv = 128).
FP8_CONFIGS = [
    # Correctness: fattn-compile's schedule (plain loop, "seq") with every
    # descale form and feature, and the overlapped loop on hard cases.
    ("fp8_d128", "e4m3", 128, {}, False, 128, 2, "intra-wg-overlap=false"),
    ("fp8_d128_ds0", "e4m3:0,0,0", 128, {}, False, 128, 2, "intra-wg-overlap=false"),
    ("fp8_d128_ds2_causal_lse", "e4m3:2,2,2", 128, {"causal": True}, True, 128, 2, "intra-wg-overlap=false"),
    ("fp8_d128_ds3", "e4m3:3b64,3b128,3b128", 128, {}, False, 128, 2, "intra-wg-overlap=false"),
    ("fp8_d128_ds3_window_lse", "e4m3:3b128,3b256,3b256", 128, {"window_left": 100, "window_right": 20}, True, 128, 2, "intra-wg-overlap=false"),
    ("fp8_d128_ds3_softcap", "e4m3:3b64,3b128,3b128", 128, {"softcap": 30.0}, False, 128, 2, "intra-wg-overlap=false"),
    ("fp8_d128_ds3_n192_causal", "e4m3:3b64,3b192,3b192", 128, {"causal": True}, False, 192, 2, "intra-wg-overlap=false"),
    ("fp8_d256_ds3_causal_lse", "e4m3:3b128,3b128,3b128", 256, {"causal": True}, True, 128, 2, "intra-wg-overlap=false"),
    ("fp8_d256_ds2", "e4m3:2,2,2", 256, {}, False, 128, 2, "intra-wg-overlap=false"),
    ("ov_fp8_d128_ds3_causal_lse", "e4m3:3b64,3b128,3b128", 128, {"causal": True}, True, 128, 2, ""),
    ("ovpp_fp8_d128_ds0_window", "e4m3:0,0,0", 128, {"window_left": 100, "window_right": 20}, False, 128, 2, "pingpong=true"),
    ("ov_fp8_d256_ds3", "e4m3:3b128,3b128,3b128", 256, {}, False, 64, 2, ""),
    ("c3_fp8_d128_ds3_causal", "e4m3:3b64,3b128,3b128", 128, {"causal": True}, False, 64, 2, "consumers=3 block-m=192 intra-wg-overlap=false"),
    # Speed variants (non-causal, per-tensor descales), check_sm90.py --bench-fp8.
    ("seq_fp8_d128_n128", "e4m3:0,0,0", 128, {}, False, 128, 2, "intra-wg-overlap=false"),
    ("seq_fp8_d128_n192", "e4m3:0,0,0", 128, {}, False, 192, 2, "intra-wg-overlap=false"),
    ("seq_fp8_d128_n128s3", "e4m3:0,0,0", 128, {}, False, 128, 3, "intra-wg-overlap=false"),
    ("seqpp_fp8_d128_n192", "e4m3:0,0,0", 128, {}, False, 192, 2, "intra-wg-overlap=false pingpong=true"),
    ("ov_fp8_d128_n128", "e4m3:0,0,0", 128, {}, False, 128, 2, ""),
    ("ov_fp8_d128_n192", "e4m3:0,0,0", 128, {}, False, 192, 2, ""),
    ("ov_fp8_d128_n224", "e4m3:0,0,0", 128, {}, False, 224, 2, ""),
    ("c3seq_fp8_d128_n64", "e4m3:0,0,0", 128, {}, False, 64, 2, "consumers=3 block-m=192 intra-wg-overlap=false"),
    ("seq_fp8_d256_n64", "e4m3:0,0,0", 256, {}, False, 64, 2, "intra-wg-overlap=false"),
    ("seq_fp8_d256_n128", "e4m3:0,0,0", 256, {}, False, 128, 2, "intra-wg-overlap=false"),
    ("seq_fp8_d256_n64s3", "e4m3:0,0,0", 256, {}, False, 64, 3, "intra-wg-overlap=false"),
    ("seqpp_fp8_d256_n128", "e4m3:0,0,0", 256, {}, False, 128, 2, "intra-wg-overlap=false pingpong=true"),
    ("ov_fp8_d256_n64", "e4m3:0,0,0", 256, {}, False, 64, 2, ""),
    # Persistent CTAs: correctness on hard cases, and speed.
    ("pt_fp8_d128_ds3_causal_lse", "e4m3:3b64,3b128,3b128", 128, {"causal": True}, True, 128, 2, "persistent=true"),
    ("ptseq_fp8_d256_ds3_causal_lse", "e4m3:3b128,3b128,3b128", 256, {"causal": True}, True, 128, 2, "persistent=true intra-wg-overlap=false"),
    ("ptov_fp8_d128_n128", "e4m3:0,0,0", 128, {}, False, 128, 2, "persistent=true"),
    ("ptseq_fp8_d256_n128", "e4m3:0,0,0", 256, {}, False, 128, 2, "persistent=true intra-wg-overlap=false"),
    ("ptseqpp_fp8_d256_n128", "e4m3:0,0,0", 256, {}, False, 128, 2, "persistent=true intra-wg-overlap=false pingpong=true"),
    ("ptov_fp8_d128_n192", "e4m3:0,0,0", 128, {}, False, 192, 2, "persistent=true"),
    ("ptovpp_fp8_d128_n128", "e4m3:0,0,0", 128, {}, False, 128, 2, "persistent=true pingpong=true"),
    ("ptseqpp_fp8_d128_n192", "e4m3:0,0,0", 128, {}, False, 192, 2, "persistent=true intra-wg-overlap=false pingpong=true"),
    ("ptovs3_fp8_d128_n128", "e4m3:0,0,0", 128, {}, False, 128, 3, "persistent=true"),
    ("ptov_fp8_d256_n128", "e4m3:0,0,0", 256, {}, False, 128, 2, "persistent=true"),
    ("ptov_fp8_d128_n160", "e4m3:0,0,0", 128, {}, False, 160, 2, "persistent=true"),
    ("ptovr32_fp8_d128_n192", "e4m3:0,0,0", 128, {}, False, 192, 2, "persistent=true producer-registers=32 consumer-registers=232"),
    ("ptovr32_fp8_d128_n224", "e4m3:0,0,0", 128, {}, False, 224, 2, "persistent=true producer-registers=32 consumer-registers=232"),
    ("ptseqppr32_fp8_d128_n224", "e4m3:0,0,0", 128, {}, False, 224, 2, "persistent=true intra-wg-overlap=false pingpong=true producer-registers=32 consumer-registers=232"),
    ("ptovpp_fp8_d128_n192", "e4m3:0,0,0", 128, {}, False, 192, 2, "persistent=true pingpong=true"),
    ("ptovc3_fp8_d128_n64", "e4m3:0,0,0", 128, {}, False, 64, 2, "persistent=true consumers=3 block-m=192"),
    ("ptcausal_fp8_d128_n128", "e4m3:0,0,0", 128, {"causal": True}, False, 128, 2, "persistent=true"),
    ("ptcausal_fp8_d256_n128", "e4m3:0,0,0", 256, {"causal": True}, False, 128, 2, "persistent=true"),
    ("ptcausal_fp8_d128_n192", "e4m3:0,0,0", 128, {"causal": True}, False, 192, 2, "persistent=true"),
    ("ptcausalr32_fp8_d128_n224", "e4m3:0,0,0", 128, {"causal": True}, False, 224, 2, "persistent=true producer-registers=32 consumer-registers=232"),
    ("ptovc3_fp8_d128_n96", "e4m3:0,0,0", 128, {}, False, 96, 2, "persistent=true consumers=3 block-m=192"),
    ("ptovc3s3_fp8_d128_n96", "e4m3:0,0,0", 128, {}, False, 96, 3, "persistent=true consumers=3 block-m=192"),
    ("ptov_fp8_d256_n64", "e4m3:0,0,0", 256, {}, False, 64, 2, "persistent=true"),
    ("ptovs3_fp8_d256_n64", "e4m3:0,0,0", 256, {}, False, 64, 3, "persistent=true"),
    # V stored as V^T (value_layout; no producer transpose): fattn-compile's
    # shapes, then the registers and stages that the freed producer and
    # shared memory allow.
    ("vt_fp8_d128_n224", "e4m3vt:0,0,0", 128, {}, False, 224, 2, "persistent=true producer-registers=32 consumer-registers=232"),
    ("vtr24_fp8_d128_n224", "e4m3vt:0,0,0", 128, {}, False, 224, 2, "persistent=true"),
    ("vtr24s3_fp8_d128_n224", "e4m3vt:0,0,0", 128, {}, False, 224, 3, "persistent=true"),
    ("vtr24s3_fp8_d128_n224_ds2", "e4m3vt:2,2,2", 128, {}, False, 224, 3, "persistent=true"),
    ("vts3_fp8_d128_n224", "e4m3vt:0,0,0", 128, {}, False, 224, 3, "persistent=true producer-registers=32 consumer-registers=232"),
    ("vtr24_fp8_d128_n256", "e4m3vt:0,0,0", 128, {}, False, 256, 2, "persistent=true"),
    ("vt_fp8_d256_n128", "e4m3vt:0,0,0", 256, {}, False, 128, 2, "persistent=true"),
    ("vts3_fp8_d256_n128", "e4m3vt:0,0,0", 256, {}, False, 128, 3, "persistent=true"),
    ("vt_fp8_d256_n128_causal", "e4m3vt:0,0,0", 256, {"causal": True}, False, 128, 2, "persistent=true"),
    ("vts3_fp8_d256_n128_causal", "e4m3vt:0,0,0", 256, {"causal": True}, False, 128, 3, "persistent=true"),
    ("vt_fp8_d128_n224_causal", "e4m3vt:0,0,0", 128, {"causal": True}, False, 224, 2, "persistent=true producer-registers=32 consumer-registers=232"),
    ("vtr24s3_fp8_d128_n224_causal", "e4m3vt:0,0,0", 128, {"causal": True}, False, 224, 3, "persistent=true"),
    ("vtr24_fp8_d128_n224_causal", "e4m3vt:0,0,0", 128, {"causal": True}, False, 224, 2, "persistent=true"),
    ("rs_fp8_d128_ds2", "e4m3:2,2,2", 128, {}, False, 128, 2, "row-sum-mma=true"),
    ("rs_vt_fp8_d128_ds2_window", "e4m3vt:2,2,2", 128, {"window_left": 100, "window_right": 20}, False, 128, 2, "row-sum-mma=true"),
    ("rs_vtr24_fp8_d128_n224_causal", "e4m3vt:0,0,0", 128, {"causal": True}, False, 224, 2, "persistent=true row-sum-mma=true"),
    ("rs_vtpp_fp8_d128_n224_causal", "e4m3vt:0,0,0", 128, {"causal": True}, False, 224, 2, "persistent=true row-sum-mma=true pingpong=true"),
    ("rs_vtpp_fp8_d128_n224_ds2_causal", "e4m3vt:2,2,2", 128, {"causal": True}, False, 224, 2, "persistent=true row-sum-mma=true pingpong=true"),
    ("vtpp_fp8_d128_n224_ds2_causal", "e4m3vt:2,2,2", 128, {"causal": True}, False, 224, 2, "persistent=true pingpong=true producer-registers=32 consumer-registers=232"),
    ("vt_fp8_d128_n224_ds2_causal", "e4m3vt:2,2,2", 128, {"causal": True}, False, 224, 2, "persistent=true producer-registers=32 consumer-registers=232"),
    ("rs_vtseq_fp8_d128_softcap", "e4m3vt:0,0,0", 128, {"softcap": 30.0}, False, 128, 2, "intra-wg-overlap=false row-sum-mma=true"),
    ("lz_rs_vtr24_fp8_d128_n224", "e4m3vt:0,0,0", 128, {}, False, 224, 2, "persistent=true row-sum-mma=true rescale-threshold=0.8"),
    ("lz_fp8_d128_ds3_causal_lse", "e4m3:3b64,3b128,3b128", 128, {"causal": True}, True, 128, 2, "rescale-threshold=0.25"),
    ("lz_seq_fp8_d256_ds2", "e4m3:2,2,2", 256, {}, False, 128, 2, "intra-wg-overlap=false rescale-threshold=0.5"),
    # fattn-compile's FP8 d128 kernel without a mask (V^T, per-(batch, head)
    # descales).
    ("rs_vts3_fp8_d128_n224_ds2", "e4m3vt:2,2,2", 128, {}, False, 224, 3, "persistent=true row-sum-mma=true"),
    # and with two Q buffers (q-buffers=2; at head dim 256 they spill)
    ("q2rs_vts3_fp8_d128_n224_ds2", "e4m3vt:2,2,2", 128, {}, False, 224, 3, "persistent=true row-sum-mma=true q-buffers=2"),
    ("q2rs_vtpp_fp8_d128_n224_ds2_causal", "e4m3vt:2,2,2", 128, {"causal": True}, False, 224, 2, "persistent=true row-sum-mma=true pingpong=true q-buffers=2"),
    ("lz_vt_fp8_d256_n128_ds2", "e4m3vt:2,2,2", 256, {}, False, 128, 2, "persistent=true rescale-threshold=0.8"),
    ("lz_vt_fp8_d256_n128_ds2_causal", "e4m3vt:2,2,2", 256, {"causal": True}, False, 128, 2, "persistent=true rescale-threshold=0.8"),
    ("vt_fp8_d128_n192", "e4m3vt:0,0,0", 128, {}, False, 192, 2, "persistent=true"),
    # linear-exp2=true: P's e4m3 bytes from a linear 2^x, no MUFU.EX2 (needs
    # the row sums on the tensor cores), on fattn-compile's kernels and on
    # head dim 256 with row sums.
    ("le_rs_vts3_fp8_d128_n224_ds2", "e4m3vt:2,2,2", 128, {}, False, 224, 3, "persistent=true row-sum-mma=true linear-exp2=true"),
    ("le_q2rs_vtpp_fp8_d128_n224_ds2_causal", "e4m3vt:2,2,2", 128, {"causal": True}, False, 224, 2, "persistent=true row-sum-mma=true pingpong=true q-buffers=2 linear-exp2=true"),
    ("rs_lz_vt_fp8_d256_n128_ds2", "e4m3vt:2,2,2", 256, {}, False, 128, 2, "persistent=true rescale-threshold=0.8 row-sum-mma=true"),
    ("le_rs_lz_vt_fp8_d256_n128_ds2", "e4m3vt:2,2,2", 256, {}, False, 128, 2, "persistent=true rescale-threshold=0.8 row-sum-mma=true linear-exp2=true"),
    ("le_lz_rs_vts3_fp8_d128_n224_ds2", "e4m3vt:2,2,2", 128, {}, False, 224, 3, "persistent=true row-sum-mma=true rescale-threshold=0.8 linear-exp2=true"),
    ("le_rs_vtpp_fp8_d128_n224_ds2", "e4m3vt:2,2,2", 128, {}, False, 224, 2, "persistent=true row-sum-mma=true pingpong=true linear-exp2=true"),
    ("le_q2rs_vts3_fp8_d128_n224_ds2", "e4m3vt:2,2,2", 128, {}, False, 224, 3, "persistent=true row-sum-mma=true q-buffers=2 linear-exp2=true"),
    ("le_rs_vt_fp8_d128_n256_ds2", "e4m3vt:2,2,2", 128, {}, False, 256, 2, "persistent=true row-sum-mma=true linear-exp2=true"),
    ("le_rs_vts3_fp8_d128_n192_ds2", "e4m3vt:2,2,2", 128, {}, False, 192, 3, "persistent=true row-sum-mma=true linear-exp2=true"),
    ("le_rs_vtc3_fp8_d128_n128_ds2", "e4m3vt:2,2,2", 128, {}, False, 128, 2, "persistent=true consumers=3 block-m=192 row-sum-mma=true linear-exp2=true"),
    ("le_rs_vtc3s3_fp8_d128_n96_ds2", "e4m3vt:2,2,2", 128, {}, False, 96, 3, "persistent=true consumers=3 block-m=192 row-sum-mma=true linear-exp2=true"),
    ("le_rs_vtpps3_fp8_d128_n224_ds2", "e4m3vt:2,2,2", 128, {}, False, 224, 3, "persistent=true row-sum-mma=true pingpong=true linear-exp2=true"),
    ("le_lzq2rs_vts3_fp8_d128_n224_ds2", "e4m3vt:2,2,2", 128, {}, False, 224, 3, "persistent=true row-sum-mma=true rescale-threshold=0.8 q-buffers=2 linear-exp2=true"),
    ("le_lzq2rs_vtpps3_fp8_d128_n224_ds2", "e4m3vt:2,2,2", 128, {}, False, 224, 3, "persistent=true row-sum-mma=true rescale-threshold=0.8 q-buffers=2 pingpong=true linear-exp2=true"),
    ("le_q2rs_vtpps3_fp8_d128_n224_ds2", "e4m3vt:2,2,2", 128, {}, False, 224, 3, "persistent=true row-sum-mma=true q-buffers=2 pingpong=true linear-exp2=true"),
    ("le_lzrs_vtpps3_fp8_d128_n224_ds2", "e4m3vt:2,2,2", 128, {}, False, 224, 3, "persistent=true row-sum-mma=true rescale-threshold=0.8 pingpong=true linear-exp2=true"),
    ("le_lzq2rs_vts3_fp8_d128_n192_ds2", "e4m3vt:2,2,2", 128, {}, False, 192, 3, "persistent=true row-sum-mma=true rescale-threshold=0.8 q-buffers=2 linear-exp2=true"),
    ("le_lzq2rs_vts4_fp8_d128_n128_ds2", "e4m3vt:2,2,2", 128, {}, False, 128, 4, "persistent=true row-sum-mma=true rescale-threshold=0.8 q-buffers=2 linear-exp2=true"),
    ("le_stlzq2rs_vtpps3_fp8_d128_n224_ds2", "e4m3vt:2,2,2", 128, {}, False, 224, 3, "persistent=true row-sum-mma=true rescale-threshold=0.8 q-buffers=2 pingpong=true split-tail=true linear-exp2=true"),
    # the same without pingpong (16-bit head dim 128 lost it beside the split
    # tail; FP8 keeps it: 0.5-3% slower without, docs/PERF.md, 2026-12-01)
    ("le_stlzq2rs_vts3_fp8_d128_n224_ds2", "e4m3vt:2,2,2", 128, {}, False, 224, 3, "persistent=true row-sum-mma=true rescale-threshold=0.8 q-buffers=2 split-tail=true linear-exp2=true"),
    ("le_stq2rs_vts3_fp8_d128_n224_ds2", "e4m3vt:2,2,2", 128, {}, False, 224, 3, "persistent=true row-sum-mma=true q-buffers=2 split-tail=true linear-exp2=true"),
    ("le_lzq2rs_vtpp_fp8_d128_n224_ds2", "e4m3vt:2,2,2", 128, {}, False, 224, 2, "persistent=true row-sum-mma=true rescale-threshold=0.8 q-buffers=2 pingpong=true linear-exp2=true"),
    ("le_lzq2rs_vtpp_fp8_d128_n224_ds2_causal", "e4m3vt:2,2,2", 128, {"causal": True}, False, 224, 2, "persistent=true row-sum-mma=true rescale-threshold=0.8 q-buffers=2 pingpong=true linear-exp2=true"),
    ("le_rs_vt_fp8_d256_n128_ds2", "e4m3vt:2,2,2", 256, {}, False, 128, 2, "persistent=true row-sum-mma=true linear-exp2=true"),
    ("le_rs_vtpp_fp8_d256_n128_ds2", "e4m3vt:2,2,2", 256, {}, False, 128, 2, "persistent=true row-sum-mma=true pingpong=true linear-exp2=true"),
    ("le_rs_vt_fp8_d256_n96_ds2", "e4m3vt:2,2,2", 256, {}, False, 96, 2, "persistent=true row-sum-mma=true rescale-threshold=0.8 linear-exp2=true"),
    ("le_stlzq2rs_vtpps3_fp8_d128_n192_ds2", "e4m3vt:2,2,2", 128, {}, False, 192, 3, "persistent=true row-sum-mma=true rescale-threshold=0.8 q-buffers=2 pingpong=true split-tail=true linear-exp2=true"),
    ("le_stlzq2rs_vtpps3_fp8_d128_n160_ds2", "e4m3vt:2,2,2", 128, {}, False, 160, 3, "persistent=true row-sum-mma=true rescale-threshold=0.8 q-buffers=2 pingpong=true split-tail=true linear-exp2=true"),
    ("rows_fp8_d128_n224_ds2", "e4m3:2,2,2", 128, {}, False, 224, 2, "persistent=true producer-registers=32 consumer-registers=232"),
    ("le_rows_lzq2rspp_fp8_d128_n224_ds2", "e4m3:2,2,2", 128, {}, False, 224, 2, "persistent=true row-sum-mma=true rescale-threshold=0.8 q-buffers=2 pingpong=true producer-registers=32 consumer-registers=232 linear-exp2=true"),
    ("le_rows_stlzq2rspp_fp8_d128_n224_ds2", "e4m3:2,2,2", 128, {}, False, 224, 2, "persistent=true row-sum-mma=true rescale-threshold=0.8 q-buffers=2 pingpong=true split-tail=true producer-registers=32 consumer-registers=232 linear-exp2=true"),
    ("le_rows_rspp_fp8_d128_n224_ds2_causal", "e4m3:2,2,2", 128, {"causal": True}, False, 224, 2, "persistent=true row-sum-mma=true pingpong=true producer-registers=32 consumer-registers=232 linear-exp2=true"),
    ("rows_fp8_d128_n224_ds2_causal", "e4m3:2,2,2", 128, {"causal": True}, False, 224, 2, "persistent=true producer-registers=32 consumer-registers=232"),
    ("rows_fp8_d128_n192_ds2", "e4m3:2,2,2", 128, {}, False, 192, 2, "persistent=true producer-registers=32 consumer-registers=232"),
    ("le_rows_rs_fp8_d128_n160_ds2", "e4m3:2,2,2", 128, {}, False, 160, 2, "persistent=true row-sum-mma=true producer-registers=32 consumer-registers=232 linear-exp2=true"),
    ("le_rows_rs_fp8_d128_n128_ds2", "e4m3:2,2,2", 128, {}, False, 128, 2, "persistent=true row-sum-mma=true producer-registers=32 consumer-registers=232 linear-exp2=true"),
    ("le_rows_lzrs_fp8_d128_n192_ds2", "e4m3:2,2,2", 128, {}, False, 192, 2, "persistent=true row-sum-mma=true rescale-threshold=0.8 producer-registers=32 consumer-registers=232 linear-exp2=true"),
    ("le_rows_strs_fp8_d128_n192_ds2", "e4m3:2,2,2", 128, {}, False, 192, 2, "persistent=true row-sum-mma=true split-tail=true producer-registers=32 consumer-registers=232 linear-exp2=true"),
    ("rows_fp8_d128_n192_ds2_causal", "e4m3:2,2,2", 128, {"causal": True}, False, 192, 2, "persistent=true producer-registers=32 consumer-registers=232"),
    ("le_rows_rs_fp8_d128_n192_ds2_causal", "e4m3:2,2,2", 128, {"causal": True}, False, 192, 2, "persistent=true row-sum-mma=true producer-registers=32 consumer-registers=232 linear-exp2=true"),
    ("le_rows_rspp_fp8_d128_n192_ds2_causal", "e4m3:2,2,2", 128, {"causal": True}, False, 192, 2, "persistent=true row-sum-mma=true pingpong=true producer-registers=32 consumer-registers=232 linear-exp2=true"),
    ("le_rows_q2strs_fp8_d128_n192_ds2", "e4m3:2,2,2", 128, {}, False, 192, 2, "persistent=true row-sum-mma=true q-buffers=2 split-tail=true producer-registers=32 consumer-registers=232 linear-exp2=true"),
    ("le_rows_ppstrs_fp8_d128_n192_ds2", "e4m3:2,2,2", 128, {}, False, 192, 2, "persistent=true row-sum-mma=true pingpong=true split-tail=true producer-registers=32 consumer-registers=232 linear-exp2=true"),
    ("le_rows_strs_fp8_d128_n160_ds2", "e4m3:2,2,2", 128, {}, False, 160, 2, "persistent=true row-sum-mma=true split-tail=true producer-registers=32 consumer-registers=232 linear-exp2=true"),
    ("le_rows_s3strs_fp8_d128_n128_ds2", "e4m3:2,2,2", 128, {}, False, 128, 3, "persistent=true row-sum-mma=true split-tail=true producer-registers=32 consumer-registers=232 linear-exp2=true"),
    ("le_rows_q2ppstrs_fp8_d128_n192_ds2", "e4m3:2,2,2", 128, {}, False, 192, 2, "persistent=true row-sum-mma=true q-buffers=2 pingpong=true split-tail=true producer-registers=32 consumer-registers=232 linear-exp2=true"),
    ("le_rows_lzq2ppstrs_fp8_d128_n192_ds2", "e4m3:2,2,2", 128, {}, False, 192, 2, "persistent=true row-sum-mma=true rescale-threshold=0.8 q-buffers=2 pingpong=true split-tail=true producer-registers=32 consumer-registers=232 linear-exp2=true"),
    ("le_rows_q2rspp_fp8_d128_n192_ds2_causal", "e4m3:2,2,2", 128, {"causal": True}, False, 192, 2, "persistent=true row-sum-mma=true q-buffers=2 pingpong=true producer-registers=32 consumer-registers=232 linear-exp2=true"),
    ("le_rows_rs_fp8_d128_n224_ds2", "e4m3:2,2,2", 128, {}, False, 224, 2, "persistent=true row-sum-mma=true producer-registers=32 consumer-registers=232 linear-exp2=true"),
    ("le_rows_rs_fp8_d128_n192_ds2", "e4m3:2,2,2", 128, {}, False, 192, 2, "persistent=true row-sum-mma=true producer-registers=32 consumer-registers=232 linear-exp2=true"),
    ("le_rows_rspp_fp8_d128_n224_ds2", "e4m3:2,2,2", 128, {}, False, 224, 2, "persistent=true row-sum-mma=true pingpong=true producer-registers=32 consumer-registers=232 linear-exp2=true"),
    ("le_rs_vtseq_fp8_d128_softcap", "e4m3vt:0,0,0", 128, {"softcap": 30.0}, False, 128, 2, "intra-wg-overlap=false row-sum-mma=true linear-exp2=true"),
    ("le_rs_fp8_d128_ds3q_window", "e4m3:3b64,3b128,0", 128, {"window_left": 100, "window_right": 20}, False, 128, 2, "row-sum-mma=true linear-exp2=true"),
    # split-tail=true on fattn-compile's unmasked FP8 kernels (V^T, per-(batch,
    # head) descales), and on per-block Q/K descales with V by rows.
    ("st_rs_vts3_fp8_d128_n224_ds2", "e4m3vt:2,2,2", 128, {}, False, 224, 3, "persistent=true row-sum-mma=true split-tail=true"),
    ("st_lz_vt_fp8_d256_n128_ds2", "e4m3vt:2,2,2", 256, {}, False, 128, 2, "persistent=true rescale-threshold=0.8 split-tail=true"),
    ("st_fp8_d128_ds3q_lse", "e4m3:3b64,3b128,0", 128, {}, True, 128, 2, "persistent=true split-tail=true"),
    ("vtpp_fp8_d128_n224", "e4m3vt:0,0,0", 128, {}, False, 224, 2, "persistent=true pingpong=true producer-registers=32 consumer-registers=232"),
    ("vtpp_fp8_d128_n192", "e4m3vt:0,0,0", 128, {}, False, 192, 2, "persistent=true pingpong=true"),
    ("vtpp_fp8_d256_n128", "e4m3vt:0,0,0", 256, {}, False, 128, 2, "persistent=true pingpong=true"),
    ("vtc3_fp8_d128_n96", "e4m3vt:0,0,0", 128, {}, False, 96, 2, "persistent=true consumers=3 block-m=192"),
    ("vtc3_fp8_d128_n128", "e4m3vt:0,0,0", 128, {}, False, 128, 2, "persistent=true consumers=3 block-m=192"),
    ("vtc3s3_fp8_d128_n96", "e4m3vt:0,0,0", 128, {}, False, 96, 3, "persistent=true consumers=3 block-m=192"),
    # Causal, one CTA per tile and persistent (fattn-compile's tiles).
    ("ov_fp8_d128_n128_causal", "e4m3:0,0,0", 128, {"causal": True}, False, 128, 2, ""),
    ("ptov_fp8_d128_n128_causal", "e4m3:0,0,0", 128, {"causal": True}, False, 128, 2, "persistent=true"),
    ("seq_fp8_d256_n128_causal", "e4m3:0,0,0", 256, {"causal": True}, False, 128, 2, "intra-wg-overlap=false"),
    ("ptseq_fp8_d256_n128_causal", "e4m3:0,0,0", 256, {"causal": True}, False, 128, 2, "persistent=true intra-wg-overlap=false"),
]
CONFIGS += FP8_CONFIGS


def attr_text(attrs):
    parts = []
    for k, v in attrs.items():
        if isinstance(v, bool):
            parts.append(f"{k} = {'true' if v else 'false'}")
        elif isinstance(v, str):
            parts.append(f'{k} = "{v}"')
        elif isinstance(v, float):
            parts.append(f"{k} = {v} : f32")
        else:
            parts.append(f"{k} = {v} : i64")
    return "{" + ", ".join(parts) + "}" if parts else ""


def source(dtype, d, attrs, lse):
    lse_arg = ", %lse: memref<?x?x?xf32>" if lse else ""
    lse_use = " lse(%lse : memref<?x?x?xf32>)" if lse else ""
    if not dtype.startswith("e4m3"):
        t = f"memref<?x?x?x{d}x{dtype}>"
        return (f"func.func @attn(%q: {t}, %k: {t}, %v: {t}, %o: {t}{lse_arg}) {{\n"
                f"  fattn.attention ins(%q, %k, %v : {t}, {t}, {t}) outs(%o : {t}){lse_use} {attr_text(attrs)}\n"
                f"  return\n}}\n")
    t, ot = f"memref<?x?x?x{d}xf8E4M3FN>", f"memref<?x?x?x{d}xbf16>"
    ds_args, ds_use, attrs = "", "", dict(attrs)
    # "e4m3vt...": V stored as V^T in the kernel's key order (value_layout).
    vt = t
    if dtype.startswith("e4m3vt"):
        vt = f"memref<?x?x{d}x?xf8E4M3FN>"
        attrs["value_layout"] = "transposed_wgmma_e4m3_k32"
    if ":" in dtype:
        specs = dtype.split(":")[1].split(",")
        types = []
        for name, spec in zip(("q", "kv", "kv"), specs):
            rank, _, block = spec.partition("b")
            types.append({"0": "memref<f32>", "2": "memref<?x?xf32>", "3": "memref<?x?x?xf32>"}[rank])
            if block:
                attrs["descale_block_" + name] = int(block)
        ds_args = f", %dq: {types[0]}, %dk: {types[1]}, %dv: {types[2]}"
        ds_use = f" descale(%dq, %dk, %dv : {', '.join(types)})"
    return (f"func.func @attn(%q: {t}, %k: {t}, %v: {vt}, %o: {ot}{lse_arg}{ds_args}) {{\n"
            f"  fattn.attention ins(%q, %k, %v : {t}, {t}, {vt}) outs(%o : {ot}){lse_use}{ds_use} {attr_text(attrs)}\n"
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
    todo = [c for c in CONFIGS if not only or c[0] in only]
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(int(os.environ.get("JOBS", "2"))) as pool:
        manifest = list(pool.map(lambda c: build(out, fattn_opt, *c), todo))
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)


def build(out, fattn_opt, name, dtype, d, attrs, lse, bn, stages, extra):
    if True:
        base = os.path.join(out, name)
        with open(base + ".in.mlir", "w") as f:
            f.write(source(dtype, d, attrs, lse))
        opts = (f"block-n={bn} stages={stages} kernel-name=fattn_{name} {extra} "
                f"{os.environ.get('EXTRA_OPTS', '')}").strip()
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
        spilled = bool(int(spills.group(1)) or int(spills.group(2)) or stack)
        # ALLOW_SPILLS=1 (exploration): build anyway and say so.
        if spilled and not os.environ.get("ALLOW_SPILLS"):
            sys.exit(f"{name}: ptxas reports spills or a stack frame:\n{info}")
        text = open(base + ".mlir").read()
        m = re.search(r'fattn\.kernel_description = "((?:[^"\\]|\\.)*)"', text)
        raw = re.sub(r"\\([0-9A-Fa-f]{2})", lambda x: chr(int(x.group(1), 16)), m.group(1))
        desc = json.loads(raw)
        desc["cubin"] = name + ".cubin"
        with open(base + ".json", "w") as f:
            json.dump(desc, f, indent=1)
        # ptxas falls back to waiting after every wgmma when it cannot prove
        # the asynchronous register use safe; that must not go unnoticed.
        serialized = "serialized" in info
        print(f"{name}: {regs} registers, {'SPILLS' if spilled else '0 spills'}, "
              f"smem {desc['dynamic_smem_bytes']}"
              + (" WGMMA SERIALIZED" if serialized else ""), flush=True)
        return {"name": name, "registers": regs, "options": extra, "spills": spilled,
                "wgmma_serialized": serialized, **desc}


if __name__ == "__main__":
    main()
