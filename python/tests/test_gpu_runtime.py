"""The runtime on the GPU with kernels built here by nvcc (no MLIR needed):
loading, launching, errors named by CUresult, tensor maps, clusters."""
import json
import math
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from gpu_support import (BOUND_FACTOR, ABS_FLOOR, HERE, abi_params, baseline, build_naive,  # noqa
                         compile_cu, new_generator, reference, rel_l2)
from fattn._runtime import FAttnRuntimeError, Kernel, TensorDesc  # noqa: E402
from fattn.config import KernelConfig  # noqa: E402

pytestmark = pytest.mark.gpu


def descs(q, k, v, o, lse=None):
    dtype = {torch.bfloat16: "bf16", torch.float16: "f16"}[q.dtype]

    def logical(t):  # BSHD -> [b, h, s, d]
        return TensorDesc.make(t.data_ptr(), dtype, (t.shape[0], t.shape[2], t.shape[1],
                                                     t.shape[3]),
                               (t.stride(0), t.stride(2), t.stride(1), 1))
    out = [logical(q), logical(k), logical(v), logical(o)]
    if lse is not None:
        out.append(TensorDesc.make(lse.data_ptr(), "f32", tuple(lse.shape), lse.stride()))
    return out


@pytest.fixture(scope="module")
def naive_causal(tmp_path_factory):
    config = KernelConfig.make("sm_80", "bf16", 64, causal=True, has_lse=True)
    return config, Kernel(build_naive(config, tmp_path_factory.mktemp("naive")))


def qkv(b=2, sq=113, sk=300, hq=4, hk=2, d=64):
    gen = new_generator()
    q = torch.randn(b, sq, hq, d, generator=gen, device="cuda").bfloat16()
    k = torch.randn(b, sk, hk, d, generator=gen, device="cuda").bfloat16()
    v = torch.randn(b, sk, hk, d, generator=gen, device="cuda").bfloat16()
    return q, k, v


def test_launch_direct(naive_causal):
    config, kernel = naive_causal
    q, k, v = qkv()
    o = torch.full_like(q, float("nan"))
    lse = torch.full((2, 4, 113), float("nan"), device="cuda")
    kernel.launch(descs(q, k, v, o, lse), torch.cuda.current_stream().cuda_stream)
    torch.cuda.synchronize()
    ref, ref_lse = reference(q, k, v, config.scale, -1, 0, 0.0)
    assert rel_l2(o, ref) <= BOUND_FACTOR * rel_l2(baseline(q, k, v, config.scale, -1, 0, 0.0),
                                                   ref) + ABS_FLOOR
    torch.testing.assert_close(lse.double(), ref_lse, atol=2e-3, rtol=1e-4)


def test_launch_config(naive_causal):
    _, kernel = naive_causal
    q, k, v = qkv(sq=1000)
    grid, block, cluster, smem = kernel.launch_config(descs(q, k, v, q, torch.empty(
        2, 4, 1000, device="cuda")))
    assert grid == (8, 4, 2) and block == (128, 1, 1) and cluster == (1, 1, 1) and smem == 0


def test_validation_errors_reach_python(naive_causal):
    _, kernel = naive_causal
    q, k, v = qkv()
    with pytest.raises(FAttnRuntimeError, match="takes 5 tensors"):
        kernel.launch(descs(q, k, v, q), 0)
    with pytest.raises(FAttnRuntimeError, match="tensor 'k': head_dim is 32"):
        kernel.launch(descs(q, k[..., :32], v, q, torch.empty(2, 4, 113, device="cuda")), 0)


def test_host_pointer_is_rejected(naive_causal):
    _, kernel = naive_causal
    q, k, v = qkv()
    lse = torch.empty(2, 4, 113, device="cuda")
    d = descs(q, k, v, q, lse)
    d[0].data = torch.empty(q.shape, dtype=q.dtype).data_ptr()  # pageable host memory
    with pytest.raises(FAttnRuntimeError, match="tensor 'q': data pointer is not device memory: "
                                                "cuPointerGetAttribute"):
        kernel.launch(d, 0)


def test_cuda_errors_are_named(tmp_path):
    config = KernelConfig.make("sm_80", "bf16", 64)
    path = build_naive(config, tmp_path)
    (tmp_path / "naive.cubin").write_bytes(b"not a cubin at all")
    q, k, v = qkv()
    with pytest.raises(FAttnRuntimeError, match=r"cuModuleLoadData failed: CUDA_ERROR_\w+"):
        Kernel(path).launch(descs(q, k, v, torch.empty_like(q)), 0)
    build_naive(config, tmp_path)
    desc = json.loads(path.read_text())
    desc["entry"] = "no_such_kernel"
    path.write_text(json.dumps(desc))
    with pytest.raises(FAttnRuntimeError, match="cuModuleGetFunction failed: CUDA_ERROR_NOT_FOUND"):
        Kernel(path).launch(descs(q, k, v, torch.empty_like(q)), 0)
    desc["entry"] = "naive_attention"
    desc["dynamic_smem_bytes"] = 10 ** 7
    path.write_text(json.dumps(desc))
    with pytest.raises(FAttnRuntimeError, match="bytes of dynamic shared memory, the device "
                                                "allows"):
        Kernel(path).launch(descs(q, k, v, torch.empty_like(q)), 0)


def test_bad_description_file(tmp_path):
    (tmp_path / "bad.json").write_text('{"version": 1,}')
    with pytest.raises(FAttnRuntimeError, match="invalid JSON: line 1"):
        Kernel(tmp_path / "bad.json")
    with pytest.raises(FAttnRuntimeError, match="cannot read kernel description"):
        Kernel(tmp_path / "missing.json")


def test_cluster_launch(tmp_path):
    if torch.cuda.get_device_capability()[0] < 9:
        pytest.skip("clusters need sm_90")
    config = KernelConfig.make("sm_80", "bf16", 64, causal=True, has_lse=True)
    kernel = Kernel(build_naive(config, tmp_path, cluster=(2, 1, 1)))
    q, k, v = qkv(sq=300)  # 3 Q tiles -> 4 CTAs, whole clusters of 2
    o = torch.full_like(q, float("nan"))
    lse = torch.empty(2, 4, 300, device="cuda")
    assert kernel.launch_config(descs(q, k, v, o, lse))[0] == (4, 4, 2)
    kernel.launch(descs(q, k, v, o, lse), torch.cuda.current_stream().cuda_stream)
    torch.cuda.synchronize()
    ref, _ = reference(q, k, v, config.scale, -1, 0, 0.0)
    assert rel_l2(o, ref) < 1e-2


@pytest.mark.parametrize("swizzle", ["none", "128B"])
def test_tensormap_tma_load(tmp_path, swizzle):
    """A kernel that TMA-loads one [32 x 64] box of q through a runtime-encoded map."""
    if torch.cuda.get_device_capability()[0] < 9:
        pytest.skip("TMA needs sm_90")
    rows, d = 32, 64
    compile_cu(HERE / "gpu_kernels" / "tma_box.cu", tmp_path / "tma.cubin",
               {"BOX_BYTES": rows * d * 2, "COORD_D": 0, "COORD_S": 80, "COORD_H": 1, "COORD_B": 1})
    desc = {"version": 1, "arch": "sm_90", "entry": "tma_box", "cubin": "tma.cubin",
            "dtype": "bf16", "head_dim_qk": d, "head_dim_v": d, "scale": 0.125, "causal": False,
            "window_left": -1, "window_right": -1, "softcap": 0.0, "has_lse": False,
            "block_m": rows, "block_n": 1, "threads": 128, "dynamic_smem_bytes": rows * d * 2 + 1024 + 16,
            "grid": [["batch", 1024]],
            "params": [{"name": "q_map", "type": "tensormap", "tensor": "q",
                        "element_type": "bf16", "box": [1, 1, rows, d], "swizzle": swizzle},
                       {"name": "o", "type": "ptr"}]}
    (tmp_path / "tma.json").write_text(json.dumps(desc))
    kernel = Kernel(tmp_path / "tma.json")
    q, k, v = qkv(sq=100, d=d)  # rows 80..111 of head 1, batch 1: 100..111 are out of bounds
    o = torch.full((2, 100, 4, d), float("nan"), device="cuda", dtype=torch.bfloat16)
    kernel.launch(descs(q, k, v, o), torch.cuda.current_stream().cuda_stream)
    torch.cuda.synchronize()
    got = o.reshape(-1)[:rows * d].view(rows, d)
    want = torch.zeros(rows, d, device="cuda", dtype=torch.bfloat16)
    want[:20] = q[1, 80:100, 1]
    if swizzle == "128B":
        # 128B swizzle: 16-byte chunk c of row r lands at chunk c ^ (r % 8).
        chunks = want.view(rows, 8, 8)
        idx = torch.arange(8, device="cuda")[None, :] ^ (torch.arange(rows, device="cuda") % 8)[:, None]
        swz = torch.empty_like(chunks)
        swz.scatter_(1, idx[..., None].expand(rows, 8, 8), chunks)
        want = swz.view(rows, d)
    assert torch.equal(got, want)
