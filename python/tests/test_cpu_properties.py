"""Property-based tests (hypothesis) of the Python API's argument checks, on the CPU.

Every call with drawn arguments either passes the checks or raises a TypeError or
ValueError whose message names an argument that was drawn bad; nothing else
escapes. KernelConfig.make and the descale shapes run without torch;
flash_attn_func on CPU tensors needs torch: a call whose arguments are all good
fails on the device alone ("q must be a CUDA tensor"), one with a bad argument
fails before that, naming it. The same calls on CUDA tensors, and valid ones
against the reference: test_gpu_properties.py. Settings: properties_support.py.
"""
from __future__ import annotations

import math
import re

import pytest

from properties_support import import_hypothesis, property_settings

import_hypothesis()
from hypothesis import given, strategies as st  # noqa: E402

from fattn.config import (DTYPES, INT32_MAX, VALUE_LAYOUT_SM90, KernelConfig,  # noqa: E402
                          descale_code, to_f32)
from fattn.descale import DESCALE_NAMES, resolve_descale_form  # noqa: E402


def named(message: str, names) -> bool:
    """Whether the message names one of `names` as a word (q, not q_descale)."""
    return any(re.search(rf"(?<![\w]){re.escape(n)}(?![\w])", message) for n in names)


F32_MAX = 3.4028234663852886e38
F32_TINY = 1.1754943508222875e-38  # the smallest normal float32
positive_f32 = st.one_of(st.floats(F32_TINY, 1e30), st.integers(1, 1000),
                         st.sampled_from([F32_MAX, 0.125, 30.0]))
not_a_number = st.sampled_from(["0.1", "1", b"1", None, [0.5], complex(1, 0), True, {}])
non_finite = st.sampled_from([math.nan, math.inf, -math.inf])
out_of_f32 = st.sampled_from([1e39, 3.5e38, 1e300, 1e-50, 1e-300])  # overflows, or rounds to 0

# ---------------------------------------------------------------------------
# KernelConfig.make (no torch)
# ---------------------------------------------------------------------------

ASCII = "abfms_0123456789./ -"
ARCH = re.compile(r"sm_[0-9]{2,}[a-z]?")
good_arch = st.one_of(st.sampled_from(["sm_80", "sm_90a", "sm_86", "sm_100a"]),
                      st.builds("sm_{}{}".format, st.integers(10, 999),
                                st.sampled_from(["", "a", "f"])))
bad_arch = st.one_of(st.sampled_from(["ampere", "sm_", "sm_0", "SM_80", "sm_80 ", "sm_/../x",
                                      "sm_80/a", "../sm_90a", "sm_9 0", "", "sm_8a0"]),
                     st.text(ASCII, max_size=8).filter(lambda s: not ARCH.fullmatch(s)),
                     st.none(), st.integers(), st.just(b"sm_80"))
bad_dtype = st.one_of(st.text(ASCII, max_size=6).filter(lambda s: s not in DTYPES),
                      st.sampled_from(["fp8", "bfloat16", "F16", None, 16, ["bf16"]]))
bad_head_dim = st.one_of(st.integers(max_value=0), st.integers(min_value=1025),
                         st.sampled_from([True, 64.0, "64", None, [64]]))
good_flag = st.sampled_from([True, False, 0, 1])
bad_flag = st.sampled_from(["yes", "False", "", None, 2, -1, 0.5, 1.0, [True]])
good_window = st.one_of(st.none(), st.integers(-2 ** 40, INT32_MAX),
                        st.sampled_from([-1, 0, 1, 64, INT32_MAX]))
bad_window = st.one_of(st.integers(INT32_MAX + 1, 2 ** 70),
                       st.sampled_from([1.0, -1.0, True, False, "64", [64], math.nan]))
bad_softcap = st.one_of(st.floats(max_value=-1e-30), non_finite, out_of_f32, not_a_number)
bad_scale = st.one_of(st.floats(max_value=0.0), non_finite, out_of_f32, not_a_number)

DESCALE_RANKS = st.sampled_from([(0, 0), (2, 0)]) | st.integers(1, 512).map(lambda b: (3, b))


@st.composite
def good_descale(draw):
    """A valid descale spec in one of canonical_descale's spellings, and its form."""
    q, k = draw(DESCALE_RANKS), draw(DESCALE_RANKS)
    v = draw(DESCALE_RANKS)
    if k[0] == 3 and v[0] == 3:
        v = k  # per-block k and v share descale_block_kv
    form = (q, k, v)
    spelling = draw(st.sampled_from(["code", "json", "pairs"]))
    if spelling == "code":
        spec = descale_code(form)
    elif spelling == "json":
        spec = {t: ({"rank": r, "block": b} if r == 3 else {"rank": r})
                for t, (r, b) in zip("qkv", form)}
    else:
        spec = [list(p) for p in form]
    return spec, form


bad_descale = st.sampled_from([
    "q4k0v0", "q3k0v0", "q0b5k0v0", "q0k0", "x", "", "q0k0v0 ", "q3b0k0v0",
    f"q3b{INT32_MAX + 1}k0v0", "q0k3b128v3b64", 5, 1.5, {"q": {"rank": 0}},
    {"q": {"rank": 0}, "k": {"rank": 0}, "v": {"rank": 1}},
    {"q": {"rank": 0}, "k": {"rank": 0}, "v": {"rank": 0, "stride": 1}},
    [(0, 0), (0, 0)], [(0, 0), (0, 0), (3, -1)], [(True, 0), (0, 0), (0, 0)],
    [("0", 0), (0, 0), (0, 0)], [(0, 0, 0), (0, 0), (0, 0)], b"q0k0v0"])

# Each field: (good values, bad values, the names its errors may use).
FIELDS = {
    "arch": (good_arch, bad_arch, ("arch",)),
    "dtype": (st.sampled_from(DTYPES), bad_dtype, ("dtype",)),
    "head_dim_qk": (st.integers(1, 1024), bad_head_dim, ("head_dim_qk",)),
    "head_dim_v": (st.none() | st.integers(1, 1024), bad_head_dim.filter(lambda d: d is not None),
                   ("head_dim_v",)),
    "causal": (good_flag, bad_flag, ("causal",)),
    "window_left": (good_window, bad_window, ("window_left",)),
    "window_right": (good_window, bad_window, ("window_right",)),
    "softcap": (st.just(0.0) | st.just(0) | positive_f32, bad_softcap, ("softcap",)),
    "scale": (st.none() | positive_f32, bad_scale, ("softmax_scale", "scale")),
    "has_lse": (good_flag, bad_flag, ("has_lse",)),
    "descale": (st.none() | good_descale(), bad_descale, ("descale", "descales")),
    "value_layout": (st.sampled_from([None, VALUE_LAYOUT_SM90]),
                     st.sampled_from(["transposed", "", 1, VALUE_LAYOUT_SM90.upper()]),
                     ("value_layout",)),
    "tuned_for": (st.sampled_from([None, "short_seqs"]),
                  st.sampled_from(["long_seqs", "", 1, ["short_seqs"]]), ("tuned_for",)),
}


@st.composite
def make_arguments(draw):
    """KernelConfig.make's keyword arguments (none, one or two drawn bad), the names
    that the bad ones' errors may use, and the canonical form of a good descale."""
    chosen = draw(st.sets(st.sampled_from(sorted(FIELDS)), max_size=2))
    kwargs, bad, form = {}, [], None
    for name, (good_values, bad_values, names) in FIELDS.items():
        value = draw(bad_values if name in chosen else good_values)
        if name == "descale" and name not in chosen and value is not None:
            value, form = value
        kwargs[name] = value
        if name in chosen:
            bad += names
    # Descales and V^T are for e4m3 alone.
    if kwargs["dtype"] in DTYPES and kwargs["dtype"] != "e4m3":
        if kwargs["descale"] is not None:
            bad += ["descale", "dtype"]
        if kwargs["value_layout"] is not None:
            bad += ["value_layout", "dtype"]
    return kwargs, bad, form


@property_settings(examples=300)
@given(make_arguments())
def test_kernel_config_make(arguments):
    """KernelConfig.make either names a bad argument or returns the canonical
    configuration: float32-exact scale and softcap, windows in [-1, 2**31 - 1],
    causal exactly when window_right is 0, a file-name-safe key, and a JSON round
    trip to itself."""
    kwargs, bad, form = arguments
    if bad:
        with pytest.raises((TypeError, ValueError)) as e:
            KernelConfig.make(**kwargs)
        assert named(str(e.value), bad), f"{e.value!r} names none of {bad}"
        return
    c = KernelConfig.make(**kwargs)
    assert (c.arch, c.dtype, c.head_dim_qk) == (kwargs["arch"], kwargs["dtype"],
                                                  kwargs["head_dim_qk"])
    assert c.head_dim_v == (kwargs["head_dim_v"] or kwargs["head_dim_qk"])
    wl, wr = (-1 if w is None or w < 0 else w for w in (kwargs["window_left"],
                                                        kwargs["window_right"]))
    assert c.window_left == wl
    assert c.window_right == (0 if kwargs["causal"] else wr)
    assert c.causal == (c.window_right == 0)
    assert c.scale == to_f32(c.scale) and math.isfinite(c.scale) and c.scale > 0
    assert c.softcap == to_f32(c.softcap) and c.softcap >= 0
    assert (c.softcap > 0) == (kwargs["softcap"] > 0)
    if kwargs["scale"] is None:
        assert c.scale == to_f32(1 / math.sqrt(c.head_dim_qk))
    assert c.has_lse == bool(kwargs["has_lse"])
    assert c.descale == form
    assert (c.value_layout, c.tuned_for) == (kwargs["value_layout"], kwargs["tuned_for"])
    assert re.fullmatch(r"[A-Za-z0-9_.\-]+", c.key), c.key
    assert KernelConfig.from_json(c.to_json()) == c
    assert KernelConfig.make(**dict(c.to_json(), descale=c.descale)) == c


# ---------------------------------------------------------------------------
# Descale shapes (no torch): resolve_descale_form
# ---------------------------------------------------------------------------

def _ceildiv(a, b):
    return -(-a // b)


@st.composite
def descale_calls(draw):
    """A call's q/k shapes, descale shapes and blocks, valid; and its form."""
    b, sq, sk = draw(st.integers(1, 4)), draw(st.integers(0, 600)), draw(st.integers(0, 600))
    hk = draw(st.integers(1, 4))
    hq = hk * draw(st.integers(1, 4))
    d = draw(st.sampled_from([64, 128]))
    q_rank, k_rank, v_rank = (draw(st.sampled_from([None, 0, 2, 3])) for _ in range(3))
    block_q = draw(st.integers(1, 300)) if q_rank == 3 else None
    block_kv = draw(st.integers(1, 300)) if 3 in (k_rank, v_rank) else None

    def shape(rank, heads, seq, block):
        return {None: None, 0: (), 2: (b, hk), 3: (b, heads, _ceildiv(seq, block or 1))}[rank]
    shapes = [shape(q_rank, hq, sq, block_q), shape(k_rank, hk, sk, block_kv),
              shape(v_rank, hk, sk, block_kv)]
    form = tuple((0, 0) if r is None else (r, blk if r == 3 else 0)
                 for r, blk in ((q_rank, block_q), (k_rank, block_kv), (v_rank, block_kv)))
    return (b, sq, hq, d), (b, sk, hk, d), shapes, block_q, block_kv, form


@property_settings(examples=200)
@given(descale_calls(), st.data())
def test_descale_shapes(call, data):
    """Shapes quantize_fp8 makes give their form; one dim off, a block of
    the wrong type or value, or a block without a per-block factor is a
    TypeError/ValueError naming the descale or the block."""
    q_shape, k_shape, shapes, block_q, block_kv, form = call
    assert resolve_descale_form(q_shape, k_shape, shapes, block_q, block_kv) == form
    given_shapes = [i for i, s in enumerate(shapes) if s]
    mutation = data.draw(st.sampled_from(["shape", "rank", "block_type", "block_value",
                                          "stray_block"]))
    names = []
    if mutation == "shape" and given_shapes:
        i = data.draw(st.sampled_from(given_shapes))
        dim = data.draw(st.integers(0, len(shapes[i]) - 1))
        delta = data.draw(st.sampled_from([-1, 1, 7]))
        shapes[i] = tuple(n + delta if j == dim else n for j, n in enumerate(shapes[i]))
        names = [DESCALE_NAMES[i]]
    elif mutation == "rank":
        i = data.draw(st.integers(0, 2))
        shapes[i] = data.draw(st.sampled_from([(1,), (1, 1, 1, 1), (2, 3, 4, 5)]))
        names = [DESCALE_NAMES[i]]
    elif mutation in ("block_type", "block_value"):
        bad = (st.sampled_from([True, 1.0, "128", [128]]) if mutation == "block_type" else
               st.sampled_from([0, -1, -128]))
        if data.draw(st.booleans()):
            block_q, names = data.draw(bad), ["descale_block_q"]
        else:
            block_kv, names = data.draw(bad), ["descale_block_kv"]
    else:  # a block given to no per-block factor
        if form[0][0] != 3:
            block_q, names = 64, ["descale_block_q"]
        elif 3 not in (form[1][0], form[2][0]):
            block_kv, names = 128, ["descale_block_kv"]
    if not names:
        return
    with pytest.raises((TypeError, ValueError)) as e:
        resolve_descale_form(q_shape, k_shape, shapes, block_q, block_kv)
    assert named(str(e.value), names), f"{e.value!r} names none of {names}"


# ---------------------------------------------------------------------------
# flash_attn_func on CPU tensors (torch)
# ---------------------------------------------------------------------------

def _torch():
    return pytest.importorskip("torch")


def _f8(torch):
    return getattr(torch, "float8_e4m3fn", None)


def _tensor(torch, shape, dtype, layout, device="cpu"):
    """A [b, s, h, d] tensor of `dtype` stored as `layout` (bshd, bhsd, padded)."""
    b, s, h, d = shape
    if layout == "bhsd":
        return torch.zeros(b, h, s, d, device=device).to(dtype).transpose(1, 2)
    if layout == "padded":
        return torch.zeros(b, s, h + 1, d + 8, device=device).to(dtype)[:, :, 1:, :d]
    return torch.zeros(b, s, h, d, device=device).to(dtype)


def _zeros(torch, shape, like):
    return torch.zeros(shape, device=like.device).to(like.dtype)


@st.composite
def valid_calls(draw, device="cpu"):
    """flash_attn_func's arguments, all good, on `device`."""
    torch = _torch()
    dtypes = [torch.bfloat16, torch.float16] + ([_f8(torch)] if _f8(torch) else [])
    dtype = draw(st.sampled_from(dtypes))
    fp8 = dtype == _f8(torch)
    b, sq, sk = draw(st.integers(1, 3)), draw(st.integers(0, 40)), draw(st.integers(0, 40))
    hk = draw(st.integers(1, 3))
    hq = hk * draw(st.integers(1, 3))
    d = draw(st.sampled_from([8, 16, 64, 128]))
    dv = draw(st.sampled_from([d, 32]))
    layouts = st.sampled_from(["bshd", "bhsd", "padded"])
    q = _tensor(torch, (b, sq, hq, d), dtype, draw(layouts), device)
    k = _tensor(torch, (b, sk, hk, d), dtype, draw(layouts), device)
    v = _tensor(torch, (b, sk, hk, dv), dtype, draw(layouts), device)
    kw = dict(softmax_scale=draw(st.none() | st.floats(1e-3, 10.0)),
              causal=draw(st.booleans()),
              window_size=draw(st.tuples(st.integers(-3, 50), st.integers(-3, 50))),
              softcap=draw(st.sampled_from([0.0, 30.0, 1.5])),
              return_lse=draw(st.booleans()),
              arch=draw(st.sampled_from([None, "sm_80", "sm_90a"])))
    if fp8:
        if draw(st.booleans()):
            from fattn import transpose_value_fp8
            v, kw["v_layout"] = transpose_value_fp8(v), VALUE_LAYOUT_SM90
        forms = {"q": (q, hq, sq, "descale_block_q"), "k": (k, hk, sk, "descale_block_kv"),
                 "v": (v, hk, sk, "descale_block_kv")}
        block_kv = draw(st.sampled_from([1, 64, 128]))
        for t, (_, heads, seq, block_name) in forms.items():
            rank = draw(st.sampled_from([None, 0, 2, 3]))
            block = draw(st.sampled_from([1, 64, 128])) if t == "q" else block_kv
            if rank is None:
                continue
            shape = {0: (), 2: (b, hk), 3: (b, heads, _ceildiv(seq, block))}[rank]
            kw[f"{t}_descale"] = torch.ones(shape, dtype=torch.float32, device=device)
            if rank == 3:
                kw[block_name] = block
    return dict(q=q, k=k, v=v, **kw)


def _replace_tensor(call, name, t):
    return dict(call, **{name: t})


# Mutations of a valid call: f(draw, call, torch) -> (the bad call, names its error may
# use); None when the mutation does not apply to this call.

def _not_a_tensor(draw, call, torch):
    name = draw(st.sampled_from(["q", "k", "v"]))
    value = draw(st.sampled_from([None, 1.0, "q", [[0.0]], call[name].float().cpu().numpy()]))
    return _replace_tensor(call, name, value), [name]


def _unsupported_dtype(draw, call, torch):
    name = draw(st.sampled_from(["q", "k", "v"]))
    dtypes = [torch.float32, torch.float64, torch.int32, torch.bool, torch.complex64,
              torch.uint8] + ([torch.float8_e5m2] if hasattr(torch, "float8_e5m2") else [])
    t = call[name].to(torch.float32).to(draw(st.sampled_from(dtypes)))
    return _replace_tensor(call, name, t), [name]


def _mixed_dtypes(draw, call, torch):
    if call.get("v_layout"):
        return None
    name = draw(st.sampled_from(["k", "v"]))
    other = torch.float16 if call["q"].dtype != torch.float16 else torch.bfloat16
    t = call[name].to(torch.float32).to(other)
    return _replace_tensor(call, name, t), [name]


def _rank(draw, call, torch):
    name = draw(st.sampled_from(["q", "k", "v"]))
    t = call[name]
    t = draw(st.sampled_from([t[0], t.unsqueeze(0), t.flatten(0, 1), t.reshape(-1)]))
    return _replace_tensor(call, name, t), [name]


def _strided_last_dim(draw, call, torch):
    name = draw(st.sampled_from(["q", "k", "v"]))
    t = call[name]
    if t.shape[-1] < 2 or t.numel() == 0:
        return None
    wide = _zeros(torch, (*t.shape[:-1], 2 * t.shape[-1]), t)
    return _replace_tensor(call, name, wide[..., ::2]), [name]


def _sparse(draw, call, torch):
    name = draw(st.sampled_from(["q", "k", "v"]))
    return _replace_tensor(call, name, call[name].float().to_sparse()), [name]


def _huge(draw, call, torch):
    """q's or k's and v's seqlen past 2**31 - 1, every other size consistent (a view
    of stride 0: nothing allocated)."""
    seq = draw(st.sampled_from([2 ** 31, 2 ** 40]))
    names = ["q"] if call.get("v_layout") else draw(st.sampled_from([["q"], ["k", "v"]]))
    bad = dict(call)
    for name in names:
        t = call[name]
        one = _zeros(torch, (1, 1, 1, t.shape[-1]), t)
        bad[name] = one.expand(t.shape[0], seq, t.shape[2], t.shape[3])
    return bad, names


def _sizes(draw, call, torch):
    """A batch, seqlen, head or head-dim size that does not match the others."""
    q, k, v = call["q"], call["k"], call["v"]
    vt = call.get("v_layout") is not None
    what = draw(st.sampled_from(["batch", "head_dim", "heads", "kv_seq", "kv_heads"]))
    if what == "batch":
        name = draw(st.sampled_from(["q", "k", "v"]))
        t = call[name]
        shape = (t.shape[0] + 1 if t.shape[0] < 3 else 1,) + tuple(t.shape[1:])
        return _replace_tensor(call, name, _zeros(torch, shape, t)), [name]
    if what == "head_dim":
        k2 = _zeros(torch, (k.shape[0], k.shape[1], k.shape[2], k.shape[3] + 8), k)
        return _replace_tensor(call, "k", k2), ["k", "q"]
    if what == "heads":
        hq, hk = q.shape[2], k.shape[2]
        bad = hk + 1 if hk > 1 else None
        if bad is None or hq % bad == 0:
            return None
        k2 = _zeros(torch, (k.shape[0], k.shape[1], bad, k.shape[3]), k)
        return _replace_tensor(call, "k", k2), ["k", "q"]
    if vt:
        return None  # V^T's own shape: test_cpu_value_layout.py
    if what == "kv_seq":
        v2 = _zeros(torch, (v.shape[0], v.shape[1] + 1, v.shape[2], v.shape[3]), v)
        return _replace_tensor(call, "v", v2), ["k", "v"]
    v2 = _zeros(torch, (v.shape[0], v.shape[1], v.shape[2] + 1, v.shape[3]), v)
    return _replace_tensor(call, "v", v2), ["k", "v"]


def _scalar(name, bad):
    def mutate(draw, call, torch):
        return dict(call, **{name: draw(bad)}), [name]
    mutate.__name__ = f"_bad_{name}"
    return mutate


bad_window_size = st.one_of(
    st.sampled_from([(1.0, 2), (True, 0), (0, False), (1,), (1, 2, 3), "(-1, -1)", None, 5,
                     (None, None), ("1", 2)]),
    st.tuples(st.integers(INT32_MAX + 1, 2 ** 66), st.integers(-1, 5)),
    st.tuples(st.integers(-1, 5), st.integers(INT32_MAX + 1, 2 ** 66)))


def _descale_for_16_bit(draw, call, torch):
    if call["q"].dtype == _f8(torch):
        return None
    name = draw(st.sampled_from(list(DESCALE_NAMES) + ["descale_block_q", "descale_block_kv"]))
    value = 64 if name.startswith("descale_block") else torch.ones((), device=call["q"].device)
    return dict(call, **{name: value}), [name]


def _v_layout(draw, call, torch):
    bad = draw(st.sampled_from(["transposed", "", 1, VALUE_LAYOUT_SM90.upper()]))
    if call["q"].dtype != _f8(torch):
        bad = draw(st.sampled_from([bad, VALUE_LAYOUT_SM90]))
    return dict(call, v_layout=bad), ["v_layout"]


def _fp8_descale(draw, call, torch):
    if call["q"].dtype != _f8(torch):
        return None
    name = draw(st.sampled_from(DESCALE_NAMES))
    given_t = call.get(name)
    what = draw(st.sampled_from(["type", "dtype", "shape", "sparse"]))
    if what == "type":
        return dict(call, **{name: draw(st.sampled_from([1.0, [1.0], "1"]))}), [name]
    if what == "dtype":
        t = torch.ones(() if given_t is None else given_t.shape, device=call["q"].device,
                       dtype=draw(st.sampled_from([torch.float16, torch.float64, torch.int32])))
        return dict(call, **{name: t}), [name]
    if what == "sparse":
        return dict(call, **{name: torch.ones(2, 2, device=call["q"].device).to_sparse()}), [name]
    shape = draw(st.sampled_from([(1,), (1, 1, 1, 1), (7, 5), (3, 5, 9)]))
    if given_t is not None and tuple(given_t.shape) == shape:
        return None
    block_name = "descale_block_q" if name == "q_descale" else "descale_block_kv"
    return dict(call, **{name: torch.ones(shape, device=call["q"].device)}), [name, block_name]


def _fp8_block(draw, call, torch):
    if call["q"].dtype != _f8(torch):
        return None
    name = draw(st.sampled_from(["descale_block_q", "descale_block_kv"]))
    bad = draw(st.sampled_from([True, 1.0, "128", 0, -64, 2 ** 31, 2 ** 40]))
    names = [name, "q_descale"] if name == "descale_block_q" else [name, "k_descale",
                                                                    "v_descale"]
    return dict(call, **{name: bad}), names


MUTATIONS = [
    _not_a_tensor, _unsupported_dtype, _mixed_dtypes, _rank, _strided_last_dim, _sparse, _huge,
    _sizes, _descale_for_16_bit, _v_layout, _fp8_descale, _fp8_block,
    _scalar("window_size", bad_window_size),
    _scalar("softmax_scale", st.one_of(st.sampled_from([0.0, -1.0]), non_finite, out_of_f32,
                                       not_a_number.filter(lambda x: x is not None))),
    _scalar("softcap", st.one_of(st.sampled_from([-1.0, -1e-30]), non_finite, out_of_f32,
                                 not_a_number)),
    _scalar("causal", bad_flag),
    _scalar("return_lse", bad_flag),
    _scalar("arch", st.sampled_from([80, "ampere", "sm_80 ", "../sm_80", b"sm_80", "sm"])),
]

DEVICE_ERROR = "q must be a CUDA tensor, got device cpu"


@property_settings(examples=150)
@given(valid_calls())
def test_valid_calls_fail_on_the_device_alone(call):
    """Good arguments pass every check that reads them: only the device is left."""
    import fattn
    with pytest.raises(ValueError, match=DEVICE_ERROR):
        fattn.flash_attn_func(**call)


@property_settings(examples=300)
@given(valid_calls(), st.sampled_from(MUTATIONS), st.data())
def test_bad_arguments_are_named(call, mutation, data):
    """One bad argument: a TypeError or ValueError that names it, raised before the
    device check (so the same holds for CUDA tensors, test_gpu_properties.py)."""
    import fattn
    torch = _torch()
    mutated = mutation(data.draw, call, torch)
    if mutated is None:
        return
    bad, names = mutated
    with pytest.raises((TypeError, ValueError)) as e:
        fattn.flash_attn_func(**bad)
    message = str(e.value)
    assert DEVICE_ERROR not in message, f"{mutation.__name__}: passed the checks"
    assert named(message, names), f"{mutation.__name__}: {message!r} names none of {names}"


# ---------------------------------------------------------------------------
# The output memory checks (no torch: tensors as shape, strides and address)
# ---------------------------------------------------------------------------

class StridedView:
    """What interface's memory checks read of a tensor."""

    def __init__(self, shape, strides, address=0, itemsize=2):
        self.shape, self._strides, self._address, self._itemsize = shape, strides, address, itemsize

    def stride(self):
        return self._strides

    def data_ptr(self):
        return self._address

    def element_size(self):
        return self._itemsize

    def numel(self):
        return math.prod(self.shape)

    def byte_offsets(self):
        """Every byte of every element (brute force)."""
        import itertools
        return {self._address + self._itemsize * sum(i * s for i, s in zip(idx, self._strides))
                + byte for idx in itertools.product(*(range(n) for n in self.shape))
                for byte in range(self._itemsize)}


small_shapes = st.lists(st.integers(1, 4), min_size=1, max_size=4)


@st.composite
def dense_views(draw):
    """Views of one allocation: dims in any order, each padded, a slice of it."""
    shape = draw(small_shapes)
    order = draw(st.permutations(range(len(shape))))
    strides, step = [0] * len(shape), 1
    for dim in order:  # innermost first
        strides[dim] = step
        step *= shape[dim] + draw(st.integers(0, 2))
    return StridedView(tuple(shape), tuple(strides))


@property_settings(examples=300)
@given(st.one_of(dense_views(), st.builds(lambda shape, strides: StridedView(
    tuple(shape), tuple(strides[:len(shape)])), small_shapes,
    st.lists(st.integers(0, 12), min_size=4, max_size=4))))
def test_overlap_test_is_sound_and_exact_on_padded_layouts(view):
    """out / lse_out with overlapping elements are refused (the kernel writes each
    element from one thread: two sharing memory race); never a view whose elements
    are all distinct in a dense or padded layout."""
    from fattn.interface import _overlaps_itself
    offsets = view.byte_offsets()
    if not _overlaps_itself(view):
        assert len(offsets) == view.numel() * view.element_size()
    if len(offsets) < view.numel() * view.element_size():
        assert _overlaps_itself(view)


@property_settings(examples=300)
@given(st.lists(st.tuples(small_shapes, st.lists(st.integers(0, 12), min_size=4, max_size=4),
                          st.integers(0, 64)), min_size=2, max_size=4), st.integers(1, 3))
def test_outputs_sharing_memory_are_refused(views, n_outputs):
    """_check_output_memory refuses every output that shares a byte with an input
    or with the other output (brute force over the elements' bytes), naming it."""
    from fattn.interface import _check_output_memory
    views = [(f"t{i}", StridedView(tuple(shape), tuple(strides[:len(shape)]), address))
             for i, (shape, strides, address) in enumerate(views)]
    outputs, inputs = views[:min(n_outputs, 2)], views[min(n_outputs, 2):]
    bytes_of = {name: t.byte_offsets() for name, t in views}
    pairs = [(bytes_of[name], bytes_of[other]) for name, _ in outputs for other, _ in views
             if other != name]
    if any(a & b for a, b in pairs):
        with pytest.raises(ValueError, match="shares memory") as e:
            _check_output_memory(outputs, inputs)
        assert named(str(e.value), [n for n, _ in outputs])
    elif all(max(a) < min(b) or max(b) < min(a) for a, b in pairs):
        _check_output_memory(outputs, inputs)
    # else: interleaved without a shared byte, which the byte-range test refuses too
