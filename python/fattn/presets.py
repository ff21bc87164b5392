"""Named sets of configurations: what the GPU tests and the benchmark need.

`python -m fattn.build_library --preset gpu-tests --arch sm_80 -o DIR` builds
every kernel the GPU test suite uses, so it runs on a machine without MLIR.
"""
from __future__ import annotations

from typing import Dict, List

# (dtype, head_dim) pairs the GPU tests cover; every mask/softcap/LSE variant
# below is built for each of them.
TEST_DTYPES = ("bf16", "f16")
TEST_HEAD_DIMS = (64, 96, 128, 256)
# (causal, window_left, window_right)
TEST_MASKS = ((False, -1, -1), (True, -1, -1), (False, 64, 32), (True, 128, 0))
TEST_SOFTCAPS = (0.0, 30.0)


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
    # test_custom_scale.
    specs.append(dict(dtype="bf16", head_dim_qk=128, head_dim_v=128, causal=True,
                      scale=0.3, has_lse=False))
    return specs


def bench_specs() -> List[Dict]:
    """The configurations of ANCHORS.md (bf16, head dims 64/128/256, causal or not)."""
    return [dict(dtype="bf16", head_dim_qk=d, head_dim_v=d, causal=c)
            for d in (64, 128, 256) for c in (False, True)]


PRESETS = {"gpu-tests": gpu_test_specs, "bench": bench_specs}
