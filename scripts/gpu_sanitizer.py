#!/usr/bin/env python3
"""compute-sanitizer over every kernel of the kernel library, one small case each.

    FATTN_RUNTIME_LIB=$PWD/build-runtime/lib/libfattn_runtime.so \\
    FATTN_KERNEL_DIR=$PWD/build-kernels python3 scripts/gpu_sanitizer.py [--tool racecheck]

Lists the kernels of the library (FATTN_KERNEL_DIR) that run on this GPU, then
re-runs itself under compute-sanitizer (--tool memcheck by default; racecheck,
synccheck, initcheck) as one process that launches each kernel once through
flash_attn_func on a small case (gpu_cases.small_case: GQA, lengths that end
inside a tile, rows that see no key under a causal mask, the layouts of the GPU
tests in turn), checks that exactly that kernel ran and that its output passes
the GPU tests' checks against the float64 reference. Only fattn's kernels are
instrumented (--kernel-name kns=fattn) and torch's caching allocator is off, so
an out-of-bounds access leaves its allocation. Exit status: 99 when the
sanitizer reports an error, 1 when a case fails, else 0. --shard I/N runs every
N-th kernel from the I-th (racecheck is slow: split it over several calls).
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
import traceback
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "python"), str(REPO / "python" / "tests")]

import gpu_cases  # noqa: E402

TOOLS = ("memcheck", "racecheck", "synccheck", "initcheck")


def sanitizer_command(args, argv, jit: bool) -> list:
    """The compute-sanitizer command that runs this script's cases as its worker.
    jit: some kernels load from PTX (an sm_80 cubin on an sm_90 GPU), whose refused
    cubin every load reports as an API error (CUDA_ERROR_NO_BINARY_FOR_GPU): API
    errors are then not reported (the runtime still raises on any failed call)."""
    tool = os.environ.get("COMPUTE_SANITIZER") or shutil.which("compute-sanitizer") or \
        "/usr/local/cuda/bin/compute-sanitizer"
    return ([tool, "--tool", args.tool, "--error-exitcode", "99", "--kernel-name", "kns=fattn"]
            + (["--report-api-errors", "no"] if jit else [])
            + [sys.executable, str(Path(__file__).resolve()), "--worker"]
            + [a for a in argv if a != "--dry-run"])


def loads_from_ptx(config, capability) -> bool:
    """Whether the kernel's cubin is for another major arch than the device's."""
    return capability is not None and not config.arch.startswith(f"sm_{capability[0]}")


def cases(args, capability):
    kernels, left_out = gpu_cases.targets(capability, args.arch, args.only)
    index, count = args.shard
    chosen = [(i, k) for i, k in enumerate(kernels) if i % count == index]
    return [gpu_cases.small_case(k, i) for i, k in chosen], left_out


def parse_shard(text: str):
    try:
        index, count = (int(x) for x in text.split("/"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected I/N, got {text!r}") from None
    if not 0 <= index < count:
        raise argparse.ArgumentTypeError(f"expected 0 <= I < N, got {text!r}")
    return index, count


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tool", choices=TOOLS, default="memcheck")
    p.add_argument("--only", help="only kernels whose key matches this regex")
    p.add_argument("--arch", action="append", help="only kernels of this arch (repeatable)")
    p.add_argument("--shard", type=parse_shard, default=(0, 1), metavar="I/N",
                   help="every N-th kernel from the I-th (0-based)")
    p.add_argument("--dry-run", action="store_true",
                   help="list the cases and the sanitizer command; no GPU, no torch")
    p.add_argument("--no-sanitizer", action="store_true",
                   help="run the cases without compute-sanitizer (to time or debug them)")
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args(argv)

    if args.dry_run:
        todo, left_out = cases(args, None)
        for case in todo:
            assert case.selected() == case.kernel, case.describe()
            print(f"  {case.describe()}")
        for key, why in sorted(left_out.items()):
            print(f"  left out: {key}: {why}")
        print(f"{len(todo)} kernels, {len(left_out)} left out; would run:\n  "
              + " ".join(sanitizer_command(args, argv, False)))
        return 0
    if not (args.worker or args.no_sanitizer):
        import torch
        capability = torch.cuda.get_device_capability()
        jit = any(loads_from_ptx(case.kernel, capability) for case in cases(args, capability)[0])
        env = dict(os.environ, PYTORCH_NO_CUDA_MEMORY_CACHING="1")
        command = sanitizer_command(args, argv, jit)
        print(" ".join(command), flush=True)
        return subprocess.run(command, env=env).returncode

    import pytest
    import torch
    todo, left_out = cases(args, torch.cuda.get_device_capability())
    descriptions = gpu_cases.library_kernels()
    print(f"{len(todo)} kernels ({args.tool if args.worker else 'no sanitizer'}), "
          f"{len(left_out)} left out", flush=True)
    for key, why in sorted(left_out.items()):
        print(f"  left out: {key}: {why}")
    failed, start = [], time.time()
    for n, case in enumerate(todo, 1):
        t0 = time.time()
        try:
            gpu_cases.run(case, descriptions[case.kernel])
            status = "ok"
        except pytest.skip.Exception as e:
            status = f"skipped: {e}"
        except (Exception, pytest.fail.Exception):  # noqa: BLE001 - every failure is reported
            failed.append(case.kernel.key)
            status = "FAILED\n" + traceback.format_exc()
        print(f"[{n}/{len(todo)}] {case.describe()}: {status} ({time.time() - t0:.1f} s)",
              flush=True)
    print(f"{len(todo) - len(failed)} passed, {len(failed)} failed in "
          f"{time.time() - start:.0f} s")
    for key in failed:
        print(f"  failed: {key}")
    return 1 if failed or not todo else 0


if __name__ == "__main__":
    sys.exit(main())
