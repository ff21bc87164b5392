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


def test_call_key():
    """What flash_attn_func's check cache (fattn.interface._CHECKED) keys calls by:
    metadata and typed arguments, the default arch's environment; None for calls it
    must check every time."""
    from fattn.interface import _call_key
    q, k, v = qkv()
    args = (None, False, (-1, -1), 0.0, False, None, None, None, None)
    key = _call_key((q, k, v, None, None), args)
    assert key == _call_key(tuple(t.clone() for t in (q, k, v)) + (None, None), args)
    assert key != _call_key((q, k, v[:, :, :1], None, None), args)          # shape
    assert key != _call_key((q, k, v.transpose(1, 2).contiguous().transpose(1, 2), None,
                             None), args)                                     # strides
    assert key != _call_key((q, k, v.half(), None, None), args)              # dtype
    assert key != _call_key((q, k, v, None, None),
                            (None, False, (-1.0, -1.0)) + args[3:])          # argument types
    assert key != _call_key((q, k, v, None, None), args[:5] + ("sm_80",) + args[6:])
    assert _call_key((q.float().numpy(), k, v, None, None), args) is None    # not a tensor
    assert _call_key((q, k, v, None, None), (torch.tensor(0.1),) + args[1:]) is None
    import os
    saved = os.environ.get("FATTN_ARCH")
    os.environ["FATTN_ARCH"] = "sm_80"
    try:
        assert key != _call_key((q, k, v, None, None), args)                 # default arch
    finally:
        if saved is None:
            del os.environ["FATTN_ARCH"]
        else:
            os.environ["FATTN_ARCH"] = saved
