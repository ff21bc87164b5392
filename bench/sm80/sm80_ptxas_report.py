#!/usr/bin/env python3
"""ptxas -v of every shipped sm_80 kernel: registers, spills and stack per configuration.

usage: bench/sm80/sm80_ptxas_report.py [--compiler build-h2/bin/fattn-compile] [--preset gpu-tests]
           [--preset bench] [--configs SPEC] [--ptxas-arch sm_80 --ptxas-arch sm_90] [--keep DIR]

The configurations are those of `python -m fattn.build_library --preset ...` (default: both
presets, i.e. every kernel the package ships). Each one is compiled to PTX by fattn-compile
--arch sm_80 and assembled by ptxas -v for each --ptxas-arch (default sm_80; sm_90 is what the
driver JIT does on the H200). Prints one line per configuration and exits with 1 when any
kernel has a stack frame or spills.
"""
import argparse
import pathlib
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "python"))

from fattn.build_library import make_configs, parse_spec  # noqa: E402
from fattn.mlir_gen import attention_mlir, func_name  # noqa: E402
from fattn.presets import PRESETS  # noqa: E402

USAGE = re.compile(r"Used (\d+) registers")
FRAME = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")


def ptxas_usage(ptxas, arch, ptx, cubin):
    r = subprocess.run([ptxas, f"-arch={arch}", "-O3", "-v", str(ptx), "-o", str(cubin)],
                       capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError(f"ptxas -arch={arch} {ptx}: {r.stderr.strip()}")
    regs, frame = USAGE.search(r.stderr), FRAME.search(r.stderr)
    if not regs or not frame:
        raise RuntimeError(f"unexpected ptxas -v output for {ptx}:\n{r.stderr}")
    return int(regs.group(1)), tuple(int(x) for x in frame.groups())


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--compiler", default="build-h2/bin/fattn-compile")
    p.add_argument("--ptxas", default="/usr/local/cuda/bin/ptxas")
    p.add_argument("--preset", action="append", choices=sorted(PRESETS))
    p.add_argument("--configs", action="append", default=[], help="a build_library spec")
    p.add_argument("--ptxas-arch", action="append", help="default: sm_80")
    p.add_argument("--extra", action="append", default=[], help="extra fattn-compile argument")
    p.add_argument("--keep", type=pathlib.Path, help="keep the PTX in this folder")
    a = p.parse_args()
    archs = a.ptxas_arch or ["sm_80"]
    specs = []
    for spec in a.configs:
        specs += parse_spec(spec)
    for name in a.preset or ([] if a.configs else sorted(PRESETS)):
        specs += PRESETS[name]()
    configs = make_configs(specs, "sm_80")

    bad = 0
    with tempfile.TemporaryDirectory(prefix="fattn-sm80-ptxas-") as tmp:
        out = a.keep or pathlib.Path(tmp)
        out.mkdir(parents=True, exist_ok=True)
        for config in configs:
            entry = func_name(config)
            src = out / f"{entry}.mlir"
            src.write_text(attention_mlir(config))
            r = subprocess.run([a.compiler, str(src), "--arch", "sm_80", "--emit", "ptx",
                                "-o", str(out / f"{entry}.ptx"), *a.extra], capture_output=True, text=True)
            if r.returncode:
                sys.exit(f"{config.key}: fattn-compile failed:\n{r.stderr}")
            cells = []
            for arch in archs:
                regs, (stack, st, ld) = ptxas_usage(a.ptxas, arch, out / f"{entry}.ptx",
                                                    out / f"{entry}.{arch}.cubin")
                flag = "" if stack == st == ld == 0 else "  <-- SPILL"
                bad += bool(flag)
                cells.append(f"{arch} {regs:3d} regs, stack {stack}, spill {st}/{ld}{flag}")
            print(f"{config.key:60s} | " + " | ".join(cells), flush=True)
    print(f"{len(configs)} configurations, {bad} with stack or spills")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
