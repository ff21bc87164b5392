"""Configurations, cache keys and the generated MLIR (no GPU, no torch)."""
import math

import pytest

from fattn.build_library import make_configs
from fattn.config import (RUNTIME_SOFTCAP, VALUE_LAYOUT_SM90, KernelConfig, default_arch,
                          per_head_routing, short_seqs_tuning)
from fattn.mlir_gen import attention_mlir, mlir_float

VT = VALUE_LAYOUT_SM90


def make(**kw):
    args = dict(arch="sm_80", dtype="bf16", head_dim_qk=128)
    args.update(kw)
    return KernelConfig.make(**args)


def test_defaults():
    c = make()
    assert c.head_dim_v == 128 and not c.causal and not c.has_lse
    assert (c.window_left, c.window_right, c.softcap) == (-1, -1, 0.0)
    assert c.scale == pytest.approx(1 / math.sqrt(128), rel=1e-7)


def test_keys_are_canonical():
    # Negative windows are unbounded; causal implies window_right = 0; a right window of 0
    # is causal; a default scale equals the explicit 1/sqrt(d).
    assert make(window_left=-5, window_right=-2) == make()
    assert make(causal=True, window_right=7) == make(causal=True)
    assert make(window_right=0) == make(causal=True)
    assert make(window_left=128, window_right=0) == make(causal=True, window_left=128)
    assert make(scale=1 / math.sqrt(128)) == make()
    assert make().key == make(scale=1 / math.sqrt(128)).key


@pytest.mark.parametrize("field,a,b", [
    ("arch", "sm_80", "sm_90a"), ("dtype", "bf16", "f16"), ("head_dim_qk", 64, 128),
    ("head_dim_v", 64, 128), ("causal", False, True), ("window_left", -1, 64),
    ("softcap", 0.0, 30.0), ("scale", 0.1, 0.2), ("has_lse", False, True),
    ("tuned_for", None, "short_seqs")])
def test_every_field_changes_the_key(field, a, b):
    assert make(**{field: a}).key != make(**{field: b}).key


def test_scale_key_is_float32_exact():
    # Two doubles that round to one float32 are one kernel.
    assert make(scale=0.1).key == make(scale=0.1 + 1e-12).key
    assert "/" not in make().key and " " not in make().key


@pytest.mark.parametrize("kw,message", [
    (dict(dtype="fp8"), "dtype must be one of"),
    (dict(arch="ampere"), "arch must look like"),
    (dict(head_dim_qk=0), "head_dim_qk must be an integer"),
    (dict(head_dim_v=2048), "head_dim_v must be an integer"),
    (dict(scale=-1.0), "softmax_scale must be a positive finite number"),
    (dict(scale=float("nan")), "softmax_scale must be a positive finite number"),
    (dict(softcap=-3.0), "softcap must be a finite number >= 0"),
])
def test_bad_configs(kw, message):
    with pytest.raises(ValueError, match=message):
        make(**kw)


def test_tuned_for():
    short = make(causal=True, tuned_for="short_seqs")
    assert short.key == make(causal=True).key + "-short_seqs"
    assert KernelConfig.from_json(short.to_json()) == short
    assert "tuned_for" not in make().to_json()  # older indexes' exact form
    with pytest.raises(ValueError, match="tuned_for must be None or one of"):
        make(tuned_for="long")
    # A description says it in its meta (fattn-compile --short-seqs).
    desc = dict(make(causal=True).to_json(), meta={"tuned_for": "short_seqs"})
    assert KernelConfig.from_description(desc) == short
    assert KernelConfig.from_description(dict(desc, meta={"stages": 2})) == make(causal=True)
    with pytest.raises(TypeError, match="meta is a JSON object"):
        KernelConfig.from_description(dict(desc, meta=[1]))


@pytest.mark.parametrize("kw,sq,sk,short", [
    (dict(dtype="bf16"), 4096, 4096, True),
    (dict(dtype="f16", has_lse=True), 1, 17, True),
    (dict(dtype="bf16"), 4097, 4096, False),          # too long
    (dict(dtype="bf16"), 1000, 4097, False),
    # Without a mask: 128-key tiles up to 1024 only (slower from 2k).
    (dict(dtype="bf16", causal=False), 1000, 1000, True),
    (dict(dtype="f16", causal=False, has_lse=True, head_dim_qk=112), 1024, 17, True),
    (dict(dtype="bf16", causal=False), 1025, 1000, False),
    (dict(dtype="f16", causal=False, has_lse=True), 4096, 2048, False),
    (dict(dtype="bf16", causal=False), 8192, 8192, False),
    (dict(dtype="bf16", causal=False, softcap=30.0), 1000, 1000, False),
    (dict(dtype="bf16", causal=False, window_left=64, window_right=32), 1000, 1000, False),
    (dict(dtype="bf16", window_left=64), 1000, 1000, False),
    (dict(dtype="bf16", softcap=30.0), 1000, 1000, False),
    (dict(dtype="bf16", head_dim_qk=96), 1000, 1000, False),
    # Head dims up to 64, causal: two consumer warpgroups, up to 1024 only.
    (dict(dtype="bf16", head_dim_qk=64), 1000, 1000, True),
    (dict(dtype="f16", head_dim_qk=32, has_lse=True), 1024, 1024, True),
    (dict(dtype="bf16", head_dim_qk=64), 1025, 1000, False),
    (dict(dtype="bf16", head_dim_qk=64), 1000, 2048, False),
    (dict(dtype="bf16", head_dim_qk=64, causal=False), 1000, 1000, False),
    (dict(dtype="bf16", head_dim_qk=64, softcap=30.0), 1000, 1000, False),
    (dict(dtype="bf16", head_dim_qk=64, window_left=64), 1000, 1000, False),
    (dict(dtype="bf16", head_dim_qk=80), 1000, 1000, False),
    (dict(dtype="bf16", arch="sm_80"), 1000, 1000, False),
    (dict(dtype="e4m3", descale="q0k0v0"), 1000, 1000, False),
    # FP8 with V^T without a mask: two stages and O by TMA stores.
    (dict(dtype="e4m3", causal=False, descale="q2k2v2", value_layout=VT), 4096, 4096, True),
    (dict(dtype="e4m3", causal=False, descale="q2k0v2", value_layout=VT), 1, 300, True),
    # Two or three per-tensor descales (or none): the kernel would spill;
    # flash_attn_func runs all-per-tensor ones on the per-head kernel.
    (dict(dtype="e4m3", causal=False, descale="q0k2v0", value_layout=VT), 1, 300, False),
    (dict(dtype="e4m3", causal=False, descale="q0k0v0", value_layout=VT), 1, 300, False),
    (dict(dtype="e4m3", causal=False, value_layout=VT), 2048, 2048, False),
    (dict(dtype="e4m3", causal=False, descale="q3b1k3b128v3b128", value_layout=VT), 2048,
     2048, False),                                    # per-block K: other tiles
    (dict(dtype="e4m3", causal=False, descale="q2k2v3b128", value_layout=VT), 2048,
     2048, False),                                    # per-block V too
    (dict(dtype="e4m3", causal=False, descale="q3b128k2v2", value_layout=VT), 2048, 2048,
     True),
    (dict(dtype="e4m3", causal=False, descale="q2k2v2", value_layout=VT), 4096, 4097, False),
    (dict(dtype="e4m3", causal=False, descale="q2k2v2"), 2048, 2048, False),  # V by rows
    (dict(dtype="e4m3", descale="q2k2v2", value_layout=VT), 2048, 2048, False),  # causal
    (dict(dtype="e4m3", causal=False, window_left=64, descale="q2k2v2", value_layout=VT),
     2048, 2048, False),
    (dict(dtype="e4m3", causal=False, descale="q2k2v2", value_layout=VT, has_lse=True), 2048,
     2048, False),
    (dict(dtype="e4m3", causal=False, descale="q2k2v2", value_layout=VT, head_dim_qk=256),
     2048, 2048, False)])
def test_short_seqs_tuning(kw, sq, sk, short, monkeypatch):
    args = dict(arch="sm_90a", head_dim_qk=128, causal=True)
    args.update(kw)
    config = KernelConfig.make(**args)
    tuned = short_seqs_tuning(config, sq, sk)
    assert tuned.tuned_for == ("short_seqs" if short else None)
    assert tuned == (KernelConfig.make(**args, tuned_for="short_seqs") if short else config)
    monkeypatch.setenv("FATTN_SHORT_SEQS", "0")
    assert short_seqs_tuning(config, sq, sk) == config


@pytest.mark.parametrize("kw, routed", [
    (dict(), True),
    (dict(has_lse=True), True),
    (dict(value_layout="transposed_wgmma_e4m3_k32"), True),
    (dict(scale=0.5), True),
    (dict(causal=True), False),                       # measured -0.3 to +1.3%
    (dict(window_left=64, window_right=32), False),
    (dict(softcap=30.0), False),
    (dict(head_dim_qk=256), False),                   # measured +-0.4%
    (dict(head_dim_qk=64), False),
    (dict(head_dim_qk=128, head_dim_v=64), False),
    (dict(descale="q2k2v2"), False),                  # already per (batch, head)
    (dict(descale="q0k2v0"), False),                  # mixed forms keep their kernel
    (dict(descale="q3b128k3b128v3b128"), False),
    (dict(dtype="bf16", descale=None), False),
    (dict(arch="sm_80", dtype="bf16", descale=None), False)])
def test_per_head_routing(kw, routed, monkeypatch):
    monkeypatch.delenv("FATTN_PER_TENSOR_KERNELS", raising=False)
    args = dict(arch="sm_90a", dtype="e4m3", head_dim_qk=128, descale="q0k0v0")
    args.update(kw)
    config = KernelConfig.make(**args)
    got = per_head_routing(config)
    if not routed:
        assert got is None
        return
    assert got == KernelConfig.make(**dict(args, descale="q2k2v2"))
    monkeypatch.setenv("FATTN_PER_TENSOR_KERNELS", "1")
    assert per_head_routing(config) is None


@pytest.mark.parametrize("runtime", [False, True])
def test_libraries_get_the_short_seqs_kernels(monkeypatch, runtime):
    # Libraries hold the kernels flash_attn_func asks for: the scale and the
    # softcap compiled in, or with FATTN_RUNTIME_SCALARS=1 taken at launch.
    if runtime:
        monkeypatch.setenv("FATTN_RUNTIME_SCALARS", "1")
    configs = make_configs([dict(head_dim_qk=128, causal=True), dict(head_dim_qk=128),
                            dict(head_dim_qk=256), dict(head_dim_qk=128, causal=True)],
                           "sm_90a")
    base = KernelConfig.make("sm_90a", "bf16", 128, causal=True, runtime_scalars=runtime)
    full = KernelConfig.make("sm_90a", "bf16", 128, runtime_scalars=runtime)
    wide = KernelConfig.make("sm_90a", "bf16", 256, runtime_scalars=runtime)  # no tuned kernel
    assert configs == [base, short_seqs_tuning(base, 1, 1), full, short_seqs_tuning(full, 1, 1),
                       wide]
    assert short_seqs_tuning(wide, 1, 1) == wide


def test_json_round_trip():
    c = make(causal=True, window_left=32, softcap=50.0, has_lse=True, head_dim_v=64)
    assert KernelConfig.from_json(c.to_json()) == c


def test_default_arch(monkeypatch):
    monkeypatch.delenv("FATTN_ARCH", raising=False)
    monkeypatch.delenv("FATTN_ENABLE_SM90", raising=False)
    assert default_arch((8, 0)) == "sm_80"
    assert default_arch((8, 9)) == "sm_80"
    monkeypatch.setenv("FATTN_ENABLE_SM90", "1")
    assert default_arch((9, 0)) == "sm_90a"
    assert default_arch((8, 6)) == "sm_80"
    monkeypatch.setenv("FATTN_ARCH", "sm_90")
    assert default_arch((9, 0)) == "sm_90"


@pytest.mark.parametrize("x,text", [(0.125, "0.125"), (30.0, "30.0"), (1e-05, "1.0e-05"),
                                    (1e20, "1.0e+20"), (2.5e-07, "2.5e-07")])
def test_mlir_float_always_has_a_point(x, text):
    assert mlir_float(x) == text
    assert float(mlir_float(x)) == x


def test_mlir_full_form():
    text = attention_mlir(make(causal=True, window_left=128, softcap=30.0, has_lse=True,
                               scale=0.125))
    mem = "memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>"
    lse = "memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>"
    assert f"(%q: {mem}, %k: {mem}, %v: {mem}, %o: {mem}, %lse: {lse}) {{" in text
    assert f"fattn.attention ins(%q, %k, %v : {mem}, {mem}, {mem}) outs(%o : {mem}) " \
           f"lse(%lse : {lse})" in text
    assert "{scale = 0.125 : f32, causal = true, window_left = 128 : i64, " \
           "softcap = 30.0 : f32}" in text
    assert text.count("func.func @fattn_fwd_") == 1 and "  return\n}" in text


def test_mlir_minimal_form():
    text = attention_mlir(make(dtype="f16", head_dim_qk=64, head_dim_v=96))
    op = text[text.index("fattn.attention"):]
    assert "lse" not in op and "%lse" not in text and "causal" not in op and "window" not in op
    assert "softcap" not in op and "scale = 0.125 : f32" in text
    assert "%v: memref<?x?x?x96xf16," in text and "%k: memref<?x?x?x64xf16," in text


def test_mlir_windows():
    text = attention_mlir(make(window_left=3, window_right=5))
    assert "window_left = 3 : i64, window_right = 5 : i64" in text and "causal" not in text
    text = attention_mlir(make(window_right=5))
    assert "window_left" not in text and "window_right = 5 : i64" in text


def test_runtime_scalars_key_holds_no_value():
    """One kernel serves every scale and softcap: the key says only whether
    there is a softcap, and the values are canonical."""
    rt = lambda **kw: make(runtime_scalars=True, **kw)  # noqa: E731
    assert rt(scale=0.1) == rt(scale=0.3) == rt()
    assert rt(softcap=30.0) == rt(softcap=5.0) != rt()
    assert rt().key.endswith("-rt-nolse") and rt(softcap=5.0).key.endswith("-rt-softcap-nolse")
    assert rt().key != make().key
    assert rt(softcap=5.0).softcap == RUNTIME_SOFTCAP and rt().scale == make().scale
    assert KernelConfig.from_json(rt(softcap=5.0).to_json()) == rt(softcap=5.0)
    assert "runtime_scalars" not in make().to_json()
    # A description with "runtime_scalars" (its softcap 0: the caller's).
    desc = {"arch": "sm_80", "dtype": "bf16", "head_dim_qk": 128, "head_dim_v": 128,
            "causal": True, "window_left": -1, "window_right": 0, "softcap": 0.0,
            "scale": 0.0883883461, "has_lse": False, "runtime_scalars": ["scale", "softcap"]}
    assert KernelConfig.from_description(desc) == rt(causal=True, softcap=30.0)
    desc["runtime_scalars"] = ["scale"]
    assert KernelConfig.from_description(desc) == rt(causal=True)
