"""FP8 configurations, descale forms, value layouts, the generated MLIR and the fp8
preset (no GPU, no torch). flash_attn_func's fp8 argument checks on CPU tensors (torch
needed): test_cpu_fp8_validation.py and test_cpu_value_layout.py."""
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from fattn import build_library
from fattn.config import (VALUE_LAYOUT_SM90, KernelConfig, canonical_descale, descale_code,
                          runtime_scalars_wanted)
from fattn.descale import resolve_descale_form
from fattn.mlir_gen import attention_mlir
from fattn.presets import fp8_specs

REPO = Path(__file__).resolve().parents[2]
BLOCKS = ((3, 128), (3, 128), (3, 128))


def fp8(**kw):
    args = dict(arch="sm_90a", dtype="e4m3", head_dim_qk=128, descale=BLOCKS)
    args.update(kw)
    return KernelConfig.make(**args)


# ---------------------------------------------------------------------------
# Configurations and keys
# ---------------------------------------------------------------------------

def test_bf16_keys_and_json_are_unchanged():
    """Libraries built before fp8 keep finding their kernels."""
    c = KernelConfig.make("sm_80", "bf16", 128, causal=True, has_lse=True)
    assert c.key == "sm_80-bf16-d128x128-causal-wl-1-wr0-sc00000000-s3db504f3-lse"
    assert "descale" not in c.to_json() and c.descale is None and c.out_dtype == "bf16"
    assert KernelConfig.from_json(c.to_json()) == c


@pytest.mark.parametrize("spec,code", [
    (((0, 0), (0, 0), (0, 0)), "q0k0v0"), ("q2k2v2", "q2k2v2"),
    ({"q": {"rank": 3, "block": 64}, "k": {"rank": 3, "block": 128}, "v": {"rank": 2}},
     "q3b64k3b128v2"),
    ([[3, 128], [0, 0], [3, 128]], "q3b128k0v3b128")])
def test_descale_spellings_are_one_form(spec, code):
    form = canonical_descale(spec)
    assert descale_code(form) == code and canonical_descale(code) == form
    c = fp8(descale=spec)
    assert c.key.endswith("-ds" + code) and c == fp8(descale=code)
    assert KernelConfig.from_json(json.loads(json.dumps(c.to_json()))) == c


def test_every_descale_form_is_its_own_kernel():
    keys = {fp8(descale=d).key for d in ("q0k0v0", "q2k2v2", "q3b128k3b128v3b128",
                                         "q3b64k3b128v3b128", "q0k2v3b128")}
    keys.add(fp8(descale=None).key)
    assert len(keys) == 6
    assert fp8().out_dtype == "bf16" and fp8().dtype == "e4m3"


@pytest.mark.parametrize("kw,message", [
    (dict(dtype="bf16"), "descale factors are only for dtype 'e4m3', got 'bf16'"),
    (dict(descale="q1k0v0"), "the q descale rank must be 0, 2 or 3, got 1"),
    (dict(descale="q0k0"), "descale code must look like"),
    (dict(descale="q3k0v0"), "a per-block .rank 3. q descale needs a positive block, got 0"),
    (dict(descale="q2b64k0v0"), "the q descale has rank 2: a block .64. is only for rank 3"),
    (dict(descale="q0k3b128v3b64"), "per-block k and v descales share one block"),
    (dict(descale={"q": {"rank": 0}, "k": {"rank": 0}}), "descale must have the keys q, k, v"),
    (dict(descale={"q": {"rank": 0}, "k": {"rank": 0}, "v": {"rank": 2, "blk": 1}}),
     r"descale\['v'\] must be"),
    (dict(descale=((0, 0), (0, 0))), "descale must be three .rank, block. pairs"),
    (dict(descale=((0, 0), (0, 0), (2.0, 0))), "the v descale rank must be 0, 2 or 3"),
    (dict(descale=((3, True), (0, 0), (0, 0))), "the q descale block must be an int"),
])
def test_bad_descale_configs(kw, message):
    with pytest.raises(ValueError, match=message):
        fp8(**kw)


def description(c: KernelConfig, **override):
    d = {"version": 1, "arch": c.arch, "entry": "e", "cubin": "e.cubin", "dtype": c.dtype,
         "out_dtype": c.out_dtype, "head_dim_qk": c.head_dim_qk, "head_dim_v": c.head_dim_v,
         "scale": c.scale, "causal": c.causal, "window_left": c.window_left,
         "window_right": c.window_right, "softcap": c.softcap, "has_lse": c.has_lse,
         "descale": c.descale_json()}
    d.update(override)
    return d


def test_config_from_description():
    c = fp8(descale="q3b64k3b128v2", causal=True)
    assert c.descale_json() == {"q": {"rank": 3, "block": 64}, "k": {"rank": 3, "block": 128},
                                "v": {"rank": 2}}
    assert KernelConfig.from_description(description(c)) == c
    # A description without "descale" is a kernel without descale operands.
    d = description(c)
    del d["descale"]
    assert KernelConfig.from_description(d) == fp8(descale=None, causal=True)
    with pytest.raises(ValueError, match="out_dtype 'e4m3' is not fattn's for dtype 'e4m3'"):
        KernelConfig.from_description(description(c, out_dtype="e4m3"))
    with pytest.raises(TypeError, match="a kernel description is a JSON object"):
        KernelConfig.from_description([1, 2])


# ---------------------------------------------------------------------------
# V given pre-transposed (value_layout)
# ---------------------------------------------------------------------------

def test_value_layout_keys_and_json():
    c = fp8(value_layout=VALUE_LAYOUT_SM90, causal=True)
    assert VALUE_LAYOUT_SM90 == "transposed_wgmma_e4m3_k32"
    assert c.key == fp8(causal=True).key + "-vt" and c != fp8(causal=True)
    assert c.to_json()["value_layout"] == VALUE_LAYOUT_SM90
    assert KernelConfig.from_json(json.loads(json.dumps(c.to_json()))) == c
    # Without it: the exact key and JSON of before (libraries built earlier still match).
    plain = fp8(causal=True)
    assert plain.value_layout is None and "value_layout" not in plain.to_json()
    assert plain.key == "sm_90a-e4m3-d128x128-causal-wl-1-wr0-sc00000000-s3db504f3-nolse-" \
                        "dsq3b128k3b128v3b128"
    assert KernelConfig.from_json(plain.to_json()) == plain
    # Every descale form with and without it: all distinct kernels.
    keys = {fp8(descale=d, value_layout=vl).key for d in ("q0k0v0", "q2k2v2", None)
            for vl in (None, VALUE_LAYOUT_SM90)}
    assert len(keys) == 6


def test_value_layout_from_description():
    c = fp8(value_layout=VALUE_LAYOUT_SM90, descale="q0k0v0")
    d = description(c, value_layout=VALUE_LAYOUT_SM90)
    assert KernelConfig.from_description(d) == c
    del d["value_layout"]  # absent: V in the BSHD-derived [b, h, s, d] layout
    assert KernelConfig.from_description(d) == fp8(descale="q0k0v0")


@pytest.mark.parametrize("kw,message", [
    (dict(value_layout="transposed"), r"value_layout must be None or one of "
                                      r"\('transposed_wgmma_e4m3_k32',\), got 'transposed'"),
    (dict(dtype="bf16", descale=None, value_layout=VALUE_LAYOUT_SM90),
     "value_layout 'transposed_wgmma_e4m3_k32' is only for dtype 'e4m3', got 'bf16'"),
])
def test_bad_value_layouts(kw, message):
    with pytest.raises(ValueError, match=message):
        fp8(**kw)


def test_library_tells_a_value_layout_apart(tmp_path):
    """A BSHD-V kernel is not taken for a pre-transposed one, nor the reverse."""
    from fattn.library import KernelLibrary, LibraryError
    vt, plain = fp8(value_layout=VALUE_LAYOUT_SM90), fp8()
    out = tmp_path / "out"
    out.mkdir()
    (out / "e.json").write_text(json.dumps(description(vt, value_layout=VALUE_LAYOUT_SM90)))
    (out / "e.cubin").write_bytes(b"cubin")
    library = KernelLibrary(tmp_path / "lib")
    library.add(vt, out)
    assert library.find(vt) is not None and library.find(plain) is None
    assert library.reindex() == 1 and library.find(vt) is not None
    with pytest.raises(LibraryError, match="value_layout: wanted None, description has "
                                           "'transposed_wgmma_e4m3_k32'"):
        library.add(plain, out)


# ---------------------------------------------------------------------------
# flash_attn_func's descale forms, on shapes
# ---------------------------------------------------------------------------

Q, K = (2, 1000, 8, 128), (2, 77, 2, 128)  # GQA 8/2, seqlens 1000 and 77


def form(*shapes, bq=None, bkv=None):
    return resolve_descale_form(Q, K, shapes, bq, bkv)


def test_descale_forms_from_shapes():
    assert form(None, None, None) == ((0, 0),) * 3  # not given: 1, per tensor
    assert form((), (), ()) == ((0, 0),) * 3
    # Per KV head, q's too (FlashAttention-3's q_descale).
    assert form((2, 2), (2, 2), (2, 2)) == ((2, 0),) * 3
    # Per block: q [b, hq, ceil(1000 / 64)], k/v [b, hkv, ceil(77 / 128)].
    assert form((2, 8, 16), (2, 2, 1), (2, 2, 1), bq=64, bkv=128) == \
        ((3, 64), (3, 128), (3, 128))
    assert form((2, 8, 8), (), (2, 2, 1), bq=128, bkv=128) == ((3, 128), (0, 0), (3, 128))


@pytest.mark.parametrize("shapes,kw,exc,message", [
    (((2, 8), None, None), {}, ValueError,
     r"q_descale must have shape \[\] \(per tensor\), \[batch, heads_kv\] = \[2, 2\] or "
     r"\[batch, heads, ceil\(seqlen / descale_block_q\)\], got \[2, 8\]"),
    ((None, (2,), None), {}, ValueError, r"k_descale must have shape .* got \[2\]"),
    ((None, None, (2, 2, 1)), {}, ValueError,
     r"v_descale has shape \[2, 2, 1\], a per-block factor: pass descale_block_kv"),
    (((2, 8, 8), None, None), dict(bq=64), ValueError,
     r"q_descale must have shape .* = \[2, 8, 16\], got \[2, 8, 8\]"),
    ((None, (2, 8, 1), None), dict(bkv=128), ValueError,
     r"k_descale must have shape .*\[2, 2, 1\], got \[2, 8, 1\]"),
    ((None, None, None), dict(bq=64), ValueError,
     "descale_block_q=64 is only for a per-block q_descale"),
    ((None, (2, 2), ()), dict(bkv=128), ValueError,
     "descale_block_kv=128 is only for a per-block k_descale or v_descale"),
    ((None, None, None), dict(bq=0), ValueError, "descale_block_q must be positive, got 0"),
    ((None, None, None), dict(bkv=12.5), TypeError, "descale_block_kv must be an int"),
    ((None, None, None), dict(bq=True), TypeError, "descale_block_q must be an int"),
])
def test_bad_descale_shapes(shapes, kw, exc, message):
    with pytest.raises(exc, match=message):
        form(*shapes, **kw)


# ---------------------------------------------------------------------------
# The generated MLIR
# ---------------------------------------------------------------------------

def test_mlir_fp8_per_block():
    text = attention_mlir(fp8(descale="q3b64k3b128v3b128", causal=True))
    q8 = "memref<?x?x?x128xf8E4M3FN, strided<[?, ?, ?, 1], offset: ?>>"
    o = "memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>"
    d3 = "memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>"
    assert f"%q: {q8}, %k: {q8}, %v: {q8}, %o: {o}, %q_descale: {d3}, %k_descale: {d3}, " \
           f"%v_descale: {d3}) {{" in text
    assert f"fattn.attention ins(%q, %k, %v : {q8}, {q8}, {q8}) outs(%o : {o}) " \
           f"descale(%q_descale, %k_descale, %v_descale : {d3}, {d3}, {d3})" in text
    assert "causal = true, descale_block_q = 64 : i64, descale_block_kv = 128 : i64}" in text


def test_mlir_fp8_mixed_forms_and_lse():
    text = attention_mlir(fp8(descale="q0k2v3b128", has_lse=True, head_dim_qk=256))
    d0 = "memref<f32, strided<[], offset: ?>>"
    d2 = "memref<?x?xf32, strided<[?, ?], offset: ?>>"
    d3 = "memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>"
    assert f"lse(%lse : memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>) " \
           f"descale(%q_descale, %k_descale, %v_descale : {d0}, {d2}, {d3})" in text
    assert "descale_block_kv = 128 : i64}" in text and "descale_block_q" not in text
    assert "x256xf8E4M3FN" in text and "x256xbf16" in text


def test_mlir_fp8_without_descale():
    text = attention_mlir(fp8(descale=None))
    assert "descale" not in text and "f8E4M3FN" in text


def test_mlir_fp8_value_layout():
    c = fp8(descale="q0k2v3b128", head_dim_qk=128, head_dim_v=256, causal=True,
            value_layout=VALUE_LAYOUT_SM90)
    text = attention_mlir(c)
    q8 = "memref<?x?x?x128xf8E4M3FN, strided<[?, ?, ?, 1], offset: ?>>"
    vt = "memref<?x?x256x?xf8E4M3FN, strided<[?, ?, ?, 1], offset: ?>>"
    assert f"%q: {q8}, %k: {q8}, %v: {vt}, %o: " in text
    assert f"fattn.attention ins(%q, %k, %v : {q8}, {q8}, {vt}) outs(" in text
    assert 'descale_block_kv = 128 : i64, value_layout = "transposed_wgmma_e4m3_k32"}' in text
    assert text.count("value_layout") == 1 and c.key in text
    plain = attention_mlir(fp8(descale="q0k2v3b128", head_dim_v=256, causal=True))
    assert "value_layout" not in plain and "%v: memref<?x?x?x256xf8E4M3FN" in plain


def _fattn_opt():
    for candidate in (os.environ.get("FATTN_OPT"), shutil.which("fattn-opt"),
                      str(REPO / "build" / "bin" / "fattn-opt")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


@pytest.mark.parametrize("value_layout", [None, VALUE_LAYOUT_SM90], ids=["bshd", "vt"])
@pytest.mark.parametrize("descale", ["q0k0v0", "q2k2v2", "q3b64k3b128v3b128", "q0k2v3b128",
                                     "q3b1k3b1v2", None])
def test_mlir_fp8_parses_and_verifies(tmp_path, descale, value_layout):
    """The op's verifier accepts every form (types, ranks, block attributes, V's layout)."""
    opt = _fattn_opt()
    if opt is None:
        pytest.skip("needs fattn-opt (FATTN_OPT, PATH or build/bin)")
    src = tmp_path / "k.mlir"
    src.write_text(attention_mlir(fp8(descale=descale, causal=True, has_lse=True,
                                      value_layout=value_layout)))
    out = subprocess.run([opt, str(src)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "fattn.attention" in out.stdout


# ---------------------------------------------------------------------------
# The fp8 preset and build_library
# ---------------------------------------------------------------------------

def test_fp8_preset():
    configs = build_library.make_configs(fp8_specs(), "sm_80")
    assert len(configs) == 45 and len({c.key for c in configs}) == 45
    # One kernel tuned for short sequences: per-head factors, V^T, head dim
    # 128 without a mask (config.has_short_seqs_kernel).
    tuned = [c for c in configs if c.tuned_for is not None]
    assert [(c.head_dim_qk, c.causal, descale_code(c.descale), c.value_layout)
            for c in tuned] == [(128, False, "q2k2v2", VALUE_LAYOUT_SM90)]
    configs = [c for c in configs if c.tuned_for is None]
    assert {c.head_dim_qk for c in configs} == {128, 256}
    assert {c.causal for c in configs} == {False, True}
    for c in configs:
        assert c.arch == "sm_90a" and c.dtype == "e4m3" and c.descale is not None
        (rq, bq), (rk, bk), (rv, bv) = c.descale
        # The kernel's KV tile is 128 rows: per-block V factors cover whole tiles,
        # K's cover them or divide them.
        assert bv % 128 == 0 and (bk % 128 == 0 or 128 % bk == 0)
    bshd = [c for c in configs if c.value_layout is None]
    assert {descale_code(c.descale) for c in bshd} == {
        "q0k0v0", "q2k2v2", "q3b128k3b128v3b128", "q3b64k3b128v3b128", "q3b1k3b128v3b128",
        "q3b1k3b1v2", "q2k2v3b128"}
    # The pre-transposed V of `bench_fwd.py --dtype fp8` (--fp8-descale block, head,
    # tensor) and of test_gpu_fp8.py (per tensor, per block, V per block), for each head
    # dim and mask.
    vt = [c for c in configs if c.value_layout is not None]
    assert {c.value_layout for c in vt} == {VALUE_LAYOUT_SM90} and len(vt) == 16
    assert {(c.head_dim_qk, c.causal, descale_code(c.descale)) for c in vt} == {
        (d, causal, ds) for d in (128, 256) for causal in (False, True)
        for ds in ("q0k0v0", "q2k2v2", "q3b128k3b128v3b128", "q2k2v3b128")}
    assert all(fp8(head_dim_qk=c.head_dim_qk, causal=c.causal, descale=c.descale,
                   runtime_scalars=runtime_scalars_wanted()) in bshd for c in vt)


def test_build_library_descale_spec():
    dicts = build_library.parse_spec("dtype=e4m3,head_dim=128,descale=q0k0v0|q2k2v2|none")
    configs = build_library.make_configs(dicts, "sm_90a")
    assert [c.descale for c in configs] == [((0, 0),) * 3, ((2, 0),) * 3, None]
    with pytest.raises(ValueError, match="bad value 'q1k0v0' for 'descale'"):
        build_library.parse_spec("descale=q1k0v0")


def test_build_library_value_layout_spec():
    dicts = build_library.parse_spec("dtype=e4m3,head_dim=128,descale=q0k0v0,"
                                     "value_layout=transposed_wgmma_e4m3_k32|none")
    configs = build_library.make_configs(dicts, "sm_90a")
    assert [c.value_layout for c in configs] == [VALUE_LAYOUT_SM90, None]
    assert configs[0].key.endswith("-dsq0k0v0-vt")
    with pytest.raises(ValueError, match="bad value 'vt' for 'value_layout'"):
        build_library.parse_spec("value_layout=vt")
    with pytest.raises(ValueError, match="only for dtype 'e4m3'"):
        build_library.make_configs(build_library.parse_spec(
            "dtype=bf16,head_dim=128,value_layout=transposed_wgmma_e4m3_k32"), "sm_90a")


def test_library_indexes_fp8_kernels(tmp_path):
    """A compiled fp8 kernel is found by its descale form, and a description whose form
    differs from the configuration's is refused."""
    from fattn.library import KernelLibrary, LibraryError
    c = fp8(descale="q3b64k3b128v3b128", causal=True)
    out = tmp_path / "out"
    out.mkdir()
    (out / "e.json").write_text(json.dumps(description(c)))
    (out / "e.cubin").write_bytes(b"cubin")
    library = KernelLibrary(tmp_path / "lib")
    path = library.add(c, out)
    assert library.find(c) == path and library.find(fp8(descale="q0k0v0", causal=True)) is None
    index = json.loads((tmp_path / "lib" / "index.json").read_text())
    assert KernelConfig.from_json(index["kernels"][c.key]["config"]) == c
    assert library.reindex() == 1 and library.find(c) is not None
    (out / "e.json").write_text(json.dumps(description(fp8(descale="q0k0v0", causal=True))))
    with pytest.raises(LibraryError, match="descale: wanted"):
        library.add(c, out)
