"""The backward kernels (fattn.attention_grad) of sm_80 (fattn-sm80-grad-pipeline) or, with
FATTN_GRAD_ARCH=sm_90a, of sm_90a (fattn-sm90-grad-pipeline, the main kernel on wgmma;
sm_90 GPUs only) on the GPU.

Each configuration's three kernels (preprocess, main, postprocess; docs/KERNEL-ABI.md,
"Backward") are launched through the CUDA driver API (ctypes on libcuda: cuModuleLoadData,
cuModuleGetFunction, cuLaunchKernel) on torch tensors, and dQ, dK and dV are compared with
float64 autograd of the reference attention on fresh random inputs (the seed is printed;
FATTN_TEST_SEED=N replays it), the outputs and workspaces poisoned with NaN first: bf16 and
f16, head dims 64 and 128, causal or not, two with a softcap, GQA 4/2 and MQA, Sq != Sk,
sequence lengths 1..300 that are not multiples of the 64-row tiles, rows that see no key. The bound: relative L2 error
at most BOUND_FACTOR (grad_reference.py) times that of a 16-bit backward on the same inputs (torch SDPA's
FlashAttention backend where it takes the case, else the reference computed in the input
dtype, as FlashAttention's own tests do), plus ABS_FLOOR.

The GPU machine has no MLIR: build the kernels here and carry the folder there.

    # here (fattn-compile from build/bin, or FATTN_COMPILE=...)
    python3 python/tests/test_gpu_backward_sm80.py --build build-grad-kernels
    python3 python/tests/test_gpu_backward_sm80.py --build build-grad-kernels-sm90a --arch sm_90a
    # there
    FATTN_GRAD_KERNEL_DIR=$PWD/build-grad-kernels \\
        python3 -m pytest -q -rs python/tests/test_gpu_backward_sm80.py
    FATTN_GRAD_ARCH=sm_90a FATTN_GRAD_KERNEL_DIR=$PWD/build-grad-kernels-sm90a \\
        python3 -m pytest -q -rs python/tests/test_gpu_backward_sm80.py

Without FATTN_GRAD_KERNEL_DIR the tests compile the kernels with fattn-compile when it is found,
and skip otherwise. An sm_80 cubin does not load on an sm_90 GPU: the PTX beside it is loaded
instead (the driver compiles it for the device). The sm_90a kernels run on sm_90 GPUs only
(elsewhere the tests skip); a kernel folder of the other arch fails the tests.
"""
from __future__ import annotations

import argparse
import ctypes
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Dict, List, Optional, Tuple

REPO = Path(__file__).resolve().parents[2]
ARCHS = ("sm_80", "sm_90a")
DTYPES = ("bf16", "f16")
HEAD_DIMS = (64, 128)


def config_name(dtype: str, head_dim: int, causal: bool, softcap: float = 0.0) -> str:
    name = f"bwd_{dtype}_d{head_dim}_{'causal' if causal else 'full'}"
    return name + (f"_softcap{softcap:g}" if softcap > 0 else "")


# (dtype, head_dim, causal, softcap)
CONFIGS = [(dtype, d, causal, 0.0) for dtype in DTYPES for d in HEAD_DIMS
           for causal in (False, True)] + [("bf16", 128, True, 30.0), ("f16", 64, False, 5.0)]


def kernel_source() -> str:
    """One function per configuration whose body is one fattn.attention_grad on
    dynamic, strided memrefs (any batch, heads, sequence lengths and strides)."""
    functions = []
    for dtype, d, causal, softcap in CONFIGS:
        t = f"memref<?x?x?x{d}x{dtype}, strided<[?, ?, ?, 1], offset: ?>>"
        lse = "memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>"
        attrs = ([" causal = true"] if causal else []) + \
            ([f" softcap = {softcap} : f32"] if softcap > 0 else [])
        attrs = " {" + ",".join(attrs) + " }" if attrs else ""
        functions.append(
            f"func.func @{config_name(dtype, d, causal, softcap)}(%q: {t}, %k: {t}, %v: {t}, %o: {t}, "
            f"%do: {t}, %lse: {lse}, %dq: {t}, %dk: {t}, %dv: {t}) {{\n"
            f"  fattn.attention_grad ins(%q, %k, %v, %o, %do, %lse : {t}, {t}, {t}, {t}, {t}, "
            f"{lse}) outs(%dq, %dk, %dv : {t}, {t}, {t}){attrs}\n"
            f"  return\n}}\n")
    return "".join(functions)


def find_fattn_compile() -> Optional[str]:
    for candidate in (os.environ.get("FATTN_COMPILE"), str(REPO / "build" / "bin" / "fattn-compile"),
                      shutil.which("fattn-compile")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


def build_kernels(out: Path, compiler: str, arch: str = "sm_80") -> None:
    """Compiles every configuration for `arch` into `out`: <name>.json, .ptx and .cubin."""
    out.mkdir(parents=True, exist_ok=True)
    source = out / f"backward_{arch}.mlir"
    source.write_text(kernel_source())
    subprocess.run([compiler, str(source), "--arch", arch, "--emit", "json", "-o", str(out)],
                   check=True)


# ---------------------------------------------------------------------------
# The CUDA driver API through ctypes
# ---------------------------------------------------------------------------

CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8


class Driver:
    def __init__(self) -> None:
        self.lib = ctypes.CDLL("libcuda.so.1")
        vp, u = ctypes.c_void_p, ctypes.c_uint
        self.lib.cuModuleLoadData.argtypes = [ctypes.POINTER(vp), ctypes.c_char_p]
        self.lib.cuModuleGetFunction.argtypes = [ctypes.POINTER(vp), vp, ctypes.c_char_p]
        self.lib.cuFuncSetAttribute.argtypes = [vp, ctypes.c_int, ctypes.c_int]
        self.lib.cuLaunchKernel.argtypes = [vp, u, u, u, u, u, u, u, vp,
                                            ctypes.POINTER(vp), ctypes.POINTER(vp)]
        self.lib.cuGetErrorName.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_char_p)]

    def check(self, rc: int, what: str) -> None:
        if rc != 0:
            name = ctypes.c_char_p()
            self.lib.cuGetErrorName(rc, ctypes.byref(name))
            raise RuntimeError(f"{what}: {name.value.decode() if name.value else rc}")

    def load_module(self, folder: Path, description: dict) -> ctypes.c_void_p:
        """The cubin, else (another GPU generation) the PTX, JIT-compiled by the driver."""
        module = ctypes.c_void_p()
        cubin = (folder / description["cubin"]).read_bytes()
        if self.lib.cuModuleLoadData(ctypes.byref(module), cubin) == 0:
            return module
        ptx = (folder / description["ptx"]).read_bytes() + b"\0"
        self.check(self.lib.cuModuleLoadData(ctypes.byref(module), ptx),
                   f"cuModuleLoadData({description['ptx']})")
        return module

    def function(self, module: ctypes.c_void_p, entry: str, smem: int) -> ctypes.c_void_p:
        fn = ctypes.c_void_p()
        self.check(self.lib.cuModuleGetFunction(ctypes.byref(fn), module, entry.encode()),
                   f"cuModuleGetFunction({entry})")
        if smem > 48 * 1024:
            self.check(self.lib.cuFuncSetAttribute(
                fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, smem),
                f"cuFuncSetAttribute({entry}, {smem} bytes)")
        return fn

    def launch(self, fn, grid: Tuple[int, int, int], threads: int, smem: int, stream: int,
               args: List[ctypes._SimpleCData]) -> None:
        pointers = (ctypes.c_void_p * len(args))(
            *[ctypes.cast(ctypes.pointer(a), ctypes.c_void_p) for a in args])
        self.check(self.lib.cuLaunchKernel(fn, *grid, threads, 1, 1, smem, stream, pointers, None),
                   "cuLaunchKernel")


# ---------------------------------------------------------------------------
# Tests (GPU only)
# ---------------------------------------------------------------------------

if __name__ != "__main__":
    import pytest

    torch = pytest.importorskip("torch")
    from grad_reference import assert_within_bound, reference_gradients, sdpa_gradients

    pytestmark = pytest.mark.gpu
    if not torch.cuda.is_available():
        pytest.skip("needs a CUDA GPU", allow_module_level=True)
    ARCH = os.environ.get("FATTN_GRAD_ARCH") or "sm_80"
    if ARCH not in ARCHS:
        raise ValueError(f"FATTN_GRAD_ARCH must be one of {', '.join(ARCHS)}, got {ARCH!r}")
    if ARCH == "sm_90a" and torch.cuda.get_device_capability() != (9, 0):
        pytest.skip("the sm_90a backward kernels need an sm_90 GPU", allow_module_level=True)

    TORCH_DTYPES = {"bf16": torch.bfloat16, "f16": torch.float16}

    @pytest.fixture(scope="module")
    def kernel_dir():
        given = os.environ.get("FATTN_GRAD_KERNEL_DIR")
        if given:
            yield Path(given)
            return
        compiler = find_fattn_compile()
        if compiler is None:
            pytest.skip("no FATTN_GRAD_KERNEL_DIR and no fattn-compile to build the kernels")
        with tempfile.TemporaryDirectory(prefix="fattn-grad-") as tmp:
            build_kernels(Path(tmp), compiler, ARCH)
            yield Path(tmp)

    @pytest.fixture(scope="module")
    def driver():
        torch.zeros(1, device="cuda")  # the primary context, current on this thread
        return Driver()

    _modules: Dict[str, tuple] = {}

    def kernels_of(driver: Driver, folder: Path, name: str):
        if name not in _modules:
            path = folder / f"{name}.json"
            if not path.exists():
                pytest.fail(f"{path} is missing: build the kernels with --build (module docstring)")
            description = json.loads(path.read_text())
            if description["arch"] != ARCH:
                pytest.fail(f"{path} holds {description['arch']} kernels, FATTN_GRAD_ARCH "
                            f"asks for {ARCH}: build them with --arch {ARCH}")
            module = driver.load_module(folder, description)
            launches = [(k, driver.function(module, k["entry"], k["dynamic_smem_bytes"]))
                        for k in description["kernels"]]
            _modules[name] = (description, module, launches)
        return _modules[name]

    def new_generator() -> torch.Generator:
        seed = int(os.environ.get("FATTN_TEST_SEED", "0")) or int.from_bytes(os.urandom(4), "little")
        print(f"seed={seed} (FATTN_TEST_SEED={seed} reproduces)")
        gen = torch.Generator(device="cuda")
        gen.manual_seed(seed)
        return gen

    def visible(sq: int, sk: int, causal: bool, device) -> torch.Tensor:
        """Bottom-right aligned causal mask (FlashAttention-2's): query i sees key j
        iff j <= i + sk - sq."""
        i = torch.arange(sq, device=device)[:, None]
        j = torch.arange(sk, device=device)[None, :]
        ok = torch.ones(sq, sk, dtype=torch.bool, device=device)
        return ok & (j <= i + sk - sq) if causal else ok

    def strides_bhs(t: torch.Tensor) -> List[int]:
        """(b, h, s) strides in elements of a [b, s, h, d] tensor."""
        return [t.stride(0), t.stride(2), t.stride(1)]

    def run_backward(driver, folder, name, q, k, v, o, do, lse, scale_check):
        """Launches the three kernels; returns (dq, dk, dv)."""
        description, _, launches = kernels_of(driver, folder, name)
        assert abs(description["scale"] - scale_check) < 1e-6 * scale_check
        b, sq, hq, d = q.shape
        sk, hk = k.shape[1], k.shape[2]
        poison = float("nan")
        dq = torch.full_like(q, poison)
        dk = torch.full_like(k, poison)
        dv = torch.full_like(v, poison)
        delta = torch.full((b, hq, sq), poison, dtype=torch.float32, device="cuda")
        dq_accum = torch.full((b, hq, sq, d), poison, dtype=torch.float32, device="cuda")
        tensors = {"q": q, "k": k, "v": v, "o": o, "do": do, "lse": lse, "dq": dq, "dk": dk,
                   "dv": dv, "delta": delta, "dq_accum": dq_accum}
        sizes = {"batch": b, "heads_q": hq, "heads_kv": hk, "seq_q": sq, "seq_k": sk}
        values: Dict[str, int] = dict(sizes)
        for t in ("q", "k", "v", "o", "do", "dq", "dk", "dv"):
            for dim, stride in zip("bhs", strides_bhs(tensors[t])):
                values[f"{t}_stride_{dim}"] = stride
        values["lse_stride_b"], values["lse_stride_h"] = lse.stride(0), lse.stride(1)
        args = []
        for param in description["params"]:
            pname, ptype = param["name"], param["type"]
            if ptype == "ptr":
                args.append(ctypes.c_uint64(tensors[pname].data_ptr()))
            elif ptype == "u32":
                args.append(ctypes.c_uint32(values[pname]))
            else:
                args.append(ctypes.c_uint64(values[pname]))
        stream = torch.cuda.current_stream().cuda_stream
        for kernel, fn in launches:
            grid = tuple(math.ceil(sizes[size] / div) for size, div in kernel["grid"])
            driver.launch(fn, grid, kernel["threads"], kernel["dynamic_smem_bytes"], stream, args)
        torch.cuda.synchronize()
        return dq, dk, dv

    # (batch, heads_q, heads_kv, seq_q, seq_k, layout): GQA 4/2 and MQA, Sq != Sk both
    # ways, lengths 1..300 off the 64-row tiles, a transposed (BHSD) layout.
    CASES = [
        (1, 1, 1, 1, 1, "bshd"),
        (2, 4, 2, 65, 65, "bshd"),
        (1, 4, 2, 100, 300, "bshd"),
        (2, 2, 2, 300, 77, "bshd"),
        (1, 4, 1, 17, 129, "bshd"),
        (1, 4, 2, 257, 255, "bhsd"),
        (3, 2, 1, 191, 63, "bshd"),
    ]

    def make(b, s, h, d, dtype, layout, gen):
        if layout == "bhsd":
            return torch.randn(b, h, s, d, generator=gen, device="cuda").to(dtype).transpose(1, 2)
        return torch.randn(b, s, h, d, generator=gen, device="cuda").to(dtype)

    @pytest.mark.parametrize("case", CASES, ids=lambda c: "b{}_h{}-{}_sq{}_sk{}_{}".format(*c))
    @pytest.mark.parametrize("dtype,head_dim,causal,softcap", CONFIGS,
                             ids=[config_name(*c) for c in CONFIGS])
    def test_backward_against_float64(kernel_dir, driver, dtype, head_dim, causal, softcap,
                                      case):
        b, hq, hk, sq, sk, layout = case
        gen = new_generator()
        tdtype = TORCH_DTYPES[dtype]
        scale = 1.0 / math.sqrt(head_dim)
        q = make(b, sq, hq, head_dim, tdtype, layout, gen)
        k = make(b, sk, hk, head_dim, tdtype, layout, gen)
        v = make(b, sk, hk, head_dim, tdtype, layout, gen)
        do = make(b, sq, hq, head_dim, tdtype, layout, gen)
        mask = visible(sq, sk, causal, "cuda")

        out64, lse64, *ref = reference_gradients(q, k, v, do, scale, mask, torch.float64,
                                                 softcap)
        # The forward's O (rounded, in the layout of Q) and LSE (f32), as a forward
        # kernel would have written them.
        o = torch.empty_like(q).copy_(out64.to(tdtype))
        lse = lse64.float().contiguous()
        got = run_backward(driver, kernel_dir, config_name(dtype, head_dim, causal, softcap),
                           q, k, v, o, do, lse, scale)

        base = sdpa_gradients(q, k, v, do, scale, causal, softcap=softcap)
        source = "SDPA flash"
        if base is None:
            base = list(reference_gradients(q, k, v, do, scale, mask, tdtype, softcap)[2:])
            source = f"reference in {dtype}"
        assert_within_bound(got, ref, base, source)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", type=Path, required=True,
                        help="compile every configuration's kernels into this folder")
    parser.add_argument("--fattn-compile", default=None,
                        help="fattn-compile to use (default: $FATTN_COMPILE, build/bin, PATH)")
    parser.add_argument("--arch", choices=ARCHS, default="sm_80",
                        help="the kernels' arch (sm_90a: run with FATTN_GRAD_ARCH=sm_90a)")
    args = parser.parse_args(argv)
    compiler = args.fattn_compile or find_fattn_compile()
    if compiler is None:
        parser.error("fattn-compile not found (build it, or give --fattn-compile)")
    build_kernels(args.build, compiler, args.arch)
    print(f"{len(CONFIGS)} configurations compiled for {args.arch} into {args.build}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
