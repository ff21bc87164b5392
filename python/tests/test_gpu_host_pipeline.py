"""The host-complete GPU pipelines end to end: functions compiled by
fattn-sm90-pipeline / fattn-sm80-pipeline with host-launch=true and upstream
MLIR's gpu-module-to-binary + gpu-to-llvm into shared libraries (built where
MLIR is by scripts/build_host_e2e.sh, which writes build-gpu/host-e2e/), called
here through their C interface (`_mlir_ciface_<function>`, memref descriptors
of torch tensors): the host code computes the grid, encodes the tensor maps and
launches the kernels through libfattn_mlir_cuda_runtime.so, with no kernel
description and no fattn runtime: bf16 without a mask and causal (sm_90a, and
sm_80 as PTX), FP8 with per-block descales (sm_90a). Outputs are poisoned first; results are
compared with the float64 reference as test_gpu_attention.py does.

Skipped without torch/CUDA or without the folder (FATTN_HOST_E2E_DIR, default
build-gpu/host-e2e at the checkout's root).
"""
from __future__ import annotations

import ctypes
import json
import math
import os
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("needs torch with a CUDA device", allow_module_level=True)

from gpu_support import (ABS_FLOOR, BOUND_FACTOR, baseline, make_bshd, new_generator,  # noqa: E402
                         reference, rel_l2, visible)

pytestmark = pytest.mark.gpu

ROOT = Path(__file__).resolve().parents[2]
E2E_DIR = Path(os.environ.get("FATTN_HOST_E2E_DIR", ROOT / "build-gpu" / "host-e2e"))
MANIFEST = E2E_DIR / "manifest.json"
if not MANIFEST.exists():
    pytest.skip(f"no {MANIFEST}: run scripts/build_host_e2e.sh where MLIR is and carry "
                "build-gpu/ over", allow_module_level=True)


def _memref_type(rank: int):
    """MLIR's ranked memref descriptor: allocated and aligned pointers, offset,
    sizes, strides (elements)."""
    class MemRef(ctypes.Structure):
        _fields_ = [("allocated", ctypes.c_void_p), ("aligned", ctypes.c_void_p),
                    ("offset", ctypes.c_int64), ("sizes", ctypes.c_int64 * rank),
                    ("strides", ctypes.c_int64 * rank)]
    return MemRef


MEMREF = {3: _memref_type(3), 4: _memref_type(4)}


def memref(t: "torch.Tensor"):
    d = MEMREF[t.dim()]()
    d.allocated = d.aligned = t.data_ptr()
    d.offset = 0
    for i, (size, stride) in enumerate(zip(t.shape, t.stride())):
        d.sizes[i] = size
        d.strides[i] = stride
    return d


def _entries():
    manifest = json.loads(MANIFEST.read_text())
    # The runtime first, with its symbols global: the libraries' mgpu* calls
    # bind to it (their rpath finds it too).
    ctypes.CDLL(str(E2E_DIR / manifest["runtime"]), mode=ctypes.RTLD_GLOBAL)
    return manifest["functions"]


ENTRIES = _entries()
_LIBRARIES: dict = {}


def _runs_here(arch: str) -> bool:
    major, minor = torch.cuda.get_device_capability()
    if arch == "sm_90a":
        return (major, minor) == (9, 0)
    return major >= 8  # sm_80 PTX, compiled by the driver for this GPU


def _function(entry):
    if not _runs_here(entry["arch"]):
        pytest.skip(f"{entry['arch']} kernels do not run on this GPU")
    name = entry["library"]
    if name not in _LIBRARIES:
        torch.cuda.init()
        # Loading runs the library's constructor, which loads its kernels.
        _LIBRARIES[name] = ctypes.CDLL(str(E2E_DIR / name))
    fn = getattr(_LIBRARIES[name], "_mlir_ciface_" + entry["function"])
    fn.restype = None
    return fn


def run_host(entry, b, hq, hk, sq, sk, layout="bshd"):
    fn = _function(entry)
    d = entry["head_dim"]
    dtype = {"bf16": torch.bfloat16, "f16": torch.float16}[entry["dtype"]]
    gen = new_generator()
    q = make_bshd(b, sq, hq, d, dtype, layout, gen)
    k = make_bshd(b, sk, hk, d, dtype, layout, gen)
    v = make_bshd(b, sk, hk, d, dtype, layout, gen)
    out = torch.full((b, sq, hq, d), float("nan"), dtype=dtype, device="cuda")
    lse = torch.full((b, hq, sq), float("nan"), dtype=torch.float32, device="cuda")
    # The functions take the logical [batch, heads, seq, head_dim] views.
    args = [memref(t.transpose(1, 2)) for t in (q, k, v, out)] + [memref(lse)]
    torch.cuda.synchronize()
    fn(*[ctypes.byref(a) for a in args])
    torch.cuda.synchronize()

    scale = 1 / math.sqrt(d)
    wr = 0 if entry["causal"] else -1
    ref_o, ref_lse = reference(q, k, v, scale, -1, wr, 0.0)
    base_o = baseline(q, k, v, scale, -1, wr, 0.0)
    assert not torch.isnan(out).any(), "NaN in the output (a row not written, or 0/0)"
    dead = ~visible(sq, sk, -1, wr, q.device).any(dim=1)
    if dead.any():
        assert (out[:, dead] == 0).all(), "rows that see no key must be 0"
    err, base_err = rel_l2(out, ref_o), rel_l2(base_o, ref_o)
    bound = BOUND_FACTOR * base_err + ABS_FLOOR
    print(f"{entry['library']}:{entry['function']} rel L2 error {err:.3e}, "
          f"baseline {base_err:.3e}, bound {bound:.3e}")
    assert err <= bound, f"rel L2 error {err:.3e} > {BOUND_FACTOR} x baseline {base_err:.3e} " \
                         f"+ {ABS_FLOOR}"
    assert not torch.isnan(lse).any(), "NaN in the LSE (a row not written)"
    assert torch.isneginf(lse[:, :, dead]).all(), "LSE of rows that see no key must be -inf"
    live = ~dead
    torch.testing.assert_close(lse[:, :, live].double(), ref_lse[:, :, live], atol=2e-3,
                               rtol=1e-4)


# rel L2 error against float64 attention of the dequantized inputs: rounding P to
# e4m3 and the bf16 output (test_gpu_fp8.py's REF_BOUND).
FP8_REF_BOUND = 2.0 ** -4 / math.sqrt(3) + 2.0 ** -9


def run_host_fp8(entry, b, hq, hk, sq, sk, layout="bshd"):
    """e4m3 Q, K, V quantized per block of rows by fattn.quantize_fp8, the bf16
    output poisoned, against float64 attention of the dequantized inputs."""
    import fattn
    fn = _function(entry)
    d, block = entry["head_dim"], entry["descale_block"]
    gen = new_generator()
    x = [make_bshd(b, s, h, d, torch.bfloat16, layout, gen)
         for s, h in ((sq, hq), (sk, hk), (sk, hk))]
    quantized = [fattn.quantize_fp8(t, block=block) for t in x]
    deq = [fattn.dequantize_fp8(t8, scale, block) for t8, scale in quantized]
    out = torch.full((b, sq, hq, d), float("nan"), dtype=torch.bfloat16, device="cuda")
    args = [memref(t8.transpose(1, 2)) for t8, _ in quantized] + [memref(out.transpose(1, 2))]
    args += [memref(scale) for _, scale in quantized]
    torch.cuda.synchronize()
    fn(*[ctypes.byref(a) for a in args])
    torch.cuda.synchronize()
    ref, _ = reference(*deq, 1 / math.sqrt(d), -1, -1, 0.0)
    assert not torch.isnan(out).any(), "NaN in the output (a row not written, or 0/0)"
    err = rel_l2(out, ref)
    print(f"{entry['library']}:{entry['function']} rel L2 error {err:.3e}, "
          f"bound {FP8_REF_BOUND:.3e}")
    assert err <= FP8_REF_BOUND, f"rel L2 error {err:.3e} > {FP8_REF_BOUND:.3e}"


def run_entry(entry, b, hq, hk, sq, sk, layout="bshd"):
    if entry["dtype"] == "e4m3":
        run_host_fp8(entry, b, hq, hk, sq, sk, layout)
    else:
        run_host(entry, b, hq, hk, sq, sk, layout)


IDS = [f"{e['arch']}-{e['function']}" for e in ENTRIES]


@pytest.mark.parametrize("entry", ENTRIES, ids=IDS)
@pytest.mark.parametrize("b,hq,hk,sq,sk", [
    (2, 4, 4, 113, 113),     # one partial tile
    (1, 8, 2, 1000, 1000),   # GQA, several tiles and a partial one
    (2, 2, 1, 17, 2049),     # few queries, many keys
    (1, 2, 2, 300, 77),      # more queries than keys: causal rows that see no key
], ids=["113", "gqa-1000", "17x2049", "300x77"])
def test_host_launch(entry, b, hq, hk, sq, sk):
    run_entry(entry, b, hq, hk, sq, sk)


@pytest.mark.parametrize("entry", ENTRIES, ids=IDS)
@pytest.mark.parametrize("layout", ["bhsd", "strided"])
def test_host_launch_layouts(entry, layout):
    """Strides from the memref descriptors: BHSD storage, and rows padded."""
    run_entry(entry, 2, 4, 2, 257, 190, layout=layout)


@pytest.mark.parametrize("entry", [e for e in ENTRIES if e["dtype"] != "e4m3"],
                         ids=[i for e, i in zip(ENTRIES, IDS) if e["dtype"] != "e4m3"])
def test_host_launch_no_queries(entry):
    """No queries: the host code launches nothing and touches nothing."""
    fn = _function(entry)
    d = entry["head_dim"]
    k = torch.randn(1, 2, 64, d, device="cuda").to(torch.bfloat16)
    q = torch.empty(1, 2, 0, d, dtype=torch.bfloat16, device="cuda")
    lse = torch.empty(1, 2, 0, device="cuda")
    args = [memref(t) for t in (q, k, k, q, lse)]
    fn(*[ctypes.byref(a) for a in args])
    torch.cuda.synchronize()
