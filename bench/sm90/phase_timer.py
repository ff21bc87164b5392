#!/usr/bin/env python3
"""Where a consumer warpgroup's time goes, per KV iteration: a PTX
instrumenter (here) and a GPU reader (on the GPU machine).

The instrumenter reads the SM clock at seven points of the consumer's KV loop
of an sm_90a kernel built by build_kernels.py, and adds each interval to a
per-thread counter:

  0 other   from the last point of an iteration (or the kernel's start) to
            the loop's top: the mask of edge tiles, and everything outside
            the loop (prologue, epilogue, the next work item's setup)
  1 softmax from the loop's top to `wgmma.wait_group 0`
  2 pv-wait the wait for the previous P V
  3 rescale from there to the first full-barrier wait (O's rescale, hand-back)
  4 ring    the full-barrier waits for the next K and V tiles
  5 issue   the fences and wgmma issues of S = Q K^T and P V
  6 s-wait  `wgmma.wait_group 1`, the wait for S
  7         the number of iterations

Thread 0 of each warpgroup adds its counters to the global `fattn_phase[wg][8]`
(u64) before the kernel returns. The reads cost a few instructions and
registers; check ptxas for spills, and compare the instrumented kernel's speed
with the plain one's before trusting the split.

The reads also change the schedule: without them ptxas moves the loop's
`wgmma.wait_group 0` (the wait for P V) up to the start of the softmax, so
that the softmax never overlaps its own warpgroup's P V; a clock read that
stays live keeps the wait where the PTX has it (docs/SCHEDULING.md). With
PH_POINTS=1 (a comma-separated list of the points above) only those reads
are inserted: PH_POINTS=1 is that pinned schedule with the least else.

With PH_TRACE=1 the instrumenter records a timeline instead of sums: thread 0
of each warpgroup of CTA 0 stores (point, clock) at every point of its first
iterations into `fattn_trace`, and `run` prints iterations PH_TRACE_SKIP (40)
to PH_TRACE_SKIP + 9 of both consumer warpgroups on one clock, which shows how
their phases interleave (docs/SCHEDULING.md).

usage:
  phase_timer.py instrument IN.ptx OUT.ptx   (here; then ptxas -arch=sm_90a)
  phase_timer.py run KERNEL_DIR NAME [SEQLEN]  (GPU machine; KERNEL_DIR as
      build_kernels.py writes it, with NAME's cubin built from OUT.ptx)
"""
import ctypes
import os
import re
import sys

NAMES = ["other", "softmax", "pv-wait", "rescale", "ring", "issue", "s-wait"]


# PH_TRACE=1 (instrument): instead of the sums, thread 0 of each warpgroup of
# CTA 0 writes a (point, clock) pair at every point to fattn_trace[wg], up to
# TRACE_LEN pairs: the timeline of the warpgroups' first iterations.
TRACE = bool(os.environ.get("PH_TRACE"))
TRACE_LEN = 4096


def point(k):
    if TRACE:  # the timeline only: no sums, few live registers
        return [f"\t// phase_timer: end of {NAMES[k]}", "\tmov.u32 \t%phn, %clock;",
                "\tsetp.lt.and.u32 \t%phq, %phto, %phte, %phtr;",
                "\tcvt.u64.u32 \t%phw, %phto;", "\tmov.u64 \t%phaddr, fattn_trace;",
                "\tadd.u64 \t%phaddr, %phaddr, %phw;",
                f"\t@%phq st.global.v2.u32 \t[%phaddr], {{{k}, %phn}};",
                "\t@%phq add.u32 \t%phto, %phto, 8;"]
    return [f"\t// phase_timer: end of {NAMES[k]}",
            f"\tmov.u32 \t%phn, %clock;", f"\tsub.u32 \t%pht, %phn, %phl;",
            f"\tadd.u32 \t%pha{k}, %pha{k}, %pht;", f"\tmov.u32 \t%phl, %phn;"]


def trace_setup():
    """%phtr: this thread traces; [%phto, %phte): its byte range of
    fattn_trace."""
    if not TRACE:
        return []
    return ["\t.reg .b32 \t%phto, %phte;", "\t.reg .pred \t%phtr, %phq;",
            "\tmov.u32 \t%phtid, %tid.x;", "\tand.b32 \t%pht, %phtid, 127;",
            "\tmov.u32 \t%phn, %ctaid.x;", "\tor.b32 \t%pht, %pht, %phn;",
            "\tsetp.eq.u32 \t%phtr, %pht, 0;", "\tshr.u32 \t%pht, %phtid, 7;",
            f"\tmul.lo.u32 \t%phto, %pht, {TRACE_LEN * 8};",
            f"\tadd.u32 \t%phte, %phto, {TRACE_LEN * 8};"]


def find(lines, start, pred, stop=None):
    for i in range(start, stop if stop is not None else len(lines)):
        if pred(lines[i].strip()):
            return i
    raise SystemExit(f"instrument: pattern not found after line {start + 1}")


def loop_label(lines):
    """The consumer's KV loop: the innermost backward-branch target whose
    body holds the softmax's shuffles and the wait for P V (the work-item
    loop of a persistent kernel holds them too, around it)."""
    labels = {l.strip()[:-1]: i for i, l in enumerate(lines) if re.match(r"^\$L__\w+:$", l.strip())}
    best = None
    for i, l in enumerate(lines):
        m = re.search(r"bra(\.uni)?\s+(\$L__\w+);", l)
        if m and m.group(2) in labels and labels[m.group(2)] < i:
            top = labels[m.group(2)]
            body = "\n".join(lines[top:i])
            if "shfl.sync" in body and "wgmma.wait_group.sync.aligned \t0" in body:
                if best is None or i - top < best[1] - best[0]:
                    best = (top, i)
    if best is None:
        raise SystemExit("instrument: no consumer KV loop found")
    return best[0]


def instrument(src, dst):
    lines = open(src).read().split("\n")
    top = loop_label(lines)
    p1 = find(lines, top, lambda s: s == "wgmma.wait_group.sync.aligned \t0;")
    p3 = find(lines, p1, lambda s: s.startswith("mbarrier.try_wait"))
    p3 = max(i for i in range(p1, p3) if lines[i].strip() == "// begin inline asm")
    fence = find(lines, p3, lambda s: s == "wgmma.fence.sync.aligned;")
    last_wait = max(i for i in range(p3, fence) if lines[i].strip().startswith("mbarrier.try_wait"))
    p4 = find(lines, last_wait, lambda s: s == "// end inline asm")
    p5 = find(lines, p4, lambda s: s == "wgmma.wait_group.sync.aligned \t1;")
    ret = max(i for i, l in enumerate(lines) if l.strip() == "ret;")
    entry = find(lines, 0, lambda s: s.startswith(".visible .entry"))
    brace = find(lines, entry, lambda s: s == "{")
    # Insert from the bottom up so that the indices above stay valid.
    edits = [
        (ret, ["\tmov.u32 \t%phtid, %tid.x;", "\tand.b32 \t%pht, %phtid, 127;",
               "\tsetp.ne.u32 \t%php, %pht, 0;", "\t@%php bra \tPH_SKIP;"] + point(0) +
         ["\tshr.u32 \t%pht, %phtid, 7;", "\tmul.wide.u32 \t%phw, %pht, 64;",
          "\tmov.u64 \t%phaddr, fattn_phase;", "\tadd.u64 \t%phaddr, %phaddr, %phw;"] +
         [x for k in range(8) for x in (f"\tcvt.u64.u32 \t%phw, %pha{k};",
                                        f"\tred.global.add.u64 \t[%phaddr+{8 * k}], %phw;")] +
         ["PH_SKIP:"]),
        (p5 + 1, point(6)), (p5, point(5)), (p4 + 1, point(4)), (p3, point(3)),
        (p1 + 1, point(2)), (p1, point(1)),
        (top + 1, [f"\t// phase_timer: KV loop {lines[top].strip()[:-1]}"] + point(0) +
         ["\tadd.u32 \t%pha7, %pha7, 1;"]),
        (brace + 1, ["\t.reg .b32 \t%phl, %phn, %pht, %phtid;", "\t.reg .b32 \t%pha<8>;",
                     "\t.reg .b64 \t%phw, %phaddr;", "\t.reg .pred \t%php;"] + trace_setup() +
         [f"\tmov.u32 \t%pha{k}, 0;" for k in range(8)] + ["\tmov.u32 \t%phl, %clock;"]),
    ]
    keep = os.environ.get("PH_POINTS")
    if keep:
        # Experiments: only these points (and the entry and exit code).
        wanted = {int(k) for k in keep.split(",")}
        marks = {p5 + 1: 6, p5: 5, p4 + 1: 4, p3: 3, p1 + 1: 2, p1: 1, top + 1: 0}
        edits = [e for e in edits if e[0] not in marks or marks[e[0]] in wanted]
    for at, new in sorted(edits, key=lambda e: -e[0]):
        lines[at:at] = new
    addr = find(lines, 0, lambda s: s.startswith(".address_size"))
    lines[addr + 1:addr + 1] = [".global .align 8 .u64 fattn_phase[32];"] + (
        [f".global .align 8 .u32 fattn_trace[{4 * TRACE_LEN * 2}];"] if TRACE else [])
    open(dst, "w").write("\n".join(lines))


def run(kdir, name, seqlen):
    import json
    import torch
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from check_sm90 import Kernel, check, cuda, fp8_inputs, bshd  # noqa: E402
    desc = next(d for d in json.load(open(os.path.join(kdir, "manifest.json"))) if d["name"] == name)
    kern = Kernel(kdir, desc)
    d = desc["head_dim_qk"]
    b, h = max(1, 16384 // seqlen), 2048 // d
    if desc["dtype"] == "e4m3":
        (q, k, v), descales, _ = fp8_inputs(desc, b, h, h, seqlen, seqlen)
    else:
        q, k, v = (bshd(b, seqlen, h, d, torch.bfloat16) for _ in range(3))
        descales = None
    o = torch.empty(b, seqlen, h, d, device="cuda", dtype=torch.bfloat16).transpose(1, 2)
    lse = torch.empty(b, h, seqlen, device="cuda") if desc["has_lse"] else None
    fn = kern.prepare(q, k, v, o, lse, descales)
    # A kernel without the counters (not instrumented) is only timed.
    counters = module_global(kern, "fattn_phase")
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    if counters:
        check(cuda.cuMemsetD8_v2(counters[0], 0, counters[1]), "cuMemsetD8")
    e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    reps = 10
    e0.record()
    for _ in range(reps):
        fn()
    e1.record()
    torch.cuda.synchronize()
    ms = e0.elapsed_time(e1) / reps
    tflops = 4 * b * h * seqlen * seqlen * d / (2 if desc["causal"] else 1) / (ms * 1e-3) / 1e12
    if not counters:
        print(f"PHASES {name} S={seqlen}: {tflops:.0f} TFLOP/s (not instrumented)")
        return
    timeline = read_trace(kern)
    if timeline is not None:
        print(f"PHASES {name} S={seqlen}: {tflops:.0f} TFLOP/s (traced)")
        print_trace(timeline, int(os.environ.get("PH_TRACE_SKIP", "40")))
        return
    host = copy_global(counters, ctypes.c_uint64)
    print(f"PHASES {name} S={seqlen}: {tflops:.0f} TFLOP/s (instrumented); clocks per KV iteration "
          "of one consumer warp")
    for wg in range(4):
        acc = host[wg * 8:wg * 8 + 8]
        if not acc[7]:
            continue
        per = [a / acc[7] for a in acc[:7]]
        cells = " ".join(f"{n}={p:.0f}" for n, p in zip(NAMES, per))
        print(f"PHASES   wg{wg}: iterations {acc[7]}, total {sum(per):.0f}: {cells}")


def module_global(kern, symbol):
    """(device pointer, bytes) of the global `symbol` in the kernel's module,
    or None when the module has no such global."""
    from check_sm90 import cuda  # noqa: E402
    ptr, size = ctypes.c_uint64(), ctypes.c_size_t()
    if cuda.cuModuleGetGlobal_v2(ctypes.byref(ptr), ctypes.byref(size), kern.module,
                                 symbol.encode()) != 0:
        return None
    return ptr, size


def copy_global(where, ctype):
    """The global at `where` (module_global's pair) as a host array of ctype."""
    from check_sm90 import cuda, check  # noqa: E402
    ptr, size = where
    host = (ctype * (size.value // ctypes.sizeof(ctype)))()
    check(cuda.cuMemcpyDtoH_v2(host, ptr, size), "cuMemcpyDtoH")
    return host


def read_trace(kern):
    """The iterations recorded by a PH_TRACE kernel in its last launch, per
    warpgroup index (tid / 128): a list of {point: clock} dicts, one per
    visit of the loop's top. None for a kernel without the trace."""
    where = module_global(kern, "fattn_trace")
    if where is None:
        return None
    host = copy_global(where, ctypes.c_uint32)
    timeline = {}
    for wg in range(4):
        its, cur = [], None
        for i in range(TRACE_LEN):
            k, clk = host[2 * (wg * TRACE_LEN + i)], host[2 * (wg * TRACE_LEN + i) + 1]
            if k == 0 and clk == 0:  # never written
                break
            if k == 0:
                cur = {}
                its.append(cur)
            if cur is not None:
                cur[k] = clk
        # Every warpgroup's thread 0 passes point 0 once more on its way out
        # (the producer only there): keep the warpgroups that ran the loop.
        if len(its) > 1:
            timeline[wg] = its
    return timeline


def print_trace(timeline, skip, rows=10):
    """Iterations skip .. skip + rows - 1 of every traced warpgroup: the clock
    at which each phase ends, relative to the loop top of iteration `skip` of
    the first warpgroup."""
    first = min(timeline) if timeline else None
    if first is None or len(timeline[first]) <= skip:
        counts = ", ".join(f"wg{wg} {len(its)}" for wg, its in sorted(timeline.items()))
        print(f"TRACE: fewer than {skip + 1} iterations recorded ({counts or 'none'})")
        return
    t0 = timeline[first][skip][0]
    print(f"TRACE clocks relative to wg{first}'s loop top of iteration {skip} "
          f"(points: 0 top, then the end of {', '.join(NAMES[1:])})")
    for i in range(skip, skip + rows):
        cells = []
        for wg, its in sorted(timeline.items()):
            if i < len(its):
                cells.append(f"wg{wg}: " + " ".join(
                    f"{k}:{((clk - t0 + (1 << 31)) & 0xffffffff) - (1 << 31)}"
                    for k, clk in sorted(its[i].items())))
        print(f"TRACE it{i}: " + " | ".join(cells))


if __name__ == "__main__":
    if len(sys.argv) >= 4 and sys.argv[1] == "instrument":
        instrument(sys.argv[2], sys.argv[3])
    elif len(sys.argv) >= 4 and sys.argv[1] == "run":
        run(sys.argv[2], sys.argv[3], int(sys.argv[4]) if len(sys.argv) > 4 else 8192)
    else:
        sys.exit(__doc__)
