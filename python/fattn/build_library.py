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
Copy DIR to the GPU machine and set FATTN_KERNEL_DIR=DIR (or fattn.set_kernel_dir).
"""
from __future__ import annotations

import argparse
import itertools
import json
import sys
import tempfile
import warnings
from pathlib import Path
from typing import Dict, List

from .compiler import CompileError, CompileWarning, compile_kernel, find_compiler
from .config import KernelConfig, canonical_descale, check_value_layout, short_seqs_tuning
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
        if key in ("causal", "lse"):
            return {"causal" if key == "causal" else "has_lse": _BOOL[text.lower()]}
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
                     "window, softcap, scale, lse, arch, descale, value_layout)")


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


def make_configs(arg_dicts: List[Dict], default_arch: str) -> List[KernelConfig]:
    configs = []
    for a in arg_dicts:
        a = dict(a)
        if "head_dim_qk" not in a:
            raise ValueError(f"configuration {a} has no head_dim")
        a.setdefault("arch", default_arch)
        a.setdefault("dtype", "bf16")
        config = KernelConfig.make(**a)
        configs += [config, short_seqs_tuning(config, 1, 1)]
    return list(dict.fromkeys(configs))  # unique, in order


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
        configs = make_configs(arg_dicts, args.arch)
    except (ValueError, TypeError, OSError) as e:
        p.error(str(e))
    if not configs:
        p.error("no configurations: give --configs, --config-file or --preset")
    if args.dry_run:
        for c in configs:
            print(c.key)
        return 0
    compiler = args.compiler or find_compiler()
    if compiler is None:
        p.error("fattn-compile not found (--compiler, FATTN_COMPILE, PATH or build/bin)")

    library = KernelLibrary(args.output)
    failed = warned = 0
    for i, config in enumerate(configs, 1):
        if not args.force and library.find(config) is not None:
            print(f"[{i}/{len(configs)}] {config.key}: present")
            continue
        try:
            with tempfile.TemporaryDirectory(prefix="fattn-build-") as tmp, \
                    warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", CompileWarning)
                compile_kernel(config, Path(tmp) / "out", compiler)
                library.add(config, Path(tmp) / "out")
            print(f"[{i}/{len(configs)}] {config.key}: built", flush=True)
            for w in caught:
                warned += 1
                print(f"  warning: {w.message}", file=sys.stderr, flush=True)
        except (CompileError, LibraryError) as e:
            failed += 1
            print(f"[{i}/{len(configs)}] {config.key}: FAILED\n{e}", file=sys.stderr, flush=True)
    print(f"{len(configs) - failed} of {len(configs)} kernels in {args.output}"
          + (f", {warned} warning(s) above" if warned else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
