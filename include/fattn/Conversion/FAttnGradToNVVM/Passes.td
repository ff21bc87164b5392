//===- Passes.td - the backward's GPU conversion -----------*- tablegen -*-===//

#ifndef FATTN_CONVERSION_FATTNGRADTONVVM_PASSES_TD
#define FATTN_CONVERSION_FATTNGRADTONVVM_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertFAttnGradToNVVMSM80
    : Pass<"convert-fattn-grad-to-nvvm-sm80", "ModuleOp"> {
  let summary = "Turn tiled attention backward functions into three sm_80 "
                "kernels (FlashAttention-2's backward)";
  let description = [{
    Every func.func whose body holds one `fattn.tiled_attention_grad`
    (from `--fattn-tile-grad="block-m=64 block-n=128"`) becomes three
    kernels in `gpu.module @fattn_kernels [#nvvm.target<chip = "sm_80">]`,
    one per grid of the op, launched in order (docs/KERNEL-ABI.md,
    "Backward"):

    - `<function>_preprocess`, per Q tile of a query head: D =
      rowsum(dO * O) into the f32 workspace `delta`, zeros into `dq_accum`;
    - `<function>_main`, per KV tile of 128 keys of a KV head (8 warps,
      16 keys each): K and V copied once into shared memory, then per item
      (query head of the group, Q tile of `fattn.q_tile_range`) Q and dO
      by cp.async (the next item's into a second buffer while this one
      runs), the LSE and D: S^T = K Q^T (capped with a softcap), the mask
      on the tiles that need it,
      P^T = exp2(S^T scale log2(e) - LSE log2(e)), dV += P^T dO,
      dP^T = V dO^T, dS^T = P^T (dP^T - D) (times 1 - tanh^2 with a
      softcap), dK += dS^T Q (P^T and dS^T
      stay in registers as the A operands), dS^T through shared memory
      for dQ = dS K over the 128 keys (ldmatrix.trans; each warp 16 rows
      of the Q tile in half of the head dim), added into `dq_accum` with
      f32 atomics; dK times the scale and dV stored at the end;
    - `<function>_postprocess`, per Q tile: dQ = scale * dq_accum.

    The kernels are built from upstream ops: `nvgpu.device_async_copy`
    (with zero fill past the sequences), `nvgpu.ldmatrix`,
    `nvgpu.mma.sync` (m16n8k16, f32 accumulators), `gpu` ids, barriers
    and shuffles, `memref.view`s of the dynamic shared memory,
    `memref.atomic_rmw`, `vector` and `scf`, with `fattn.q_tile_range`
    from the tiled op's body. With `keep-target-ops` the pass stops
    there (L3); otherwise it lowers them with upstream conversions
    (NVGPU, math, GPU, vector, memref, arith, index, SCF and CF to
    NVVM/LLVM; `nvgpu.mma.sync` on bf16, which upstream's pattern does not
    take, first becomes `nvvm.mma.sync`, and `math.exp2` and `math.tanh`
    become ex2.approx.ftz and tanh.approx). The function is erased.

    Supported: f16 and bf16, head dims (QK and V equal) multiples of 16 up
    to 128, any sequence lengths, GQA/MQA, causal and local windows, a
    softcap (math.tanh, as tanh.approx.f32); the rest (`deterministic`,
    other tiles, f32, head dims above 128) is a diagnostic on the op. So
    are an untiled fattn.attention_grad (run --fattn-tile-grad first), a
    fattn.tiled_attention (the forward conversions') and a function holding
    two tiled backward ops; an untiled fattn.attention is left to the
    forward pipeline.
  }];
  let options = [
    Option<"keepTargetOps", "keep-target-ops", "bool", /*default=*/"false",
           "Stop at the kernels of nvgpu/gpu/memref/vector/scf ops (L3)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::gpu::GPUDialect",
    "::mlir::LLVM::LLVMDialect", "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect", "::mlir::nvgpu::NVGPUDialect",
    "::mlir::NVVM::NVVMDialect", "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect", "::mlir::cf::ControlFlowDialect",
  ];
}

def ConvertFAttnGradToNVVMSM90
    : Pass<"convert-fattn-grad-to-nvvm-sm90", "ModuleOp"> {
  let summary = "Turn tiled attention backward functions into three sm_90a "
                "kernels (the main one on wgmma)";
  let description = [{
    As `--convert-fattn-grad-to-nvvm-sm80`, with the same three kernels,
    parameters and launches (docs/KERNEL-ABI.md, "Backward"), in
    `gpu.module @fattn_kernels [#nvvm.target<chip = "sm_90a">]`; the
    preprocess and postprocess kernels are the sm_80 ones, the main kernel
    runs a warpgroup per 64 keys of each (KV tile, KV head, batch), each
    owning its 64 keys (the tiled op's block_n is 64 or 128: one or two
    warpgroups):

    - K and V once, then per item (query head of the group, Q tile of
      `fattn.q_tile_range`) Q and dO, by `nvgpu.device_async_copy` (zero
      fill past the sequences) into 128-byte-swizzled 64-column atoms of
      shared memory, the layout that wgmma's matrix descriptors
      (`fattn.sm90.wgmma_descriptor`) name; the next item's into a second
      buffer while this one runs, its LSE and D into registers;
    - S^T = K Q^T and dP^T = V dO^T by `fattn.sm90.wgmma` (both operands in
      shared memory), P^T = exp2(S^T scale log2(e) - LSE log2(e)) with the
      mask and the softcap, dS^T = P^T (dP^T - D) (times 1 - tanh^2);
    - dV += P^T dO and dK += dS^T Q by `fattn.sm90.wgmma_rs` (the
      accumulators of S^T and dS^T, packed by `fattn.sm90.pack_pair`, are
      the A fragments; dO and Q are N-major, transposed B);
    - dS^T through shared memory to dS's A fragments (`nvgpu.ldmatrix`
      transposed), dQ = dS K by `fattn.sm90.wgmma_rs` (each warpgroup its
      64-column atoms over the 128 keys; at head dim 64 each its own keys'
      share), staged in shared memory and added into `dq_accum` by one
      `fattn.sm90.bulk_reduce_add` per row; dK times the scale and dV
      stored at the end.

    With `keep-target-ops` the pass stops there (L3: upstream ops and the
    fattn.sm90 target ops); otherwise upstream conversions lower the
    upstream ops (as the sm_80 pass does) and the fattn.sm90 ops' patterns
    (`--convert-fattn-sm90-target-to-nvvm`) the rest.

    Supported: f16 and bf16, head dims 64 and 128 (QK and V equal), any
    sequence lengths, GQA/MQA, causal and local windows, a softcap; the
    rest is a diagnostic on the op. So are an untiled fattn.attention_grad
    (run --fattn-tile-grad first), a fattn.tiled_attention (the forward
    conversions') and a function holding two tiled backward ops; an untiled
    fattn.attention is left to the forward pipeline.
  }];
  let options = [
    Option<"keepTargetOps", "keep-target-ops", "bool", /*default=*/"false",
           "Stop at the kernels of upstream and fattn.sm90 target ops (L3)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::gpu::GPUDialect",
    "::mlir::LLVM::LLVMDialect", "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect", "::mlir::nvgpu::NVGPUDialect",
    "::mlir::NVVM::NVVMDialect", "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect", "::mlir::cf::ControlFlowDialect",
  ];
}

#endif // FATTN_CONVERSION_FATTNGRADTONVVM_PASSES_TD
