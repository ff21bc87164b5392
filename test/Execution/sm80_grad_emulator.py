#!/usr/bin/env python3
"""Runs the sm_80 backward kernels at L3 on the CPU and checks them in float64.

`fattn-opt --fattn-sm80-grad-pipeline="keep-target-ops=true"` builds the three
kernels of one fattn.attention_grad configuration from upstream ops (nvgpu,
gpu, memref, vector, scf, arith, math) and the body's fattn.q_tile_range; this
script executes that IR (printed in the generic form) for every CTA of the
three grids that the kernels' descriptions (fattn.grad_kernel) give:
ceil(seq_q / block_m) Q tiles for preprocess and postprocess, ceil(seq_k /
block_n) KV tiles for the main kernel. Each kernel runs its CTA's threads (its
gpu.func's known_block_size, which must match the description's threads) in
lockstep on numpy arrays: nvgpu.ldmatrix and nvgpu.mma.sync per warp of 32
with the PTX fragment layouts (m8n8 b16 matrices, m16n8k16 A, B and C
fragments), cp.async copies with their zero fill, shuffles within each warp (a
shuffle in a branch that a part of a warp did not take is an error), barriers
(lockstep makes every barrier hold), masked scf.if regions, f32 atomics,
16-bit rounding where the IR rounds, and the deterministic kernels' dQ
counters (a CTA that would wait for a counter that no earlier CTA of the
launch order advances is an error; each Q tile's counter must end at the
number of KV tiles that see it; --reverse-main-grid runs the KV tiles last to
first, where such a wait must be reported). Loop bounds, the conditions of scf.if
with results, the offsets of shared memory views and fattn.q_tile_range's
operands must be uniform across the whole CTA. dQ, dK and dV (poisoned with
NaN, as are the workspaces) are compared with the analytic float64 gradients
of the same rounded inputs:

  P = exp(S - LSE), D = rowsum(dO * O), dV = P^T dO, dP = dO V^T,
  dS = P (dP - D) (1 - tanh^2 with a softcap), dK = scale dS^T Q, dQ = scale dS K.

This checks the kernels' index math, fragment layouts, masks and loop
structure without a GPU (not the upstream conversions below L3, nor timing).
Prints `PASS dq_rel_l2=... dk_rel_l2=... dv_rel_l2=...` or `FAIL ...` (and
exits 1). Needs numpy.
"""

import argparse
import math
import re
import subprocess
import sys

import numpy as np

WARP = 32
# Relative L2 error bounds against float64 (the kernels round P and dS to the
# element type, as FlashAttention-2 does).
TOLERANCE = {"bf16": 1e-2, "f16": 2e-3}


# ---------------------------------------------------------------------------
# The generic form, parsed into ops with regions
# ---------------------------------------------------------------------------

class Op:
    __slots__ = ("results", "name", "operands", "attrs", "regions", "line")


class Block:
    def __init__(self, args):
        self.args, self.ops = args, []


OP_RE = re.compile(r'^\s*(?:(%[\w]+)(?::(\d+))?\s*=\s*)?"([\w.]+)"\((.*?)\)(.*)$')


def parse(lines):
    pos = 0

    def parse_ops(block, at_end):
        nonlocal pos
        while pos < len(lines):
            line = lines[pos]
            s = line.strip()
            if at_end(s):
                return s
            if s.startswith("^bb") or not s:
                pos += 1
                continue
            m = OP_RE.match(line)
            if not m:
                raise ValueError(f"cannot parse: {line}")
            op = Op()
            res, count, op.name, operands, rest = m.groups()
            op.line = line
            if res is None:
                op.results = []
            elif count is None:
                op.results = [res]
            else:
                op.results = [f"{res}#{i}" for i in range(int(count))]
            op.operands = [x.strip() for x in operands.split(",") if x.strip()]
            op.regions = []
            pos += 1
            if rest.rstrip().endswith("({"):
                while True:
                    header = lines[pos].strip()
                    args = []
                    if header.startswith("^bb"):
                        args = re.findall(r"(%[\w]+):", header)
                        pos += 1
                    region = Block(args)
                    end = parse_ops(region, lambda s: s.startswith("}"))
                    op.regions.append(region)
                    pos += 1
                    if end.startswith("}, {"):
                        continue
                    rest = end[1:]
                    break
            op.attrs = rest
            block.ops.append(op)
        return ""

    top = Block([])
    parse_ops(top, lambda s: False)
    return top


def int_attr(op, key):
    return int(re.search(key + r" = (-?\d+)", op.attrs).group(1))


def array_attr(op, key):
    m = re.search(key + r" = array<i64(?:: ([\d, -]*))?>", op.attrs)
    return [int(x) for x in m.group(1).split(",")] if m and m.group(1) else []


def block_size(func):
    """The threads of a gpu.func's CTA: its known_block_size (x; y and z are 1)."""
    m = re.search(r"known_block_size = array<i32: (\d+), (\d+), (\d+)>", func.line)
    if not m:
        raise NotImplementedError(f"a kernel without known_block_size: {func.line}")
    x, y, z = (int(v) for v in m.groups())
    if (y, z) != (1, 1) or x <= 0 or x % WARP:
        raise NotImplementedError(f"a CTA of {x} x {y} x {z} threads")
    return x


def kernel_info(func):
    """The integers of a kernel's description (fattn.grad_kernel: block_m,
    block_n, threads, ...), and deterministic (1) where it is set."""
    m = re.search(r"fattn\.grad_kernel = \{([^}]*)\}", func.attrs)
    if not m:
        raise NotImplementedError("a kernel without its fattn.grad_kernel description")
    info = {key: int(value) for key, value in re.findall(r"(\w+) = (-?\d+) : i64", m.group(1))}
    if re.search(r"\bdeterministic\b", m.group(1)):
        info["deterministic"] = 1
    return info


def result_type(op):
    return op.attrs.rsplit("->", 1)[1].strip()


def vector_shape(type_text):
    m = re.match(r"vector<([\dx]+)x(\w+)>", type_text)
    return tuple(int(x) for x in m.group(1).split("x")), m.group(2)


def round_to(x, element):
    """f32 values rounded to `element` (round to nearest even), kept in f32."""
    x = np.asarray(x, dtype=np.float32)
    if element == "bf16":
        bits = x.view(np.uint32).astype(np.uint64)
        bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
        return np.where(np.isnan(x), x, bits.astype(np.uint32).view(np.float32))
    if element == "f16":
        return x.astype(np.float16).astype(np.float32)
    return x


class Memory:
    """A memref: a numpy array (flat global, or a shared memory view)."""

    def __init__(self, data, element):
        self.data, self.element = data, element


# ---------------------------------------------------------------------------
# Lockstep execution of one CTA
# ---------------------------------------------------------------------------

CMPI = {0: np.equal, 1: np.not_equal, 2: np.less, 3: np.less_equal, 4: np.greater,
        5: np.greater_equal, 6: np.less, 7: np.less_equal, 8: np.greater, 9: np.greater_equal}


class CTA:
    def __init__(self, buffers):
        self.buffers = buffers  # pointer argument -> (flat array, element type)

    def run(self, func, args, block_id):
        """One CTA of `func` at `block_id`; `args` holds pointer arguments (buffer
        names) and integers, which every thread receives."""
        self.start(func, block_id)
        args = [np.full(self.threads, x, np.int64) if isinstance(x, (int, np.integer)) else x
                for x in args]
        self.execute(func.regions[0], args)

    def start(self, func, block_id):
        """The state of a fresh CTA of `func`, every thread active."""
        self.threads = block_size(func)
        if kernel_info(func)["threads"] != self.threads:
            raise AssertionError("the description's threads differ from known_block_size")
        self.env, self.block_id, self.shared = {}, block_id, {}
        self.mask = np.ones(self.threads, bool)

    def execute(self, block, args):
        for name, value in zip(block.args, args):
            self.env[name] = value
        for op in block.ops:
            result = self.step(op)
            if op.name in ("scf.yield", "scf.condition", "gpu.return"):
                return result
        return None

    @staticmethod
    def uniform(value):
        value = np.asarray(value)
        if not (value == value.flat[0]).all():
            raise AssertionError("a value that should be uniform across the CTA is not")
        return value.flat[0].item()

    def step(self, op):
        n, o, env, mask = op.name, [self.env.get(x) for x in op.operands], self.env, self.mask
        threads = self.threads

        def give(*values):
            for name, value in zip(op.results, values):
                env[name] = value

        full = lambda value, dtype: np.full(threads, value, dtype)
        if n == "llvm.mlir.poison":
            give({})
        elif n == "llvm.mlir.constant":
            give(np.int64(int_attr(op, "value")))
        elif n == "llvm.insertvalue":
            d = dict(o[0])
            d[tuple(array_attr(op, "position"))] = o[1]
            give(d)
        elif n == "builtin.unrealized_conversion_cast":
            data, _ = self.buffers[o[0][(0,)]]
            give(Memory(data, re.search(r"memref<\?x(\w+),", op.attrs).group(1)))
        elif n == "arith.constant":
            m = re.search(r"value = (dense<([^>]*)>|[^:}]+?)(?: :|}>)", op.attrs)
            text, t = m.group(1).strip(), result_type(op)
            if text.startswith("dense<"):
                shape, _ = vector_shape(t)
                give(np.full((threads,) + shape, float(m.group(2)), np.float32))
            elif t == "i1":
                give(full(text == "true", bool))
            elif t in ("index", "i32", "i64"):
                give(full(int(text), np.int64))
            else:
                value = np.uint32(int(text, 16)).view(np.float32) if text.startswith("0x") \
                    else np.float32(float(text))
                give(full(value, np.float32))
        elif n in ("arith.index_cast", "arith.index_castui"):
            give(np.asarray(o[0]).astype(np.int64))
        elif n in ("arith.addi", "arith.subi", "arith.muli", "arith.divui", "arith.remui",
                   "arith.andi", "arith.ori", "arith.xori", "arith.maxsi", "arith.minsi",
                   "arith.floordivsi"):
            f = {"addi": np.add, "subi": np.subtract, "muli": np.multiply,
                 "divui": np.floor_divide, "remui": np.remainder, "andi": np.bitwise_and,
                 "ori": np.bitwise_or, "xori": np.bitwise_xor, "maxsi": np.maximum,
                 "minsi": np.minimum, "floordivsi": np.floor_divide}[n.split(".")[1]]
            give(f(o[0], o[1]))
        elif n == "arith.ceildivsi":
            give(-((-o[0]) // o[1]))
        elif n == "arith.cmpi":
            give(CMPI[int_attr(op, "predicate")](o[0], o[1]))
        elif n == "arith.cmpf":
            if int_attr(op, "predicate") != 1:  # oeq, the only one the kernels use
                raise NotImplementedError(op.line)
            give(o[0] == o[1])
        elif n == "arith.select":
            c = o[0]
            if np.asarray(o[1]).ndim > 1:
                c = c.reshape((threads,) + (1,) * (np.asarray(o[1]).ndim - 1))
            give(np.where(c, o[1], o[2]))
        elif n in ("arith.addf", "arith.subf", "arith.mulf"):
            f = {"addf": np.add, "subf": np.subtract, "mulf": np.multiply}[n.split(".")[1]]
            give(f(o[0], o[1]).astype(np.float32))
        elif n == "math.fma":
            give((o[0] * o[1] + o[2]).astype(np.float32))
        elif n == "math.tanh":
            give(np.tanh(o[0]).astype(np.float32))
        elif n == "math.exp2":
            with np.errstate(over="ignore"):
                give(np.exp2(o[0]).astype(np.float32))
        elif n == "arith.extf":
            give(np.asarray(o[0], np.float32))
        elif n == "arith.truncf":
            t = result_type(op)
            give(round_to(o[0], vector_shape(t)[1] if t.startswith("vector") else t))
        elif n == "vector.extract":
            give(o[0][(slice(None),) + tuple(array_attr(op, "static_position"))])
        elif n == "vector.from_elements":
            shape, _ = vector_shape(result_type(op))
            give(np.stack(o, axis=1).reshape((threads,) + shape).astype(np.float32))
        elif n == "vector.broadcast":
            shape, _ = vector_shape(result_type(op))
            give(np.broadcast_to(o[0][:, None, :], (threads,) + shape).copy())
        elif n == "vector.shuffle":
            give(np.concatenate([o[0], o[1]], axis=1)[:, array_attr(op, "mask")])
        elif n == "vector.reduction":
            give(o[0].sum(axis=1).astype(np.float32))
        elif n == "gpu.thread_id":
            if re.search(r"dim (\w)", op.attrs).group(1) == "x":
                give(np.arange(threads, dtype=np.int64))
            else:  # a CTA of threads x 1 x 1
                give(full(0, np.int64))
        elif n == "gpu.block_id":
            axis = "xyz".index(re.search(r"dim (\w)", op.attrs).group(1))
            give(full(self.block_id[axis], np.int64))
        elif n == "gpu.shuffle":
            # shfl.sync names every lane of the warp: a warp that runs it in
            # part (a branch some of its lanes did not take) hangs on a GPU.
            lanes = mask.reshape(-1, WARP)
            if (lanes.any(axis=1) & ~lanes.all(axis=1)).any():
                raise AssertionError("a shuffle in a branch taken by a part of a warp")
            mode = re.search(r"shuffle_mode (\w+)", op.attrs).group(1)
            lane = np.arange(threads) % WARP
            source = np.arange(threads) - lane + (lane ^ o[1] if mode == "xor" else o[1] % WARP)
            give(o[0][source], full(True, bool))
        elif n in ("gpu.barrier", "nvgpu.device_async_wait"):
            pass
        elif n == "gpu.dynamic_shared_memory":
            give("shared")
        elif n == "memref.view":
            m = re.match(r"memref<([\dx]+)x(\w+),", result_type(op))
            shape = tuple(int(x) for x in m.group(1).split("x"))
            key = (self.uniform(o[1]), shape)
            if key not in self.shared:  # the views do not overlap
                self.shared[key] = Memory(np.full(shape, np.nan, np.float32), m.group(2))
            give(self.shared[key])
        elif n == "nvgpu.device_async_copy":
            dst, row, col, src, index, count = o
            width = int_attr(op, "dstElements")
            for t in np.nonzero(mask)[0]:
                values = np.zeros(width, np.float32)
                c = int(count[t])
                values[:c] = src.data[index[t]:index[t] + c]
                dst.data[row[t], col[t]:col[t] + width] = values
            give("token")
        elif n == "nvgpu.device_async_create_group":
            give("group")
        elif n == "fattn.q_tile_range":
            give(*(full(x, np.int64) for x in self.q_tile_range(op, *(self.uniform(x) for x in o))))
        elif n == "nvgpu.ldmatrix":
            give(self.ldmatrix(o[0], o[1], o[2], int_attr(op, "numTiles"),
                               "transpose = true" in op.attrs))
        elif n == "nvgpu.mma.sync":
            give(self.mma(*o))
        elif n == "vector.load":
            memory, index = o[0], o[1:]
            width = vector_shape(result_type(op))[0][0]
            out = np.zeros((threads, width), np.float32)
            for t in np.nonzero(mask)[0]:
                out[t] = memory.data[tuple(i[t] for i in index[:-1]) +
                                     (slice(index[-1][t], index[-1][t] + width),)]
            give(out)
        elif n == "vector.store":
            value, memory, index = o[0], o[1], o[2:]
            for t in np.nonzero(mask)[0]:
                memory.data[tuple(i[t] for i in index[:-1]) +
                            (slice(index[-1][t], index[-1][t] + value.shape[1]),)] = \
                    round_to(value[t], memory.element)
        elif n == "memref.load":
            out = np.zeros(threads, np.float32)
            out[mask] = o[0].data[o[1][mask]]
            give(out)
        elif n == "memref.store":
            o[1].data[o[2][mask]] = round_to(o[0][mask], o[1].element)
        elif n == "memref.atomic_rmw":
            np.add.at(o[1].data, o[2][mask], o[0][mask])
            give(np.zeros(threads, np.float32))
        elif n == "scf.for":
            lower, upper, step = (self.uniform(x) for x in o[:3])
            carried = o[3:]
            for i in range(lower, upper, step):
                carried = self.execute(op.regions[0], [full(i, np.int64)] + list(carried))
            give(*carried)
        elif n == "scf.if":
            if op.results:  # the kernels branch with results on uniform conditions only
                give(*self.execute(op.regions[0 if self.uniform(o[0]) else 1], []))
            else:
                for region, taken in zip(op.regions, (o[0], ~o[0])):
                    self.mask = mask & taken
                    if region.ops and self.mask.any():
                        self.execute(region, [])
                self.mask = mask
        elif n == "scf.while":
            # The deterministic kernels' wait for a Q tile's dQ counter. The
            # CTAs run one after another in launch order, so every CTA that
            # could pass the turn has finished: a wait that is not over at
            # once would never end on a GPU either.
            waiting, *carried = self.execute(op.regions[0], o)
            if (np.asarray(waiting) & self.mask).any():
                raise AssertionError("a CTA waits for a counter that no earlier CTA "
                                     "will advance (a deadlock on the GPU)")
            give(*carried)
        elif n in ("scf.yield", "scf.condition"):
            return o
        elif n == "llvm.getelementptr":
            # Pointers to the counters: (buffer name, element offset per thread).
            name, offset = o[0] if isinstance(o[0], tuple) else (o[0], 0)
            give((name, offset + np.asarray(o[1], np.int64)))
        elif n == "llvm.load":
            name, offset = o[0]
            out = np.zeros(threads, np.int64)
            out[mask] = self.buffers[name][0][offset[mask]]
            give(out)
        elif n == "llvm.store":
            name, offset = o[1]
            self.buffers[name][0][offset[mask]] = np.asarray(o[0], np.int64)[mask] \
                if np.ndim(o[0]) else o[0]
        elif n == "llvm.atomicrmw":
            if "bin_op = 1 " not in op.attrs:  # add
                raise NotImplementedError(op.line)
            name, offset = o[0]
            value = np.broadcast_to(np.asarray(o[1], np.int64), (threads,))
            np.add.at(self.buffers[name][0], offset[mask], value[mask])
            give(np.zeros(threads, np.int64))
        elif n == "llvm.fence":
            pass
        elif n == "gpu.return":
            return []
        else:
            raise NotImplementedError(op.line)
        return None

    @staticmethod
    def q_tile_range(op, kv_tile, seq_q, seq_k):
        """fattn.q_tile_range by its definition: the Q tiles with a row that sees a
        key of the KV tile, and those whose every row sees every key (inside both
        sequences)."""
        block_m, block_n = int_attr(op, "block_m"), int_attr(op, "block_n")
        left, right = int_attr(op, "window_left"), int_attr(op, "window_right")

        def sees(i, j):
            diagonal = i + seq_k - seq_q
            return (i < seq_q and j < seq_k and (left < 0 or j >= diagonal - left)
                    and (right < 0 or j <= diagonal + right))

        keys = range(kv_tile * block_n, kv_tile * block_n + block_n)
        tiles = [m for m in range(-(-seq_q // block_m))
                 if any(sees(i, j) for i in range(m * block_m, m * block_m + block_m) for j in keys)]
        full = [m for m in tiles
                if all(sees(i, j) for i in range(m * block_m, m * block_m + block_m) for j in keys)]
        lo, hi = (tiles[0], tiles[-1] + 1) if tiles else (0, 0)
        full_lo, full_hi = (full[0], full[-1] + 1) if full else (lo, lo)
        return lo, full_lo, full_hi, hi

    def ldmatrix(self, memory, row, col, tiles, transpose):
        """Each lane's registers of `tiles` 8x8 b16 matrices whose rows lanes
        8j..8j+7 address (PTX ldmatrix; .trans delivers the transposes)."""
        out = np.zeros((self.threads, tiles, 2), np.float32)
        for warp in range(self.threads // WARP):
            lanes = np.arange(WARP) + WARP * warp
            for j in range(tiles):
                rows = np.stack([memory.data[row[lanes[8 * j + i]],
                                             col[lanes[8 * j + i]]:col[lanes[8 * j + i]] + 8]
                                 for i in range(8)])
                for lane in range(WARP):
                    g, t = lane // 4, lane % 4
                    out[lanes[lane], j] = (rows[2 * t:2 * t + 2, g] if transpose
                                           else rows[g, 2 * t:2 * t + 2])
        return out

    @staticmethod
    def mma(a, b, c):
        """mma.sync m16n8k16 with f32 accumulators, per warp, in the PTX fragment
        layouts (A: 4 x 2, B: 2 x 2, C and D: 2 x 2 per lane)."""
        d = np.zeros_like(c)
        for warp in range(c.shape[0] // WARP):
            A, B, C = np.zeros((16, 16)), np.zeros((16, 8)), np.zeros((16, 8))
            for lane in range(WARP):
                g, t, x = lane // 4, lane % 4, WARP * warp + lane
                A[g, 2 * t:2 * t + 2], A[g + 8, 2 * t:2 * t + 2] = a[x, 0], a[x, 1]
                A[g, 2 * t + 8:2 * t + 10], A[g + 8, 2 * t + 8:2 * t + 10] = a[x, 2], a[x, 3]
                B[2 * t:2 * t + 2, g], B[2 * t + 8:2 * t + 10, g] = b[x, 0], b[x, 1]
                C[g, 2 * t:2 * t + 2], C[g + 8, 2 * t:2 * t + 2] = c[x, 0], c[x, 1]
            D = (A @ B + C).astype(np.float32)
            for lane in range(WARP):
                g, t, x = lane // 4, lane % 4, WARP * warp + lane
                d[x, 0], d[x, 1] = D[g, 2 * t:2 * t + 2], D[g + 8, 2 * t:2 * t + 2]
        return d


# ---------------------------------------------------------------------------
# One configuration
# ---------------------------------------------------------------------------

def kernel_ir(fattn_opt, dtype, head_dim, causal, window_left, window_right, softcap,
              pipeline="fattn-sm80-grad-pipeline", options="", deterministic=False):
    t = f"memref<?x?x?x{head_dim}x{dtype}>"
    attrs = [f"softcap = {softcap} : f32"] if softcap > 0 else []
    if deterministic:
        attrs.append("deterministic")
    if causal:
        attrs.append("causal = true")
    if window_left >= 0:
        attrs.append(f"window_left = {window_left} : i64")
    if window_right >= 0 and not causal:
        attrs.append(f"window_right = {window_right} : i64")
    source = (f"func.func @grad(%q: {t}, %k: {t}, %v: {t}, %o: {t}, %do: {t}, "
              f"%lse: memref<?x?x?xf32>, %dq: {t}, %dk: {t}, %dv: {t}) {{\n"
              f"  fattn.attention_grad ins(%q, %k, %v, %o, %do, %lse : {t}, {t}, {t}, {t}, {t}, "
              f"memref<?x?x?xf32>) outs(%dq, %dk, %dv : {t}, {t}, {t})"
              f"{' {' + ', '.join(attrs) + '}' if attrs else ''}\n  return\n}}\n")
    proc = subprocess.run([fattn_opt, "-", f"--{pipeline}=keep-target-ops=true {options}".strip(),
                           "--mlir-print-op-generic"], input=source, capture_output=True,
                          text=True)
    if proc.returncode != 0:
        sys.exit(f"fattn-opt failed:\n{proc.stderr}")
    return proc.stdout


def reference(q, k, v, do, scale, softcap, visible):
    """Float64 O, LSE and the gradients, from [b, s, h, d] inputs."""
    rep = q.shape[2] // k.shape[2]
    Q = q.transpose(0, 2, 1, 3).astype(np.float64)
    K = np.repeat(k.transpose(0, 2, 1, 3), rep, 1).astype(np.float64)
    V = np.repeat(v.transpose(0, 2, 1, 3), rep, 1).astype(np.float64)
    dO = do.transpose(0, 2, 1, 3).astype(np.float64)
    S = scale * Q @ K.transpose(0, 1, 3, 2)
    derivative = 1.0
    if softcap > 0:
        tanh = np.tanh(S / softcap)
        S, derivative = softcap * tanh, 1.0 - tanh * tanh
    S = np.where(visible, S, -np.inf)
    m = S.max(-1, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    P = np.exp(S - m)
    l = P.sum(-1, keepdims=True)
    with np.errstate(divide="ignore"):
        lse = (m + np.log(l))[..., 0]
    P = P / np.where(l > 0, l, 1.0)
    O = P @ V
    dS = P * (dO @ V.transpose(0, 1, 3, 2) - (dO * O).sum(-1, keepdims=True)) * derivative
    b, hk = k.shape[0], k.shape[2]
    group = lambda x: x.reshape(b, hk, rep, *x.shape[2:]).sum(2).transpose(0, 2, 1, 3)
    grads = (scale * dS @ K).transpose(0, 2, 1, 3), group(scale * dS.transpose(0, 1, 3, 2) @ Q), \
        group(P.transpose(0, 1, 3, 2) @ dO)
    return O.transpose(0, 2, 1, 3), lse, grads


def main(cta_class=CTA, pipeline="fattn-sm80-grad-pipeline", doc=__doc__, head_dim=16):
    """Runs one configuration of the command line through `pipeline`'s kernels,
    each CTA executed by `cta_class`."""
    p = argparse.ArgumentParser(description=doc,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--fattn-opt", default="fattn-opt")
    p.add_argument("--dtype", choices=("bf16", "f16"), default="bf16")
    p.add_argument("--head-dim", type=int, default=head_dim)
    p.add_argument("--batch", type=int, default=1)
    p.add_argument("--heads-q", type=int, default=2)
    p.add_argument("--heads-kv", type=int, default=None)
    p.add_argument("--seq-q", type=int, default=70)
    p.add_argument("--seq-k", type=int, default=70)
    p.add_argument("--causal", action="store_true")
    p.add_argument("--window-left", type=int, default=-1)
    p.add_argument("--window-right", type=int, default=-1)
    p.add_argument("--softcap", type=float, default=0.0)
    p.add_argument("--deterministic", action="store_true")
    p.add_argument("--reverse-main-grid", action="store_true",
                   help="run the main kernel's KV tiles last to first (a deterministic "
                   "kernel's waits then cannot end: the deadlock check must fire)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--pipeline-options", default="",
                   help="more options of the pipeline, e.g. block-n=64")
    a = p.parse_args()
    heads_kv = a.heads_kv or a.heads_q
    right = 0 if a.causal else a.window_right

    top = parse(kernel_ir(a.fattn_opt, a.dtype, a.head_dim, a.causal, a.window_left,
                          a.window_right, a.softcap, pipeline,
                          a.pipeline_options, a.deterministic).splitlines())
    kernels = {re.search(r'sym_name = "(\w+)"', f.attrs).group(1).rsplit("_", 1)[1]: f
               for f in top.ops[0].regions[0].ops[0].regions[0].ops if f.name == "gpu.func"}

    rng = np.random.default_rng(a.seed)
    draw = lambda *shape: round_to(rng.standard_normal(shape).astype(np.float32), a.dtype)
    b, sq, sk, d = a.batch, a.seq_q, a.seq_k, a.head_dim
    q, k, v, do = draw(b, sq, a.heads_q, d), draw(b, sk, heads_kv, d), \
        draw(b, sk, heads_kv, d), draw(b, sq, a.heads_q, d)
    i, j = np.arange(sq)[:, None], np.arange(sk)[None, :]
    visible = np.ones((sq, sk), bool)
    if a.window_left >= 0:
        visible &= j >= i + sk - sq - a.window_left
    if right >= 0:
        visible &= j <= i + sk - sq + right
    scale = 1.0 / math.sqrt(d)
    out, lse, expected = reference(q, k, v, do, scale, a.softcap, visible)

    nan = lambda shape: np.full(shape, np.nan, np.float32)
    tensors = {"q": q, "k": k, "v": v, "o": round_to(out.astype(np.float32), a.dtype),
               "do": do, "lse": lse.astype(np.float32), "dq": nan(q.shape), "dk": nan(k.shape),
               "dv": nan(v.shape), "delta": nan((b, a.heads_q, sq)),
               "dq_accum": nan((b, a.heads_q, sq, d))}
    buffers = {name: (t.reshape(-1), a.dtype) for name, t in tensors.items()}
    if a.deterministic:
        # The Q tiles' dQ counters (u32), poisoned: the preprocess kernel zeroes them.
        buffers["dq_semaphore"] = (np.full(b * a.heads_q * sq, 0xDEADBEEF, np.int64), "u32")
    strides = []
    for name in ("q", "k", "v", "o", "do", "dq", "dk", "dv"):
        _, s, h, dim = tensors[name].shape
        strides += [s * h * dim, dim, h * dim]  # (b, h, s) of BSHD storage
    strides += [a.heads_q * sq, sq]
    args = list(tensors) + [b, a.heads_q, heads_kv, sq, sk] + strides
    if a.deterministic:
        args.append("dq_semaphore")
    cta = cta_class(buffers)
    # The grids of the kernel descriptions (what fattn's runtime launches):
    # Q tiles of block_m rows, KV tiles of block_n keys.
    info = {role: kernel_info(f) for role, f in kernels.items()}
    if any(("deterministic" in i) != a.deterministic for i in info.values()):
        raise AssertionError("the kernels' deterministic attribute differs from the op's")
    for role, grid in (("preprocess", (-(-sq // info["preprocess"]["block_m"]), a.heads_q, b)),
                       ("main", (-(-sk // info["main"]["block_n"]), heads_kv, b)),
                       ("postprocess", (-(-sq // info["postprocess"]["block_m"]), a.heads_q, b))):
        # The launch order (x fastest), or --reverse-main-grid's.
        xs = range(grid[0])
        if role == "main" and a.reverse_main_grid:
            xs = xs[::-1]
        for z in range(grid[2]):
            for y in range(grid[1]):
                for x in xs:
                    cta.run(kernels[role], args, (x, y, z))

    if a.deterministic:
        # Each Q tile's counter (at its first row) ends at the number of KV
        # tiles that saw it, every one of which took its turn.
        block_m, block_n = info["main"]["block_m"], info["main"]["block_n"]
        counters = buffers["dq_semaphore"][0].reshape(b, a.heads_q, sq)[:, :, ::block_m]
        for m in range(counters.shape[2]):
            rows = visible[m * block_m:(m + 1) * block_m]
            seen = sum(rows[:, n * block_n:(n + 1) * block_n].any()
                       for n in range(-(-sk // block_n)))
            if (counters[:, :, m] != seen).any():
                raise AssertionError(f"Q tile {m}'s dQ counters {counters[:, :, m].ravel()} "
                                     f"differ from its {seen} KV tiles")

    errors = {}
    for name, ref in zip(("dq", "dk", "dv"), expected):
        got = tensors[name].astype(np.float64)
        if np.isnan(got).any():
            errors[name] = math.inf
            continue
        # At least an RMS of 0.01 as the norm: gradients that vanish (one key)
        # are not divided by rounding noise.
        errors[name] = np.linalg.norm(got - ref) / max(np.linalg.norm(ref),
                                                       1e-2 * math.sqrt(ref.size))
    ok = all(e <= TOLERANCE[a.dtype] for e in errors.values())
    print(("PASS " if ok else "FAIL ") +
          " ".join(f"{name}_rel_l2={e:.3e}" for name, e in errors.items()))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
