"""Build a kernel library ahead of time (on a machine with fattn-compile).

    python -m fattn.build_library -o DIR --arch sm_80 \\
        --configs "dtype=bf16|f16,head_dim=64|128,causal=0|1" --preset bench
    python -m fattn.build_library -o DIR --preset fp8    # the FP8 kernels (sm_90a)

A --configs spec is comma-separated key=value pairs; `|` separates choices and the
spec expands to every combination. Keys: dtype (bf16, f16, e4m3), head_dim (sets both),
head_dim_qk, head_dim_v, causal (0/1), window (LEFT:RIGHT, -1 unbounded),
softcap, scale (default 1/sqrt(head_dim)), lse (0/1), arch, descale (e4m3 only:
q<rank>[b<block>]k..v.., e.g. q0k0v0 per tensor, q2k2v2 per KV head,
q3b64k3b128v3b128 per block; `none` for no descale operands), value_layout (e4m3
only: transposed_wgmma_e4m3_k32 for V given pre-transposed, `none` for BSHD V).
--config-file takes a JSON list of objects with KernelConfig.make's arguments.
A configuration that has a kernel tuned for short sequences (fattn.config.
short_seqs_tuning; flash_attn_func runs it up to short_seqs_max's lengths) gets
that kernel too.
Training: grad=1 in a spec (or --grad for every configuration) builds the forward
with its LSE and the backward kernel of the configuration (fattn.grad_config; the
sm_80 backward kernels, which every GPU runs); --grad skips the configurations
the backward does not take. --preset training builds what the GPU autograd tests use.
An sm_90a configuration's backward also comes as the sm_90a kernels where they take its
head dim (64, 128): flash_attn_func runs those on sm_90 GPUs (FATTN_GRAD_ARCH=sm_80: the
sm_80 ones). --grad-sm90a adds them to the sm_80 configurations too.
--grad-deterministic adds, beside each backward kernel, the one that adds dQ in a fixed
order (flash_attn_func(..., deterministic=True) runs it).
--preset bench-grad builds what bench/bench_bwd.py times: both archs' forwards with
the LSE and both backwards.
-j N compiles N kernels at a time. A kernel already in DIR is kept if this
fattn-compile built it (the index records each kernel's compiler), else built
again; --force rebuilds every one.
Copy DIR to the GPU machine and set FATTN_KERNEL_DIR=DIR (or fattn.set_kernel_dir),
or ship it inside the wheel: -o python/fattn/_kernels before building the wheel
(docs/PACKAGING.md).
"""
from __future__ import annotations

import argparse
import dataclasses
import itertools
import json
import os
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path
from typing import Dict, List, Optional

from .compiler import CompileError, compiler_identity, find_compiler, run_compiler
from .config import (KernelConfig, canonical_descale, check_head_dims, check_value_layout,
                     runtime_scalars_wanted, short_seqs_tuning)
from .grad_config import GRAD_ARCH, AnyConfig, GradKernelConfig
from .library import KernelLibrary, LibraryError
from .presets import PRESETS

_BOOL = {"0": False, "1": True, "false": False, "true": True}


def _parse_value(key: str, text: str) -> Dict:
    try:
        if key == "dtype":
            return {"dtype": text}
        if key == "arch":
            return {"arch": text}
        if key == "head_dim":
            return {"head_dim_qk": int(text), "head_dim_v": int(text)}
        if key in ("head_dim_qk", "head_dim_v"):
            return {key: int(text)}
        if key in ("causal", "lse", "grad"):
            return {{"causal": "causal", "lse": "has_lse"}.get(key, key): _BOOL[text.lower()]}
        if key == "window":
            left, right = text.split(":")
            return {"window_left": int(left), "window_right": int(right)}
        if key in ("softcap", "scale"):
            return {key: float(text)}
        if key == "descale":
            return {"descale": None if text == "none" else canonical_descale(text)}
        if key == "value_layout":
            layout = None if text == "none" else text
            check_value_layout(layout, "e4m3")
            return {"value_layout": layout}
    except (ValueError, KeyError):
        raise ValueError(f"bad value {text!r} for {key!r}") from None
    raise ValueError(f"unknown key {key!r} (dtype, head_dim, head_dim_qk, head_dim_v, causal, "
                     "window, softcap, scale, lse, arch, descale, value_layout, grad)")


def parse_spec(spec: str) -> List[Dict]:
    """'dtype=bf16|f16,head_dim=128' -> two argument dicts for KernelConfig.make."""
    axes = []
    for item in filter(None, (s.strip() for s in spec.split(","))):
        key, eq, values = item.partition("=")
        if not eq or not values:
            raise ValueError(f"expected key=value in {spec!r}, got {item!r}")
        axes.append([_parse_value(key.strip(), v.strip()) for v in values.split("|")])
    out = []
    for combo in itertools.product(*axes):
        merged: Dict = {}
        for part in combo:
            merged.update(part)
        out.append(merged)
    return out


def make_configs(arg_dicts: List[Dict], default_arch: str,
                 grad_all: bool = False, grad_sm90a: bool = False,
                 grad_deterministic: bool = False) -> List[AnyConfig]:
    """The configurations to build; `grad_all`: with the backward of each that
    the backward kernels take (an explicit grad=1 that they do not take is a
    ValueError); with each backward, the sm_90a one where its kernels take the
    head dim, for the sm_90a configurations and, with `grad_sm90a` (or a
    configuration's own "grad_sm90a", as a preset gives it), the others too;
    `grad_deterministic` (or "grad_deterministic"): with each backward, the
    deterministic one of the same arch."""
    configs: List[AnyConfig] = []
    for a in arg_dicts:
        a = dict(a)
        if "head_dim_qk" not in a:
            raise ValueError(f"configuration {a} has no head_dim")
        grad = a.pop("grad", False)
        # A forward for sm_90 GPUs gets the backward they run by default.
        with_sm90a = a.pop("grad_sm90a", False) or grad_sm90a or \
            a.get("arch", default_arch) == "sm_90a"
        with_deterministic = a.pop("grad_deterministic", False) or grad_deterministic
        a.setdefault("arch", default_arch)
        a.setdefault("dtype", "bf16")
        # The kernels flash_attn_func asks for.
        a.setdefault("runtime_scalars", runtime_scalars_wanted())
        config = KernelConfig.make(**a)
        check_head_dims(config)
        backward = None
        if grad or grad_all:
            # The backward compiles the scale and the softcap in: it is
            # derived from the values, whatever the forward takes at launch.
            with_values = KernelConfig.make(**dict(a, runtime_scalars=False))
            try:
                backward = grad_of(with_values)
            except ValueError:
                if grad:
                    raise
            if backward is not None:
                config = dataclasses.replace(config, has_lse=True)  # what the backward reads
        configs += [config, short_seqs_tuning(config, 1, 1)]
        if backward is not None:
            backwards = [backward]
            if with_sm90a:
                try:
                    backwards.append(grad_of(with_values, "sm_90a"))
                except ValueError:
                    pass  # the sm_80 backward serves it
            if with_deterministic:
                backwards += [grad_of(with_values, g.arch, deterministic=True)
                              for g in backwards]
            configs += backwards
    return list(dict.fromkeys(configs))  # unique, in order


def grad_of(config: KernelConfig, arch: str = GRAD_ARCH,
            deterministic: bool = False) -> GradKernelConfig:
    """The backward kernel by `arch`'s kernels (`deterministic`: those that add
    dQ in a fixed order) of a forward configuration with its scale and softcap
    compiled in (ValueError naming the limit where there is none)."""
    if config.runtime_scalars:
        raise ValueError(f"{config.key}: the backward compiles the scale and the softcap "
                         "in; pass the configuration with their values")
    return GradKernelConfig.for_forward(config, arch, deterministic)


def _duration(seconds: float) -> str:
    seconds = int(round(seconds))
    return f"{seconds // 60}m{seconds % 60:02d}s" if seconds >= 60 else f"{seconds}s"


class _Progress:
    """One line per kernel: "[done/total] key: what (time, elapsed, about how long left)"."""

    def __init__(self, total: int):
        self.total = total
        self.done = 0
        self.built = 0
        self.start = time.monotonic()

    def report(self, key: str, what: str, seconds: Optional[float] = None,
               error: bool = False) -> None:
        self.done += 1
        line = f"[{self.done}/{self.total}] {key}: {what}"
        if seconds is not None:
            self.built += 1
            elapsed = time.monotonic() - self.start
            left = self.total - self.done
            line += f" in {seconds:.1f} s (elapsed {_duration(elapsed)}"
            if left:
                line += f", about {_duration(elapsed / self.built * left)} left"
            line += ")"
        print(line, file=sys.stderr if error else sys.stdout, flush=True)


def _build_one(config: AnyConfig, library: KernelLibrary, compiler: str,
               identity: str) -> tuple:
    """Compiles one kernel into the library: (seconds, warning lines)."""
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="fattn-build-") as tmp:
        warned = run_compiler(config, Path(tmp) / "out", compiler)
        library.add(config, Path(tmp) / "out", identity)
    return time.monotonic() - start, warned


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m fattn.build_library", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("-o", "--output", required=True, type=Path, help="library folder")
    p.add_argument("--arch", default="sm_80", help="default arch of the configurations")
    p.add_argument("--configs", action="append", default=[], help="a configuration spec")
    p.add_argument("--config-file", type=Path, help="a JSON list of configurations")
    p.add_argument("--preset", action="append", default=[], choices=sorted(PRESETS))
    p.add_argument("--compiler", help="fattn-compile binary (default: FATTN_COMPILE, PATH, "
                   "build/bin)")
    p.add_argument("-j", "--jobs", type=int, default=1,
                   help="kernels compiled at a time (default 1; 0: one per CPU)")
    p.add_argument("--grad", action="store_true",
                   help="also the backward kernel (and the forward with LSE) of every "
                   "configuration the backward takes")
    p.add_argument("--grad-sm90a", action="store_true",
                   help="with the backward kernel of each sm_80 configuration too, the sm_90a "
                   "one where it takes the head dim (sm_90a configurations get it anyway)")
    p.add_argument("--grad-deterministic", action="store_true",
                   help="with each backward kernel, the deterministic one (dQ added in a fixed "
                   "order; flash_attn_func(..., deterministic=True) runs it)")
    p.add_argument("--force", action="store_true", help="rebuild kernels already present")
    p.add_argument("--dry-run", action="store_true", help="list the configurations only")
    args = p.parse_args(argv)

    arg_dicts: List[Dict] = []
    try:
        for spec in args.configs:
            arg_dicts += parse_spec(spec)
        if args.config_file:
            arg_dicts += json.loads(args.config_file.read_text())
        for name in args.preset:
            arg_dicts += PRESETS[name]()
        configs = make_configs(arg_dicts, args.arch, args.grad, args.grad_sm90a,
                               args.grad_deterministic)
    except (ValueError, TypeError, OSError) as e:
        p.error(str(e))
    if not configs:
        p.error("no configurations: give --configs, --config-file or --preset")
    if args.jobs < 0:
        p.error(f"-j must be at least 0, got {args.jobs}")
    if args.dry_run:
        for c in configs:
            print(c.key)
        return 0
    try:
        compiler = args.compiler or find_compiler()
        if compiler is None:
            p.error("fattn-compile not found (--compiler, FATTN_COMPILE, PATH or build/bin)")
        identity = compiler_identity(compiler)
    except CompileError as e:
        p.error(str(e))

    library = KernelLibrary(args.output)
    progress = _Progress(len(configs))
    todo = []
    for config in configs:
        if not args.force and library.find(config) is not None:
            if library.compiler_of(config) == identity:
                progress.report(config.key, "present")
                continue
            print(f"{config.key}: built by another fattn-compile, building it again",
                  flush=True)
        todo.append(config)
    failed = warned = 0
    jobs = args.jobs or os.cpu_count() or 1
    with ThreadPoolExecutor(max_workers=max(1, min(jobs, len(todo)))) as pool:
        futures = {pool.submit(_build_one, c, library, compiler, identity): c for c in todo}
        for future in as_completed(futures):
            config = futures[future]
            try:
                seconds, warnings = future.result()
            except (CompileError, LibraryError) as e:
                failed += 1
                progress.report(config.key, f"FAILED\n{e}", error=True)
                continue
            progress.report(config.key, "built", seconds)
            for w in warnings:
                warned += 1
                print(f"  warning: {w}", file=sys.stderr, flush=True)
    print(f"{len(configs) - failed} of {len(configs)} kernels in {args.output}"
          + (f", {warned} warning(s) above" if warned else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
