"""flash_attn_func and the packed variants take FlashAttention-2's arguments in its
order; the ones fattn does not support are refused by name (the signature and
the refusals need no torch; the packed inputs do)."""
import inspect

import pytest

import fattn
from fattn import interface

# flash_attn.flash_attn_func (FlashAttention-2 2.x): name -> default, in order.
FA2_ARGUMENTS = [("dropout_p", 0.0), ("softmax_scale", None), ("causal", False),
                 ("window_size", (-1, -1)), ("softcap", 0.0), ("alibi_slopes", None),
                 ("deterministic", False), ("return_attn_probs", False)]


@pytest.mark.parametrize("func,tensors", [(fattn.flash_attn_func, ["q", "k", "v"]),
                                          (fattn.flash_attn_qkvpacked_func, ["qkv"]),
                                          (fattn.flash_attn_kvpacked_func, ["q", "kv"])])
def test_fa2_positional_arguments(func, tensors):
    params = list(inspect.signature(func).parameters.values())
    positional = [p for p in params if p.kind == p.POSITIONAL_OR_KEYWORD]
    assert [p.name for p in positional] == tensors + [n for n, _ in FA2_ARGUMENTS]
    assert [p.default for p in positional[len(tensors):]] == [d for _, d in FA2_ARGUMENTS]
    # fattn's own arguments: keyword-only (flash_attn_func's, forwarded by the packed ones).
    rest = params[len(positional):]
    assert rest and all(p.kind in (p.KEYWORD_ONLY, p.VAR_KEYWORD) for p in rest)


def test_fattn_extras_are_keyword_only():
    extras = [p.name for p in inspect.signature(fattn.flash_attn_func).parameters.values()
              if p.kind == p.KEYWORD_ONLY]
    assert extras[:4] == ["return_lse", "arch", "out", "lse_out"]
    assert {"q_descale", "k_descale", "v_descale", "descale_block_q", "descale_block_kv",
            "v_layout"} <= set(extras)


@pytest.mark.parametrize("kw,exc,message", [
    (dict(dropout_p=0.1), ValueError, r"dropout_p=0\.1 is not supported"),
    (dict(dropout_p=1), ValueError, r"dropout_p=1 is not supported"),
    (dict(dropout_p="0"), TypeError, "dropout_p must be a number, got '0'"),
    (dict(dropout_p=None), TypeError, "dropout_p must be a number, got None"),
    (dict(dropout_p=True), TypeError, "dropout_p must be a number, got True"),
    (dict(alibi_slopes=[0.5]), ValueError, "alibi_slopes is not supported"),
    (dict(return_attn_probs=True), ValueError, "return_attn_probs=True is not supported"),
    (dict(return_attn_probs="no"), TypeError, "return_attn_probs must be a bool"),
    (dict(deterministic="yes"), TypeError, "deterministic must be a bool"),
])
def test_unsupported_arguments_are_named(kw, exc, message):
    """Refused before anything else (q, k, v are not even looked at)."""
    with pytest.raises(exc, match=message):
        fattn.flash_attn_func(None, None, None, **kw)


def test_unsupported_arguments_positionally():
    with pytest.raises(ValueError, match=r"dropout_p=0\.5"):
        fattn.flash_attn_func(None, None, None, 0.5)
    with pytest.raises(ValueError, match="return_attn_probs=True"):
        fattn.flash_attn_func(None, None, None, 0.0, None, False, (-1, -1), 0.0, None, False,
                              True)


@pytest.mark.parametrize("deterministic", [False, True])
def test_defaults_and_deterministic_pass(deterministic):
    interface._check_unsupported(0.0, None, deterministic, False)
    interface._check_unsupported(0, None, deterministic, 0)


# Packed inputs (torch on the CPU: everything up to the device check)

def _torch():
    return pytest.importorskip("torch")


def test_positional_call_reaches_the_checks_with_fa2_meaning(monkeypatch):
    """FlashAttention-2's positional call: softmax_scale, causal, window_size and
    softcap arrive as those arguments (not shifted by dropout_p)."""
    torch = _torch()
    seen = {}

    def record(q, k, v, descales, softmax_scale, causal, window_size, softcap, *rest):
        seen.update(softmax_scale=softmax_scale, causal=causal, window_size=window_size,
                    softcap=softcap)
        raise LookupError("recorded")

    monkeypatch.setattr(interface, "_check_arguments", record)
    q = torch.zeros(1, 8, 2, 64, dtype=torch.bfloat16)
    with pytest.raises(LookupError, match="recorded"):
        fattn.flash_attn_func(q, q, q, 0.0, 0.125, True, (16, 0), 5.0)
    assert seen == dict(softmax_scale=0.125, causal=True, window_size=(16, 0), softcap=5.0)


def test_packed_inputs_are_views_of_the_packed_tensor(monkeypatch):
    torch = _torch()
    calls = []
    monkeypatch.setattr(interface, "flash_attn_func",
                        lambda *a, **kw: calls.append((a, kw)) or "out")
    qkv = torch.zeros(2, 17, 3, 4, 64, dtype=torch.bfloat16)
    assert fattn.flash_attn_qkvpacked_func(qkv, 0.0, 0.5, True, return_lse=True) == "out"
    (q, k, v, *args), kw = calls.pop()
    for i, t in enumerate((q, k, v)):
        assert t.shape == (2, 17, 4, 64) and t.data_ptr() == qkv[:, :, i].data_ptr()
        assert t.stride() == qkv[:, :, i].stride()
    assert args == [0.0, 0.5, True, (-1, -1), 0.0, None, False, False]
    assert kw == dict(return_lse=True)
    q = torch.zeros(2, 9, 8, 64, dtype=torch.bfloat16)
    kv = torch.zeros(2, 17, 2, 2, 64, dtype=torch.bfloat16)
    assert fattn.flash_attn_kvpacked_func(q, kv, causal=True) == "out"
    (q2, k, v, *args), kw = calls.pop()
    assert q2 is q and k.data_ptr() == kv[:, :, 0].data_ptr() and v.shape == (2, 17, 2, 64)
    assert args[2] is True and kw == {}


@pytest.mark.parametrize("make,message", [
    (lambda t: (t.zeros(2, 17, 2, 4, 64),), r"qkv must have shape \[batch, seqlen, 3, heads, "
                                            r"head_dim\], got \(2, 17, 2, 4, 64\)"),
    (lambda t: (t.zeros(2, 17, 3, 4),), r"qkv must have shape .* got \(2, 17, 3, 4\)"),
])
def test_bad_qkv(make, message):
    torch = _torch()
    with pytest.raises(ValueError, match=message):
        fattn.flash_attn_qkvpacked_func(*make(torch))


def test_bad_kv_and_unknown_keyword():
    torch = _torch()
    q = torch.zeros(2, 9, 8, 64, dtype=torch.bfloat16)
    with pytest.raises(ValueError, match=r"kv must have shape \[batch, seqlen_k, 2, heads_kv"):
        fattn.flash_attn_kvpacked_func(q, torch.zeros(2, 17, 3, 2, 64, dtype=torch.bfloat16))
    with pytest.raises(TypeError, match="kv must be a torch.Tensor"):
        fattn.flash_attn_kvpacked_func(q, [q, q])
    with pytest.raises(TypeError, match="unexpected keyword argument 'softmax_cap'"):
        fattn.flash_attn_qkvpacked_func(torch.zeros(1, 4, 3, 2, 64), softmax_cap=1.0)


def test_packed_call_reaches_the_device_check():
    """A good packed call on the CPU passes every check but the device one."""
    torch = _torch()
    qkv = torch.zeros(2, 17, 3, 4, 64, dtype=torch.bfloat16)
    with pytest.raises(ValueError, match="q must be a CUDA tensor"):
        fattn.flash_attn_qkvpacked_func(qkv, causal=True)
