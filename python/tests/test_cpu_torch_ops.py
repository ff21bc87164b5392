"""torch.ops.fattn.fwd and torch.ops.fattn.bwd on the CPU (needs torch 2.4+, not a GPU):
the shapes their fake implementations give, autograd through them, and
torch.compile(fullgraph=True) tracing calls to flash_attn_func (forward and backward)."""
import pytest

torch = pytest.importorskip("torch")
if not hasattr(torch.library, "custom_op"):
    pytest.skip("torch.library.custom_op needs torch 2.4 or later", allow_module_level=True)

import fattn  # noqa: E402

BF16 = torch.bfloat16


def op_args(q, k, v, return_lse, v_layout=None, deterministic=False):
    """fattn::fwd's arguments: causal, no window, no softcap, no descales."""
    return (q, k, v, None, True, [-1, -1], 0.0, return_lse, None, None, None, None, None, None,
            v_layout, deterministic)


def test_operator_is_registered():
    assert fattn.interface._compiled_call is not None
    schema = str(torch.ops.fattn.fwd.default._schema)
    assert schema.startswith("fattn::fwd(Tensor q, Tensor k, Tensor v, float? softmax_scale")
    assert schema.endswith("-> (Tensor, Tensor)")


@pytest.mark.parametrize("return_lse", [False, True])
def test_fake_results(return_lse):
    from torch._subclasses.fake_tensor import FakeTensorMode
    with FakeTensorMode():
        q = torch.empty(2, 100, 8, 64, dtype=BF16)
        k = torch.empty(2, 70, 2, 64, dtype=BF16)
        v = torch.empty(2, 70, 2, 32, dtype=BF16)
        out, lse = torch.ops.fattn.fwd(*op_args(q, k, v, return_lse))
    assert out.shape == (2, 100, 8, 32) and out.dtype == BF16 and out.is_contiguous()
    assert lse.dtype == torch.float32 and lse.is_contiguous()
    assert lse.shape == ((2, 8, 100) if return_lse else (0,))


@pytest.mark.skipif(not hasattr(torch, "float8_e4m3fn"), reason="no float8 in this torch")
def test_fake_results_fp8_with_transposed_v():
    from torch._subclasses.fake_tensor import FakeTensorMode
    f8 = torch.float8_e4m3fn
    with FakeTensorMode():
        q = torch.empty(1, 50, 4, 128, dtype=f8)
        k = torch.empty(1, 77, 4, 128, dtype=f8)
        vt = torch.empty(1, 4, 256, 80, dtype=f8)  # [batch, heads_kv, head_dim_v, keys]
        out, _ = torch.ops.fattn.fwd(*op_args(q, k, vt, False, fattn.VALUE_LAYOUT_SM90))
    assert out.shape == (1, 50, 4, 256) and out.dtype == BF16


def test_fullgraph_trace_on_the_cpu():
    """A model calling flash_attn_func compiles with fullgraph=True (no graph
    break at the ctypes launch) into one graph holding fattn::fwd; running it on
    CPU tensors then stops at the operator's device check."""
    graphs = []

    def backend(gm, example_inputs):
        graphs.append(gm)
        return gm.forward

    def layer(q, k, v):
        out, lse = fattn.flash_attn_func(q, k, v, 0.0, None, True, return_lse=True)
        return out * 2, lse

    torch._dynamo.reset()
    compiled = torch.compile(layer, backend=backend, fullgraph=True)
    q = torch.zeros(1, 16, 4, 64, dtype=BF16)
    with pytest.raises(ValueError, match="q must be a CUDA tensor"):
        compiled(q, q, q)
    assert len(graphs) == 1
    targets = [node.target for node in graphs[0].graph.nodes if node.op == "call_function"]
    # Dynamo records the packet as called; AOT tracing its default overload.
    assert any(t in (torch.ops.fattn.fwd, torch.ops.fattn.fwd.default) for t in targets)


def test_backward_operator_is_registered():
    schema = str(torch.ops.fattn.bwd.default._schema)
    assert schema.startswith("fattn::bwd(Tensor dout, Tensor q, Tensor k, Tensor v, Tensor out, "
                             "Tensor lse, float? softmax_scale, bool causal")
    assert schema.endswith("bool deterministic) -> (Tensor, Tensor, Tensor)")
    assert "bool deterministic) -> (Tensor, Tensor)" in str(torch.ops.fattn.fwd.default._schema)


def test_autograd_through_the_fake_operators():
    """fattn::fwd's backward is fattn::bwd: gradients reach q, k and v with their
    shapes (GQA: k's and v's head counts); the LSE carries none."""
    from torch._subclasses.fake_tensor import FakeTensorMode
    with FakeTensorMode():
        q = torch.empty(2, 100, 8, 64, dtype=BF16, requires_grad=True)
        k = torch.empty(2, 70, 2, 64, dtype=BF16, requires_grad=True)
        v = torch.empty(2, 70, 2, 64, dtype=BF16, requires_grad=True)
        out, lse = torch.ops.fattn.fwd(*op_args(q, k, v, True))
        assert out.requires_grad and not lse.requires_grad
        out.float().sum().backward()
        for t in (q, k, v):
            assert t.grad is not None and t.grad.shape == t.shape and t.grad.dtype == BF16


def test_backward_without_lse_says_why():
    from torch._subclasses.fake_tensor import FakeTensorMode
    with FakeTensorMode():
        q = torch.empty(1, 10, 2, 64, dtype=BF16, requires_grad=True)
        out, _ = torch.ops.fattn.fwd(*op_args(q, q, q, False))
        with pytest.raises(NotImplementedError, match="the forward wrote no LSE"):
            out.float().sum().backward()


@pytest.mark.parametrize("dtype,d,dv,message", [
    ("bfloat16", 256, 256, "multiples of 16 up to 128, got 256"),
    ("bfloat16", 192, 128, "a v head dim \\(128\\) other than q's and k's \\(192\\)"),
    ("float8_e4m3fn", 128, 128, "float8_e4m3fn inputs"),
])
def test_unsupported_backward_names_the_limit(dtype, d, dv, message):
    from fattn.backward import grad_config
    if not hasattr(torch, dtype):
        pytest.skip(f"no {dtype} in this torch")
    with pytest.raises(NotImplementedError, match=message):
        grad_config(getattr(torch, dtype), d, dv, None, False, (-1, -1), 0.0)
    assert grad_config(BF16, 64, 64, None, True, (-1, -1), 0.0).causal


@pytest.mark.parametrize("deterministic", [False, True])
def test_deterministic_reaches_the_backward(monkeypatch, deterministic):
    """flash_attn_func(deterministic=...) records fattn::fwd, whose backward
    fattn::bwd asks fattn.backward for the deterministic kernels or not (the
    launches replaced by zeros on CPU tensors); the packed variants too."""
    from fattn import backward as backward_module
    asked = []

    def forward(q, k, v, *args):
        b, sq, hq, _ = q.shape
        return torch.zeros(b, sq, hq, v.shape[3], dtype=q.dtype), torch.zeros(b, hq, sq)

    def backward(dout, q, k, v, out, lse, softmax_scale, causal, window_size, softcap,
                 arch=None, deterministic=False):
        asked.append(deterministic)
        return tuple(torch.zeros(t.shape, dtype=t.dtype) for t in (q, k, v))

    monkeypatch.setattr(fattn.interface, "_forward", forward)
    monkeypatch.setattr(backward_module, "backward", backward)
    q, k, v = (torch.zeros(1, 16, h, 64, dtype=BF16, requires_grad=True) for h in (4, 2, 2))
    out = fattn.flash_attn_func(q, k, v, causal=True, deterministic=deterministic)
    out.float().sum().backward()
    assert q.grad.shape == q.shape and k.grad.shape == k.shape
    qkv = torch.zeros(1, 16, 3, 4, 64, dtype=BF16, requires_grad=True)
    fattn.flash_attn_qkvpacked_func(qkv, deterministic=deterministic).float().sum().backward()
    kv = torch.zeros(1, 16, 2, 2, 64, dtype=BF16, requires_grad=True)
    fattn.flash_attn_kvpacked_func(q, kv, deterministic=deterministic).float().sum().backward()
    assert asked == [deterministic] * 3


def test_deterministic_training_is_accepted():
    """deterministic=True no longer refuses a gradient: the call reaches the
    checks of an ordinary one (here, the device check), with a gradient or without."""
    q = torch.zeros(1, 16, 4, 64, dtype=BF16, requires_grad=True)
    with pytest.raises(ValueError, match="q must be a CUDA tensor"):
        fattn.flash_attn_func(q, q, q, deterministic=True)
    with torch.no_grad(), pytest.raises(ValueError, match="q must be a CUDA tensor"):
        fattn.flash_attn_func(q, q, q, deterministic=True)
    with pytest.raises(TypeError, match="deterministic must be a bool"):
        fattn.flash_attn_func(q, q, q, deterministic="yes")


def test_fullgraph_trace_of_forward_and_backward_on_the_cpu():
    """A training step calling flash_attn_func traces into one forward graph
    holding fattn::fwd and a backward graph holding fattn::bwd (AOTAutograd
    traces both with the fake implementations before anything runs)."""
    from torch._dynamo.backends.common import aot_autograd
    graphs = {}

    def keep(name):
        def compiler(gm, example_inputs):
            graphs[name] = gm
            return gm.forward
        return compiler

    def step(q, k, v):
        return fattn.flash_attn_func(q, k, v, causal=True).float().square().sum()

    torch._dynamo.reset()
    compiled = torch.compile(step, fullgraph=True,
                             backend=aot_autograd(fw_compiler=keep("fw"), bw_compiler=keep("bw")))
    q = torch.zeros(1, 16, 4, 64, dtype=BF16, requires_grad=True)
    with pytest.raises(ValueError, match="q must be a CUDA tensor"):
        compiled(q, q, q).backward()

    def targets(gm):
        return {str(n.target) for n in gm.graph.nodes if n.op == "call_function"}
    assert "fattn.fwd.default" in targets(graphs["fw"])
    if "bw" in graphs:  # compiled at the first backward in some torch versions
        assert "fattn.bwd.default" in targets(graphs["bw"])
