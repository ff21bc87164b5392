"""fattn.quantize_fp8 and fattn.hadamard_rotate (python/fattn/quantize.py).

Needs torch >= 2.1 (float8_e4m3fn); runs on CPU tensors and, where there is
a GPU, on CUDA tensors too. The torch quantizer is held bit for bit to
test/Execution/quantize_oracle.py's plain-Python model, which the lit test
test/Execution/oracle-quantize.test holds bit for bit to the MLIR op; where
fattn-opt and mlir-runner are found (FATTN_OPT / FATTN_RUNNER or PATH) the op
is also run directly on the same data.
"""
import importlib.util
import json
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
if not hasattr(torch, "float8_e4m3fn"):
    pytest.skip("torch without float8_e4m3fn", allow_module_level=True)

import fattn  # noqa: E402
from fattn import quantize as fq  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
DEVICES = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
DTYPES = [torch.bfloat16, torch.float16, torch.float32]


def _load_oracle():
    path = REPO / "test" / "Execution" / "quantize_oracle.py"
    sys.path.insert(0, str(path.parent))
    spec = importlib.util.spec_from_file_location("quantize_oracle", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


ORACLE = _load_oracle()


def codes(x_fp8):
    return x_fp8.view(torch.uint8)


def sylvester(d):
    h = torch.ones(1, 1, dtype=torch.float64)
    while h.shape[0] < d:
        h = torch.cat([torch.cat([h, h], 1), torch.cat([h, -h], 1)], 0)
    return h


def make(shape, dtype, device, seed=0, layout="bshd"):
    """A BSHD tensor: contiguous, a transposed BHSD buffer, or a padded slice."""
    gen = torch.Generator().manual_seed(seed)
    b, s, h, d = shape
    if layout == "bshd":
        x = torch.randn(b, s, h, d, generator=gen)
    elif layout == "bhsd":
        x = torch.randn(b, h, s, d, generator=gen).transpose(1, 2)
    else:
        x = torch.randn(b, s, h + 1, d + 4, generator=gen)[:, :, 1:, :d]
    return x.to(dtype=dtype, device=device)


# ---------------------------------------------------------------------------
# Signs and rotation
# ---------------------------------------------------------------------------

def test_signs_are_seeded_plus_minus_one():
    s = fattn.hadamard_signs(64, seed=3)
    assert s.dtype == torch.float32 and s.shape == (64,)
    assert set(s.tolist()) == {-1.0, 1.0}
    assert torch.equal(s, fattn.hadamard_signs(64, seed=3))
    assert not torch.equal(s, fattn.hadamard_signs(64, seed=4))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("d", [1, 2, 16, 128])
def test_rotation_is_diag_signs_times_hadamard(device, d):
    x = make((2, 5, 3, d), torch.float32, device)
    s = fattn.hadamard_signs(d, seed=d)
    want = x.double().cpu() @ (torch.diag(s.double()) @ sylvester(d) / math.sqrt(d))
    got = fattn.hadamard_rotate(x, s).double().cpu()
    assert (got - want).abs().max().item() <= 1e-5 * max(1.0, want.abs().max().item())
    back = fattn.hadamard_rotate(fattn.hadamard_rotate(x, s), s, inverse=True)
    assert (back - x).abs().max().item() <= 1e-5


@pytest.mark.parametrize("device", DEVICES)
def test_rotating_q_and_k_keeps_scores(device):
    q, k = make((1, 40, 2, 64), torch.float32, device, 1), make((1, 50, 2, 64), torch.float32,
                                                                 device, 2)
    s = fattn.hadamard_signs(64, seed=7, device=device)
    qr, kr = fattn.hadamard_rotate(q, s), fattn.hadamard_rotate(k, s)
    scores = torch.einsum("bqhd,bkhd->bhqk", q.double(), k.double())
    rotated = torch.einsum("bqhd,bkhd->bhqk", qr.double(), kr.double())
    assert (rotated - scores).abs().max().item() <= 1e-4
    assert (qr - q).abs().max().item() > 0.1  # it did rotate


def test_rotation_matches_the_reference_bits():
    x = make((1, 3, 2, 32), torch.bfloat16, "cpu")
    s = fattn.hadamard_signs(32, seed=5)
    got = fattn.hadamard_rotate(x, s, out_dtype=torch.float32)
    for h in range(2):
        for t in range(3):
            want = ORACLE.rotate_row(x[0, t, h].float().tolist(), s.tolist())
            assert got[0, t, h].tolist() == want


# ---------------------------------------------------------------------------
# Quantization: exact cases
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("device", DEVICES)
def test_exact_block_codes(device):
    # The case of test/Execution/quantize.mlir: one factor per row.
    x = torch.tensor([[896.0, -448.0, 3.5, 0.0],             # scale 2: 448, -224, 1.75, 0
                      [448.0, 1.0625, 1.1875, 1.5 * 2**-9],  # scale 1: ties to even
                      [0.0, 0.0, 0.0, 0.0]],                 # scale 2^-126
                     device=device).reshape(1, 3, 1, 4)
    x8, descale = fattn.quantize_fp8(x, block=1)
    assert x8.dtype == torch.float8_e4m3fn and x8.shape == (1, 3, 1, 4)
    assert descale.shape == (1, 1, 3) and descale.dtype == torch.float32
    assert descale.flatten().tolist() == [2.0, 1.0, 2.0 ** -126]
    assert codes(x8).flatten().tolist() == [126, 246, 62, 0, 126, 56, 58, 2, 0, 0, 0, 0]


@pytest.mark.parametrize("device", DEVICES)
def test_exact_rotated_codes(device):
    # (112, 224, 336, 448) diag(1, -1, 1, 1) H / 2 = (336, 112, -448, 224): amax
    # 448, scale 1, and 336 is a tie between 320 and 352 (to even: 320).
    x = torch.tensor([112.0, 224.0, 336.0, 448.0], device=device).reshape(1, 1, 1, 4)
    signs = torch.tensor([1.0, -1.0, 1.0, 1.0])
    x8, descale = fattn.quantize_fp8(x, signs=signs)
    assert descale.item() == 1.0
    assert codes(x8).flatten().tolist() == [122, 110, 254, 118]


@pytest.mark.parametrize("device", DEVICES)
def test_scale_rule(device):
    x = make((2, 33, 4, 16), torch.float32, device, 3)
    x[1, 7, 2, 5] = -37.25
    _, d = fattn.quantize_fp8(x)
    assert d.shape == () and d.item() == (torch.tensor(37.25) / 448).item()
    _, d = fattn.quantize_fp8(torch.zeros(1, 4, 2, 8, device=device))
    assert d.item() == 2.0 ** -126
    tiny = torch.full((1, 2, 1, 8), 1e-40, device=device)  # amax / 448 below float32's normals
    x8, d = fattn.quantize_fp8(tiny)
    assert d.item() == 2.0 ** -126
    assert torch.isfinite(x8.float()).all()


@pytest.mark.parametrize("device", DEVICES)
def test_saturates_and_keeps_sign(device):
    x = torch.tensor([-448.0, 447.9, 1e-3, -0.0], device=device).reshape(1, 1, 1, 4)
    x8, d = fattn.quantize_fp8(x)
    assert d.item() == 1.0
    assert codes(x8).flatten().tolist()[0] == 0xFE
    assert x8.float().flatten()[1].item() == 448.0
    assert codes(x8).flatten().tolist()[3] == 0x80


# ---------------------------------------------------------------------------
# Against the plain-Python model (and so the MLIR op), bit for bit
# ---------------------------------------------------------------------------

CASES = [
    dict(per="tensor"),
    dict(per="head"),
    dict(per="head", groups=2),
    dict(per="block", block=8),
    dict(per="block", block=64),
    dict(per="block", block=5, hadamard=True),
    dict(per="tensor", hadamard=True),
    dict(per="head", groups=1, hadamard=True, seed=11),
]


def reference(x, case):
    rows = x.float().cpu().permute(0, 2, 1, 3).tolist()  # [b][h][s] -> d floats
    signs = None
    if case.get("hadamard"):
        signs = fattn.hadamard_signs(x.shape[-1], case.get("seed", 0)).tolist()
    groups = case.get("groups", x.shape[2])
    c, d = ORACLE.quantize_reference(rows, case["per"], groups, case.get("block"), signs)
    return torch.tensor(c, dtype=torch.uint8).permute(0, 2, 1, 3), d


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", CASES, ids=lambda c: "-".join(f"{k}{v}" for k, v in c.items()))
def test_matches_reference_model(device, dtype, case):
    layout = ["bshd", "bhsd", "strided"][len(case) % 3]
    x = make((2, 19, 4, 32), dtype, device, seed=len(case), layout=layout)
    x[0, 3, 1, 7] = 30.0  # an outlier in one block
    x8, descale = fattn.quantize_fp8(x, **case)
    want_codes, want_descale = reference(x, case)
    assert x8.shape == x.shape and x8.is_contiguous()
    assert torch.equal(codes(x8).cpu(), want_codes)
    assert descale.flatten().cpu().tolist() == want_descale


# ---------------------------------------------------------------------------
# Round trip and accuracy
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", CASES[:6], ids=lambda c: "-".join(f"{k}{v}" for k, v in c.items()))
def test_round_trip_error_bound(device, case):
    x = make((2, 50, 4, 64), torch.float32, device, seed=9)
    x8, descale = fattn.quantize_fp8(x, **case)
    y = fattn.dequantize_fp8(x8, descale, block=case.get("block"))
    if case.get("hadamard"):
        y = fattn.hadamard_rotate(y, fattn.hadamard_signs(64, case.get("seed", 0)), inverse=True)
        assert (y - x).norm() / x.norm() < 4e-2  # ~2.5e-2: e4m3 keeps 3 mantissa bits
        return
    # e4m3 keeps 3 mantissa bits: |error| <= 2^-4 |x| for normals, and half a
    # subnormal step (2^-10 scale) below 2^-6 scale.
    scale = fattn.dequantize_fp8(torch.ones_like(x8), descale, block=case.get("block"))
    bound = torch.maximum(x.abs() * 2.0 ** -4, scale * 2.0 ** -10) * (1 + 1e-6)
    assert ((y - x).abs() <= bound).all()


def test_fa3_protocol_inputs():
    q, k, v = fattn.fa3_accuracy_inputs(2, 512, 4, 64, seed=1, dtype=torch.float32)
    assert q.shape == k.shape == v.shape == (2, 512, 4, 64)
    assert torch.equal(q, fattn.fa3_accuracy_inputs(2, 512, 4, 64, seed=1,
                                                    dtype=torch.float32)[0])
    outliers = (q.abs() > 6).float().mean().item()  # N(0, 1) alone: ~2e-9
    assert 2e-4 < outliers < 3e-3
    assert 0.9 < q.std().item() < 1.2


def _attention(q, k, v):
    qh, kh, vh = (t.double().transpose(1, 2) for t in (q, k, v))
    p = torch.softmax(qh @ kh.transpose(-1, -2) / math.sqrt(q.shape[-1]), dim=-1)
    return (p @ vh).transpose(1, 2)


def test_block_and_rotation_beat_per_tensor_on_outliers():
    """The FA3 protocol, with exact attention of the dequantized inputs (the
    kernel's own rounding of P is not modeled here)."""
    q, k, v = fattn.fa3_accuracy_inputs(1, 1024, 4, 128, seed=2, dtype=torch.float32)
    ref = _attention(q, k, v)

    def rmse(quant):
        deq = []
        for i, t in enumerate((q, k, v)):
            opts = dict(quant) if i < 2 else {kk: vv for kk, vv in quant.items()
                                               if kk != "hadamard"}
            t8, d = fattn.quantize_fp8(t, **opts)
            t = fattn.dequantize_fp8(t8, d, block=opts.get("block"))
            deq.append(t)
        return (_attention(*deq) - ref).pow(2).mean().sqrt().item()

    base = rmse(dict(per="tensor"))
    best = rmse(dict(per="block", block=128, hadamard=True))
    print(f"rmse per-tensor={base:.3e} block+hadamard={best:.3e} ratio={base / best:.2f}")
    assert best < base / 1.5


# ---------------------------------------------------------------------------
# Searched scales
# ---------------------------------------------------------------------------

SEARCH_FORMS = [dict(per="tensor"), dict(per="head", groups=2), dict(per="block", block=8)]


def _factor_errors(x, x8, descale, form):
    """Squared rounding error of each factor's rows (float64), by factor."""
    deq = fattn.dequantize_fp8(x8, descale, block=form.get("block")).double()
    err = (deq - x.double()).pow(2)  # [b, s, h, d]
    b, s, h, d = x.shape
    if form["per"] == "tensor":
        return err.sum().reshape(1)
    if form["per"] == "head":
        g = form["groups"]
        return err.reshape(b, s, g, h // g, d).sum(dim=(1, 3, 4)).flatten()
    blk = form["block"]
    nb = -(-s // blk)
    padded = err.new_zeros(b, nb * blk, h, d)
    padded[:, :s] = err
    return padded.reshape(b, nb, blk, h, d).sum(dim=(2, 4)).flatten()


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("form", SEARCH_FORMS, ids=lambda f: f["per"])
def test_search_keeps_the_best_scale(device, form):
    """Each searched factor is one of amax / 448 * 2^(k / n), k < n, and rounds
    its rows no worse than amax / 448 (k = 0 is a candidate); over many
    factors some round strictly better; search=0 is the default rule."""
    n = 16
    q, _, _ = fattn.fa3_accuracy_inputs(2, 30, 4, 32, seed=3, device=device)
    x = q.float()
    plain8, plain = fattn.quantize_fp8(x, **form)
    zero8, zero = fattn.quantize_fp8(x, search=0, **form)
    assert torch.equal(codes(plain8), codes(zero8)) and torch.equal(plain, zero)
    found8, found = fattn.quantize_fp8(x, search=n, **form)
    assert found.shape == plain.shape and found.dtype == torch.float32
    ratio = (found / plain).double().log2() * n
    assert torch.allclose(ratio, ratio.round(), atol=1e-3), ratio
    assert int(ratio.round().min()) >= 0 and int(ratio.round().max()) < n
    before = _factor_errors(x, plain8, plain, form)
    after = _factor_errors(x, found8, found, form)
    assert bool((after <= before).all()), (after - before).max()
    if before.numel() > 4:
        assert bool((after < before).any())


def test_search_lowers_attention_error_on_outliers():
    """The FA3 protocol's inputs, exact attention of the dequantized Q, K, V
    (each per 128-row block, Q and K rotated): searched scales round closer."""
    q, k, v = fattn.fa3_accuracy_inputs(1, 1024, 4, 128, seed=2, dtype=torch.float32)
    ref = _attention(q, k, v)
    signs = fattn.hadamard_signs(128, seed=2)

    def rmse(search):
        deq = []
        for t, sg in ((q, signs), (k, signs), (v, None)):
            t8, d = fattn.quantize_fp8(t, block=128, signs=sg, search=search)
            t = fattn.dequantize_fp8(t8, d, block=128)
            deq.append(t if sg is None else fattn.hadamard_rotate(t, sg, inverse=True))
        return (_attention(*deq) - ref).pow(2).mean().sqrt().item()

    plain, searched = rmse(0), rmse(64)
    print(f"rmse amax scales={plain:.4e} searched={searched:.4e} ({plain / searched:.3f}x)")
    assert searched < plain


# ---------------------------------------------------------------------------
# Bad input
# ---------------------------------------------------------------------------

def test_errors():
    x = torch.zeros(1, 4, 2, 16)
    with pytest.raises(TypeError, match="torch.Tensor"):
        fattn.quantize_fp8(x.numpy())
    with pytest.raises(TypeError, match="float32, float16 or bfloat16"):
        fattn.quantize_fp8(x.to(torch.int32))
    with pytest.raises(ValueError, match="rank 4"):
        fattn.quantize_fp8(x[0])
    with pytest.raises(ValueError, match="per must be one of"):
        fattn.quantize_fp8(x, per="row")
    with pytest.raises(TypeError, match="needs an int block"):
        fattn.quantize_fp8(x, per="block")
    with pytest.raises(ValueError, match="block must be positive"):
        fattn.quantize_fp8(x, block=0)
    with pytest.raises(ValueError, match="only meaningful with per='block'"):
        fattn.quantize_fp8(x, block=4, per="head")
    with pytest.raises(ValueError, match="positive divisor of the head count"):
        fattn.quantize_fp8(x, per="head", groups=3)
    with pytest.raises(ValueError, match="only meaningful with per='head'"):
        fattn.quantize_fp8(x, groups=1)
    with pytest.raises(ValueError, match="power-of-two head dim"):
        fattn.quantize_fp8(torch.zeros(1, 4, 2, 12), hadamard=True)
    with pytest.raises(ValueError, match=r"shape \(16,\)"):
        fattn.quantize_fp8(x, signs=torch.ones(8))
    with pytest.raises(ValueError, match=r"only \+1 and -1"):
        fattn.hadamard_rotate(x, torch.full((16,), 0.5))
    with pytest.raises(ValueError, match="positive int"):
        fattn.hadamard_signs(0)
    for bad in (-1, fq.MAX_SEARCH + 1, 2.0, True):
        with pytest.raises(ValueError, match="search must be an int"):
            fattn.quantize_fp8(x, search=bad)
    with pytest.raises(ValueError, match="needs the positive block"):
        fattn.dequantize_fp8(torch.zeros(1, 4, 2, 16, dtype=torch.float8_e4m3fn),
                             torch.ones(1, 2, 1))


# ---------------------------------------------------------------------------
# Against the MLIR op itself, where the tools are here
# ---------------------------------------------------------------------------

def _tool(env, name):
    return os.environ.get(env) or shutil.which(name)


@pytest.mark.parametrize("options", [
    ["--per", "tensor"], ["--per", "block", "--hadamard", "--layout", "bshd"],
    ["--per", "head", "--heads-kv", "1", "--dtype", "f16"]], ids=["tensor", "block", "head"])
def test_matches_mlir_op(tmp_path, options):
    """quantize_fp8 on the data that fattn.quantize quantized through
    mlir-runner (the oracle's --dump): the same bytes and descales."""
    opt, runner = _tool("FATTN_OPT", "fattn-opt"), _tool("FATTN_RUNNER", "mlir-runner")
    if not opt or not runner:
        pytest.skip("needs fattn-opt and mlir-runner (FATTN_OPT, FATTN_RUNNER)")
    libs = Path(runner).resolve().parents[1] / "lib"
    shared = ",".join(str(libs / n) for n in ("libmlir_c_runner_utils.so",
                                              "libmlir_runner_utils.so"))
    dump = tmp_path / "quantize.json"
    out = subprocess.run(
        [sys.executable, str(REPO / "test" / "Execution" / "quantize_oracle.py"),
         "--opt", opt, "--runner", runner, "--shared-libs", shared, "--seq-q", "20",
         "--head-dim", "16", "--seed", "5", "--dump", str(dump)] + options,
        capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    data = json.loads(dump.read_text())
    signs = torch.tensor(data["signs"]) if data["signs"] else None
    for t in data["tensors"]:
        x = torch.tensor(t["rows"], dtype=torch.float32).permute(0, 2, 1, 3)  # BHSD -> BSHD
        kw = dict(per=data["per"])
        if data["per"] == "block":
            kw["block"] = t["block"]
        if data["per"] == "head":
            kw["groups"] = t["groups"]
        if t["rotate"]:
            kw["signs"] = signs
        x8, descale = fattn.quantize_fp8(x, **kw)
        got_bits = descale.flatten().view(torch.int32).tolist()
        assert [b & 0xFFFFFFFF for b in got_bits] == t["descale_bits"], t["name"]
        assert codes(x8).permute(0, 2, 1, 3).flatten().tolist() == t["codes"], t["name"]
