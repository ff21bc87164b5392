"""fattn against a float64 reference on fresh random inputs (run on the GPU machine).

Each case: output (and LSE) poisoned with NaN, the kernel launched, the relative L2
error checked against BOUND_FACTOR x the SDPA-class baseline's on the same inputs
(gpu_support.baseline) plus ABS_FLOOR; rows that see no key must give O = 0 and
LSE = -inf. Kernels come from FATTN_KERNEL_DIR / fattn-compile; a missing kernel
skips the case unless FATTN_REQUIRE_KERNELS=1. FATTN_TEST_BACKEND=naive runs the
suite on naive nvcc-built kernels instead (checks the runtime and this harness).
"""
import json
import math
import os
import re
import subprocess
from concurrent.futures import ThreadPoolExecutor

import pytest

torch = pytest.importorskip("torch")

from gpu_support import (ABS_FLOOR, BOUND_FACTOR, TORCH_DTYPES, baseline, config_for,  # noqa
                         backend, cuda_tool, ensure_kernel, make_bshd, new_generator, reference,
                         rel_l2, visible)
import fattn  # noqa: E402
from fattn._runtime import TensorDesc  # noqa: E402
from fattn.presets import TEST_DTYPES, TEST_HEAD_DIMS  # noqa: E402

pytestmark = pytest.mark.gpu

SEQLENS = [(1, 1), (17, 17), (113, 113), (1000, 1000), (2049, 2049), (17, 2049), (2049, 1000),
           (113, 17)]


def run_case(dtype="bf16", d=128, dv=None, b=2, hq=8, hk=None, sq=113, sk=113, causal=False,
             window=(-1, -1), softcap=0.0, scale=None, lse=False, layout="bshd",
             out_layout="bshd", short_seqs=True):
    """Runs one case and checks it; returns the errors for the caller's own checks.
    short_seqs=False runs the default kernel where flash_attn_func would take the
    one tuned for short sequences (FATTN_SHORT_SEQS=0)."""
    if not short_seqs:
        saved = os.environ.get("FATTN_SHORT_SEQS")
        os.environ["FATTN_SHORT_SEQS"] = "0"
        try:
            return run_case(dtype, d, dv, b, hq, hk, sq, sk, causal, window, softcap, scale,
                            lse, layout, out_layout)
        finally:
            if saved is None:
                del os.environ["FATTN_SHORT_SEQS"]
            else:
                os.environ["FATTN_SHORT_SEQS"] = saved
    gen = new_generator()
    dt = TORCH_DTYPES[dtype]
    hk = hk or hq
    dv = dv or d
    q = make_bshd(b, sq, hq, d, dt, layout, gen)
    k = make_bshd(b, sk, hk, d, dt, layout, gen)
    v = make_bshd(b, sk, hk, dv, dt, layout, gen)
    ensure_kernel(config_for(q, k, v, causal, window, softcap, scale, lse))

    out = make_bshd(b, sq, hq, dv, dt, out_layout, gen).fill_(float("nan"))
    lse_out = torch.full((b, hq, sq), float("nan"), device="cuda") if lse else None
    result = fattn.flash_attn_func(q, k, v, softmax_scale=scale, causal=causal,
                                   window_size=window, softcap=softcap, return_lse=lse, out=out,
                                   lse_out=lse_out)
    torch.cuda.synchronize()
    o = result[0] if lse else result
    assert o.data_ptr() == out.data_ptr()

    eff_scale = scale if scale is not None else 1 / math.sqrt(d)
    wl, wr = window
    wl = -1 if wl < 0 else wl
    wr = 0 if causal else (-1 if wr < 0 else wr)
    ref_o, ref_lse = reference(q, k, v, eff_scale, wl, wr, softcap)
    base_o = baseline(q, k, v, eff_scale, wl, wr, softcap)

    assert not torch.isnan(o).any(), "NaN in the output (a row not written, or 0/0)"
    dead = ~visible(sq, sk, wl, wr, q.device).any(dim=1)  # rows that see no key
    if dead.any():
        assert (o[:, dead] == 0).all(), "rows that see no key must be 0"
    err, base_err = rel_l2(o, ref_o), rel_l2(base_o, ref_o)
    bound = BOUND_FACTOR * base_err + ABS_FLOOR
    print(f"rel L2 error {err:.3e}, baseline {base_err:.3e}, bound {bound:.3e}")
    assert err <= bound, f"rel L2 error {err:.3e} > {BOUND_FACTOR} x baseline {base_err:.3e} " \
                         f"+ {ABS_FLOOR}"
    if lse:
        got = result[1]
        assert got.data_ptr() == lse_out.data_ptr() and not torch.isnan(got).any()
        live = ~dead
        assert torch.isneginf(got[:, :, dead]).all(), "LSE of rows that see no key must be -inf"
        torch.testing.assert_close(got[:, :, live].double(), ref_lse[:, :, live], atol=2e-3,
                                   rtol=1e-4)
    return err, base_err


@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("d", TEST_HEAD_DIMS)
@pytest.mark.parametrize("dtype", TEST_DTYPES)
@pytest.mark.parametrize("sq,sk", [(113, 113), (1000, 1000), (17, 2049)])
def test_head_dims_and_dtypes(dtype, d, causal, sq, sk):
    run_case(dtype=dtype, d=d, causal=causal, sq=sq, sk=sk)


@pytest.mark.parametrize("sq,sk", SEQLENS)
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_seqlens(sq, sk, causal):
    run_case(d=64, sq=sq, sk=sk, causal=causal, lse=True)


@pytest.mark.parametrize("causal,window", [(False, (64, 32)), (True, (128, 0))])
@pytest.mark.parametrize("d", [64, 128])
@pytest.mark.parametrize("sq,sk", [(1000, 1000), (113, 1000), (1000, 113), (2049, 2049)])
def test_sliding_window(causal, window, d, sq, sk):
    run_case(d=d, sq=sq, sk=sk, causal=causal, window=window, lse=True)


@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("dtype", TEST_DTYPES)
@pytest.mark.parametrize("d", TEST_HEAD_DIMS)
def test_softcap(causal, dtype, d):
    run_case(dtype=dtype, d=d, sq=1000, sk=1000, causal=causal, softcap=30.0, lse=True)


@pytest.mark.parametrize("hq,hk", [(8, 8), (8, 2), (8, 1), (6, 3)])
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_gqa_mqa(hq, hk, causal):
    run_case(d=128, hq=hq, hk=hk, sq=1000, sk=2049, causal=causal, lse=True)


@pytest.mark.parametrize("layout", ["bshd", "bhsd", "strided"])
@pytest.mark.parametrize("out_layout", ["bshd", "bhsd"])
def test_layouts(layout, out_layout):
    run_case(dtype="f16", d=96, sq=1000, sk=113, causal=True, layout=layout,
             out_layout=out_layout, lse=True)


def test_packed_qkv():
    """q, k, v as views into one [b, s, 3, h, d] tensor (strides of 3*h*d)."""
    gen = new_generator()
    qkv = torch.randn(2, 1000, 3, 8, 128, generator=gen, device="cuda").to(torch.bfloat16)
    q, k, v = qkv.unbind(dim=2)
    ensure_kernel(config_for(q, k, v, True, (-1, -1), 0.0, None, False))
    o = fattn.flash_attn_func(q, k, v, causal=True)
    ref, _ = reference(q, k, v, 1 / math.sqrt(128), -1, 0, 0.0)
    base = baseline(q, k, v, 1 / math.sqrt(128), -1, 0, 0.0)
    assert rel_l2(o, ref) <= BOUND_FACTOR * rel_l2(base, ref) + ABS_FLOOR


def test_rows_that_see_no_key():
    """Causal with sq > sk: the first sq - sk rows see nothing (O = 0, LSE = -inf)."""
    run_case(d=64, sq=113, sk=17, causal=True, lse=True)
    run_case(d=64, sq=1000, sk=113, causal=False, window=(64, 32), lse=True)


@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("d", TEST_HEAD_DIMS)
def test_many_work_items_per_cta(d, causal):
    """More (Q tile, head, batch) work items than SMs: each persistent CTA runs
    several in turn, the producer loading an item's Q while the consumers
    finish the one before."""
    run_case(d=d, b=3, hq=32, hk=8, sq=1100, sk=1100, causal=causal)
    if causal:
        # sq > sk: the first Q tiles of every head see no key; their zeros are
        # written between the other items.
        run_case(d=d, b=2, hq=32, sq=700, sk=300, causal=True, lse=d == 64)


@pytest.mark.parametrize("dtype", TEST_DTYPES)
def test_work_order_tail(dtype):
    """Head dim 64 causal with more (batch, head) pairs than the grid holds
    (4 x 48 = 192 on 132 SMs): the runtime moves the last pairs' work items
    to the end of the order, Q tile slowest (sm_90a work-order-tail), and
    every item is still computed once: lengths that are no multiple of the
    192-row Q tiles, seq_q != seq_k, GQA, an LSE."""
    run_case(dtype=dtype, d=64, b=4, hq=48, hk=8, sq=1100, sk=1100, causal=True)
    run_case(dtype=dtype, d=64, b=4, hq=48, hk=12, sq=700, sk=1300, causal=True, lse=True)
    if backend() != "fattn":
        return
    # The library's kernel takes the tail, and the runtime chooses one of
    # more than one pair for this shape (sm_90a's kernels; FATTN_ARCH=sm_80
    # runs sm_80's on an sm_90 GPU too).
    t = torch.empty(4, 1100, 48, 64, device="cuda", dtype=TORCH_DTYPES[dtype])
    config = config_for(t, t, t, True, (-1, -1), 0.0, None, False)
    if config.arch != "sm_90a":
        return
    kernel = fattn.get_kernel(config)
    description = json.loads(kernel.path.read_text())
    assert "work_order" in description, kernel.path
    view = TensorDesc.make(t.data_ptr(), dtype, (4, 48, 1100, 64),
                           (t.stride(0), t.stride(2), t.stride(1), 1))
    assert kernel.tail_pairs([view] * 4, 132) > 1


@pytest.mark.parametrize("dtype", TEST_DTYPES)
def test_split_tail(dtype):
    """Head dim 64 without a mask splits the work items past the grid's last
    whole round along their KV tiles (sm_90a split-tail): 759 items of 192
    rows on 132 SMs leave 99 to split, 12 of an item's 16 KV tiles per CTA,
    merged through the runtime's workspace. Three launches in a row: each
    must leave the workspace's counters zero for the next, else a merge
    reads a piece before it is written. With an LSE, GQA and softcap too;
    fewer items than SMs split each item among 16 or 17 CTAs. Head dim 128
    splits too, at any length."""
    for _ in range(3):
        run_case(dtype=dtype, d=64, b=3, hq=23, sq=2000, sk=2000)
    run_case(dtype=dtype, d=64, b=2, hq=32, hk=8, sq=1500, sk=2049, lse=True)
    run_case(dtype=dtype, d=64, b=1, hq=4, sq=300, sk=5000, softcap=30.0, lse=True)
    run_case(dtype=dtype, d=128, b=2, hq=18, hk=6, sq=4500, sk=4500, lse=True)
    run_case(dtype=dtype, d=128, b=1, hq=40, sq=1000, sk=3000)


def test_split_tail_streams():
    """Launches of one split-tail kernel on two streams at once: each stream
    gets its own workspace from the runtime."""
    gen = new_generator()
    streams = [torch.cuda.Stream() for _ in range(2)]
    cases = []
    for s in streams:
        q, k, v = (make_bshd(3, 2000, 23, 64, torch.bfloat16, "bshd", gen) for _ in range(3))
        ensure_kernel(config_for(q, k, v, False, (-1, -1), 0.0, None, False))
        cases.append((s, q, k, v))
    torch.cuda.synchronize()
    outs = []
    for _ in range(4):
        for s, q, k, v in cases:
            with torch.cuda.stream(s):
                outs.append((fattn.flash_attn_func(q, k, v), q, k, v))
    torch.cuda.synchronize()
    for o, q, k, v in outs:
        ref_o, _ = reference(q, k, v, 1 / 8, -1, -1, 0.0)
        base_o = baseline(q, k, v, 1 / 8, -1, -1, 0.0)
        err, base_err = rel_l2(o, ref_o), rel_l2(base_o, ref_o)
        assert not torch.isnan(o).any() and err <= BOUND_FACTOR * base_err + ABS_FLOOR


@pytest.mark.parametrize("short_seqs", [True, False], ids=["short", "default"])
@pytest.mark.parametrize("dtype", TEST_DTYPES)
def test_short_seqs_tuning(dtype, short_seqs):
    """Causal head dim 128 up to 4096 queries and keys runs the kernel tuned
    for short sequences (sm_90a: 128-key tiles, two Q buffers, O by TMA
    stores); the default one must give the same results: both are checked on
    tails that are not multiples of the tiles, many work items per CTA, GQA
    and the LSE."""
    run_case(dtype=dtype, d=128, b=2, hq=48, hk=8, sq=1100, sk=1100, causal=True, lse=True,
             short_seqs=short_seqs)
    run_case(dtype=dtype, d=128, sq=300, sk=1000, causal=True, short_seqs=short_seqs)


@pytest.mark.parametrize("short_seqs", [True, False], ids=["short", "default"])
@pytest.mark.parametrize("dtype", TEST_DTYPES)
def test_short_seqs_tuning_head_dim_64(dtype, short_seqs):
    """Causal head dim 64 up to 1024 queries and keys runs the kernel tuned
    for short sequences (sm_90a: two consumer warpgroups of 128 rows and
    128-key tiles instead of three and 96-key ones); the default one must give
    the same results: many work items per CTA with GQA and the LSE, tails that
    are not multiples of either kernel's tiles, and more queries than keys
    (rows that see no key)."""
    run_case(dtype=dtype, d=64, b=2, hq=48, hk=8, sq=1000, sk=1000, causal=True, lse=True,
             short_seqs=short_seqs)
    run_case(dtype=dtype, d=64, sq=300, sk=1000, causal=True, short_seqs=short_seqs)
    run_case(dtype=dtype, d=64, b=2, hq=8, hk=2, sq=1000, sk=700, causal=True, lse=True,
             short_seqs=short_seqs)


@pytest.mark.parametrize("short_seqs", [True, False], ids=["short", "default"])
@pytest.mark.parametrize("dtype", TEST_DTYPES)
def test_short_seqs_tuning_without_a_mask(dtype, short_seqs):
    """Head dim 128 without a mask up to 1024 queries and keys runs the kernel
    tuned for short sequences (sm_90a: 128-key tiles instead of 160); the
    default one must give the same results: many work items per CTA (with the
    split tail's pieces) with GQA and the LSE, and tails that are not multiples
    of either kernel's tiles."""
    run_case(dtype=dtype, d=128, b=2, hq=48, hk=8, sq=1000, sk=1000, lse=True,
             short_seqs=short_seqs)
    run_case(dtype=dtype, d=128, sq=300, sk=1000, short_seqs=short_seqs)
    run_case(dtype=dtype, d=128, b=2, hq=8, hk=2, sq=1000, sk=17, lse=True,
             short_seqs=short_seqs)


def test_custom_scale():
    run_case(d=128, sq=1000, sk=1000, scale=0.3, causal=True)


def test_empty_inputs():
    dt = torch.bfloat16
    q = torch.randn(2, 17, 8, 64, device="cuda", dtype=dt)
    k = torch.randn(2, 0, 8, 64, device="cuda", dtype=dt)
    o, lse = fattn.flash_attn_func(q, k, k, return_lse=True)
    assert (o == 0).all() and torch.isneginf(lse).all()
    o = fattn.flash_attn_func(q[:, :0], q, q)
    assert o.shape == (2, 0, 8, 64)


def test_repeated_calls_reuse_the_checks():
    """A call with an earlier call's metadata (shapes, strides, dtypes, devices,
    arguments) reuses its checked configuration (fattn.interface._CHECKED); any
    other call is checked again; a misaligned data pointer is still copied."""
    from fattn import interface
    gen = new_generator()
    q, k, v = (make_bshd(2, 300, 8, 128, torch.bfloat16, "bshd", gen) for _ in range(3))
    ensure_kernel(config_for(q, k, v, False, (-1, -1), 0.0, None, False))
    interface._CHECKED.clear()
    fattn.flash_attn_func(q, k, v)
    assert len(interface._CHECKED) == 1
    q, k, v = (make_bshd(2, 300, 8, 128, torch.bfloat16, "bshd", gen) for _ in range(3))
    o = fattn.flash_attn_func(q, k, v)
    assert len(interface._CHECKED) == 1
    scale = 1 / math.sqrt(128)
    ref_o, _ = reference(q, k, v, scale, -1, -1, 0.0)
    base_err = rel_l2(baseline(q, k, v, scale, -1, -1, 0.0), ref_o)
    assert rel_l2(o, ref_o) <= BOUND_FACTOR * base_err + ABS_FLOOR
    with pytest.raises(TypeError, match="one dtype"):
        fattn.flash_attn_func(q, k, v.half())
    with pytest.raises(ValueError, match="window_size must be a pair of ints"):
        fattn.flash_attn_func(q, k, v, window_size=(-1.0, -1.0))
    with pytest.raises(ValueError, match="softmax_scale must be a positive finite number"):
        fattn.flash_attn_func(q, k, v, softmax_scale=float("nan"))
    # The cached strides with a data pointer 2 bytes off: copied, the same result.
    buf = torch.empty(q.numel() + 8, dtype=q.dtype, device="cuda")
    q_off = buf[1:1 + q.numel()].view(q.shape).copy_(q)
    assert q_off.data_ptr() % 16 and q_off.stride() == q.stride()
    assert rel_l2(fattn.flash_attn_func(q_off, k, v), o) < 1e-6
    assert len(interface._CHECKED) == 1


def test_sm90_sass_tensor_cores_without_spills():
    """Every sm_90a kernel of the kernel libraries in SASS (what runs, where the lit
    tests check PTX and ptxas -v): its GEMMs on the tensor cores' path for its
    dtype, QGMMA for e4m3 and HGMMA for 16-bit, never the other, and no
    local-memory load or store (STL/LDL: ptxas spills; issues 5 and 6)."""
    tool = cuda_tool("cuobjdump")
    if tool is None:
        pytest.skip("no cuobjdump (CUDA toolkit)")
    from fattn.kernels import search_libraries
    cubins = []
    for library in search_libraries():
        for key, rel in library.entries().items():
            if not key.startswith("sm_90a-"):
                continue
            path = library.directory / rel
            cubins.append((key, path.parent / json.loads(path.read_text())["cubin"]))
    if not cubins:
        pytest.skip("no sm_90a kernel in the kernel libraries")

    def disassemble(cubin):
        return subprocess.run([tool, "-sass", str(cubin)], check=True, capture_output=True,
                              text=True).stdout
    with ThreadPoolExecutor(max_workers=min(16, os.cpu_count() or 1)) as pool:
        listings = list(pool.map(disassemble, [c for _, c in cubins]))
    for (key, cubin), sass in zip(cubins, listings):
        names = {op.split(".")[0] for op in re.findall(
            r"/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)", sass)}
        assert names, f"{key}: no SASS instruction read from {cubin}"
        want, other = ("QGMMA", "HGMMA") if "-e4m3-" in key else ("HGMMA", "QGMMA")
        assert want in names and other not in names, \
            f"{key}: {want} expected and no {other}; SASS has {sorted(names & {want, other})}"
        assert not names & {"STL", "LDL"}, f"{key}: local-memory traffic (spills) in its SASS"
    print(f"{len(cubins)} sm_90a kernels: HGMMA or QGMMA by dtype, no STL/LDL")


def test_stream_and_device_guard():
    """The launch goes on torch's current stream."""
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        err, base = run_case(d=64, sq=1000, sk=1000)
    assert err <= BOUND_FACTOR * base + ABS_FLOOR


# Small cases with every feature at odd sizes: python/tests/run_sanitizer.sh runs
# these under compute-sanitizer (and they run with the suite too).
SANITIZER_CASES = [
    dict(dtype="bf16", d=64, sq=17, sk=17, causal=True, lse=True),
    dict(dtype="f16", d=128, sq=113, sk=1000, causal=False, lse=False),
    dict(dtype="bf16", d=96, sq=1000, sk=113, causal=True, window=(128, 0), lse=True),
    dict(dtype="bf16", d=256, sq=129, sk=257, causal=False, window=(64, 32), lse=True),
    dict(dtype="f16", d=64, sq=1, sk=2049, causal=True, softcap=30.0, lse=True),
    dict(dtype="bf16", d=128, hq=8, hk=1, sq=300, sk=300, causal=True, layout="strided",
         lse=False),
    # 3 Q tiles x 48 heads: more work items than SMs, so persistent CTAs hand
    # Q's buffer on from one item to the next.
    dict(dtype="bf16", d=128, hq=48, hk=8, sq=300, sk=300, causal=False, lse=False),
    # Two Q buffers (head dim 128 without a mask): 288 items, so every CTA
    # takes two or three and both buffers turn over; 24 of them split.
    dict(dtype="bf16", d=128, hq=96, hk=8, sq=300, sk=300, causal=False, lse=True),
    # The same on the default kernel (160-key tiles; the case above runs the
    # one tuned for short sequences, 128-key tiles).
    dict(dtype="bf16", d=128, hq=96, hk=8, sq=300, sk=300, causal=False, lse=True,
         short_seqs=False),
    # Causal head dim 128 tuned for short sequences: two Q buffers, which
    # turn over in every CTA (288 items), and per-warpgroup KV ranges (the
    # second warpgroup of each 300-row sequence's last tile has no rows);
    # and the default kernel of the same case.
    dict(dtype="bf16", d=128, hq=96, hk=8, sq=300, sk=300, causal=True, lse=True),
    dict(dtype="bf16", d=128, hq=96, hk=8, sq=300, sk=300, causal=True, lse=True,
         short_seqs=False),
    # The same with pingpong (head dim 256): the consumers' turns run on
    # from one work item to the next.
    dict(dtype="bf16", d=256, hq=48, hk=8, sq=300, sk=300, causal=True, lse=False),
    # The split tail (head dim 64 without a mask): 2 x 92 items, 52 of them
    # cut into pieces merged through the workspace (its counters' release and
    # acquire are what racecheck cannot see, its memory what memcheck can).
    dict(dtype="f16", d=64, hq=92, hk=4, sq=300, sk=700, causal=False, lse=True),
    # The work order's tail (head dim 64 causal, 160 pairs on 132 SMs): the
    # last pairs' items in the order the runtime's tail_pairs gives them; the
    # kernel tuned for short sequences (two consumer warpgroups) and the
    # default one (three).
    dict(dtype="bf16", d=64, hq=160, hk=8, sq=300, sk=300, causal=True, lse=True),
    dict(dtype="bf16", d=64, hq=160, hk=8, sq=300, sk=300, causal=True, lse=True,
         short_seqs=False),
]


@pytest.mark.parametrize("case", SANITIZER_CASES, ids=lambda c: "-".join(
    f"{k}{v}" for k, v in c.items()).replace(" ", "").replace(",", "_"))
def test_sanitizer_subset(case):
    case = dict(case)
    run_case(b=1, hq=case.pop("hq", 4), **case)
