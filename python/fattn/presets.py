"""Named sets of configurations: what the GPU tests and the benchmark need.

`python -m fattn.build_library --preset gpu-tests --arch sm_80 -o DIR` builds
every kernel the GPU test suite uses, so it runs on a machine without MLIR.
"""
from __future__ import annotations

from typing import Dict, List, Tuple

from .config import VALUE_LAYOUT_SM90, head_dim_rule

# (dtype, head_dim) pairs the GPU tests cover; every mask/softcap/LSE variant
# below is built for each of them.
TEST_DTYPES = ("bf16", "f16")
TEST_HEAD_DIMS = (64, 96, 128, 256)
# (causal, window_left, window_right)
TEST_MASKS = ((False, -1, -1), (True, -1, -1), (False, 64, 32), (True, 128, 0))
TEST_SOFTCAPS = (0.0, 30.0)
# (head_dim_qk, head_dim_v) pairs with V's head dim differing (the compiler's rule,
# config.head_dim_rule's "value_may_differ"): MLA's 192/128 with every mask, LSE and
# softcap variant above, and a V wider than Q and K (64/128) with the masks and an LSE.
TEST_VALUE_HEAD_DIMS = ((192, 128), (64, 128))


def gpu_test_specs() -> List[Dict]:
    specs = []
    for dtype in TEST_DTYPES:
        for d in TEST_HEAD_DIMS:
            for causal, wl, wr in TEST_MASKS:
                for lse in (False, True):
                    specs.append(dict(dtype=dtype, head_dim_qk=d, head_dim_v=d, causal=causal,
                                      window_left=wl, window_right=wr, has_lse=lse))
            for softcap in TEST_SOFTCAPS[1:]:
                for causal in (False, True):
                    specs.append(dict(dtype=dtype, head_dim_qk=d, head_dim_v=d, causal=causal,
                                      softcap=softcap, has_lse=True))
    specs += value_head_dim_specs()
    # test_custom_scale.
    specs.append(dict(dtype="bf16", head_dim_qk=128, head_dim_v=128, causal=True,
                      scale=0.3, has_lse=False))
    return specs


def value_head_dim_specs() -> List[Dict]:
    """The kernels of test_gpu_value_head_dim (TEST_VALUE_HEAD_DIMS)."""
    specs = []
    for (d, dv), full in zip(TEST_VALUE_HEAD_DIMS, (True, False)):
        for dtype in TEST_DTYPES if full else ("bf16",):
            for causal, wl, wr in TEST_MASKS:
                for lse in (False, True) if full else (True,):
                    specs.append(dict(dtype=dtype, head_dim_qk=d, head_dim_v=dv,
                                      causal=causal, window_left=wl, window_right=wr,
                                      has_lse=lse))
            if full:
                for causal in (False, True):
                    specs.append(dict(dtype=dtype, head_dim_qk=d, head_dim_v=dv,
                                      causal=causal, softcap=TEST_SOFTCAPS[1], has_lse=True))
    return specs


def bench_specs() -> List[Dict]:
    """The configurations of ANCHORS.md (bf16, head dims 64/128/256, causal or not)."""
    return [dict(dtype="bf16", head_dim_qk=d, head_dim_v=d, causal=c)
            for d in (64, 128, 256) for c in (False, True)]


# FP8 (issue 6): the descale forms quantize_fp8 users take. The sm_90a kernel's
# KV tile is 128 rows and a per-block V factor must cover whole tiles, so V blocks
# are 128; K blocks 128, or 1: a factor per key, which scales S by column (one
# multiplication per score, docs/FP8.md), with V then per (batch, head) since K and
# V share descale_block_kv. Q blocks of 128 or 64 (one factor per consumer
# warpgroup's rows), or 1: a factor per query row, which the kernel applies per
# row as it does any Q factor (with quantize_fp8's search, the most accurate forms).
FP8_HEAD_DIMS = (128, 256)
FP8_DESCALES = ("q0k0v0",                                  # per tensor (the baseline)
                "q2k2v2",                                  # per (batch, KV head), as FA3
                "q3b128k3b128v3b128", "q3b64k3b128v3b128",  # per block
                "q3b1k3b128v3b128",                        # Q per row, K/V per block
                "q3b1k3b1v2",                              # Q and K per row, V per head
                "q2k2v3b128")                              # Q and K per head, V per block


# The same kernels with V given pre-transposed (value_layout, fattn.transpose_value_fp8)
# for the descale forms `bench_fwd.py --dtype fp8 --fp8-descale block|head|tensor`
# times; the GPU tests use the per-tensor and per-block ones, and V alone per block.
FP8_VALUE_LAYOUT_DESCALES = ("q0k0v0", "q2k2v2", "q3b128k3b128v3b128", "q2k2v3b128")


def fp8_specs() -> List[Dict]:
    """sm_90a e4m3 kernels of the FP8 GPU tests and `bench_fwd.py --dtype fp8`."""
    specs = [dict(arch="sm_90a", dtype="e4m3", head_dim_qk=d, head_dim_v=d, causal=c,
                  descale=ds)
             for d in FP8_HEAD_DIMS for c in (False, True) for ds in FP8_DESCALES]
    specs += [dict(arch="sm_90a", dtype="e4m3", head_dim_qk=d, head_dim_v=d, causal=c,
                   descale=ds, value_layout=VALUE_LAYOUT_SM90)
              for d in FP8_HEAD_DIMS for c in (False, True) for ds in FP8_VALUE_LAYOUT_DESCALES]
    return specs


# Every head dim from 32 that each arch's 16-bit kernels take (the compiler's
# rule, config.head_dim_rule) and the gpu-tests preset leaves out, causal or
# not, with the LSE: the head-dim sweep (`scripts/gpu_stress.py` over a
# library of this preset alone).
def sweep_head_dims(arch: str) -> Tuple[int, ...]:
    rule = head_dim_rule(arch, "bf16")
    return tuple(d for d in range(32, rule["max"] + 1, rule["granule"])
                 if d not in TEST_HEAD_DIMS)


# sm_80 head dims that are multiples of 8 but not of 16 (S = Q K^T ends on a k-step of 8
# columns, P V and O on an odd number of n8 tiles): besides the sweep's, f16, every mask
# of the gpu-tests preset and the softcap at a few, and V's head dim differing either way.
SM80_HALF_STEP_HEAD_DIMS = (40, 72, 136, 200, 248)
SM80_HALF_STEP_VALUE_HEAD_DIMS = ((40, 72), (72, 40), (136, 200), (248, 128), (128, 248))


def head_dim_sweep_specs() -> List[Dict]:
    specs = [dict(arch=arch, dtype="bf16", head_dim_qk=d, head_dim_v=d, causal=c, has_lse=True)
             for arch in ("sm_80", "sm_90a") for d in sweep_head_dims(arch)
             for c in (False, True)]
    for d in SM80_HALF_STEP_HEAD_DIMS:
        specs += [dict(arch="sm_80", dtype="f16", head_dim_qk=d, head_dim_v=d, causal=c,
                       window_left=wl, window_right=wr, has_lse=True)
                  for c, wl, wr in TEST_MASKS]
        specs.append(dict(arch="sm_80", dtype="bf16", head_dim_qk=d, head_dim_v=d, causal=True,
                          softcap=TEST_SOFTCAPS[1], has_lse=True))
    for d, dv in SM80_HALF_STEP_VALUE_HEAD_DIMS:
        specs += [dict(arch="sm_80", dtype="bf16", head_dim_qk=d, head_dim_v=dv, causal=c,
                       window_left=wl, window_right=wr, has_lse=True)
                  for c, wl, wr in TEST_MASKS]
    return specs


# Training (flash_attn_func's backward, python/tests/test_gpu_autograd.py): the
# forward with its LSE on both archs and the sm_80 backward kernel of each
# ("grad": build_library's backward flag), and for bf16 without a window the
# deterministic one too ("grad_deterministic": build_library's --grad-deterministic
# for this configuration).
TRAINING_HEAD_DIMS = (64, 128)
# (causal, window_left, window_right)
TRAINING_MASKS = ((False, -1, -1), (True, -1, -1), (False, 64, 32))


def training_specs() -> List[Dict]:
    return [dict(arch=arch, dtype=dtype, head_dim_qk=d, head_dim_v=d, causal=c,
                 window_left=wl, window_right=wr, has_lse=True, grad=True,
                 grad_deterministic=dtype == "bf16" and (wl, wr) == (-1, -1))
            for arch in ("sm_80", "sm_90a") for dtype in TEST_DTYPES
            for d in TRAINING_HEAD_DIMS for c, wl, wr in TRAINING_MASKS]


# The backward benchmark (bench/bench_bwd.py): the ANCHORS.md head dims the backward
# takes, bf16, causal or not; the forward that writes O and the LSE on both archs (an
# sm_90 GPU's default and sm_80's), the sm_80 backward and the sm_90a one
# ("grad_sm90a": build_library's --grad-sm90a for this configuration).
BENCH_GRAD_HEAD_DIMS = (64, 128)


def bench_grad_specs(head_dims=BENCH_GRAD_HEAD_DIMS, causals=(False, True),
                     dtype: str = "bf16", archs=("sm_90a", "sm_80")) -> List[Dict]:
    return [dict(arch=arch, dtype=dtype, head_dim_qk=d, head_dim_v=d, causal=c, has_lse=True,
                 grad=True, grad_sm90a=True)
            for arch in archs for d in head_dims for c in causals]


PRESETS = {"gpu-tests": gpu_test_specs, "bench": bench_specs, "fp8": fp8_specs,
           "head-dims": head_dim_sweep_specs, "training": training_specs,
           "bench-grad": bench_grad_specs}
