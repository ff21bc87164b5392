#!/usr/bin/env python3
"""When each CTA of a persistent sm_90a kernel starts and ends: a PTX
instrumenter (here) and a GPU reader (on the GPU machine).

The instrumenter makes every thread of CTA c take the minimum of %globaltimer
at its start into `fattn_cta_start[c]` and the maximum at its `ret` into
`fattn_cta_end[c]` (u64 atomics on two 1024-entry globals). The reader
launches the kernel (fresh random bf16 inputs, warm-up first), clears the
arrays, launches once more and prints, relative to the earliest start, the
spread of the CTAs' end times: how long the last CTAs run while the others
have finished, which is what a partial last round (or its split) costs.

usage:
  cta_timer.py instrument IN.ptx OUT.ptx      (here; then ptxas -arch=sm_90a)
  cta_timer.py run KERNEL_DIR SEQLEN NAME...  (GPU machine; KERNEL_DIR as
                                               check_sm90.py takes it)
"""
import re
import sys

GLOBALS = (".global .align 8 .u64 fattn_cta_start[1024];\n"
           ".global .align 8 .u64 fattn_cta_end[1024];\n")


def stamp(array, op):
    return (f"\tmov.u64 %ctt0, %globaltimer;\n"
            f"\tmov.u32 %ctc0, %ctaid.x;\n"
            f"\tmul.wide.u32 %ctt1, %ctc0, 8;\n"
            f"\tmov.u64 %ctt2, {array};\n"
            f"\tadd.s64 %ctt2, %ctt2, %ctt1;\n"
            f"\tatom.global.{op}.u64 %ctt3, [%ctt2], %ctt0;\n")


def instrument(src, dst):
    ptx = open(src).read()
    line = ptx.rfind("\n", 0, ptx.index(".entry")) + 1
    ptx = ptx[:line] + GLOBALS + ptx[line:]
    # Registers and the start stamp after the entry's last .reg declaration.
    regs = list(re.finditer(r"^\t\.reg [^\n]*\n", ptx, re.M))
    at = regs[0].start()
    last = at
    for m in regs:
        if m.start() > last + 200:
            break
        last = m.end()
    decl = "\t.reg .b64 %ctt<4>;\n\t.reg .b32 %ctc<1>;\n"
    ptx = ptx[:last] + decl + stamp("fattn_cta_start", "min") + ptx[last:]
    ptx = re.sub(r"^\tret;", lambda m: stamp("fattn_cta_end", "max") + "\tret;", ptx,
                 flags=re.M)
    open(dst, "w").write(ptx)


def run(kdir, seqlen, names):
    import ctypes, json, os
    import torch
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import check_sm90 as cs
    manifest = {d["name"]: d for d in json.load(open(os.path.join(kdir, "manifest.json")))}
    for name in names:
        kern = cs.Kernel(kdir, manifest[name])
        d = kern.desc["head_dim_qk"]
        b, h = max(1, 16384 // seqlen), 2048 // d
        q, k, v = (cs.bshd(b, seqlen, h, d, torch.bfloat16) for _ in range(3))
        o = torch.empty(b, seqlen, h, d, device="cuda", dtype=torch.bfloat16).transpose(1, 2)
        launch = kern.prepare(q, k, v, o)
        ptrs = {}
        for g in ("fattn_cta_start", "fattn_cta_end"):
            p, size = ctypes.c_uint64(), ctypes.c_size_t()
            cs.check(cs.cuda.cuModuleGetGlobal_v2(ctypes.byref(p), ctypes.byref(size),
                                                   kern.module, g.encode()), g)
            ptrs[g] = p.value
        for _ in range(5):
            launch()
        torch.cuda.synchronize()
        runs = []
        for _ in range(5):
            cs.cuda.cuMemsetD8_v2(ctypes.c_uint64(ptrs["fattn_cta_start"]), 0xFF, 8192)
            cs.cuda.cuMemsetD8_v2(ctypes.c_uint64(ptrs["fattn_cta_end"]), 0, 8192)
            torch.cuda.synchronize()
            launch()
            torch.cuda.synchronize()
            vals = {}
            for g, p in ptrs.items():
                buf = (ctypes.c_uint64 * 1024)()
                cs.check(cs.cuda.cuMemcpyDtoH_v2(buf, ctypes.c_uint64(p), 8192), "copy")
                vals[g] = list(buf)
            n = sum(1 for x in vals["fattn_cta_end"] if x)
            t0 = min(vals["fattn_cta_start"][:n])
            ends = sorted((e - t0) / 1000 for e in vals["fattn_cta_end"][:n])
            runs.append((ends[-1], ends[0], ends[n // 2], n))
        runs.sort()
        last, first, median, n = runs[len(runs) // 2]
        flops = 4 * b * h * seqlen * seqlen * d / (2 if kern.desc["causal"] else 1)
        print(f"CTA {name} N={seqlen} CTAs={n}: last end {last:.1f} us "
              f"({flops / last / 1e6:.0f} TFLOP/s), first end {first:.1f}, median end "
              f"{median:.1f}, idle share {(last - median) / last:.1%} "
              f"(all 5 last ends: {', '.join(f'{r[0]:.1f}' for r in runs)})", flush=True)


if __name__ == "__main__":
    if sys.argv[1] == "instrument":
        instrument(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "run":
        run(sys.argv[2], int(sys.argv[3]), sys.argv[4:])
    else:
        sys.exit(__doc__)
