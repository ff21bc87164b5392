"""flash_attn_func's FP8 argument checks, on CPU tensors (needs torch with float8,
not a GPU). The same checks on shapes alone, without torch: test_cpu_fp8.py."""
import pytest

torch = pytest.importorskip("torch")
if not hasattr(torch, "float8_e4m3fn"):
    pytest.skip("torch without float8_e4m3fn", allow_module_level=True)

import fattn  # noqa: E402

F8 = torch.float8_e4m3fn


def qkv(b=2, sq=1000, sk=77, hq=8, hk=2, d=128, dtype=F8):
    return (torch.zeros(b, sq, hq, d).to(dtype), torch.zeros(b, sk, hk, d).to(dtype),
            torch.zeros(b, sk, hk, d).to(dtype))


def f32(*shape):
    return torch.ones(shape, dtype=torch.float32)


def call(q, k, v, **kw):
    return fattn.flash_attn_func(q, k, v, **kw)


@pytest.mark.parametrize("inputs,kw,exc,message", [
    # fp8 takes all three in float8_e4m3fn.
    (lambda: qkv()[:2] + (qkv(dtype=torch.bfloat16)[2],), {}, TypeError,
     "q, k, v must have one dtype"),
    (lambda: qkv(dtype=torch.float8_e5m2), {}, TypeError,
     "q has dtype torch.float8_e5m2; fattn supports torch.float16, torch.bfloat16 and "
     "torch.float8_e4m3fn"),
    # Descales only with fp8.
    (lambda: qkv(dtype=torch.bfloat16), dict(k_descale=f32()), ValueError,
     "k_descale is only for float8_e4m3fn inputs; q has dtype torch.bfloat16"),
    (lambda: qkv(dtype=torch.float16), dict(descale_block_q=128), ValueError,
     "descale_block_q is only for float8_e4m3fn inputs"),
    # Types.
    (qkv, dict(q_descale=1.0), TypeError, "q_descale must be a torch.Tensor, got float"),
    (qkv, dict(v_descale=torch.ones((), dtype=torch.float16)), TypeError,
     "v_descale must be float32, got torch.float16"),
    # Shapes (GQA 8/2, seqlens 1000 and 77).
    (qkv, dict(q_descale=f32(2, 8)), ValueError,
     r"q_descale must have shape \[\] \(per tensor\), \[batch, heads_kv\] = \[2, 2\] or "
     r"\[batch, heads, ceil\(seqlen / descale_block_q\)\], got \[2, 8\]"),
    (qkv, dict(k_descale=f32(1)), ValueError, r"k_descale must have shape .* got \[1\]"),
    (qkv, dict(q_descale=f32(2, 8, 8)), ValueError,
     r"q_descale has shape \[2, 8, 8\], a per-block factor: pass descale_block_q"),
    (qkv, dict(q_descale=f32(2, 8, 8), descale_block_q=64), ValueError,
     r"q_descale must have shape .* = \[2, 8, 16\], got \[2, 8, 8\]"),
    (qkv, dict(v_descale=f32(2, 8, 1), descale_block_kv=128), ValueError,
     r"v_descale must have shape .* = \[2, 2, 1\], got \[2, 8, 1\]"),
    (qkv, dict(k_descale=f32(2, 2), descale_block_kv=128), ValueError,
     "descale_block_kv=128 is only for a per-block k_descale or v_descale"),
    (qkv, dict(descale_block_q=-1), ValueError, "descale_block_q must be positive, got -1"),
    (qkv, dict(descale_block_kv="128"), TypeError, "descale_block_kv must be an int"),
    # Every check above passes: only the device is left.
    (qkv, dict(q_descale=f32(2, 8, 16), k_descale=f32(2, 2, 1), v_descale=f32(2, 2),
               descale_block_q=64, descale_block_kv=128), ValueError,
     "q must be a CUDA tensor, got device cpu"),
    (qkv, {}, ValueError, "q must be a CUDA tensor, got device cpu"),
])
def test_bad_fp8_arguments(inputs, kw, exc, message):
    with pytest.raises(exc, match=message):
        call(*inputs(), **kw)


def test_quantize_fp8_outputs_are_accepted_shapes():
    """What quantize_fp8 returns passes the checks (up to the device)."""
    q, k, v = (torch.randn(2, s, h, 128) for s, h in ((1000, 8), (77, 2), (77, 2)))
    for kw, qkw, kvkw in (
            ({}, {}, {}),
            ({}, dict(per="head", groups=2), dict(per="head")),
            (dict(descale_block_q=64, descale_block_kv=128), dict(block=64), dict(block=128))):
        q8, dq = fattn.quantize_fp8(q, **qkw)
        k8, dk = fattn.quantize_fp8(k, **kvkw)
        v8, dv = fattn.quantize_fp8(v, **kvkw)
        with pytest.raises(ValueError, match="q must be a CUDA tensor"):
            call(q8, k8, v8, q_descale=dq, k_descale=dk, v_descale=dv, **kw)
