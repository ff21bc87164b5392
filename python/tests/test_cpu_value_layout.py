"""V given pre-transposed (value_layout "transposed_wgmma_e4m3_k32"): the helper
fattn.transpose_value_fp8 against the layout's formula, and flash_attn_func's v_layout
checks, on CPU tensors (needs torch with float8, not a GPU; CUDA tensors too where
there is one). Configurations and MLIR without torch: test_cpu_fp8.py."""
import pytest

torch = pytest.importorskip("torch")
if not hasattr(torch, "float8_e4m3fn"):
    pytest.skip("torch without float8_e4m3fn", allow_module_level=True)

import fattn  # noqa: E402
from fattn.quantize import KEY_PERMUTATION  # noqa: E402

F8 = torch.float8_e4m3fn
VT = fattn.VALUE_LAYOUT_SM90
DEVICES = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])


def random_fp8(*shape, seed=0, device="cpu"):
    """e4m3 of every byte value but NaN (0x7F, 0xFF): codes compared as uint8."""
    gen = torch.Generator().manual_seed(seed)
    codes = torch.randint(0, 256, shape, generator=gen, dtype=torch.uint8)
    codes[(codes & 0x7F) == 0x7F] = 0x11
    return codes.to(device).view(F8)


def reference_vt(v):
    """The layout's definition, slot by slot (plain Python over slots):
    VT[b, h, :, 16 g + c] = V[b, 16 g + PI[c], h, :], 0 where that key is >= seq_k."""
    codes = v.cpu().view(torch.uint8)
    b, s, h, d = codes.shape
    keys = (s + 15) // 16 * 16
    out = torch.zeros(b, h, d, keys, dtype=torch.uint8)
    for bi in range(b):
        for hi in range(h):
            for slot in range(keys):
                group, c = divmod(slot, 16)
                key = 16 * group + KEY_PERMUTATION[c]
                if key < s:
                    out[bi, hi, :, slot] = codes[bi, key, hi, :]
    return out


def test_key_permutation_is_the_contracts():
    assert KEY_PERMUTATION == (0, 1, 8, 9, 2, 3, 10, 11, 4, 5, 12, 13, 6, 7, 14, 15)
    assert KEY_PERMUTATION == tuple(2 * (c // 4) + c % 2 + 8 * ((c % 4) // 2)
                                    for c in range(16))
    assert VT == "transposed_wgmma_e4m3_k32"


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("shape", [(1, 16, 1, 4), (2, 37, 3, 8), (1, 1, 2, 16), (2, 77, 2, 32),
                                   (1, 1000, 1, 16), (2, 0, 2, 8)],
                         ids=lambda s: "x".join(map(str, s)))
def test_transpose_value_fp8_is_the_formula(shape, device):
    v = random_fp8(*shape, device=device)
    vt = fattn.transpose_value_fp8(v)
    b, s, h, d = shape
    keys = (s + 15) // 16 * 16
    assert vt.dtype == F8 and tuple(vt.shape) == (b, h, d, keys) and vt.is_contiguous()
    assert vt.device == v.device
    assert torch.equal(vt.cpu().view(torch.uint8), reference_vt(v))


@pytest.mark.parametrize("layout", ["bhsd", "padded"])
def test_transpose_value_fp8_takes_any_strides(layout):
    """GQA-shaped V (2 KV heads, seqlen 77) as a transposed BHSD buffer and as a slice
    of padded heads and rows: the same result as from the contiguous copy."""
    if layout == "bhsd":
        v = random_fp8(2, 2, 77, 64, seed=1).transpose(1, 2)
    else:
        v = random_fp8(2, 77, 4, 80, seed=2)[:, :, 1:3, :64]
    assert not v.is_contiguous()
    vt = fattn.transpose_value_fp8(v)
    assert torch.equal(vt.view(torch.uint8),
                       fattn.transpose_value_fp8(v.contiguous()).view(torch.uint8))
    assert torch.equal(vt.view(torch.uint8), reference_vt(v))


def test_transpose_value_fp8_keeps_every_value():
    """Undoing the permutation gives V back: keys are moved, never rounded or lost."""
    v = random_fp8(2, 100, 2, 16, seed=3)
    vt = fattn.transpose_value_fp8(v).view(torch.uint8)  # [b, h, d, 112]
    inverse = [KEY_PERMUTATION.index(k) for k in range(16)]
    slots = torch.tensor([16 * (s // 16) + inverse[s % 16] for s in range(112)])
    back = vt[..., slots].permute(0, 3, 1, 2)[:, :100]
    assert torch.equal(back, v.view(torch.uint8))
    assert (vt[..., [16 * 6 + c for c in range(16) if KEY_PERMUTATION[c] >= 4]] == 0).all()


@pytest.mark.parametrize("arg,exc,message", [
    (lambda: [1.0], TypeError, "v must be a torch.Tensor, got list"),
    (lambda: torch.zeros(2, 16, 2, 8, dtype=torch.bfloat16), TypeError,
     r"v must be float8_e4m3fn \(fattn.quantize_fp8 makes it\), got torch.bfloat16"),
    (lambda: torch.zeros(2, 16, 2, 8).to(torch.float8_e5m2), TypeError,
     "v must be float8_e4m3fn"),
    (lambda: torch.zeros(16, 2, 8).to(F8), ValueError,
     r"v must have 4 dims \[batch, seq_k, heads_kv, d\], got shape \(16, 2, 8\)"),
])
def test_transpose_value_fp8_bad_inputs(arg, exc, message):
    with pytest.raises(exc, match=message):
        fattn.transpose_value_fp8(arg())


# ---------------------------------------------------------------------------
# flash_attn_func(..., v_layout=...): the checks before any CUDA call
# ---------------------------------------------------------------------------

def qkv(b=2, sq=1000, sk=77, hq=8, hk=2, d=128, dv=64, dtype=F8):
    """GQA 8/2, seqlens 1000 and 77, head_dim_v 64: q, k and V^T (keys 80)."""
    q = torch.zeros(b, sq, hq, d).to(dtype)
    k = torch.zeros(b, sk, hk, d).to(dtype)
    v = torch.zeros(b, sk, hk, dv).to(dtype)
    return q, k, fattn.transpose_value_fp8(v) if dtype == F8 else v


def vt_of(*shape, dtype=F8):
    return torch.zeros(*shape).to(dtype)


def call(q, k, v, **kw):
    return fattn.flash_attn_func(q, k, v, **kw)


@pytest.mark.parametrize("inputs,kw,exc,message", [
    (qkv, dict(v_layout="bshd"), ValueError,
     "v_layout must be None or 'transposed_wgmma_e4m3_k32', got 'bshd'"),
    (lambda: qkv(dtype=torch.bfloat16), dict(v_layout=VT), ValueError,
     "v_layout='transposed_wgmma_e4m3_k32' is for float8_e4m3fn q, k and v; q and k have "
     "dtype torch.bfloat16"),
    (lambda: qkv()[:2] + (vt_of(2, 2, 64, 80, dtype=torch.bfloat16),), dict(v_layout=VT),
     ValueError, r"needs a float8_e4m3fn v \(from fattn.transpose_value_fp8\), got "
                 r"torch.bfloat16"),
    (lambda: qkv()[:2] + (vt_of(2, 64, 80),), dict(v_layout=VT), ValueError,
     r"v must have shape \[batch, heads_kv, head_dim_v, keys\] = \[2, 2, head_dim_v, "
     r"keys >= 77\] \(fattn.transpose_value_fp8 makes it\), got \(2, 64, 80\)"),
    # A BSHD v with the flag: [2, 77, 2, 64] is not [2, 2, ...].
    (lambda: qkv()[:2] + (vt_of(2, 77, 2, 64),), dict(v_layout=VT), ValueError,
     r"v must have shape .* got \(2, 77, 2, 64\)"),
    (lambda: qkv()[:2] + (vt_of(1, 2, 64, 80),), dict(v_layout=VT), ValueError,
     r"got \(1, 2, 64, 80\)"),
    (lambda: qkv()[:2] + (vt_of(2, 8, 64, 80),), dict(v_layout=VT), ValueError,
     r"got \(2, 8, 64, 80\)"),
    (lambda: qkv()[:2] + (vt_of(2, 2, 64, 64),), dict(v_layout=VT), ValueError,
     r"v's last dim \(keys, 64\) must be at least seqlen_k \(77\) and a multiple of 16"),
    (lambda: qkv()[:2] + (vt_of(2, 2, 64, 88),), dict(v_layout=VT), ValueError,
     r"v's last dim \(keys, 88\) must be at least seqlen_k \(77\) and a multiple of 16"),
    (lambda: qkv()[:2] + (vt_of(2, 2, 64, 160)[..., ::2],), dict(v_layout=VT), ValueError,
     "v must have a contiguous last dim"),
    # q and k are still checked as without it.
    (lambda: (qkv()[0], qkv(sk=77, d=64)[1], qkv()[2]), dict(v_layout=VT), ValueError,
     "k has head_dim 64 but q has 128"),
    (lambda: (qkv(hq=7)[0],) + qkv()[1:], dict(v_layout=VT), ValueError,
     r"query heads \(7\) must be a multiple of the number of key/value heads \(2\)"),
    # Without the flag, V^T is a BSHD v of the wrong seqlen.
    (qkv, {}, ValueError, "k and v must have the same seqlen and heads"),
    # Every check passes: only the device is left (v_descale's blocks count keys).
    (qkv, dict(v_layout=VT), ValueError, "q must be a CUDA tensor, got device cpu"),
    (lambda: qkv()[:2] + (vt_of(2, 2, 64, 256)[..., :96],), dict(v_layout=VT), ValueError,
     "q must be a CUDA tensor"),
    (qkv, dict(v_layout=VT, q_descale=torch.ones(2, 2), k_descale=torch.ones(2, 2, 1),
               v_descale=torch.ones(2, 2, 1), descale_block_kv=128), ValueError,
     "q must be a CUDA tensor"),
])
def test_bad_v_layout_arguments(inputs, kw, exc, message):
    with pytest.raises(exc, match=message):
        call(*inputs(), **kw)


def test_quantized_and_transposed_v_is_accepted():
    """quantize_fp8 then transpose_value_fp8 passes the checks (up to the device), with
    per-tensor and per-block factors."""
    q, k, v = (torch.randn(2, s, h, 128) for s, h in ((1000, 8), (77, 2), (77, 2)))
    for kvkw, kw in (({}, {}), (dict(block=128), dict(descale_block_kv=128))):
        q8, dq = fattn.quantize_fp8(q)
        k8, dk = fattn.quantize_fp8(k, **kvkw)
        v8, dv = fattn.quantize_fp8(v, **kvkw)
        vt = fattn.transpose_value_fp8(v8)
        with pytest.raises(ValueError, match="q must be a CUDA tensor"):
            call(q8, k8, vt, v_layout=VT, q_descale=dq, k_descale=dk, v_descale=dv, **kw)
