"""flash_attn_func's backward pass on the GPU (run on the GPU machine).

Gradients of flash_attn_func (forward kernels of the arch it picks, the sm_80
backward kernels through the runtime: on an sm_90 GPU their PTX) against float64
autograd of the reference attention on fresh random inputs: f16 and bf16, head
dims 64 and 128, no mask, causal and a sliding window, GQA and MQA, Sq != Sk both
ways with rows that see no key, lengths off the 64-row tiles, BSHD and a
transposed (BHSD) layout. The relative L2 error of dq, dk and dv must be at most
BOUND_FACTOR (grad_reference.py) times that of a 16-bit backward on the same inputs (torch SDPA's
FlashAttention backend where it takes the case, else the reference in the input
dtype) plus ABS_FLOOR. Then: torch.compile(fullgraph=True) of a function calling
flash_attn_func, forward and backward; CUDA-graph capture of a training step;
training steps of a small transformer block and of a tiny transformers Llama
(random weights, when transformers is installed) with fattn and with SDPA,
losses and gradients compared. deterministic=True: two backward passes on the
same inputs give bit-identical gradients, by the sm_80 kernels and, on an sm_90
GPU (unless FATTN_GRAD_ARCH=sm_80), by the sm_90a ones.

Kernels: the `training` preset (python -m fattn.build_library --preset training)
or fattn-compile on first use; see docs/GPU-TESTING.md.
"""
import copy
import math

import pytest

torch = pytest.importorskip("torch")
if not hasattr(torch.library, "custom_op"):
    pytest.skip("flash_attn_func's backward needs torch 2.4 or later", allow_module_level=True)

import torch.nn.functional as F  # noqa: E402

from gpu_support import (TORCH_DTYPES, backend, config_for, ensure_kernel, make_bshd,  # noqa: E402
                         new_generator, visible)
from grad_reference import (assert_within_bound, grad_rel_l2, reference_gradients,  # noqa: E402
                            sdpa_gradients)
import fattn  # noqa: E402
from fattn.grad_config import (GRAD_ARCH_ENV, GradKernelConfig,  # noqa: E402
                               grad_arch_for, requested_grad_arch)
from fattn.presets import TEST_DTYPES, TRAINING_HEAD_DIMS, TRAINING_MASKS  # noqa: E402

pytestmark = pytest.mark.gpu

MASK_IDS = ["full", "causal", "window"]
# (batch, heads_q, heads_kv, seq_q, seq_k, layout)
CASES = [
    (2, 8, 2, 300, 300, "bshd"),
    (1, 4, 1, 100, 333, "bshd"),   # MQA, Sq < Sk
    (2, 4, 2, 257, 129, "bhsd"),   # Sq > Sk: causal rows without keys
    (3, 6, 3, 191, 191, "bshd"),
    (1, 2, 2, 1, 1, "bshd"),
]


def need_kernels(q, k, v, causal, window=(-1, -1), softcap=0.0, scale=None,
                 grad_arch=None, deterministic=False):
    """The forward (with its LSE) and the backward kernel of the call (`grad_arch`'s,
    default the one flash_attn_func picks on this GPU), or a skip."""
    if backend() == "naive":
        pytest.skip("the naive reference kernels have no backward")
    if grad_arch is None:
        grad_arch = grad_arch_for(torch.cuda.get_device_capability(), q.shape[3])
    ensure_kernel(config_for(q, k, v, causal, window, softcap, scale, True))
    dtype = {torch.bfloat16: "bf16", torch.float16: "f16"}[q.dtype]
    ensure_kernel(GradKernelConfig.make(dtype, q.shape[3], causal, window[0], window[1], softcap,
                                        scale, grad_arch, deterministic))


def check_against_float64(q, k, v, do, out, got, causal, window):
    """out and the gradients `got` (dq, dk, dv) of flash_attn_func against float64
    autograd of the reference, within the bound of a 16-bit backward."""
    sq, sk, head_dim = q.shape[1], k.shape[1], q.shape[3]
    scale = 1.0 / math.sqrt(head_dim)
    mask = visible(sq, sk, window[0], 0 if causal else window[1], q.device)
    out64, _, *ref = reference_gradients(q, k, v, do, scale, mask, torch.float64)
    assert grad_rel_l2(out.detach(), out64) < 1e-2
    base = sdpa_gradients(q, k, v, do, scale, causal, window)
    source = "SDPA flash"
    if base is None:
        base = list(reference_gradients(q, k, v, do, scale, mask, q.dtype)[2:])
        source = f"reference in {str(q.dtype).replace('torch.', '')}"
    for x, leaf in zip(got, (q, k, v)):
        assert x.shape == leaf.shape and x.dtype == q.dtype
    assert_within_bound(got, ref, base, source)


@pytest.mark.parametrize("case", CASES, ids=lambda c: "b{}_h{}-{}_sq{}_sk{}_{}".format(*c))
@pytest.mark.parametrize("causal,wl,wr", TRAINING_MASKS, ids=MASK_IDS)
@pytest.mark.parametrize("head_dim", TRAINING_HEAD_DIMS)
@pytest.mark.parametrize("dtype", TEST_DTYPES)
def test_gradients_against_float64(dtype, head_dim, causal, wl, wr, case):
    b, hq, hk, sq, sk, layout = case
    gen = new_generator()
    tdtype = TORCH_DTYPES[dtype]
    q, k, v, do = (make_bshd(b, s, h, head_dim, tdtype, layout, gen)
                   for s, h in ((sq, hq), (sk, hk), (sk, hk), (sq, hq)))
    window = (wl, -1 if causal else wr)
    need_kernels(q, k, v, causal, window)
    leaves = [t.detach().clone().requires_grad_(True) for t in (q, k, v)]
    out = fattn.flash_attn_func(*leaves, causal=causal, window_size=window)
    assert out.grad_fn is not None
    out.backward(do)
    check_against_float64(q, k, v, do, out, [t.grad for t in leaves], causal, window)


def use_grad_arch(monkeypatch, arch: str, head_dim: int) -> None:
    """Makes flash_attn_func's backward run `arch`'s kernels: sm_80's anywhere;
    sm_90a's on an sm_90 GPU (their default there) unless the run asks for
    sm_80's (FATTN_GRAD_ARCH=sm_80), else a skip."""
    capability = torch.cuda.get_device_capability()
    if arch == "sm_90a":
        if requested_grad_arch() == "sm_80":
            pytest.skip(f"{GRAD_ARCH_ENV}=sm_80 asks for the sm_80 backward kernels")
        if tuple(capability) != (9, 0):
            pytest.skip("the sm_90a backward kernels need an sm_90 GPU")
    monkeypatch.setenv(GRAD_ARCH_ENV, arch)
    assert grad_arch_for(capability, head_dim) == arch


# (batch, heads_q, heads_kv, seq_q, seq_k): lengths off the 64- and 128-row tiles,
# several KV tiles adding into each Q tile's dQ.
DETERMINISTIC_CASES = [(2, 8, 2, 1000, 1000), (1, 8, 2, 1000, 1111)]


@pytest.mark.parametrize("case", DETERMINISTIC_CASES,
                         ids=lambda c: "b{}_h{}-{}_sq{}_sk{}".format(*c))
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("head_dim", TRAINING_HEAD_DIMS)
@pytest.mark.parametrize("grad_arch", ["sm_80", "sm_90a"])
def test_deterministic_backward_is_bit_identical(monkeypatch, grad_arch, head_dim, causal, case):
    """deterministic=True: the kernels add dQ in a fixed order, so two backward
    passes on the same inputs give the same dq, dk and dv to the bit; the
    gradients are as accurate as the others."""
    b, hq, hk, sq, sk = case
    use_grad_arch(monkeypatch, grad_arch, head_dim)
    gen = new_generator()
    q, k, v, do = (make_bshd(b, s, h, head_dim, torch.bfloat16, "bshd", gen)
                   for s, h in ((sq, hq), (sk, hk), (sk, hk), (sq, hq)))
    need_kernels(q, k, v, causal, grad_arch=grad_arch, deterministic=True)
    runs = []
    for _ in range(2):
        leaves = [t.detach().clone().requires_grad_(True) for t in (q, k, v)]
        out = fattn.flash_attn_func(*leaves, causal=causal, deterministic=True)
        out.backward(do)
        runs.append([t.grad for t in leaves])
    for name, first, second in zip(("dq", "dk", "dv"), *runs):
        assert torch.equal(first, second), \
            f"{name} differs between two deterministic backward passes"
    check_against_float64(q, k, v, do, out, runs[1], causal, (-1, -1))


def test_gradient_of_a_broadcast_output_gradient_and_lse():
    """out.sum() hands the backward a dO with stride 0 (copied for the kernels): the
    same gradients as a dense dO (up to the order of dQ's atomics); the LSE is
    returned without a gradient; no_grad calls record nothing."""
    gen = new_generator()
    q, k, v = (make_bshd(1, 200, 4, 64, torch.bfloat16, "bshd", gen).requires_grad_(True)
               for _ in range(3))
    need_kernels(q, k, v, True)
    out, lse = fattn.flash_attn_func(q, k, v, causal=True, return_lse=True)
    assert not lse.requires_grad
    out.sum().backward()
    dq, dk, dv = (t.grad.clone() for t in (q, k, v))
    for t in (q, k, v):
        t.grad = None
    fattn.flash_attn_func(q, k, v, causal=True).backward(torch.ones_like(out))
    assert torch.equal(dk, k.grad) and torch.equal(dv, v.grad)
    assert grad_rel_l2(dq, q.grad) < 1e-3
    with torch.no_grad():
        # return_lse: the kernel need_kernels made sure of (the training preset's).
        out, lse = fattn.flash_attn_func(q, k, v, causal=True, return_lse=True)
        assert out.grad_fn is None and lse.grad_fn is None


def test_unsupported_backward():
    gen = new_generator()
    q256 = make_bshd(1, 64, 2, 256, torch.bfloat16, "bshd", gen)
    ensure_kernel(config_for(q256, q256, q256, False, (-1, -1), 0.0, None, True))
    out = fattn.flash_attn_func(q256.requires_grad_(True), q256, q256)
    with pytest.raises(NotImplementedError, match="multiples of 16 up to 128, got 256"):
        out.float().sum().backward()


@pytest.mark.parametrize("compile_backend", ["aot_eager", "inductor"])
def test_torch_compile_fullgraph_forward_and_backward(compile_backend):
    if compile_backend == "inductor":
        pytest.importorskip("triton")
    gen = new_generator()
    q, k, v = (make_bshd(2, 300, h, 64, torch.bfloat16, "bshd", gen) for h in (8, 2, 2))
    need_kernels(q, k, v, True)

    def loss_fn(q, k, v):
        out = fattn.flash_attn_func(q, k, v, causal=True)
        return (out.float() ** 2).sum()

    grads = []
    for fn in (loss_fn, torch.compile(loss_fn, fullgraph=True, backend=compile_backend)):
        torch._dynamo.reset()
        leaves = [t.detach().clone().requires_grad_(True) for t in (q, k, v)]
        fn(*leaves).backward()
        grads.append([t.grad for t in leaves])
    for eager, compiled in zip(*grads):
        assert grad_rel_l2(compiled, eager) < 1e-2


def test_cuda_graph_capture_of_a_training_step():
    """A forward and backward warmed up on the capturing stream (the kernels
    loaded, the forward's runtime workspace cached) replays from a CUDA graph with
    the same gradients (the backward's workspaces come from torch's allocator)."""
    gen = new_generator()
    q, k, v = (make_bshd(1, 256, 4, 128, torch.float16, "bshd", gen).requires_grad_(True)
               for _ in range(3))
    need_kernels(q, k, v, False)

    def step():
        for t in (q, k, v):
            t.grad = None
        fattn.flash_attn_func(q, k, v).float().square().sum().backward()

    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        step()  # loads the kernels
    torch.cuda.current_stream().wait_stream(side)
    want = [t.grad.clone() for t in (q, k, v)]
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph, stream=side):
        step()
    graph.replay()
    torch.cuda.synchronize()
    for w, t in zip(want, (q, k, v)):
        assert grad_rel_l2(t.grad, w) < 1e-3


class Block(torch.nn.Module):
    """A pre-norm causal self-attention + MLP block (GQA 8/2, head dim 64)."""

    def __init__(self, attend, dim=512, heads=8, kv_heads=2):
        super().__init__()
        self.attend, self.heads, self.kv_heads, self.hd = attend, heads, kv_heads, dim // heads
        self.norm1, self.norm2 = torch.nn.LayerNorm(dim), torch.nn.LayerNorm(dim)
        self.qkv = torch.nn.Linear(dim, (heads + 2 * kv_heads) * self.hd, bias=False)
        self.proj = torch.nn.Linear(dim, dim, bias=False)
        self.mlp = torch.nn.Sequential(torch.nn.Linear(dim, 4 * dim), torch.nn.GELU(),
                                       torch.nn.Linear(4 * dim, dim))

    def forward(self, x):
        b, s, _ = x.shape
        q, k, v = self.qkv(self.norm1(x)).split(
            [self.heads * self.hd, self.kv_heads * self.hd, self.kv_heads * self.hd], dim=-1)
        q = q.view(b, s, self.heads, self.hd)
        k = k.view(b, s, self.kv_heads, self.hd)
        v = v.view(b, s, self.kv_heads, self.hd)
        x = x + self.proj(self.attend(q, k, v).reshape(b, s, -1))
        return x + self.mlp(self.norm2(x))


def fattn_attend(q, k, v):
    return fattn.flash_attn_func(q, k, v, causal=True)


def sdpa_attend(q, k, v):
    rep = q.shape[2] // k.shape[2]
    qh, kh, vh = (t.transpose(1, 2) for t in (q, k, v))
    out = F.scaled_dot_product_attention(qh, kh.repeat_interleave(rep, 1),
                                         vh.repeat_interleave(rep, 1), is_causal=True)
    return out.transpose(1, 2)


def regression_loss(run, batch):
    x, y = batch
    return F.mse_loss(run(x).float(), y.float())


def train(model, batches, loss_of=regression_loss, compiled=False):
    """Losses of one AdamW step per batch and the gradients of the first;
    loss_of(model or its compiled form, batch) is the loss."""
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    run = torch.compile(model, fullgraph=True) if compiled else model
    losses, first = [], None
    for batch in batches:
        opt.zero_grad(set_to_none=True)
        loss = loss_of(run, batch)
        loss.backward()
        if first is None:
            first = {n: p.grad.detach().clone() for n, p in model.named_parameters()}
        opt.step()
        losses.append(loss.item())
    return losses, first


def compare_training(losses_f, grads_f, losses_s, grads_s, loss_tol, grad_tol):
    for lf, ls in zip(losses_f, losses_s):
        assert abs(lf - ls) <= loss_tol * abs(ls), (losses_f, losses_s)
    for name, g in grads_s.items():
        err = grad_rel_l2(grads_f[name], g)
        assert err < grad_tol, f"{name}: gradient differs from SDPA's by {err:.3e}"


@pytest.mark.parametrize("compiled", [False, True], ids=["eager", "compiled"])
def test_training_steps_of_a_block(compiled):
    gen = new_generator()
    torch.manual_seed(int(torch.randint(0, 2**31, (1,), generator=gen, device="cuda")))
    probe = make_bshd(2, 300, 8, 64, torch.bfloat16, "bshd", gen)
    need_kernels(probe, probe[:, :, :2], probe[:, :, :2], True)
    sdpa = Block(sdpa_attend).cuda().to(torch.bfloat16)
    ours = copy.deepcopy(sdpa)
    ours.attend = fattn_attend
    batches = [(torch.randn(2, 300, 512, generator=gen, device="cuda").to(torch.bfloat16),
                torch.randn(2, 300, 512, generator=gen, device="cuda").to(torch.bfloat16))
               for _ in range(4)]
    losses_s, grads_s = train(sdpa, batches)
    losses_f, grads_f = train(ours, batches, compiled=compiled)
    compare_training(losses_f, grads_f, losses_s, grads_s, 2e-2, 5e-2)


def test_training_steps_of_a_tiny_llama():
    """transformers' Llama from a config (random weights), its attention replaced
    by one that calls flash_attn_func, against the same model on SDPA."""
    transformers = pytest.importorskip("transformers")
    if not hasattr(transformers, "AttentionInterface"):
        pytest.skip("this transformers has no AttentionInterface (4.48 or later)")

    def fattn_llama_attention(module, query, key, value, attention_mask, scaling=None,
                              dropout=0.0, **kwargs):
        # query, key, value: [b, heads, s, d]; the inputs are unpadded, so the
        # causal mask is the whole mask.
        q, k, v = (t.transpose(1, 2) for t in (query, key, value))
        return fattn.flash_attn_func(q, k, v, softmax_scale=scaling, causal=True), None

    transformers.AttentionInterface.register("fattn", fattn_llama_attention)
    masks = getattr(transformers, "AttentionMaskInterface", None)
    if masks is not None:  # the mask is causal and flash_attn_func applies it
        masks.register("fattn", lambda *args, **kwargs: None)
    config = transformers.LlamaConfig(vocab_size=1000, hidden_size=256, intermediate_size=512,
                                      num_hidden_layers=2, num_attention_heads=4,
                                      num_key_value_heads=2, max_position_embeddings=512)
    gen = new_generator()
    torch.manual_seed(int(torch.randint(0, 2**31, (1,), generator=gen, device="cuda")))
    config._attn_implementation = "sdpa"
    sdpa = transformers.LlamaForCausalLM(config).cuda().to(torch.bfloat16)
    ours = copy.deepcopy(sdpa)
    if hasattr(ours, "set_attn_implementation"):
        ours.set_attn_implementation("fattn")
    else:
        ours.config._attn_implementation = "fattn"
    probe = make_bshd(2, 200, 4, 64, torch.bfloat16, "bshd", gen)
    need_kernels(probe, probe[:, :, :2], probe[:, :, :2], True)
    batches = [torch.randint(0, 1000, (2, 200), generator=gen, device="cuda") for _ in range(3)]

    def lm_loss(model, ids):
        return model(input_ids=ids, labels=ids).loss

    losses_s, grads_s = train(sdpa, batches, lm_loss)
    losses_f, grads_f = train(ours, batches, lm_loss)
    compare_training(losses_f, grads_f, losses_s, grads_s, 2e-2, 5e-2)
