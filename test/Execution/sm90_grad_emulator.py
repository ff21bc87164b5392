#!/usr/bin/env python3
"""Runs the sm_90a backward kernels at L3 on the CPU and checks them in float64.

`fattn-opt --fattn-sm90-grad-pipeline="keep-target-ops=true"` builds the three
kernels of one fattn.attention_grad configuration: the sm_80 preprocess and
postprocess kernels, and a main kernel of upstream ops and fattn.sm90 target
ops (wgmma with both operands in shared memory, wgmma with A in registers,
matrix descriptors, A fragments packed in pairs). This script executes that IR
as sm80_grad_emulator.py does (every CTA of the grids of the kernel
descriptions, each kernel's threads, from its known_block_size, in lockstep),
with what the sm_90a kernel adds:

- shared memory is one byte-addressed buffer (in 16-bit slots) that starts at
  an address that is not 1024-byte aligned, so the kernel's own alignment is
  exercised; its views (memref.view) alias it;
- a matrix descriptor is decoded as the PTX ISA defines it (start address,
  leading and stride byte offsets in 16-byte units, the 128-byte swizzle:
  address bits 4-6 XOR bits 7-9), and each wgmma operand is read through the
  canonical layouts: K-major (rows of 128 bytes, 8-row groups SBO apart, the k
  step's 32 bytes in a row) and, for a transposed B, N-major (k rows of 128
  bytes holding 64 columns, 8-row groups SBO apart, 64-column atoms LBO apart);
- wgmma m64nNk16 as a warpgroup product, executed once per warpgroup (threads
  [128 j, 128 j + 128) form warpgroup j; a CTA of 256 threads runs two
  products), in the PTX fragment layouts of the warpgroup-local thread index
  tid % 128: the f32 accumulator (thread 32w + 4g + t holds rows 16w + g and
  16w + g + 8 at columns 8i + 2t + {0, 1}: registers 4i + {0, 1} and
  4i + {2, 3}) and the A fragment in registers (four pairs: rows g, g + 8 at
  k 2t + {0, 1}, then the same rows at k 2t + 8 + {0, 1}). A wgmma's
  descriptors must be uniform within each warpgroup and may differ between
  warpgroups (fattn.sm90.wgmma_descriptor is computed per thread, each base
  checked for 1024-byte alignment); a wgmma in a branch that a part of a
  warpgroup did not take is an error, and a warpgroup that skips it gets NaN;
- the wgmma groups complete at once (fence, commit and wait are no-ops), as do
  the empty asm statements that fence the accumulators;
- a bulk reduction (fattn.sm90.bulk_reduce_add) into dq_accum reads shared
  memory at its issuer's next fattn.sm90.bulk_wait_group_read, the latest
  moment the PTX allows: a staged row rewritten before that wait shows in dQ.
  Global buffers have addresses of their own, checked for 16-byte alignment
  and bounds.

The gradients are compared with float64 as in sm80_grad_emulator.py. This
checks the kernel's index math, swizzle, descriptors, fragment layouts, masks
and loop structure without a GPU (not the conversions below L3, nor the
ordering that the fences and waits provide on the hardware). Needs numpy.

`--self-test` checks the per-warpgroup execution without a two-warpgroup
kernel from the pipeline: a hand-written 256-thread kernel whose warpgroups
run wgmma and wgmma_rs on operands of their own must give each warpgroup what
a 128-thread CTA gives on the same operands, shuffles must stay in their
warps, and the refusals above must fire.
"""

import os
import re
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sm80_grad_emulator as sm80  # noqa: E402

# A wgmma's threads: warpgroup g is the CTA's threads [128 g, 128 g + 128).
WARPGROUP = 128
# The dynamic shared memory's address: 16-byte aligned, not 1024-byte aligned.
SHARED_BASE = 0x430
SHARED_BYTES = 232448
# The addresses of global buffers (dq_accum's, the bulk reductions' target):
# buffer i at GLOBAL_BASE + i * GLOBAL_SPAN.
GLOBAL_BASE, GLOBAL_SPAN = 1 << 40, 1 << 36


def swizzle128(address):
    """The 128-byte swizzle of a shared memory byte address."""
    return address ^ (((address >> 7) & 7) << 4)


def decode(descriptor):
    """(start, leading, stride) byte offsets of a wgmma matrix descriptor with the
    128-byte swizzle."""
    d = int(descriptor)
    if (d >> 62) & 3 != 1:
        raise AssertionError(f"descriptor {d:#x} is not 128-byte swizzled")
    field = lambda shift: ((d >> shift) & 0x3FFF) << 4
    return field(0), field(16), field(32)


# The accumulator's rows and columns of each thread's registers (m64nN), by
# the thread's index in its warpgroup (tid % 128): warp _W, lane _L.
_W, _L = np.arange(WARPGROUP) // sm80.WARP, np.arange(WARPGROUP) % sm80.WARP
_G, _T = _L // 4, _L % 4


def accumulator_positions(registers):
    j = np.arange(registers)[None, :]
    rows = 16 * _W[:, None] + _G[:, None] + 8 * ((j % 4) // 2)
    cols = 8 * (j // 4) + 2 * _T[:, None] + (j % 2)
    return rows, cols


class SM90CTA(sm80.CTA):
    def start(self, func, block_id):
        super().start(func, block_id)
        self.smem = np.full(SHARED_BYTES // 2, np.nan, np.float32)
        self.globals = []
        # Each thread's bulk reductions not yet waited for: they read shared
        # memory at the wait (the latest the PTX allows), so that a staged
        # row rewritten before its reduction's wait shows in the result.
        self.pending = [[] for _ in range(self.threads)]

    def warpgroups(self, what):
        """The slices of threads of the warpgroups that run a warpgroup-wide
        instruction (.sync.aligned: all 128 threads of a warpgroup, or none)."""
        if self.threads % WARPGROUP:
            raise AssertionError(f"{what} in a CTA of {self.threads} threads (not warpgroups)")
        active = self.mask.reshape(-1, WARPGROUP)
        if (active.any(axis=1) & ~active.all(axis=1)).any():
            raise AssertionError(f"{what} in a branch taken by a part of a warpgroup")
        return [slice(WARPGROUP * g, WARPGROUP * (g + 1))
                for g in np.nonzero(active.any(axis=1))[0]]

    @staticmethod
    def warpgroup_uniform(value, threads, what):
        value = np.asarray(value)[threads]
        if not (value == value[0]).all():
            raise AssertionError(f"{what} that is not uniform across its warpgroup")
        return value[0].item()

    def address_of(self, memory):
        """The address of a memref's data: shared memory's base (the dynamic
        shared memory, or a view of it) or a global buffer's."""
        if not isinstance(memory, sm80.Memory) or np.shares_memory(memory.data, self.smem):
            return SHARED_BASE
        for i, known in enumerate(self.globals):
            if known.data is memory.data:
                return GLOBAL_BASE + i * GLOBAL_SPAN
        self.globals.append(memory)
        return GLOBAL_BASE + (len(self.globals) - 1) * GLOBAL_SPAN

    def bulk_reduce(self, destination, source, size):
        """cp.reduce.async.bulk .add.f32: `size` bytes of shared memory at
        `source` added into the global buffer at `destination`."""
        if destination % 16 or source % 16 or size <= 0 or size % 16:
            raise AssertionError("a bulk reduction not 16-byte aligned")
        index, offset = divmod(destination - GLOBAL_BASE, GLOBAL_SPAN)
        target = self.globals[index]
        if target.element != "f32":
            raise AssertionError("a bulk reduction into a buffer not of f32")
        first, count = offset // 4, size // 4
        if first + count > target.data.size:
            raise AssertionError("a bulk reduction past its buffer")
        slot = (source - SHARED_BASE) // 2
        if slot < 0 or slot + 2 * count > self.smem.size:
            raise AssertionError("a bulk reduction from outside the shared memory")
        target.data[first:first + count] += self.smem[slot:slot + 2 * count:2]

    def slots(self, address):
        """Indices of the 16-bit slots at byte addresses `address` (swizzled)."""
        offset = swizzle128(np.asarray(address)) - SHARED_BASE
        if (offset < 0).any() or (offset >= SHARED_BYTES).any() or (offset % 2).any():
            raise AssertionError("a wgmma operand outside the shared memory")
        return offset // 2

    def k_major(self, descriptor, rows):
        """rows x 16 of a K-major operand (A, or B^T)."""
        start, _, stride = decode(descriptor)
        if start % 128 + 32 > 128:
            raise AssertionError("a k step that crosses a 128-byte row")
        r, c = np.arange(rows)[:, None], np.arange(16)[None, :]
        return self.smem[self.slots(start + (r % 8) * 128 + (r // 8) * stride + 2 * c)]

    def n_major(self, descriptor, columns):
        """16 x columns of an N-major B (transposed)."""
        start, leading, stride = decode(descriptor)
        k, n = np.arange(16)[:, None], np.arange(columns)[None, :]
        return self.smem[self.slots(start + (n % 64) * 2 + (n // 64) * leading +
                                    (k % 8) * 128 + (k // 8) * stride)]

    @staticmethod
    def registers_to_a(a):
        """The 64 x 16 A matrix of one warpgroup's four packed pairs (128
        threads each)."""
        A = np.full((64, 16), np.nan)
        for reg, (dr, dc) in enumerate([(0, 0), (8, 0), (0, 8), (8, 8)]):
            rows, cols = 16 * _W + _G + dr, 2 * _T + dc
            A[rows, cols], A[rows, cols + 1] = a[reg][:, 0], a[reg][:, 1]
        return A

    @staticmethod
    def product(A, B, acc, accumulate):
        """One warpgroup's D = A B (+ C) in its 128 threads' accumulator
        registers `acc`."""
        rows, cols = accumulator_positions(acc.shape[1])
        D = A @ B
        if accumulate:
            C = np.zeros(D.shape)
            C[rows, cols] = acc
            D = D + C
        return D[rows, cols].astype(np.float32)

    def step(self, op):
        n, env = op.name, self.env
        o = [env.get(x) for x in op.operands]

        def give(*values):
            for name, value in zip(op.results, values):
                env[name] = value

        registers = lambda: len(re.findall(r"\bf32\b", sm80.result_type(op)))
        if n == "memref.extract_aligned_pointer_as_index":
            give(np.full(self.threads, self.address_of(o[0]), np.int64))
        elif n == "llvm.inttoptr":
            give(o[0])
        elif n == "fattn.sm90.bulk_reduce_add":
            size = self.uniform(o[2])
            for t in np.nonzero(self.mask)[0]:
                self.pending[t].append((int(o[0][t]), int(o[1][t]), size))
        elif n in ("fattn.sm90.bulk_wait_group_read", "nvvm.cp.async.bulk.wait_group"):
            # Reads done or the writes too: the reductions are applied at once.
            if sm80.int_attr(op, "pending" if n.startswith("fattn") else "group") != 0:
                raise NotImplementedError(op.line)
            for t in np.nonzero(self.mask)[0]:
                for reduction in self.pending[t]:
                    self.bulk_reduce(*reduction)
                self.pending[t] = []
        elif n == "memref.view":
            m = re.match(r"memref<([\dx]+)x(\w+),", sm80.result_type(op))
            shape = tuple(int(x) for x in m.group(1).split("x"))
            shift = self.uniform(o[1])
            if shift % 2:
                raise AssertionError("a view at an odd byte")
            size = int(np.prod(shape))
            if m.group(2) == "f32":  # one 4-byte element per two slots
                data = self.smem[shift // 2:shift // 2 + 2 * size:2].reshape(shape)
            else:
                data = self.smem[shift // 2:shift // 2 + size].reshape(shape)
            give(sm80.Memory(data, m.group(2)))
        elif n == "llvm.mlir.zero":
            give(np.zeros((self.threads, registers()), np.float32))
        elif n == "llvm.extractvalue":
            give(o[0][:, sm80.array_attr(op, "position")[0]])
        elif n == "llvm.inline_asm":
            if 'asm_string = ""' not in op.attrs:
                raise NotImplementedError(op.line)
            give(np.stack(o, axis=1))
        elif n == "fattn.sm90.wgmma_descriptor":
            # Per thread: the warpgroups of a CTA may address different
            # operands (the wgmma checks uniformity within each warpgroup).
            base, offset = np.asarray(o[0], np.int64), np.asarray(o[1], np.int64)
            if (base % 1024).any():
                raise AssertionError("a descriptor's base is not 1024-byte aligned")
            address = base + offset
            leading = sm80.int_attr(op, "leading_bytes")
            bits = (1 << 62) | ((1024 >> 4) << 32) | (((leading >> 4) & 0x3FFF) << 16)
            give(np.broadcast_to(((address >> 4) & 0x3FFF) | bits, (self.threads,)).copy())
        elif n in ("fattn.sm90.fence_proxy_async", "nvvm.fence.proxy", "fattn.sm90.wgmma_fence",
                   "fattn.sm90.wgmma_commit_group", "fattn.sm90.wgmma_wait_group",
                   "fattn.sm90.bulk_commit_group"):
            pass
        elif n == "fattn.sm90.pack_pair":
            element = re.search(r"element_type = (\w+)", op.attrs).group(1)
            give(np.stack([sm80.round_to(o[0], element), sm80.round_to(o[1], element)], axis=1))
        elif n == "vector.bitcast":
            # Two 16-bit values as one 32-bit register: kept as the pair.
            give(o[0][:, None, :])
        elif n == "fattn.sm90.wgmma":
            acc = o[2]
            columns = 2 * acc.shape[1]
            d = np.full(acc.shape, np.nan, np.float32)  # warpgroups that did not run it
            for wg in self.warpgroups("a wgmma"):
                A = self.k_major(self.warpgroup_uniform(o[0], wg, "a wgmma descriptor"), 64)
                B = self.k_major(self.warpgroup_uniform(o[1], wg, "a wgmma descriptor"),
                                 columns).T
                d[wg] = self.product(A, B, acc[wg], "accumulate" in op.attrs)
            give(d)
        elif n == "fattn.sm90.wgmma_rs":
            segments = [int(x) for x in re.search(
                r"operandSegmentSizes = array<i32: ([\d, ]+)>", op.attrs).group(1).split(",")]
            a = o[:segments[0]]
            acc = np.stack(o[segments[0] + 1:], axis=1)
            columns = 2 * acc.shape[1]
            d = np.full(acc.shape, np.nan, np.float32)  # warpgroups that did not run it
            for wg in self.warpgroups("a wgmma"):
                descriptor = self.warpgroup_uniform(o[segments[0]], wg, "a wgmma descriptor")
                B = (self.n_major(descriptor, columns)
                     if re.search(r"\btranspose_b\b", op.attrs)
                     else self.k_major(descriptor, columns).T)
                d[wg] = self.product(self.registers_to_a([x[wg] for x in a]), B, acc[wg],
                                     re.search(r"\baccumulate\b", op.attrs) is not None)
            give(d)
        else:
            return super().step(op)
        return None


# ---------------------------------------------------------------------------
# Self-test: a CTA of two warpgroups
# ---------------------------------------------------------------------------

def warpgroup_kernel(threads, first_warpgroup=0, owner_threads=WARPGROUP):
    """The generic form of a kernel whose threads form groups of
    `owner_threads` (warpgroup tid // owner_threads + first_warpgroup), each
    with its own 16 KiB of shared memory at 2048 + 16384 g: a 64 x 16 A
    (K-major, at 0), a 16 x 16 B^T (K-major, at 8192) and a 16 x 16 B
    (N-major, at 12288). %acc = A B + A B (two wgmmas), %out = the A fragment
    of %acc's first 8 registers (packed pairs) times the N-major B plus %acc
    (wgmma_rs); %lanes = (tid ^ 1) shuffled within each warp."""
    struct = "!llvm.struct<(" + ", ".join(["f32"] * 8) + ")>"
    desc = ('"fattn.sm90.wgmma_descriptor"({}, {}) <{{leading_bytes = 16 : i64}}> : '
            "(i32, i32) -> i64")
    const = '"arith.constant"() <{{value = {} : {}}}> : () -> {}'
    body = [
        '%tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index',
        "%owners = " + const.format(owner_threads, "index", "index"),
        '%local = "arith.divui"(%tid, %owners) : (index, index) -> index',
        "%first = " + const.format(first_warpgroup, "index", "index"),
        '%wg = "arith.addi"(%local, %first) : (index, index) -> index',
        "%span = " + const.format(16384, "index", "index"),
        '%offset = "arith.muli"(%wg, %span) : (index, index) -> index',
        '%a_at = "arith.index_castui"(%offset) : (index) -> i32',
        "%base = " + const.format(2048, "i32", "i32"),
        "%b_shift = " + const.format(8192, "i32", "i32"),
        '%b_at = "arith.addi"(%a_at, %b_shift) : (i32, i32) -> i32',
        "%v_shift = " + const.format(12288, "i32", "i32"),
        '%v_at = "arith.addi"(%a_at, %v_shift) : (i32, i32) -> i32',
        "%da = " + desc.format("%base", "%a_at"),
        "%db = " + desc.format("%base", "%b_at"),
        "%dv = " + desc.format("%base", "%v_at"),
        f'%zero = "llvm.mlir.zero"() : () -> {struct}',
        f'%s = "fattn.sm90.wgmma"(%da, %db, %zero) <{{element_type = bf16}}> : '
        f"(i64, i64, {struct}) -> {struct}",
        f'%acc = "fattn.sm90.wgmma"(%da, %db, %s) <{{accumulate, element_type = bf16}}> : '
        f"(i64, i64, {struct}) -> {struct}",
    ]
    body += [f'%r{i} = "llvm.extractvalue"(%acc) <{{position = array<i64: {i}>}}> : '
             f"({struct}) -> f32" for i in range(8)]
    body += [f'%p{i} = "fattn.sm90.pack_pair"(%r{2 * i}, %r{2 * i + 1}) '
             f"<{{element_type = bf16}}> : (f32, f32) -> i32" for i in range(4)]
    body += [
        '%out = "fattn.sm90.wgmma_rs"(%p0, %p1, %p2, %p3, %dv, '
        + ", ".join(f"%r{i}" for i in range(8)) + ") <{accumulate, element_type = bf16, "
        "operandSegmentSizes = array<i32: 4, 1, 8>, transpose_b}> : (i32, i32, i32, i32, i64, "
        + ", ".join(["f32"] * 8) + f") -> {struct}",
        '%tid32 = "arith.index_castui"(%tid) : (index) -> i32',
        "%one = " + const.format(1, "i32", "i32"),
        "%width = " + const.format(32, "i32", "i32"),
        '%lanes:2 = "gpu.shuffle"(%tid32, %one, %width) <{mode = #gpu<shuffle_mode xor>}> : '
        "(i32, i32, i32) -> (i32, i1)",
        '"gpu.return"() : () -> ()',
    ]
    return "\n".join(
        [f'"gpu.func"() <{{function_type = () -> (), known_block_size = array<i32: {threads}, '
         "1, 1>}> ({"] + body +
        [f'}}) {{fattn.grad_kernel = {{threads = {threads} : i64}}, gpu.kernel, '
         'sym_name = "self_test"} : () -> ()'])


def self_test():
    """Checks the per-warpgroup execution on a 256-thread CTA: each warpgroup's
    wgmma results equal those of a 128-thread CTA given that warpgroup's
    operands; shuffles stay within each warp; a descriptor that differs
    within a warpgroup and a wgmma that a part of a warpgroup skips are
    refused. Prints `SELF-TEST PASS` or raises."""
    smem = sm80.round_to(np.random.default_rng(0).standard_normal(SHARED_BYTES // 2), "bf16")

    def execute(text, active=None):
        func = sm80.parse(text.splitlines()).ops[0]
        cta = SM90CTA({})
        cta.start(func, (0, 0, 0))
        cta.smem[:] = smem
        if active is not None:
            cta.mask = active
        cta.execute(func.regions[0], [])
        return cta.env

    both = execute(warpgroup_kernel(2 * WARPGROUP))
    for g in range(2):
        alone = execute(warpgroup_kernel(WARPGROUP, first_warpgroup=g))
        for name in ("%acc", "%out"):
            if not np.array_equal(both[name][WARPGROUP * g:WARPGROUP * (g + 1)], alone[name]):
                raise AssertionError(f"warpgroup {g}'s {name} differs from a CTA of one")
            if not np.isfinite(alone[name]).all():
                raise AssertionError(f"{name} is not finite")
    if np.array_equal(both["%acc"][:WARPGROUP], both["%acc"][WARPGROUP:]):
        raise AssertionError("the warpgroups' operands are not distinct")
    if not np.array_equal(both["%lanes#0"], np.arange(2 * WARPGROUP) ^ 1):
        raise AssertionError("a shuffle crossed a warp")
    refusals = (("not uniform across its warpgroup",
                 lambda: execute(warpgroup_kernel(2 * WARPGROUP, owner_threads=64))),
                ("a part of a warpgroup",
                 lambda: execute(warpgroup_kernel(2 * WARPGROUP),
                                 np.arange(2 * WARPGROUP) >= WARPGROUP + 64)))
    for message, attempt in refusals:
        try:
            attempt()
        except AssertionError as error:
            if message not in str(error):
                raise
        else:
            raise AssertionError(f"not refused: {message}")
    print("SELF-TEST PASS")
    return 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--self-test"]:
        sys.exit(self_test())
    sys.exit(sm80.main(SM90CTA, "fattn-sm90-grad-pipeline", __doc__, head_dim=64))
