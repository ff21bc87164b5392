//===- Passes.td - fattn target-independent passes ---------*- tablegen -*-===//

#ifndef FATTN_DIALECT_FATTN_TRANSFORMS_PASSES_TD
#define FATTN_DIALECT_FATTN_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def FAttnTile : Pass<"fattn-tile"> {
  let summary = "Rewrite fattn.attention into the tiled online-softmax form";
  let description = [{
    Replaces every `fattn.attention` with a `fattn.tiled_attention` whose body
    is the FlashAttention-2 loop for one Q tile: load the Q tile, compute the
    KV tile range from the mask (`fattn.kv_tile_range`), then up to three KV
    loops carrying the online-softmax state (m, l, acc): the masked tiles on
    the window's left edge, the unmasked tiles, and the masked tiles on the
    diagonal, the right window edge and the sequence tail; finally
    `fattn.finalize` (O / l, LSE) and the stores. Head dims must be static.
  }];
  let options = [
    Option<"blockM", "block-m", "int64_t", /*default=*/"64",
           "Rows of Q per tile (the grid's tile size)">,
    Option<"blockN", "block-n", "int64_t", /*default=*/"64",
           "Rows of K and V per iteration of the KV loop">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect"];
}

def FAttnLowerTiledToLinalg : Pass<"fattn-lower-tiled-to-linalg", "ModuleOp"> {
  let summary = "Lower the tiled form to scf loops and linalg on tensors";
  let description = [{
    The target-independent execution of the tiled form, used by the CPU
    pipeline: each `fattn.tiled_attention` becomes a call to a new private
    function (marked `fattn.cpu_kernel`) holding a loop nest over its grid; tile
    loads and stores become subviews with `bufferization.to_tensor` and
    `bufferization.materialize_in_destination` (tails zero-padded), and the
    tile math (`fattn.mma`, `fattn.mask`, the softmax ops) becomes
    `linalg.generic` ops on tensors, ready for one-shot bufferization.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::bufferization::BufferizationDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect"];
}

def FAttnDeallocateCPUKernels
    : Pass<"fattn-deallocate-cpu-kernels", "ModuleOp"> {
  let summary = "Free the temporaries of the bufferized CPU kernels";
  let description = [{
    Runs upstream's ownership-based buffer deallocation pipeline on the
    functions that fattn-lower-tiled-to-linalg outlined (marked
    `fattn.cpu_kernel`), and only there: the tile math allocates in every KV
    iteration, while the user's own functions (which may free their buffers
    with memref.dealloc, something that pipeline rejects) are left as written.
    Runs after one-shot bufferization.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::bufferization::BufferizationDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

def FAttnLowerRowwise : Pass<"fattn-lower-rowwise"> {
  let summary = "Lower fattn.attention to a row-by-row online-softmax loop nest";
  let description = [{
    The untiled CPU lowering: for every (batch, head, query row), one pass
    over the keys the mask lets it see, carrying the running max, sum and an
    f32 accumulator row. It needs no static sizes, so the CPU pipeline uses it
    for attention ops whose head dims are dynamic (which the tiled form, with
    its static tile shapes, cannot express). FP8 descales are not supported
    here.
  }];
  let options = [
    Option<"dynamicHeadDimsOnly", "dynamic-head-dims-only", "bool",
           /*default=*/"false",
           "Only lower the ops whose head dims are dynamic">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

def FAttnLowerAttentionGrad : Pass<"fattn-lower-attention-grad"> {
  let summary = "Lower fattn.attention_grad to the tiled FlashAttention-2 backward";
  let description = [{
    The target-independent execution of `fattn.attention_grad` (memref
    form), used by the CPU pipeline: for each (batch, KV head) D =
    rowsum(dO * O) of its query heads and an f32 dQ accumulator; then a
    loop over KV tiles of `block-n` keys (outside) with their f32 dK and dV
    accumulators, and inside it, for each query head of the group, the Q
    tiles of `block-m` rows that see the KV tile: the range of the forward's
    `fattn.kv_tile_range` with queries and keys exchanged, split as the
    forward's KV loops into masked edge tiles and unmasked tiles. Per
    (Q tile, KV tile): S = Q K^T, P = exp(S * scale (or its softcap) - LSE)
    under the forward's mask, dV += P^T dO, dP = dO V^T, dS = P (dP - D)
    (times 1 - tanh^2 with a softcap), dK += dS^T Q, dQ += dS K, each a
    `linalg.generic` on memref views of the tiles (clipped at the sequence
    ends) and of block_m x block_n scratch buffers; P and dS are rounded to
    the input element type before their products, as on the GPU. dK and dQ
    take the scale when stored. No buffer is N x N: the scratch is
    O(block_m * block_n + group * seq_q * head_dim).
  }];
  let options = [
    Option<"blockM", "block-m", "int64_t", /*default=*/"64",
           "Rows of Q per tile">,
    Option<"blockN", "block-n", "int64_t", /*default=*/"64",
           "Rows of K and V per tile">,
    Option<"dynamicHeadDimsOnly", "dynamic-head-dims-only", "bool",
           /*default=*/"false",
           "Only lower the ops whose head dims are dynamic (which "
           "--fattn-tile-grad cannot tile)">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

def FAttnTileGrad : Pass<"fattn-tile-grad"> {
  let summary = "Rewrite fattn.attention_grad into the tiled backward form";
  let description = [{
    Replaces every `fattn.attention_grad` (memref form) with a
    `fattn.tiled_attention_grad` and the f32 workspaces it needs, allocated
    before it and freed after it: D, of LSE's shape, and the dQ accumulator,
    of Q's shape. Its three grids are FlashAttention-2's backward: the
    preprocess (per Q tile: D = `fattn.row_dot` of dO and O, and zeros into
    the dQ accumulator); the body, per KV tile of a KV head: K and V loaded
    once, then for each query head of its group the Q tiles that see the
    tile (`fattn.q_tile_range`), in up to three loops as the forward's KV
    loops (masked tiles at a right window edge, the diagonal when causal;
    unmasked tiles; masked tiles at the left window edge and the ends of
    the sequences), each carrying the f32 dK and dV accumulators: S = Q K^T (`fattn.softcap`
    with a softcap, `fattn.mask` in the masked loops), P
    (`fattn.grad_probs`), dV += P^T dO, dP = dO V^T, dS
    (`fattn.grad_scores`), dK += dS^T Q, and dQ = dS K added into the
    accumulator (`fattn.accumulate_tile`, `deterministic` when the op is);
    dK (times the scale) and dV are stored; the postprocess: dQ = scale *
    the accumulator. Head dims must be static.
  }];
  let options = [
    Option<"blockM", "block-m", "int64_t", /*default=*/"64",
           "Rows of Q per tile">,
    Option<"blockN", "block-n", "int64_t", /*default=*/"64",
           "Rows of K and V per tile (the main grid's tile size)">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect"];
}

def FAttnLowerTiledGradToLinalg
    : Pass<"fattn-lower-tiled-grad-to-linalg", "ModuleOp"> {
  let summary = "Lower the tiled backward form to scf loops and linalg on tensors";
  let description = [{
    The CPU execution of `fattn.tiled_attention_grad`: each op becomes a
    call to a new private function (marked `fattn.cpu_kernel`) holding its
    three grids as three loop nests, in order; the backward's tile ops
    become `linalg.generic` ops on tensors (`fattn.accumulate_tile` reads
    the accumulator's rows as a tensor and writes their sum back with
    `bufferization.materialize_in_destination`), and the forward's tile ops
    in the bodies are lowered by the patterns of
    `--fattn-lower-tiled-to-linalg`. Run before that pass, whose
    leftover check the backward's ops would fail.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::bufferization::BufferizationDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect"];
}

def FAttnLowerHadamard : Pass<"fattn-lower-hadamard"> {
  let summary = "Lower fattn.hadamard_rotate to a fast Walsh-Hadamard transform";
  let description = [{
    Each row is multiplied by its signs into an f32 scratch row, goes through
    log2(d) butterfly stages (d/2 additions and subtractions each), and is
    scaled by 1/sqrt(d) into the output: scf loops on memrefs, target
    independent.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

def FAttnLowerQuantize : Pass<"fattn-lower-quantize"> {
  let summary = "Lower fattn.quantize to amax and e4m3 rounding loops";
  let description = [{
    For each element of the descale operand, two sweeps over the rows it
    covers: the amax, then x / scale rounded to e4m3 (to nearest even,
    saturating) with integer ops, as the CPU lowering of FP8 attention reads
    it. A fused rotation (`signs`) goes through the same fast Walsh-Hadamard
    code as `--fattn-lower-hadamard`, recomputed in each sweep into one f32
    scratch row. scf loops on memrefs, target independent.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

def FAttnLowerFP8Layout : Pass<"fattn-lower-fp8-layout"> {
  let summary = "Lower fattn.permute_keys and fattn.transpose_tile to tensor gathers";
  let description = [{
    The CPU meaning of the ops that `--fattn-fp8-layout` inserts: each
    becomes a `tensor.generate` that reads input[..., pi(k)] (or
    input[pi(k), n] for the transpose), pi from a constant table of one
    chunk of the named key permutation. The CPU pipeline runs it before
    `--fattn-lower-tiled-to-linalg`, so the permuted form executes and can
    be compared with the unpermuted one.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::tensor::TensorDialect"];
}

def FAttnRaiseAttention : Pass<"fattn-raise-attention"> {
  let summary = "Rewrite attention written as linalg ops into fattn.attention";
  let description = [{
    Finds attention in the form frontends emit on tensors (torch-mlir's
    decomposition of scaled_dot_product_attention, StableHLO lowered to
    linalg) and replaces it with `fattn.attention` in the tensor form:

    - S = Q K^T: `linalg.batch_matmul` or a `linalg.generic` contraction
      (f32 accumulator initialized to 0), K transposed by `linalg.transpose`
      or by the contraction's indexing map;
    - scales: multiplication or division by positive constants, of S, Q or
      K;
    - an optional mask, `arith.select` of S and a large negative constant
      (-inf, or at most -1e9 after the scales that follow the mask), or an
      additive bias of 0 and such a constant, on a comparison of the query
      and key indices (`linalg.index`, directly or through iota tensors):
      causal, a window, or both bounds; none that hides every key of a row;
    - the softmax along the keys: `linalg.softmax`, or its decomposition into
      max, subtract, exp, sum and divide generics;
    - O = P V: `linalg.batch_matmul` or a `linalg.generic` contraction;
    - GQA/MQA: K and V repeated for each query head of a group, by a
      broadcast (`linalg.broadcast` or a copying `linalg.generic`) of a new
      dim just before the last two, collapsed into the heads: fattn reads the
      broadcast's source.

    Reshapes of the leading (batch) dims between these steps are allowed.
    Rank-4 Q, K and V of one static batch size are used as they are; others
    become the heads of a batch of 1, their batch dims flattened in order. Anything the pass cannot prove equivalent (a mask it cannot read,
    a softmax over another dim, a scale that is not one constant, a
    contraction whose accumulator is not zero) is left as it is.
  }];
  let dependentDialects = ["::mlir::fattn::FAttnDialect",
                           "::mlir::tensor::TensorDialect"];
}

#endif // FATTN_DIALECT_FATTN_TRANSFORMS_PASSES_TD
