"""fattn inside PyTorch programs (run on the GPU machine): torch.compile with
fullgraph=True (one graph, the call as the operator fattn::fwd, results equal to
eager ones), dynamic shapes without recompiling, opcheck of the operator, CUDA
graph capture and replay, and the FlashAttention-2 packed-input functions."""
import pytest

torch = pytest.importorskip("torch")

from gpu_support import config_for, ensure_kernel, make_bshd, new_generator  # noqa: E402
import fattn  # noqa: E402
from fattn.grad_config import GradKernelConfig, grad_arch_for  # noqa: E402

pytestmark = pytest.mark.gpu
needs_custom_op = pytest.mark.skipif(not hasattr(torch.library, "custom_op"),
                                     reason="torch.library.custom_op needs torch 2.4+")
BF16 = torch.bfloat16


def inputs(b=2, s=300, hq=8, hk=2, d=128, causal=True, lse=False, gen=None):
    """bf16 BSHD q, k, v whose kernel is available (else the test skips)."""
    gen = gen or new_generator()
    q = make_bshd(b, s, hq, d, BF16, "bshd", gen)
    k = make_bshd(b, s, hk, d, BF16, "bshd", gen)
    v = make_bshd(b, s, hk, d, BF16, "bshd", gen)
    ensure_kernel(config_for(q, k, v, causal, (-1, -1), 0.0, None, lse))
    return q, k, v


class GraphRecorder:
    """A torch.compile backend that keeps every graph dynamo hands it and runs it
    as traced (no further compilation)."""

    def __init__(self):
        self.graphs = []

    def __call__(self, gm, example_inputs):
        self.graphs.append(gm)
        return gm.forward

    def operator_calls(self) -> int:
        ops = (torch.ops.fattn.fwd, torch.ops.fattn.fwd.default)
        return sum(node.target in ops for gm in self.graphs for node in gm.graph.nodes)


def layer(q, k, v):
    o = fattn.flash_attn_func(q, k, v, causal=True)
    return o, o.float().sum(dim=-1)


@needs_custom_op
def test_compile_fullgraph_records_the_operator():
    q, k, v = inputs()
    torch._dynamo.reset()
    recorder = GraphRecorder()
    compiled = torch.compile(layer, backend=recorder, fullgraph=True)
    got, got_sum = compiled(q, k, v)
    want, want_sum = layer(q, k, v)
    assert len(recorder.graphs) == 1 and recorder.operator_calls() == 1
    assert torch.equal(got, want) and torch.equal(got_sum, want_sum)


@needs_custom_op
@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
def test_compile_fullgraph_backends(backend):
    if backend == "inductor":
        from torch.utils._triton import has_triton
        if not has_triton():
            pytest.skip("inductor needs triton")
    q, k, v = inputs()
    torch._dynamo.reset()
    got, got_sum = torch.compile(layer, backend=backend, fullgraph=True)(q, k, v)
    want, want_sum = layer(q, k, v)
    assert torch.equal(got, want)  # the same kernel on the same inputs
    torch.testing.assert_close(got_sum, want_sum, rtol=1e-5, atol=1e-3)


@needs_custom_op
def test_compile_lse_and_out():
    """return_lse and a caller's out= / lse_out= under torch.compile."""
    q, k, v = inputs(lse=True)

    def f(q, k, v, out, lse_out):
        o, lse = fattn.flash_attn_func(q, k, v, causal=True, return_lse=True, out=out,
                                       lse_out=lse_out)
        return o + 0, lse * 1

    torch._dynamo.reset()
    out, lse_out = torch.empty_like(q), torch.empty(2, 8, 300, device="cuda")
    got_o, got_lse = torch.compile(f, backend="aot_eager", fullgraph=True)(q, k, v, out, lse_out)
    want_o, want_lse = fattn.flash_attn_func(q, k, v, causal=True, return_lse=True)
    assert torch.equal(got_o, want_o) and torch.equal(got_lse, want_lse)
    assert torch.equal(out, want_o) and torch.equal(lse_out, want_lse)


@needs_custom_op
def test_compile_dynamic_shapes_without_recompiling():
    gen = new_generator()
    torch._dynamo.reset()
    recorder = GraphRecorder()
    compiled = torch.compile(layer, backend=recorder, fullgraph=True, dynamic=True)
    for s in (300, 517):
        q, k, v = inputs(s=s, gen=gen)
        got, _ = compiled(q, k, v)
        assert got.shape == (2, s, 8, 128)
        assert torch.equal(got, layer(q, k, v)[0])
    assert len(recorder.graphs) == 1


@needs_custom_op
@pytest.mark.parametrize("return_lse", [False, True])
def test_opcheck(return_lse):
    """torch.library.opcheck: the schema (no input mutated), the fake
    implementation against real results, AOT dispatch with dynamic shapes."""
    q, k, v = inputs(lse=return_lse)
    args = (q, k, v, None, True, [-1, -1], 0.0, return_lse, None, None, None, None, None, None,
            None, False)
    torch.library.opcheck(torch.ops.fattn.fwd.default, args)


@pytest.mark.parametrize("shape,causal", [((2, 300, 8, 2), True),
                                          # no mask, past the short-sequence kernels, more
                                          # work items than SMs: on sm_90a the persistent
                                          # kernel's split tail and its workspace
                                          ((4, 1500, 16, 16), False)])
def test_cuda_graph_capture_and_replay(shape, causal):
    """After one call on the capturing stream, a call is captured without any
    allocation or synchronisation (the capture's global error mode would refuse
    them); replays compute on the inputs' new contents."""
    b, s, hq, hk = shape
    q, k, v = inputs(b=b, s=s, hq=hq, hk=hk, causal=causal)
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        fattn.flash_attn_func(q, k, v, causal=causal)  # loads the kernel, its workspace
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph, stream=stream, capture_error_mode="global"):
        captured = fattn.flash_attn_func(q, k, v, causal=causal)
    gen = new_generator()
    for t in (q, k, v):
        t.copy_(torch.randn(t.shape, generator=gen, device="cuda").to(BF16))
    graph.replay()
    torch.cuda.synchronize()
    assert torch.equal(captured, fattn.flash_attn_func(q, k, v, causal=causal))
    graph.replay()  # again, with the same contents: the same result
    torch.cuda.synchronize()
    assert torch.equal(captured, fattn.flash_attn_func(q, k, v, causal=causal))


def test_packed_functions_match_flash_attn_func():
    gen = new_generator()
    qkv = torch.randn(2, 300, 3, 8, 128, generator=gen, device="cuda").to(BF16)
    q, k, v = qkv.unbind(2)
    ensure_kernel(config_for(q, k, v, True, (-1, -1), 0.0, None, True))
    got, got_lse = fattn.flash_attn_qkvpacked_func(qkv, causal=True, return_lse=True)
    want, want_lse = fattn.flash_attn_func(q, k, v, causal=True, return_lse=True)
    assert torch.equal(got, want) and torch.equal(got_lse, want_lse)
    kv = qkv[:, :, 1:]  # [b, s, 2, h, d]
    assert torch.equal(fattn.flash_attn_kvpacked_func(q, kv, causal=True),
                       fattn.flash_attn_func(q, k, v, causal=True))


@needs_custom_op
def test_results_of_inputs_that_require_grad_are_differentiable():
    """With q requiring grad the call goes through fattn::fwd (its LSE kernel):
    the same output, a grad_fn whose backward fills q.grad (test_gpu_autograd
    checks the values); under no_grad nothing is recorded."""
    q, k, v = inputs()
    ensure_kernel(config_for(q, k, v, True, (-1, -1), 0.0, None, True))
    ensure_kernel(GradKernelConfig.make(
        "bf16", q.shape[3], causal=True,
        arch=grad_arch_for(torch.cuda.get_device_capability(), q.shape[3])))
    expected, _ = fattn.flash_attn_func(q, k, v, causal=True, return_lse=True)
    q.requires_grad_(True)
    o = fattn.flash_attn_func(q, k, v, causal=True)
    assert o.grad_fn is not None and torch.equal(o, expected)
    o.float().sum().backward()
    assert q.grad.shape == q.shape and torch.isfinite(q.grad).all() and q.grad.abs().sum() > 0
    with torch.no_grad():
        assert fattn.flash_attn_func(q, k, v, causal=True).grad_fn is None
