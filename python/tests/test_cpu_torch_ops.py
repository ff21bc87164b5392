"""torch.ops.fattn.fwd on the CPU (needs torch 2.4+, not a GPU): the shapes its
fake implementation gives, and torch.compile(fullgraph=True) tracing a call to
flash_attn_func into one graph with the operator in it."""
import pytest

torch = pytest.importorskip("torch")
if not hasattr(torch.library, "custom_op"):
    pytest.skip("torch.library.custom_op needs torch 2.4 or later", allow_module_level=True)

import fattn  # noqa: E402

BF16 = torch.bfloat16


def op_args(q, k, v, return_lse, v_layout=None):
    """fattn::fwd's arguments: causal, no window, no softcap, no descales."""
    return (q, k, v, None, True, [-1, -1], 0.0, return_lse, None, None, None, None, None, None,
            v_layout)


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


def test_results_raise_in_backward_instead_of_dropping_the_gradient():
    """flash_attn_func has no backward yet: its results tell autograd so."""
    from fattn._torch_ops import without_backward
    q = torch.randn(1, 5, 2, 8, requires_grad=True)
    k, v = torch.randn(1, 5, 2, 8), torch.randn(1, 5, 2, 8)
    out, lse = torch.randn(1, 5, 2, 8), torch.randn(1, 2, 5)
    guarded = without_backward(out, q, k, v)
    assert guarded.grad_fn is not None and torch.equal(guarded, out)
    with pytest.raises(NotImplementedError, match="has no backward pass yet"):
        (guarded * 2).sum().backward()
    pair = without_backward((out, lse), q, k, v)
    assert all(t.grad_fn is not None for t in pair)
    with pytest.raises(NotImplementedError, match="scaled_dot_product_attention"):
        pair[1].sum().backward()
    with torch.no_grad():
        assert without_backward(out, q, k, v) is out
