"""Property-based tests (hypothesis) of flash_attn_func on the GPU.

- Valid calls drawn over the kernels of the kernel library (gpu_cases: any
  kernel that runs on this GPU, with random batch, GQA/MQA heads, lengths off
  the tiles and the GPU tests' layouts) pass the GPU tests' checks against the
  float64 reference (test_gpu_attention.run_case, test_gpu_fp8.check_accuracy),
  and the kernel drawn is the one that ran.
- Unusual valid views (misaligned pointers, K and V broadcast over the batch by
  stride 0, packed QKV, a different layout per tensor) give the right answer.
- Bad calls on CUDA tensors (test_cpu_properties' mutations, and devices, out,
  lse_out and memory shared between outputs and inputs) raise a TypeError or
  ValueError naming the argument, and launch nothing.

Settings and how hypothesis is found: properties_support.py. Without a library
kernel for this GPU the first two skip.
"""
from __future__ import annotations

import functools
import math

import pytest

torch = pytest.importorskip("torch")

from properties_support import import_hypothesis, property_settings  # noqa: E402

import_hypothesis()
from hypothesis import given, strategies as st  # noqa: E402

import gpu_cases  # noqa: E402
from gpu_support import ABS_FLOOR, BOUND_FACTOR, baseline, reference, rel_l2  # noqa: E402
import fattn  # noqa: E402
from fattn.config import to_f32  # noqa: E402
from test_cpu_properties import MUTATIONS, named, valid_calls  # noqa: E402

pytestmark = pytest.mark.gpu


@functools.lru_cache(maxsize=None)
def _library():
    """(the library kernels that cases reach on this GPU, their descriptions)."""
    kernels, _ = gpu_cases.targets(torch.cuda.get_device_capability())
    return tuple(kernels), gpu_cases.library_kernels()


def _kernels(predicate=lambda k: True):
    kernels = [k for k in _library()[0] if predicate(k)]
    if not kernels:
        pytest.skip("no kernel of the kernel library runs on this GPU (FATTN_KERNEL_DIR)")
    return kernels


@st.composite
def cases(draw, kernel):
    hk = draw(st.integers(1, 4))
    case = gpu_cases.Case(
        kernel, b=draw(st.integers(1, 3)), hq=hk * draw(st.sampled_from([1, 2, 3, 4])), hk=hk,
        sq=draw(st.integers(1, 700)), sk=draw(st.integers(1, 700)),
        layout=draw(st.sampled_from(gpu_cases.LAYOUTS)),
        out_layout=draw(st.sampled_from(gpu_cases.OUT_LAYOUTS)), padded_vt=draw(st.booleans()),
        seed=draw(st.integers(1, 2 ** 31 - 1)))
    return gpu_cases.constrain(case)


@property_settings(examples=60)
@given(st.data())
def test_valid_calls_match_the_reference(data):
    kernel = data.draw(st.sampled_from(_kernels()), label="kernel")
    case = data.draw(cases(kernel), label="case")
    assert case.selected() == kernel
    gpu_cases.run(case, _library()[1][kernel])


# ---------------------------------------------------------------------------
# Unusual valid views (16-bit)
# ---------------------------------------------------------------------------

def _view(kind, shape, dtype, gen, shared=None):
    """A [b, s, h, d] tensor of N(0, 1) values stored as `kind`."""
    b, s, h, d = shape
    if kind == "misaligned":  # data pointer one element past a 16-byte boundary
        flat = torch.randn(b * s * h * d + 1, generator=gen, device="cuda").to(dtype)
        return flat[1:].view(b, s, h, d)
    if kind == "broadcast":  # one batch entry, stride 0 over the batch
        return torch.randn(1, s, h, d, generator=gen, device="cuda").to(dtype).expand(b, s, h, d)
    if kind == "bhsd":
        return torch.randn(b, h, s, d, generator=gen, device="cuda").to(dtype).transpose(1, 2)
    if kind == "padded":
        base = torch.randn(b, s + 3, h + 2, d + 8, generator=gen, device="cuda").to(dtype)
        return base[:, 2:s + 2, 1:h + 1, :d]
    return torch.randn(b, s, h, d, generator=gen, device="cuda").to(dtype)


@property_settings(examples=40)
@given(st.data())
def test_unusual_views_give_the_right_answer(data):
    """Misaligned views are copied, stride-0 and padded views read as they are:
    each gives the reference's answer within the GPU tests' bound."""
    kernel = data.draw(st.sampled_from(_kernels(lambda k: k.dtype != "e4m3")), label="kernel")
    hk = data.draw(st.integers(1, 3))
    base = gpu_cases.constrain(gpu_cases.Case(
        kernel, b=data.draw(st.integers(1, 3)), hq=hk * data.draw(st.integers(1, 3)), hk=hk,
        sq=data.draw(st.integers(1, 400)), sk=data.draw(st.integers(1, 400)),
        seed=data.draw(st.integers(1, 2 ** 31 - 1))))
    kinds = st.sampled_from(["bshd", "bhsd", "padded", "misaligned", "broadcast"])
    gen = torch.Generator(device="cuda")
    gen.manual_seed(base.seed)
    dtype = {"bf16": torch.bfloat16, "f16": torch.float16}[kernel.dtype]
    d, dv = kernel.head_dim_qk, kernel.head_dim_v
    q = _view(data.draw(kinds, label="q"), (base.b, base.sq, base.hq, d), dtype, gen)
    kv_kind = data.draw(kinds, label="k, v")
    k = _view(kv_kind, (base.b, base.sk, base.hk, d), dtype, gen)
    v = _view(data.draw(st.sampled_from([kv_kind, "bshd"]), label="v"),
              (base.b, base.sk, base.hk, dv), dtype, gen)
    scale = kernel.scale if kernel.scale != to_f32(1 / math.sqrt(d)) else None
    with gpu_cases.environment(base.env()), gpu_cases.recorded_launches() as launched:
        o = fattn.flash_attn_func(q, k, v, softmax_scale=scale, causal=kernel.causal,
                                  window_size=(kernel.window_left, kernel.window_right),
                                  softcap=kernel.softcap, return_lse=kernel.has_lse)
        torch.cuda.synchronize()
    o = o[0] if kernel.has_lse else o
    assert str(_library()[1][kernel]) in launched
    ref, _ = reference(q, k, v, kernel.scale, kernel.window_left, kernel.window_right,
                       kernel.softcap)
    base_o = baseline(q, k, v, kernel.scale, kernel.window_left, kernel.window_right,
                      kernel.softcap)
    assert not torch.isnan(o).any()
    err, base_err = rel_l2(o, ref), rel_l2(base_o, ref)
    assert err <= BOUND_FACTOR * base_err + ABS_FLOOR, (err, base_err)


# ---------------------------------------------------------------------------
# Bad calls on CUDA tensors
# ---------------------------------------------------------------------------

def _shared(shape_a, dtype_a, shape_b, dtype_b):
    """Two contiguous CUDA tensors that start at the same address."""
    def nbytes(shape, dtype):
        return math.prod(shape) * torch.empty((), dtype=dtype).element_size()
    buf = torch.empty(max(nbytes(shape_a, dtype_a), nbytes(shape_b, dtype_b)) + 16,
                      dtype=torch.uint8, device="cuda")
    return (buf[:nbytes(shape_a, dtype_a)].view(dtype_a).view(shape_a),
            buf[:nbytes(shape_b, dtype_b)].view(dtype_b).view(shape_b))


def _shapes(call):
    q, v = call["q"], call["v"]
    b, sq, hq, _ = q.shape
    dv = v.shape[2] if call.get("v_layout") else v.shape[3]
    out_dtype = torch.bfloat16 if q.dtype == getattr(torch, "float8_e4m3fn", None) else q.dtype
    return (b, sq, hq, dv), out_dtype, (b, hq, sq)


def _cuda_mutation(draw, call, torch):
    """Devices, out and lse_out: f(draw, call, torch) -> (the bad call, names)."""
    out_shape, out_dtype, lse_shape = _shapes(call)
    what = draw(st.sampled_from(["cpu_input", "other_gpu", "cpu_descale", "out_type", "out_shape",
                                 "out_dtype", "out_cpu", "out_stride", "out_misaligned",
                                 "out_overlap", "out_shares", "lse_shape", "lse_dtype",
                                 "lse_stride", "lse_without_return_lse", "lse_shares_out"]))
    if math.prod(out_shape) == 0 and what.startswith("out_") and what != "out_type":
        return None  # an empty out has no memory to share or misalign
    if what == "cpu_input":
        name = draw(st.sampled_from(["q", "k", "v"]))
        return dict(call, **{name: call[name].cpu()}), [name]
    if what == "other_gpu":
        if torch.cuda.device_count() < 2:
            return None
        name = draw(st.sampled_from(["k", "v"]))
        return dict(call, **{name: call[name].to("cuda:1")}), ["q", "k", "v"]
    if what == "cpu_descale":
        given_names = [n for n in ("q_descale", "k_descale", "v_descale") if n in call]
        if not given_names:
            return None
        name = draw(st.sampled_from(given_names))
        return dict(call, **{name: call[name].cpu()}), [name]
    if what == "out_type":
        return dict(call, out=draw(st.sampled_from([[0.0], 1.0, "out"]))), ["out"]
    good_out = torch.empty(out_shape, dtype=out_dtype, device="cuda")
    if what == "out_shape":
        bad = torch.empty(out_shape[:3] + (out_shape[3] + 8,), dtype=out_dtype, device="cuda")
        return dict(call, out=bad), ["out"]
    if what == "out_dtype":
        return dict(call, out=good_out.float()), ["out"]
    if what == "out_cpu":
        return dict(call, out=good_out.cpu()), ["out"]
    if what == "out_stride":
        if out_shape[3] < 2:
            return None
        wide = torch.empty(out_shape[:3] + (2 * out_shape[3],), dtype=out_dtype, device="cuda")
        return dict(call, out=wide[..., ::2]), ["out"]
    if what == "out_misaligned":
        flat = torch.empty(math.prod(out_shape) + 1, dtype=out_dtype, device="cuda")
        return dict(call, out=flat[1:].view(out_shape)), ["out"]
    if what == "out_overlap":
        one = torch.empty((1,) + out_shape[1:], dtype=out_dtype, device="cuda")
        if out_shape[0] < 2:
            one = torch.empty(out_shape[:1] + (1,) + out_shape[2:], dtype=out_dtype,
                              device="cuda")
            if out_shape[1] < 2:
                return None
        return dict(call, out=one.expand(out_shape)), ["out"]
    if what == "out_shares":
        name = draw(st.sampled_from(["q", "k", "v"]))
        t = call[name]
        out, alias = _shared(out_shape, out_dtype, tuple(t.shape), t.dtype)
        if alias.numel() == 0:
            return None
        return dict(call, out=out, **{name: alias}), ["out"]
    return _lse_mutation(what, call, out_shape, out_dtype, lse_shape)


def _lse_mutation(what, call, out_shape, out_dtype, lse_shape):
    if math.prod(lse_shape) == 0:
        return None
    with_lse = dict(call, return_lse=True)
    if what == "lse_shape":
        bad = torch.empty(lse_shape[:2] + (lse_shape[2] + 1,), device="cuda")
        return dict(with_lse, lse_out=bad), ["lse_out"]
    if what == "lse_dtype":
        return dict(with_lse, lse_out=torch.empty(lse_shape, device="cuda").half()), ["lse_out"]
    if what == "lse_stride":
        if lse_shape[2] < 2:
            return None
        wide = torch.empty(lse_shape[:2] + (2 * lse_shape[2],), device="cuda")
        return dict(with_lse, lse_out=wide[..., ::2]), ["lse_out"]
    if what == "lse_without_return_lse":
        return dict(call, return_lse=False, lse_out=torch.empty(lse_shape, device="cuda")), \
            ["lse_out", "return_lse"]
    out, lse = _shared(out_shape, out_dtype, lse_shape, torch.float32)
    return dict(with_lse, out=out, lse_out=lse), ["out", "lse_out"]


@property_settings(examples=200)
@given(valid_calls(device="cuda"), st.sampled_from(MUTATIONS + [_cuda_mutation] * 6), st.data())
def test_bad_arguments_on_cuda_launch_nothing(call, mutation, data):
    mutated = mutation(data.draw, call, torch)
    if mutated is None:
        return
    bad, names = mutated
    with gpu_cases.recorded_launches() as launched, \
            pytest.raises((TypeError, ValueError)) as e:
        fattn.flash_attn_func(**bad)
    torch.cuda.synchronize()
    assert not launched, f"{mutation.__name__}: launched {launched} before raising {e.value!r}"
    assert named(str(e.value), names), f"{mutation.__name__}: {e.value!r} names none of {names}"


@property_settings(examples=20)
@given(st.data())
def test_checks_of_cached_calls(data):
    """A call with the metadata of an earlier, checked one skips the metadata
    checks, not those of its data pointers: out sharing k's memory, or a
    misaligned out, still raises and launches nothing."""
    kernel = data.draw(st.sampled_from(_kernels(
        lambda k: k.dtype != "e4m3" and k.head_dim_v == k.head_dim_qk)), label="kernel")
    h, s = data.draw(st.integers(1, 4)), data.draw(st.integers(1, 300))
    case = gpu_cases.constrain(gpu_cases.Case(kernel, b=1, hq=h, hk=h, sq=s, sk=s))
    dtype = {"bf16": torch.bfloat16, "f16": torch.float16}[kernel.dtype]
    q, k, v = (torch.randn(1, s, h, kernel.head_dim_qk, device="cuda").to(dtype)
               for _ in range(3))
    kw = dict(causal=kernel.causal, window_size=(kernel.window_left, kernel.window_right),
              softcap=kernel.softcap, return_lse=kernel.has_lse,
              softmax_scale=None if kernel.scale == to_f32(kernel.head_dim_qk ** -0.5)
              else kernel.scale)
    with gpu_cases.environment(case.env()):
        fattn.flash_attn_func(q, k, v, out=torch.empty_like(q), **kw)  # checked, cached
        flat = torch.empty(q.numel() + 8, dtype=dtype, device="cuda")
        misaligned = flat[1:1 + q.numel()].view(q.shape)
        for out, message in ((k, "out shares memory with k"), (misaligned, "out must be 16-byte")):
            assert out.stride() == q.stride()
            with gpu_cases.recorded_launches() as launched, pytest.raises(ValueError,
                                                                          match=message):
                fattn.flash_attn_func(q, k, v, out=out, **kw)
            assert not launched
