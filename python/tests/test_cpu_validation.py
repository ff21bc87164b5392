"""flash_attn_func's argument checks, on CPU tensors (needs torch, not a GPU)."""
import pytest

torch = pytest.importorskip("torch")

import fattn  # noqa: E402


def qkv(b=2, sq=17, sk=33, hq=8, hk=2, d=64, dv=None, dtype=torch.bfloat16):
    q = torch.zeros(b, sq, hq, d, dtype=dtype)
    k = torch.zeros(b, sk, hk, d, dtype=dtype)
    v = torch.zeros(b, sk, hk, dv or d, dtype=dtype)
    return q, k, v


def call(q, k, v, **kw):
    return fattn.flash_attn_func(q, k, v, **kw)


@pytest.mark.parametrize("mutate,exc,message", [
    (lambda q, k, v: (q.float().numpy(), k, v), TypeError, "q must be a torch.Tensor, got ndarray"),
    (lambda q, k, v: (q, k.float(), v), TypeError, "k has dtype torch.float32"),
    (lambda q, k, v: (q, k, v.half()), TypeError, "q, k, v must have one dtype"),
    (lambda q, k, v: (q[0], k, v), ValueError, r"q must have 4 dims .* got shape \(17, 8, 64\)"),
    (lambda q, k, v: (q, k[..., ::2], v), ValueError, "k must have a contiguous last dim"),
    (lambda q, k, v: (q, k[:, :, :, :32], v), ValueError, "k has head_dim 32 but q has 64"),
    (lambda q, k, v: (q, k[:1], v[:1]), ValueError, "batch sizes differ"),
    (lambda q, k, v: (q, k, v[:, :5]), ValueError, "k and v must have the same seqlen and heads"),
    (lambda q, k, v: (q, k[:, :, :1], v), ValueError, "k and v must have the same seqlen"),
    (lambda q, k, v: (q[:, :, :7], k, v), ValueError,
     r"query heads \(7\) must be a multiple of the number of key/value heads \(2\)"),
    (lambda q, k, v: (q, k, v), ValueError, "q must be a CUDA tensor, got device cpu"),
])
def test_bad_inputs(mutate, exc, message):
    with pytest.raises(exc, match=message):
        call(*mutate(*qkv()))


def test_transposed_bhsd_views_pass_the_shape_checks():
    q, k, v = (t.transpose(1, 2).contiguous().transpose(1, 2) for t in qkv())
    with pytest.raises(ValueError, match="must be a CUDA tensor"):  # i.e. only the device
        call(q, k, v)
