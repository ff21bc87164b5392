#!/usr/bin/env python3
"""GPU stress run: random valid configurations against the float64 reference.

    FATTN_RUNTIME_LIB=$PWD/build-runtime/lib/libfattn_runtime.so \\
    FATTN_KERNEL_DIR=$PWD/build-kernels python3 scripts/gpu_stress.py   # 10,000 cases

Each case draws one kernel of the kernel library (FATTN_KERNEL_DIR, only kernels
that exist there and run on this GPU: FATTN_ARCH, FATTN_SHORT_SEQS and
FATTN_PER_TENSOR_KERNELS are set per case so that flash_attn_func picks exactly
that kernel, which is checked), then shapes and layouts: batch 1-3, GQA/MQA head
counts, lengths mostly off every tile size (up to 1100), BSHD, BHSD or padded
strides, BSHD or BHSD outputs, V^T in a padded buffer for FP8. It runs through the
GPU tests' checks with their bounds (test_gpu_attention.run_case: output and LSE
poisoned with NaN, relative L2 error against the float64 reference within the
SDPA-class baseline's bound, rows that see no key; test_gpu_fp8.check_case for
FP8). Prints a summary; exits 1 on any failure, each failure with the command
that replays it (--seed S --case I: the same library gives the same case).
"""
from __future__ import annotations

import argparse
import collections
import contextlib
import io
import random
import sys
import time
import traceback
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "python"), str(REPO / "python" / "tests")]

import gpu_cases  # noqa: E402
from fattn.config import descale_code  # noqa: E402


def draw_case(seed: int, index: int, kernels):
    """Case `index` of the run with `seed`: a function of both and of the kernel list."""
    rng = random.Random(f"{seed}:{index}")
    return gpu_cases.random_case(rng, rng.choice(kernels))


def kind(config) -> str:
    mask = ("causal" if config.causal else "full") + ("+window" if config.window_left >= 0 or
                                                       config.window_right > 0 else "")
    extra = "".join([" softcap" if config.softcap else "", " lse" if config.has_lse else "",
                     f" {descale_code(config.descale)}" if config.descale else "",
                     " vt" if config.value_layout else "",
                     f" {config.tuned_for}" if config.tuned_for else ""])
    return f"{config.arch} {config.dtype} d{config.head_dim_qk} {mask}{extra}"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--cases", type=int, default=10000, help="cases to run (default 10000)")
    p.add_argument("--seed", type=int, help="the run's seed (default: a fresh one, printed)")
    p.add_argument("--case", type=int, action="append",
                   help="run only this case of the seed's run (repeatable): a replay")
    p.add_argument("--only", help="only kernels whose key matches this regex")
    p.add_argument("--arch", action="append", help="only kernels of this arch (repeatable)")
    p.add_argument("--max-failures", type=int, default=20,
                   help="stop after this many failures (default 20)")
    p.add_argument("--dry-run", action="store_true",
                   help="list the kernels and the first cases; no GPU, no torch")
    args = p.parse_args(argv)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1, 2 ** 31)

    capability = None
    if not args.dry_run:
        import torch
        if not torch.cuda.is_available():
            p.error("no CUDA device (--dry-run lists the cases without one)")
        capability = torch.cuda.get_device_capability()
    kernels, left_out = gpu_cases.targets(capability, args.arch, args.only)
    descriptions = gpu_cases.library_kernels()
    folders = ", ".join(str(lib.directory) for lib in gpu_cases.search_libraries())
    device = "any device" if capability is None else f"compute capability {capability}"
    print(f"{len(kernels)} kernels from {folders} on {device}; {len(left_out)} left out")
    for key, why in sorted(left_out.items()):
        print(f"  left out: {key}: {why}")
    if not kernels:
        print("no kernel to run: build a library (docs/GPU-TESTING.md) and set FATTN_KERNEL_DIR")
        return 1
    indices = args.case or list(range(args.cases))
    print(f"seed {seed}: {len(indices)} cases (replay one: --seed {seed} --case I)", flush=True)

    if args.dry_run:
        by_kind = collections.Counter()
        for i in indices:
            case = draw_case(seed, i, kernels)
            assert case.selected() == case.kernel, f"case {i} selects {case.selected().key}"
            by_kind[kind(case.kernel)] += 1
            if i < indices[0] + 20:
                print(f"  case {i}: {case.describe()}")
        for name, n in sorted(by_kind.items()):
            print(f"  {n:6d}  {name}")
        return 0

    import pytest
    import torch
    failures, skipped, ran = [], collections.Counter(), collections.Counter()
    start = last = time.time()
    for n, i in enumerate(indices, 1):
        case = draw_case(seed, i, kernels)
        log = io.StringIO()
        try:
            with contextlib.redirect_stdout(log):
                gpu_cases.run(case, descriptions[case.kernel])
            ran[kind(case.kernel)] += 1
        except pytest.skip.Exception as e:
            skipped[str(e)] += 1
        except (Exception, pytest.fail.Exception):  # noqa: BLE001 - each one with its replay
            failures.append(i)
            print(f"FAILED case {i}: {case.describe()}\n  replay: python3 scripts/gpu_stress.py "
                  f"--seed {seed} --case {i}\n{log.getvalue()}{traceback.format_exc()}",
                  flush=True)
            try:
                torch.cuda.synchronize()
            except Exception:  # noqa: BLE001
                print("the CUDA context is lost (an illegal access?): stopping", flush=True)
                break
            if len(failures) >= args.max_failures:
                print(f"stopping after {len(failures)} failures", flush=True)
                break
        if time.time() - last > 30 or n == len(indices):
            last = time.time()
            print(f"[{n}/{len(indices)}] {last - start:.0f} s, {len(failures)} failed",
                  flush=True)

    total = sum(ran.values())
    print(f"\nseed {seed}: {total} cases passed, {len(failures)} failed, "
          f"{sum(skipped.values())} skipped in {time.time() - start:.0f} s")
    for name, count in sorted(ran.items()):
        print(f"  {count:6d}  {name}")
    for why, count in skipped.items():
        print(f"  skipped {count}: {why}")
    if failures:
        print(f"failed cases: {' '.join(map(str, failures))} (replay: python3 "
              f"scripts/gpu_stress.py --seed {seed} --case I)")
    return 1 if failures or not total else 0


if __name__ == "__main__":
    sys.exit(main())
