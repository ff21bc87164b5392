"""The backward's kernel configurations, their .mlir, the library and build_library
with backward kernels (no GPU, no torch; fattn-compile where it is built), and the
runtime's reading of backward descriptions (libfattn_runtime.so where it is built,
on CUDA's stub driver library where the machine has no driver)."""
import ctypes
import dataclasses
import json
import re
from pathlib import Path

import pytest

import fattn
from fattn import _runtime, build_library, interface
from fattn.backward import grad_config
from fattn.compiler import CompileError, compile_kernel, find_compiler
from fattn.config import KernelConfig
from fattn.grad_config import (GRAD_ARCH_ENV, GradKernelConfig, check_grad_support,
                               config_from_description, config_from_json, grad_arch_for)
from fattn.library import KernelLibrary, LibraryError
from fattn.mlir_gen import attention_grad_mlir, kernel_mlir, mlir_float

from test_cpu_library import fake_compiler, write_compiled


def test_make_is_canonical():
    c = GradKernelConfig.make("bf16", 64)
    assert (c.arch, c.causal, c.window_left, c.window_right, c.softcap, c.scale) == \
        ("sm_80", False, -1, -1, 0.0, 0.125)
    # causal and the window (-1, 0) are one mask, one kernel.
    assert GradKernelConfig.make("bf16", 64, causal=True) == \
        GradKernelConfig.make("bf16", 64, window_right=0)
    # A window that ends at the diagonal is no causal mask: the description says so.
    w = GradKernelConfig.make("f16", 128, causal=True, window_left=100)
    assert (w.causal, w.window_left, w.window_right) == (False, 100, 0)
    assert GradKernelConfig.make("bf16", 64, scale=0.1).scale == pytest.approx(0.1, rel=1e-7)


def test_key_is_exact_and_distinct():
    c = GradKernelConfig.make("bf16", 64, causal=True)
    assert c.key == "grad-sm_80-bf16-d64-causal-wl-1-wr0-sc00000000-s3e000000"
    others = [GradKernelConfig.make("f16", 64, causal=True),
              GradKernelConfig.make("bf16", 128, causal=True),
              GradKernelConfig.make("bf16", 64),
              GradKernelConfig.make("bf16", 64, window_left=32, window_right=8),
              GradKernelConfig.make("bf16", 64, causal=True, softcap=30.0),
              GradKernelConfig.make("bf16", 64, causal=True, scale=0.2)]
    keys = {c.key} | {o.key for o in others}
    assert len(keys) == 7
    # The deterministic kernels: a suffix, only when true.
    d = GradKernelConfig.make("bf16", 64, causal=True, deterministic=True)
    assert d.key == c.key + "-det" and d != c
    assert GradKernelConfig.make("bf16", 64, causal=True, deterministic=False) == c
    # Never a forward key: both live in one library.
    assert not c.key.startswith(KernelConfig.make("sm_80", "bf16", 64).key[:6])


@pytest.mark.parametrize("kwargs,message", [
    (dict(dtype="e4m3", head_dim=64), "the backward kernels take dtype f16 or bf16, got 'e4m3'"),
    (dict(dtype="bf16", head_dim=256), "multiples of 16 up to 128, got 256"),
    (dict(dtype="bf16", head_dim=72), "multiples of 16 up to 128, got 72"),
    (dict(dtype="bf16", head_dim=True), "multiples of 16 up to 128, got True"),
    (dict(dtype="bf16", head_dim=64, arch="sm_86"),
     "compiled for sm_80 or sm_90a (sm_80's run on sm_90 GPUs too), got arch 'sm_86'"),
    (dict(dtype="bf16", head_dim=96, arch="sm_90a"),
     "the sm_90a backward kernels take head dims that are multiples of 64 up to 128, got 96"),
    (dict(dtype="bf16", head_dim=256, arch="sm_90a"), "multiples of 64 up to 128, got 256"),
    (dict(dtype="bf16", head_dim=64, scale=0.0), "softmax_scale must be a positive"),
    (dict(dtype="bf16", head_dim=64, softcap=-1.0), "softcap must be a finite number >= 0"),
])
def test_make_errors(kwargs, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        GradKernelConfig.make(**kwargs)


def test_deterministic_is_a_checked_flag():
    assert GradKernelConfig.make("bf16", 64, deterministic=1).deterministic is True
    assert GradKernelConfig.make("bf16", 64).deterministic is False
    with pytest.raises(TypeError, match="deterministic must be a bool, got 'yes'"):
        GradKernelConfig.make("bf16", 64, deterministic="yes")
    fwd = KernelConfig.make("sm_80", "bf16", 128, causal=True, has_lse=True)
    assert GradKernelConfig.for_forward(fwd, "sm_90a", True) == \
        GradKernelConfig.make("bf16", 128, causal=True, arch="sm_90a", deterministic=True)
    # flash_attn_func's backward asks for it.
    assert grad_config("bfloat16", 64, 64, None, True, (-1, -1), 0.0,
                       deterministic=True).deterministic
    assert not grad_config("bfloat16", 64, 64, None, True, (-1, -1), 0.0).deterministic


def test_sm90a_backward_configurations():
    c = GradKernelConfig.make("bf16", 128, causal=True, arch="sm_90a")
    assert c.key == "grad-sm_90a-bf16-d128-causal-wl-1-wr0-sc00000000-s3db504f3"
    assert c != GradKernelConfig.make("bf16", 128, causal=True)
    assert config_from_json(c.to_json()) == c
    fwd = KernelConfig.make("sm_90a", "f16", 64, has_lse=True)
    assert GradKernelConfig.for_forward(fwd, "sm_90a").arch == "sm_90a"
    assert GradKernelConfig.for_forward(fwd).arch == "sm_80"


def test_grad_arch_is_the_devices(monkeypatch):
    """sm_90a's backward on sm_90 devices for the head dims its kernels take,
    unless FATTN_GRAD_ARCH=sm_80; sm_80's everywhere else."""
    monkeypatch.delenv(GRAD_ARCH_ENV, raising=False)
    assert grad_arch_for((9, 0), 128) == "sm_90a"
    assert grad_arch_for((9, 0), 64) == "sm_90a"
    assert grad_arch_for((9, 0), 96) == "sm_80"
    assert grad_arch_for((8, 0), 128) == "sm_80"
    assert grad_arch_for((10, 0), 128) == "sm_80"
    monkeypatch.setenv(GRAD_ARCH_ENV, "sm_80")
    assert grad_arch_for((9, 0), 128) == "sm_80"
    monkeypatch.setenv(GRAD_ARCH_ENV, "sm_90a")
    assert grad_arch_for((9, 0), 128) == "sm_90a"
    assert grad_arch_for((9, 0), 96) == "sm_80"
    assert grad_arch_for((8, 6), 128) == "sm_80"
    monkeypatch.setenv(GRAD_ARCH_ENV, "sm_100")
    with pytest.raises(ValueError, match="FATTN_GRAD_ARCH must be one of sm_80, sm_90a, "
                       "got 'sm_100'"):
        grad_arch_for((9, 0), 128)


def test_json_round_trip_and_descriptions():
    c = GradKernelConfig.make("f16", 96, window_left=64, window_right=32, softcap=20.0)
    assert config_from_json(c.to_json()) == c
    # "deterministic" as fattn-compile writes it: true, or absent.
    assert "deterministic" not in c.to_json()
    det = GradKernelConfig.make("bf16", 128, causal=True, arch="sm_90a", deterministic=True)
    assert det.to_json()["deterministic"] is True and config_from_json(det.to_json()) == det
    assert config_from_description(dict(det.to_json(), version=1, cubin="x.cubin", kernels=[],
                                        params=[])) == det
    assert config_from_json(c.to_json()) != KernelConfig.make("sm_80", "f16", 96)
    desc = dict(c.to_json(), version=1, cubin="x.cubin", kernels=[], params=[])
    assert config_from_description(desc) == c
    fwd = KernelConfig.make("sm_90a", "bf16", 128, causal=True, has_lse=True)
    assert config_from_json(fwd.to_json()) == fwd
    with pytest.raises(ValueError, match="not a backward description"):
        GradKernelConfig.from_description(dict(desc, kind="attention"))


def test_backward_of_a_forward_configuration():
    fwd = KernelConfig.make("sm_90a", "bf16", 128, causal=True, has_lse=True, scale=0.3)
    g = GradKernelConfig.for_forward(fwd)
    assert g == GradKernelConfig.make("bf16", 128, causal=True, scale=0.3)
    with pytest.raises(ValueError, match=r"e4m3 \(FP8\) attention has no backward"):
        check_grad_support(KernelConfig.make("sm_90a", "e4m3", 128))
    with pytest.raises(ValueError, match="one head dim for q, k and v; v has 128, q and k 192"):
        check_grad_support(KernelConfig.make("sm_90a", "bf16", 192, 128))
    with pytest.raises(ValueError, match="multiples of 16 up to 128, got 256"):
        check_grad_support(KernelConfig.make("sm_90a", "bf16", 256))


def test_mlir_of_a_backward_configuration():
    c = GradKernelConfig.make("bf16", 64, window_left=64, window_right=32, softcap=30.0,
                              scale=0.25)
    text = kernel_mlir(c)
    assert text == attention_grad_mlir(c)
    assert f"// fattn backward kernel configuration {c.key}" in text
    t = "memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>"
    lse = "memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>"
    assert f"%do: {t}, %lse: {lse}, %dq: {t}" in text
    assert (f"fattn.attention_grad ins(%q, %k, %v, %o, %do, %lse : {t}, {t}, {t}, {t}, {t}, "
            f"{lse})") in text
    assert f"outs(%dq, %dk, %dv : {t}, {t}, {t})" in text
    assert ("{scale = 0.25 : f32, window_left = 64 : i64, window_right = 32 : i64, "
            "softcap = 30.0 : f32}") in text
    causal_config = GradKernelConfig.make("f16", 128, causal=True)
    causal = attention_grad_mlir(causal_config)
    assert f"{{scale = {mlir_float(causal_config.scale)} : f32, causal = true}}" in causal
    assert "window" not in causal and "softcap" not in causal
    assert "deterministic" not in text and "deterministic" not in causal
    # The deterministic kernels: fattn.attention_grad's unit attribute, last.
    det = attention_grad_mlir(GradKernelConfig.make("bf16", 64, causal=True, softcap=30.0,
                                                    deterministic=True))
    assert "{scale = 0.125 : f32, causal = true, softcap = 30.0 : f32, deterministic}" in det
    assert "@fattn_bwd_grad_sm_80_bf16_d64_causal_" in det and "_det(" in det
    # The forward's .mlir is unchanged.
    assert "fattn.attention ins" in kernel_mlir(KernelConfig.make("sm_80", "bf16", 64))


def test_library_holds_backward_kernels(tmp_path):
    c = GradKernelConfig.make("bf16", 64, causal=True)
    desc = dict(c.to_json(), version=1, entry="bwd", cubin="bwd.cubin", params=[], kernels=[])
    lib = KernelLibrary(tmp_path / "lib")
    path = lib.add(c, write_compiled(tmp_path / "out", desc))
    assert lib.find(c) == path
    assert lib.reindex() == 1 and lib.find(c) == path
    other = GradKernelConfig.make("bf16", 64)
    with pytest.raises(LibraryError, match="window_right: wanted -1, description has 0"):
        lib.add(other, write_compiled(tmp_path / "out2", desc))
    fwd = KernelConfig.make("sm_80", "bf16", 64, causal=True)
    with pytest.raises(LibraryError, match="a GradKernelConfig's description for a KernelConfig"):
        lib.add(fwd, write_compiled(tmp_path / "out3", desc))
    # The deterministic kernels are another configuration, told apart by the description.
    det = GradKernelConfig.make("bf16", 64, causal=True, deterministic=True)
    with pytest.raises(LibraryError, match="deterministic: wanted True, description has False"):
        lib.add(det, write_compiled(tmp_path / "out4", desc))
    det_desc = dict(desc, deterministic=True)
    det_path = lib.add(det, write_compiled(tmp_path / "out5", det_desc))
    assert lib.find(det) == det_path and lib.find(c) == path
    assert lib.reindex() == 2 and lib.find(det) == det_path


def test_build_library_grad_configs(monkeypatch):
    configs = build_library.make_configs(
        build_library.parse_spec("dtype=bf16,head_dim=64|256,causal=1"), "sm_80", grad_all=True)
    keys = [c.key for c in configs]
    # The backward takes 64 (its forward then writes the LSE), not 256 (left as it was).
    assert keys == ["sm_80-bf16-d64x64-causal-wl-1-wr0-sc00000000-s3e000000-lse",
                    "grad-sm_80-bf16-d64-causal-wl-1-wr0-sc00000000-s3e000000",
                    "sm_80-bf16-d256x256-causal-wl-1-wr0-sc00000000-s3d800000-nolse"]
    with pytest.raises(ValueError, match="multiples of 16 up to 128, got 256"):
        build_library.make_configs(build_library.parse_spec("head_dim=256,grad=1"), "sm_80")
    # A forward that takes the softcap and the scale at launch; its backward
    # compiles the spec's values in.
    monkeypatch.setenv("FATTN_RUNTIME_SCALARS", "1")
    capped = build_library.make_configs(
        build_library.parse_spec("head_dim=64,causal=1,softcap=30,scale=0.5,grad=1"), "sm_80")
    assert [c.key for c in capped] == ["sm_80-bf16-d64x64-causal-wl-1-wr0-rt-softcap-lse",
                                       "grad-sm_80-bf16-d64-causal-wl-1-wr0-sc41f00000-s3f000000"]
    with pytest.raises(ValueError, match="pass the configuration with their values"):
        build_library.grad_of(capped[0])
    training = build_library.make_configs(build_library.PRESETS["training"](), "sm_80")
    grads = [c for c in training if isinstance(c, GradKernelConfig)]
    # Both archs' backwards: the sm_90a configurations' own (sm_90 GPUs run them) and
    # the sm_80 ones (everywhere else, and FATTN_GRAD_ARCH=sm_80).
    assert len(grads) == 32
    assert {c for c in grads if c.arch == "sm_90a"} == {
        dataclasses.replace(c, arch="sm_90a") for c in grads if c.arch == "sm_80"}
    # The deterministic backward of the bf16 configurations without a window.
    assert sorted((c.head_dim, c.causal) for c in grads
                  if c.deterministic and c.arch == "sm_80") == [
        (64, False), (64, True), (128, False), (128, True)]
    assert all(c.dtype == "bf16" and c.window_left == -1 for c in grads if c.deterministic)
    assert all(c.has_lse for c in training if isinstance(c, KernelConfig))
    assert {c.arch for c in training if isinstance(c, KernelConfig)} == {"sm_80", "sm_90a"}
    # An sm_90a configuration (or --grad-sm90a): the sm_90a backward beside each sm_80
    # one whose head dim it takes.
    both = build_library.make_configs(
        build_library.parse_spec("dtype=bf16,head_dim=64|96,grad=1"), "sm_90a")
    assert both == build_library.make_configs(
        build_library.parse_spec("dtype=bf16,head_dim=64|96,grad=1"), "sm_90a",
        grad_sm90a=True)
    assert [c.key for c in both if isinstance(c, GradKernelConfig)] == [
        "grad-sm_80-bf16-d64-full-wl-1-wr-1-sc00000000-s3e000000",
        "grad-sm_90a-bf16-d64-full-wl-1-wr-1-sc00000000-s3e000000",
        "grad-sm_80-bf16-d96-full-wl-1-wr-1-sc00000000-s3dd105ec"]
    # --grad-deterministic: the deterministic backward beside each of those.
    det = build_library.make_configs(
        build_library.parse_spec("dtype=bf16,head_dim=64,grad=1"), "sm_90a",
        grad_sm90a=True, grad_deterministic=True)
    assert [c.key for c in det if isinstance(c, GradKernelConfig)] == [
        "grad-sm_80-bf16-d64-full-wl-1-wr-1-sc00000000-s3e000000",
        "grad-sm_90a-bf16-d64-full-wl-1-wr-1-sc00000000-s3e000000",
        "grad-sm_80-bf16-d64-full-wl-1-wr-1-sc00000000-s3e000000-det",
        "grad-sm_90a-bf16-d64-full-wl-1-wr-1-sc00000000-s3e000000-det"]


def test_build_library_builds_backward_kernels(tmp_path, capsys):
    spec = "dtype=f16,head_dim=64,causal=0|1,grad=1"
    configs = build_library.make_configs(build_library.parse_spec(spec), "sm_80")
    tool = fake_compiler(tmp_path, configs)
    out = tmp_path / "lib"
    assert build_library.main(["-o", str(out), "--configs", spec, "--compiler", tool]) == 0
    assert "4 of 4 kernels" in capsys.readouterr().out
    assert all(KernelLibrary(out).find(c) for c in configs)


@pytest.mark.skipif(find_compiler() is None, reason="needs fattn-compile")
def test_fattn_compile_builds_the_configuration(tmp_path):
    """The .mlir compiles into the three kernels, whose description is the configuration's
    (the deterministic kernels' with their dQ counters)."""
    for c in (GradKernelConfig.make("bf16", 64, causal=True),
              GradKernelConfig.make("f16", 128, window_left=64, window_right=32, scale=0.1),
              GradKernelConfig.make("bf16", 128, causal=True, softcap=30.0, arch="sm_90a"),
              GradKernelConfig.make("bf16", 64, causal=True, deterministic=True),
              GradKernelConfig.make("bf16", 64, arch="sm_90a", deterministic=True)):
        try:
            out = compile_kernel(c, tmp_path / c.key)
        except CompileError as e:
            if "ptxas" in str(e):
                pytest.skip(f"fattn-compile cannot assemble here: {e}")
            raise
        desc = json.loads(next(out.glob("*.json")).read_text())
        assert config_from_description(desc) == c
        assert [k["role"] for k in desc["kernels"]] == ["preprocess", "main", "postprocess"]
        assert (out / desc["cubin"]).is_file() and (out / desc["ptx"]).is_file()
        semaphore = [p for p in desc["params"] if p["name"] == "dq_semaphore"]
        assert semaphore == ([{"name": "dq_semaphore", "type": "ptr"}] if c.deterministic else [])
        assert [w["name"] for w in desc["workspaces"]] == \
            ["delta", "dq_accum"] + (["dq_semaphore"] if c.deterministic else [])


@pytest.mark.parametrize("func", ["flash_attn_func", "flash_attn_qkvpacked_func",
                                  "flash_attn_kvpacked_func"])
def test_deterministic_training_goes_to_the_operator(monkeypatch, func):
    """deterministic=True with a gradient wanted no longer raises: the call goes
    to the operator (fattn::fwd, whose backward reads the flag), told to ask for
    the deterministic kernels (no torch: the operator and the tensors are stand-ins)."""
    calls = []

    def op_call(*args, need_lse=False, deterministic=False):
        calls.append((need_lse, deterministic))
        return "out"

    monkeypatch.setattr(interface, "_grad_wanted", lambda q, k, v: True)
    monkeypatch.setattr(interface, "_compiled_call", op_call)
    monkeypatch.setattr(interface, "_unpack", lambda name, packed, dim, count, layout:
                        [None] * count)
    args = {"flash_attn_func": (None, None, None), "flash_attn_qkvpacked_func": (None,),
            "flash_attn_kvpacked_func": (None, None)}[func]
    for deterministic in (True, False):
        assert getattr(fattn, func)(*args, deterministic=deterministic) == "out"
    assert calls == [(True, True), (True, False)]


def runtime_or_skip():
    """libfattn_runtime.so; on a machine without a CUDA driver, loaded against the
    toolkit's stub libcuda.so (nothing here calls the driver), else a skip."""
    try:
        return _runtime.load_library()
    except FileNotFoundError:
        pytest.skip("libfattn_runtime.so is not built")
    except OSError as e:
        if "libcuda" not in str(e):
            raise
    stubs = sorted(Path("/usr/local").glob("cuda*/lib*/stubs/libcuda.so"))
    if not stubs:
        pytest.skip("no CUDA driver and no stub libcuda.so to load the runtime against")
    ctypes.CDLL(str(stubs[-1]), mode=ctypes.RTLD_GLOBAL)
    return _runtime.load_library()


def grad_description(config: GradKernelConfig) -> dict:
    """A backward description as fattn-compile writes one for `config`
    (docs/KERNEL-ABI.md, "Backward"; the kernels' entries and sizes made up)."""
    params = [{"name": n, "type": "ptr"} for n in
              ("q", "k", "v", "o", "do", "lse", "dq", "dk", "dv", "delta", "dq_accum")]
    params += [{"name": n, "type": "u32"} for n in
               ("batch", "heads_q", "heads_kv", "seq_q", "seq_k")]
    params += [{"name": f"{t}_stride_{d}", "type": "u64"}
               for t in ("q", "k", "v", "o", "do", "dq", "dk", "dv") for d in "bhs"]
    params += [{"name": "lse_stride_b", "type": "u64"}, {"name": "lse_stride_h", "type": "u64"}]
    rows = ["batch", "heads_q", "seq_q"]
    workspaces = [{"name": "delta", "dtype": "f32", "shape": rows},
                  {"name": "dq_accum", "dtype": "f32", "shape": rows + [config.head_dim]}]
    if config.deterministic:
        params.append({"name": "dq_semaphore", "type": "ptr"})
        workspaces.append({"name": "dq_semaphore", "dtype": "u32", "shape": rows})
    per_q_tile = [["seq_q", 64], ["heads_q", 1], ["batch", 1]]
    kernels = [{"role": role, "entry": f"bwd_{role}", "grid": grid, "threads": 128,
                "dynamic_smem_bytes": 0}
               for role, grid in (("preprocess", per_q_tile),
                                  ("main", [["seq_k", 128], ["heads_kv", 1], ["batch", 1]]),
                                  ("postprocess", per_q_tile))]
    return dict(config.to_json(), version=1, cubin="bwd.cubin", block_m=64, block_n=128,
                params=params, workspaces=workspaces, kernels=kernels)


def load_grad_kernel(tmp_path, desc: dict):
    folder = tmp_path / f"kernel{len(list(tmp_path.iterdir()))}"
    folder.mkdir()
    (folder / "bwd.cubin").write_bytes(b"not loaded: no launch here")
    (folder / "bwd.json").write_text(json.dumps(desc))
    return _runtime.GradKernel(folder / "bwd.json")


def grad_tensors(b=2, sq=100, sk=300, hq=8, hkv=2, d=64):
    """q, k, v, o, do, lse, dq, dk, dv: BSHD storage as the runtime's logical
    [b, h, s, d] views (made-up aligned addresses)."""
    def bshd(address, s, h):
        return _runtime.TensorDesc.make(address, "bf16", (b, h, s, d), (s * h * d, d, h * d, 1))
    lse = _runtime.TensorDesc.make(0x60000, "f32", (b, hq, sq), (hq * sq, sq, 1))
    return [bshd(0x10000, sq, hq), bshd(0x20000, sk, hkv), bshd(0x30000, sk, hkv),
            bshd(0x40000, sq, hq), bshd(0x50000, sq, hq), lse, bshd(0x70000, sq, hq),
            bshd(0x80000, sk, hkv), bshd(0x90000, sk, hkv)]


def test_runtime_reads_deterministic_descriptions(tmp_path):
    """The runtime takes the deterministic kernels' description (the flag, the
    dq_semaphore parameter and its u32 workspace) and sizes the workspace with the
    counters after delta and dq_accum; each half alone is refused, naming it."""
    runtime_or_skip()
    plain = GradKernelConfig.make("bf16", 64, causal=True)
    det = GradKernelConfig.make("bf16", 64, causal=True, deterministic=True)
    tensors = grad_tensors()
    # delta [2, 8, 100] and dq_accum [2, 8, 100, 64] in f32, 6400 + 409600 bytes; the
    # counters [2, 8, 100] in u32 after them, 6400 more.
    assert load_grad_kernel(tmp_path, grad_description(plain)).workspace_bytes(tensors) == \
        416000
    assert load_grad_kernel(tmp_path, grad_description(det)).workspace_bytes(tensors) == \
        416000 + 6400
    # 7 rows: every workspace rounded up to 256 bytes.
    assert load_grad_kernel(tmp_path, grad_description(det)).workspace_bytes(
        grad_tensors(b=1, sq=7, hq=1, hkv=1)) == 256 + 1792 + 256
    without_param = grad_description(det)
    without_param["params"].pop()
    without_workspace = grad_description(det)
    without_workspace["workspaces"].pop()
    with_param = grad_description(plain)
    with_param["params"].append({"name": "dq_semaphore", "type": "ptr"})
    with_workspace = grad_description(plain)
    with_workspace["workspaces"].append(grad_description(det)["workspaces"][-1])
    for desc, message in [
            (without_param, '"params" has no "dq_semaphore" pointer ("deterministic" is true'),
            (without_workspace, '"workspaces" must have 3 entries (delta, dq_accum, '
                                'dq_semaphore) where "deterministic" is true, found 2'),
            (with_param, '"params" has a "dq_semaphore" pointer ("dq_semaphore" is for the '
                         'deterministic kernels only, and "deterministic" is not true)'),
            (with_workspace, '"workspaces" must have 2 entries (delta, dq_accum), found 3 '
                             '("dq_semaphore" is for the deterministic kernels only')]:
        with pytest.raises(_runtime.FAttnRuntimeError, match=re.escape(message)):
            load_grad_kernel(tmp_path, desc)


def test_missing_sm90a_backward_falls_back_to_sm80(monkeypatch):
    """An sm_90a backward kernel missing from the library (no compiler to make it):
    where the arch was the device's default, the sm_80 kernel runs instead, with one
    warning and one search; where the caller asked for sm_90a, the error stands."""
    from fattn import backward
    from fattn.kernels import KernelNotFoundError
    sm90a = GradKernelConfig.make("bf16", 128, True, arch="sm_90a")
    searched = []

    def get_kernel(config):
        searched.append(config.arch)
        if config.arch == "sm_90a":
            raise KernelNotFoundError(f"no fattn kernel for {config.key}")
        return f"kernel {config.key}"
    monkeypatch.setattr(backward, "get_kernel", get_kernel)
    monkeypatch.setattr(backward, "_stand_ins", {})
    with pytest.raises(KernelNotFoundError):
        backward.backward_kernel(sm90a, fallback=False)
    with pytest.warns(UserWarning, match="running the slower sm_80 backward kernel "
                      "grad-sm_80-bf16-d128-causal"):
        config, kernel = backward.backward_kernel(sm90a, fallback=True)
    assert config == dataclasses.replace(sm90a, arch="sm_80") and kernel.endswith(config.key)
    searched.clear()
    assert backward.backward_kernel(sm90a, fallback=True) == (config, kernel)
    assert searched == ["sm_80"]
