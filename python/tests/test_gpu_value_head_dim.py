"""V's head dim differing from Q's and K's (run on the GPU machine).

MLA's 192/128 and a V wider than Q and K (64/128), the shapes of presets.
TEST_VALUE_HEAD_DIMS, on the arch flash_attn_func picks (sm_90a on an H100,
FATTN_ARCH=sm_80 for the sm_80 kernels), against the float64 reference on fresh
random inputs, output and LSE poisoned with NaN (test_gpu_attention.run_case):
sequence lengths off the tiles, Sq != Sk, causal or not, sliding windows,
softcap, GQA/MQA, several work items per persistent CTA. A V head dim outside
the compiler's rule (config.head_dim_rule) is refused with a ValueError before
anything is looked up or compiled.
"""
import pytest

torch = pytest.importorskip("torch")

from gpu_support import TORCH_DTYPES  # noqa: E402
from test_gpu_attention import run_case  # noqa: E402
import fattn  # noqa: E402
from fattn.config import default_arch  # noqa: E402
from fattn.presets import TEST_DTYPES, TEST_MASKS, TEST_VALUE_HEAD_DIMS  # noqa: E402

pytestmark = pytest.mark.gpu

MLA, WIDE_VALUE = TEST_VALUE_HEAD_DIMS
SEQLENS = [(113, 113), (1000, 1000), (17, 2049), (2049, 1000), (1, 1)]
MASK_IDS = ["full", "causal", "window", "causal-window"]


@pytest.mark.parametrize("sq,sk", SEQLENS)
@pytest.mark.parametrize("causal,wl,wr", TEST_MASKS, ids=MASK_IDS)
@pytest.mark.parametrize("lse", [False, True], ids=["nolse", "lse"])
@pytest.mark.parametrize("dtype", TEST_DTYPES)
def test_mla(dtype, lse, causal, wl, wr, sq, sk):
    d, dv = MLA
    run_case(dtype=dtype, d=d, dv=dv, hq=8, hk=2, sq=sq, sk=sk, causal=causal, window=(wl, wr),
             lse=lse)


@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("dtype", TEST_DTYPES)
def test_mla_softcap(dtype, causal):
    d, dv = MLA
    run_case(dtype=dtype, d=d, dv=dv, hq=6, hk=3, sq=1000, sk=1337, causal=causal,
             softcap=30.0, lse=True)


@pytest.mark.parametrize("hq,hk", [(8, 8), (8, 1), (6, 3)])
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_mla_gqa_many_work_items(hq, hk, causal):
    """More (Q tile, head, batch) work items than SMs: persistent CTAs run
    several in turn; sq > sk leaves causal rows without keys (O = 0)."""
    d, dv = MLA
    run_case(d=d, dv=dv, b=3, hq=4 * hq, hk=4 * hk, sq=1100, sk=1100, causal=causal, lse=True)
    if causal:
        run_case(d=d, dv=dv, b=2, hq=hq, hk=hk, sq=700, sk=300, causal=True, lse=True)


@pytest.mark.parametrize("sq,sk", SEQLENS)
@pytest.mark.parametrize("causal,wl,wr", TEST_MASKS, ids=MASK_IDS)
def test_value_wider_than_query(causal, wl, wr, sq, sk):
    """V's 128 columns against Q's and K's 64: O passes through a Q buffer
    wider than Q (windows: one CTA per Q tile)."""
    d, dv = WIDE_VALUE
    run_case(d=d, dv=dv, hq=8, hk=2, sq=sq, sk=sk, causal=causal, window=(wl, wr), lse=True)


def test_refused_up_front():
    """A V head dim outside the arch's rule (not a multiple of 8): the
    ValueError names it and the arch, before any lookup or compile."""
    q = torch.randn(1, 64, 2, MLA[0], device="cuda", dtype=TORCH_DTYPES["bf16"])
    v = torch.randn(1, 64, 2, 132, device="cuda", dtype=q.dtype)
    arch = default_arch(torch.cuda.get_device_capability())
    with pytest.raises(ValueError, match=rf"head_dim_v 132 is not supported on {arch}"):
        fattn.flash_attn_func(q, q, v)
