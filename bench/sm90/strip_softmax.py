#!/usr/bin/env python3
"""Timing probe: a built kernel with the exp2s of its softmax taken out of
its PTX, to bound what a faster exp2 could gain (the results are wrong;
time them, never check them).

usage: strip_softmax.py DIR NAME [noexp]     (DIR from build_kernels.py)

The mode (DIR/<new name>.{ptx,cubin} and a manifest entry; the new name
appends the mode to the variant of bench_<variant>_d<D>[_causal], so that
check_sm90.py --bench-matrix groups it with NAME, or prefixes other names):
  noexp   every ex2.approx becomes a move: the softmax without the MUFU
  nostore every st.global is predicated on a condition that is never true
          at run time (%nctaid.x == 0): O's values are still computed,
          only the stores' memory traffic is gone (the epilogue's share)

Taking out more (max, add, mul, fma on f32 too) is not offered: ptxas then
drops some of the wgmmas (29 HGMMA of 40 left in SASS at head dim 128, and
TFLOP/s above the tensor cores' peak, docs/PERF.md), so no bound follows.
"""
import json, os, re, subprocess, sys

# (opcode, the source operand kept): mov keeps the register flow, so that
# ptxas still sees every wgmma operand defined.
STRIP = {"noexp": {"ex2.approx.ftz.f32": 0}}


def strip(ptx, ops):
    alternatives = "|".join(re.escape(o) for o in ops)
    pattern = re.compile(r"^(\s*)(" + alternatives + r")\s+(%\w+),\s*([^;]+);", re.M)

    def repl(m):
        sources = [s.strip() for s in m.group(4).split(",")]
        return f"{m.group(1)}mov.f32 \t{m.group(3)}, {sources[ops[m.group(2)]]};"

    return pattern.subn(repl, ptx)


def predicate_stores(ptx):
    """Guards each unpredicated st.global with a never-true predicate that
    ptxas cannot fold, declared at the kernel body's top."""
    ptx, count = re.subn(r"^(\s*)(st\.global\.)", r"\1@%p_never \2", ptx, flags=re.M)
    setup = ("\t.reg .pred \t%p_never;\n\t.reg .b32 \t%r_never;\n"
             "\tmov.u32 \t%r_never, %nctaid.x;\n"
             "\tsetp.eq.u32 \t%p_never, %r_never, 0;\n")
    ptx = re.sub(r"(\.entry[^{]*\{\n(?:\s*\.reg[^\n]*\n)*)", lambda m: m.group(1) + setup,
                 ptx, count=1)
    return ptx, count


def main():
    kdir, name, modes = sys.argv[1], sys.argv[2], sys.argv[3:] or ["noexp"]
    path = os.path.join(kdir, "manifest.json")
    manifest = json.load(open(path))
    (desc,) = [d for d in manifest if d["name"] == name]
    ptx = open(os.path.join(kdir, name + ".ptx")).read()
    for mode in modes:
        if name.startswith("bench_"):
            _, variant, rest = name.split("_", 2)
            new = f"bench_{variant}{mode}_{rest}"
        else:
            new = f"{mode}_{name}"
        text, count = (predicate_stores(ptx) if mode == "nostore"
                       else strip(ptx, STRIP[mode]))
        base = os.path.join(kdir, new)
        open(base + ".ptx", "w").write(text)
        r = subprocess.run(["ptxas", "-arch=sm_90a", "-v", base + ".ptx", "-o", base + ".cubin"],
                           capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"{new}: ptxas failed:\n{r.stderr}")
        regs = re.search(r"Used (\d+) registers", r.stderr)
        spills = re.search(r"[1-9]\d* bytes spill", r.stderr)
        print(f"{new}: {count} instructions replaced, "
              f"{regs.group(1) if regs else '?'} registers, {'SPILLS' if spills else '0 spills'}")
        manifest = [d for d in manifest if d["name"] != new]
        manifest.append(dict(desc, name=new, cubin=new + ".cubin", options=f"{desc.get('options', '')} [{mode}]"))
    json.dump(manifest, open(path, "w"), indent=1)


if __name__ == "__main__":
    main()
