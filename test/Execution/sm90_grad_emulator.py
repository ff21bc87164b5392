#!/usr/bin/env python3
"""Runs the sm_90a backward kernels at L3 on the CPU and checks them in float64.

`fattn-opt --fattn-sm90-grad-pipeline="keep-target-ops=true"` builds the three
kernels of one fattn.attention_grad configuration: the sm_80 preprocess and
postprocess kernels, and a main kernel of upstream ops and fattn.sm90 target
ops (wgmma with both operands in shared memory, wgmma with A in registers,
matrix descriptors, A fragments packed in pairs). This script executes that IR
as sm80_grad_emulator.py does (128 threads in lockstep, every CTA of the three
grids), with what the sm_90a kernel adds:

- shared memory is one byte-addressed buffer (in 16-bit slots) that starts at
  an address that is not 1024-byte aligned, so the kernel's own alignment is
  exercised; its views (memref.view) alias it;
- a matrix descriptor is decoded as the PTX ISA defines it (start address,
  leading and stride byte offsets in 16-byte units, the 128-byte swizzle:
  address bits 4-6 XOR bits 7-9), and each wgmma operand is read through the
  canonical layouts: K-major (rows of 128 bytes, 8-row groups SBO apart, the k
  step's 32 bytes in a row) and, for a transposed B, N-major (k rows of 128
  bytes holding 64 columns, 8-row groups SBO apart, 64-column atoms LBO apart);
- wgmma m64nNk16 as a warpgroup product in the PTX fragment layouts: the f32
  accumulator (thread 32w + 4g + t holds rows 16w + g and 16w + g + 8 at
  columns 8i + 2t + {0, 1}: registers 4i + {0, 1} and 4i + {2, 3}) and the A
  fragment in registers (four pairs: rows g, g + 8 at k 2t + {0, 1}, then the
  same rows at k 2t + 8 + {0, 1});
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
"""

import os
import re
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sm80_grad_emulator as sm80  # noqa: E402

THREADS = sm80.THREADS
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


# The accumulator's rows and columns of each thread's registers (m64nN).
_W, _L = np.arange(THREADS) // 32, np.arange(THREADS) % 32
_G, _T = _L // 4, _L % 4


def accumulator_positions(registers):
    j = np.arange(registers)[None, :]
    rows = 16 * _W[:, None] + _G[:, None] + 8 * ((j % 4) // 2)
    cols = 8 * (j // 4) + 2 * _T[:, None] + (j % 2)
    return rows, cols


class SM90CTA(sm80.CTA):
    def run(self, func, args, block_id):
        self.smem = np.full(SHARED_BYTES // 2, np.nan, np.float32)
        self.globals = []
        # Each thread's bulk reductions not yet waited for: they read shared
        # memory at the wait (the latest the PTX allows), so that a staged
        # row rewritten before its reduction's wait shows in the result.
        self.pending = [[] for _ in range(THREADS)]
        super().run(func, args, block_id)

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
        """The 64 x 16 A matrix of the threads' four packed pairs."""
        A = np.full((64, 16), np.nan)
        for reg, (dr, dc) in enumerate([(0, 0), (8, 0), (0, 8), (8, 8)]):
            rows, cols = 16 * _W + _G + dr, 2 * _T + dc
            A[rows, cols], A[rows, cols + 1] = a[reg][:, 0], a[reg][:, 1]
        return A

    @staticmethod
    def product(A, B, acc, accumulate):
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
            give(np.full(THREADS, self.address_of(o[0]), np.int64))
        elif n == "llvm.inttoptr":
            give(o[0])
        elif n == "fattn.sm90.bulk_reduce_add":
            size = self.uniform(o[2])
            for t in np.nonzero(self.mask)[0]:
                self.pending[t].append((int(o[0][t]), int(o[1][t]), size))
        elif n == "fattn.sm90.bulk_wait_group_read":
            if sm80.int_attr(op, "pending") != 0:
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
            give(np.zeros((THREADS, registers()), np.float32))
        elif n == "llvm.extractvalue":
            give(o[0][:, sm80.array_attr(op, "position")[0]])
        elif n == "llvm.inline_asm":
            if 'asm_string = ""' not in op.attrs:
                raise NotImplementedError(op.line)
            give(np.stack(o, axis=1))
        elif n == "fattn.sm90.wgmma_descriptor":
            if self.uniform(o[0]) % 1024:
                raise AssertionError("a descriptor's base is not 1024-byte aligned")
            address = self.uniform(o[0]) + self.uniform(o[1])
            leading = sm80.int_attr(op, "leading_bytes")
            bits = (1 << 62) | ((1024 >> 4) << 32) | (((leading >> 4) & 0x3FFF) << 16)
            give(np.full(THREADS, ((address >> 4) & 0x3FFF) | bits, np.int64))
        elif n in ("fattn.sm90.fence_proxy_async", "fattn.sm90.wgmma_fence",
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
            A = self.k_major(self.uniform(o[0]), 64)
            B = self.k_major(self.uniform(o[1]), columns).T
            give(self.product(A, B, acc, "accumulate" in op.attrs))
        elif n == "fattn.sm90.wgmma_rs":
            segments = [int(x) for x in re.search(
                r"operandSegmentSizes = array<i32: ([\d, ]+)>", op.attrs).group(1).split(",")]
            a, descriptor = o[:segments[0]], self.uniform(o[segments[0]])
            acc = np.stack(o[segments[0] + 1:], axis=1)
            columns = 2 * acc.shape[1]
            B = (self.n_major(descriptor, columns) if re.search(r"\btranspose_b\b", op.attrs)
                 else self.k_major(descriptor, columns).T)
            give(self.product(self.registers_to_a(a), B, acc,
                              re.search(r"\baccumulate\b", op.attrs) is not None))
        else:
            return super().step(op)
        return None


if __name__ == "__main__":
    sys.exit(sm80.main(SM90CTA, "fattn-sm90-grad-pipeline", __doc__, head_dim=64))
