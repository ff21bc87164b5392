"""Head dims each arch compiles, refused up front (no GPU, no torch).

flash_attn_func and build_library refuse a head dim that fattn-compile does not
compile for the arch (config.check_head_dims) before any lookup or compile, with
the compiler's rule read from fattn/tuning.json ("head_dims", fattn-compile
--print-tuning; include/fattn/Dialect/FAttn/Utils/HeadDims.h).
"""
import subprocess

import pytest

from fattn import config as cfg
from fattn.build_library import make_configs
from fattn.compiler import find_compiler
from fattn.config import KernelConfig, check_head_dims, head_dim_rule
from fattn.mlir_gen import attention_mlir


def config(arch, dtype, d, dv=None, **kw):
    if dtype == "e4m3":
        kw.setdefault("descale", "q0k0v0")
    return KernelConfig.make(arch, dtype, d, dv, **kw)


@pytest.mark.parametrize("arch,dtype,d,dv", [
    ("sm_80", "bf16", 64, None), ("sm_80", "f16", 96, None), ("sm_80", "bf16", 256, None),
    ("sm_80", "bf16", 48, None), ("sm_80", "f16", 240, None),
    # sm_80 multiples of 8 that are not of 16 (a last k-step of 8 columns).
    ("sm_80", "bf16", 40, None), ("sm_80", "f16", 72, None), ("sm_80", "bf16", 248, None),
    ("sm_80", "bf16", 136, 200), ("sm_80", "f16", 128, 72),
    ("sm_90a", "bf16", 40, None), ("sm_90a", "f16", 200, None), ("sm_90a", "bf16", 256, None),
    ("sm_90a", "e4m3", 128, None), ("sm_90a", "e4m3", 256, None),
    # V's head dim differing (MLA's 192/128): 16 bits on both archs, by the same rule.
    ("sm_90a", "bf16", 192, 128), ("sm_90a", "f16", 64, 256), ("sm_90a", "bf16", 40, 72),
    ("sm_80", "bf16", 192, 128), ("sm_80", "f16", 64, 256),
    # sm_80's smallest head dim, 16, beside one of up to 240; sm_90a takes 8 and any pair.
    ("sm_80", "bf16", 16, None), ("sm_80", "bf16", 16, 240), ("sm_80", "f16", 240, 16),
    ("sm_80", "bf16", 24, 256), ("sm_90a", "bf16", 8, None), ("sm_90a", "bf16", 16, 256),
    # Archs the compiler's tables do not name are left to the compiler.
    ("sm_100a", "bf16", 80, 64),
])
def test_taken(arch, dtype, d, dv):
    check_head_dims(config(arch, dtype, d, dv))


@pytest.mark.parametrize("arch,dtype,d,dv,message", [
    ("sm_80", "bf16", 36, None,
     r"head_dim 36 is not supported on sm_80 with bf16 inputs: sm_80 takes head dims "
     r"multiples of 8 from 16 up to 256$"),
    ("sm_80", "f16", 264, None,
     r"head_dim 264 .* sm_80 takes head dims multiples of 8 from 16 up to 256"),
    # sm_80's tiles of 64 keys (32 beside head dims of 248 and 256) split into the copies
    # of 128 threads from head dim 16 (24 beside 248 and 256).
    ("sm_80", "bf16", 8, None,
     r"head_dim 8 is not supported on sm_80 with bf16 inputs: sm_80 takes head dims "
     r"multiples of 8 from 16 up to 256$"),
    ("sm_80", "f16", 64, 8, r"head_dim_v 8 is not supported on sm_80 .* from 16 up to 256$"),
    ("sm_80", "bf16", 16, 256,
     r"head_dim 16 with head_dim_v 256 is not supported on sm_80 with bf16 inputs: sm_80 "
     r"takes a head dim of 16 or less only with one of at most 240$"),
    ("sm_80", "f16", 248, 16, r"head_dim 248 with head_dim_v 16 is not supported on sm_80"),
    ("sm_90a", "bf16", 36, None,
     r"head_dim 36 is not supported on sm_90a with bf16 inputs: sm_90a takes head dims "
     r"multiples of 8 up to 256$"),
    ("sm_90a", "f16", 264, None, r"head_dim 264 .* multiples of 8 up to 256"),
    ("sm_90a", "e4m3", 64, None,
     r"head_dim 64 is not supported on sm_90a with e4m3 inputs: sm_90a takes head dims "
     r"multiples of 128 up to 256$"),
    ("sm_90a", "e4m3", 192, None, r"head_dim 192 .* multiples of 128 up to 256"),
    # V's head dim differing: the 16-bit kernels take any V head dim of the rule;
    # e4m3 needs it equal to Q's.
    ("sm_90a", "bf16", 192, 132,
     r"head_dim_v 132 is not supported on sm_90a with bf16 inputs: sm_90a takes head dims "
     r"multiples of 8 up to 256$"),
    ("sm_90a", "f16", 128, 264, r"head_dim_v 264 is not supported on sm_90a"),
    ("sm_80", "bf16", 128, 68,
     r"head_dim_v 68 is not supported on sm_80 with bf16 inputs: sm_80 takes head dims "
     r"multiples of 8 from 16 up to 256$"),
    ("sm_90a", "e4m3", 256, 128,
     r"head_dim_v 128 differs from head_dim 256: sm_90a takes V's head dim equal to Q's and "
     r"K's with e4m3 inputs"),
    # Q's head dim first.
    ("sm_90a", "bf16", 36, 128, r"head_dim 36 is not supported"),
    ("sm_80", "e4m3", 128, None, r"sm_80 has no e4m3 kernels \(it takes bf16, f16\)"),
])
def test_refused(arch, dtype, d, dv, message):
    with pytest.raises(ValueError, match=message):
        check_head_dims(config(arch, dtype, d, dv))


def test_the_rule_comes_from_the_tuning_file(monkeypatch):
    """No head dim restated in Python: another file, other answers."""
    tables = {"version": 1, "sm_80": {"head_dims": [
        {"dtypes": ["bf16"], "granule": 48, "max": 48, "value_may_differ": True},
        {"dtypes": ["f16"], "granule": 24, "max": 96, "value_may_differ": False}]}}
    monkeypatch.setattr(cfg, "tuning_tables", lambda: tables)
    check_head_dims(config("sm_80", "bf16", 48))
    check_head_dims(config("sm_80", "bf16", 48, 48))
    with pytest.raises(ValueError, match=r"head_dim 64 .* sm_80 takes head dims multiples of 48 up "
                                         r"to 48$"):
        check_head_dims(config("sm_80", "bf16", 64))
    with pytest.raises(ValueError, match=r"head_dim_v 40 is not supported on sm_80 .* 48 up to 48$"):
        check_head_dims(config("sm_80", "bf16", 48, 40))
    check_head_dims(config("sm_80", "f16", 72))
    with pytest.raises(ValueError, match=r"multiples of 24 up to 96$"):
        check_head_dims(config("sm_80", "f16", 120))
    with pytest.raises(ValueError, match="head_dim_v 48 differs from head_dim 72"):
        check_head_dims(config("sm_80", "f16", 72, 48))
    assert head_dim_rule("sm_90a", "bf16") is None  # no rule for sm_90a in this file
    check_head_dims(config("sm_90a", "bf16", 36))


def test_rules_of_the_shipped_file():
    for arch, dtypes in (("sm_80", ("bf16", "f16")), ("sm_90a", ("bf16", "f16", "e4m3"))):
        for dtype in dtypes:
            rule = head_dim_rule(arch, dtype)
            assert rule is not None and {"granule", "max"} <= set(rule)
    assert head_dim_rule("sm_80", "e4m3") is None


def test_build_library_refuses_before_compiling():
    with pytest.raises(ValueError, match="head_dim 36 is not supported on sm_80"):
        make_configs([dict(head_dim_qk=36, head_dim_v=36)], "sm_80")
    assert make_configs([dict(head_dim_qk=72, head_dim_v=72)], "sm_80")


@pytest.mark.parametrize("arch,dtype,d,dv", [
    ("sm_80", "bf16", 36, None), ("sm_80", "f16", 128, 68), ("sm_80", "bf16", 8, None),
    ("sm_80", "bf16", 16, 256), ("sm_80", "f16", 248, 16), ("sm_90a", "bf16", 36, None),
    ("sm_90a", "bf16", 264, None), ("sm_90a", "bf16", 192, 132), ("sm_90a", "e4m3", 64, None),
    ("sm_90a", "e4m3", 256, 128),
])
def test_the_compiler_refuses_them_too(tmp_path, arch, dtype, d, dv):
    """What Python refuses, fattn-compile refuses with its own diagnostic."""
    compiler = find_compiler()
    if compiler is None:
        pytest.skip("needs fattn-compile (FATTN_COMPILE, PATH or build/bin)")
    c = config(arch, dtype, d, dv)
    with pytest.raises(ValueError):
        check_head_dims(c)
    src = tmp_path / "a.mlir"
    src.write_text(attention_mlir(c), encoding="utf-8")
    proc = subprocess.run([compiler, str(src), "--arch", arch, "--emit", "json", "-o",
                           str(tmp_path / "out")], capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0
    assert f"op {arch} needs " in proc.stderr, proc.stderr[:2000]


@pytest.mark.parametrize("arch,shapes", [
    # S = Q K^T on 64-key tiles, P V on V's 128 columns: the wgmma shapes.
    ("sm_90a", ("wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16",
                "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16")),
    ("sm_80", ("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",)),
])
def test_the_compiler_takes_what_python_takes(tmp_path, arch, shapes):
    """V's head dim differing (MLA's 192/128): Python lets it through and
    fattn-compile builds it."""
    compiler = find_compiler()
    if compiler is None:
        pytest.skip("needs fattn-compile (FATTN_COMPILE, PATH or build/bin)")
    c = config(arch, "bf16", 192, 128, causal=True)
    check_head_dims(c)
    src = tmp_path / "a.mlir"
    src.write_text(attention_mlir(c), encoding="utf-8")
    proc = subprocess.run([compiler, str(src), "--arch", arch, "--block-n", "64", "--emit",
                           "ptx", "-o", str(tmp_path / "a.ptx")], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr[:2000]
    ptx = (tmp_path / "a.ptx").read_text()
    for shape in shapes:
        assert shape in ptx


def test_the_sweep_covers_sm80_multiples_of_8():
    """The head-dims preset (the GPU sweep) takes every sm_80 head dim of the rule
    from 32 that gpu-tests leaves out, the multiples of 8 that are not of 16 among
    them, and those with f16, every mask, the softcap and V's head dim differing."""
    from fattn.presets import PRESETS, TEST_HEAD_DIMS, TEST_MASKS
    specs = [s for s in PRESETS["head-dims"]() if s["arch"] == "sm_80"]
    dims = {s["head_dim_qk"] for s in specs if s["head_dim_v"] == s["head_dim_qk"]}
    assert dims == set(range(32, 257, 8)) - set(TEST_HEAD_DIMS)
    assert {40, 56, 72, 248} <= dims
    masks = {(s.get("causal", False), s.get("window_left", -1), s.get("window_right", -1))
             for s in specs if s["head_dim_qk"] == 72 and s["dtype"] == "f16"}
    assert masks == set(TEST_MASKS)
    assert any(s.get("softcap", 0) > 0 and s["head_dim_qk"] == 248 for s in specs)
    pairs = {(s["head_dim_qk"], s["head_dim_v"]) for s in specs
             if s["head_dim_qk"] != s["head_dim_v"]}
    assert {(40, 72), (72, 40), (248, 128), (128, 248)} <= pairs
    for spec in specs:
        check_head_dims(config("sm_80", spec["dtype"], spec["head_dim_qk"], spec["head_dim_v"]))
