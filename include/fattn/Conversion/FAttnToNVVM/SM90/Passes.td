//===- Passes.td - fattn sm_90a conversion -----------------*- tablegen -*-===//

#ifndef FATTN_CONVERSION_FATTNTONVVM_SM90_PASSES_TD
#define FATTN_CONVERSION_FATTNTONVVM_SM90_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertFAttnToNVVMSM90 : Pass<"convert-fattn-to-nvvm-sm90", "ModuleOp"> {
  let summary = "Lower planned fattn.tiled_attention ops to sm_90a kernels";
  let description = [{
    The sm_90a half of `convert-fattn-to-nvvm{chip=sm_90a}`: each
    `fattn.tiled_attention` planned by `--fattn-sm90-tma` becomes an
    `llvm.func` kernel in the LLVM and NVVM dialects inside a `gpu.module`
    targeting sm_90a: TMA copies on mbarriers, two or three consumer
    warpgroups with SS wgmma for Q K^T, RS wgmma (inline asm) for P V and the
    online softmax on the accumulator layout. The schedule is read off the
    IR (docs/SCHEDULING.md): a `fattn.warp_specialize` (from
    `--fattn-warp-specialize`) gives a producer warpgroup with its setmaxnreg
    counts, else one consumer thread issues the copies; a pipelined consumer
    loop (`--fattn-intra-wg-overlap`) overlaps the softmax of one tile with
    the GEMMs of its neighbours; named barriers (`--fattn-pingpong`) order
    the consumers' GEMMs. The lowering choices come from the op's
    `#fattn.sm90_consumer_plan` and `#fattn.sm90_work_plan`
    (`--fattn-sm90-row-sum-mma`, `--fattn-sm90-q-buffers`, ...), each
    checked against the rest of the IR, and O's store from its TMA plan.
    Tensor maps are `nvvm.grid_constant` byval
    parameters. The op is erased; the kernel carries its KERNEL-ABI.md
    description as `fattn.kernel_description`. An untiled fattn.attention
    or a fattn.tiled_attention_grad (--convert-fattn-grad-to-nvvm-sm90's) is
    a diagnostic that names the pass to run; an untiled
    fattn.attention_grad is left to the backward pipeline.

    The kernel is built at the target level (L3: LLVM-dialect code with the
    `fattn.sm90.*` ops of the warpgroups' roles, the K/V ring, its mbarriers
    and TMA copies, the wgmma, the row reductions and P's packing), which
    the patterns of `--convert-fattn-sm90-target-to-nvvm` then lower to NVVM
    (L4). `keep-target-ops=true` stops at L3.
  }];
  let options = [
    Option<"moduleName", "module-name", "std::string", /*default=*/"\"fattn_sm90\"",
           "The gpu.module that receives the kernels">,
    Option<"kernelName", "kernel-name", "std::string", /*default=*/"\"\"",
           "Kernel name (default: derived from the configuration)">,
    Option<"keepTargetOps", "keep-target-ops", "bool", /*default=*/"false",
           "Leave the kernel at the sm_90a target ops (L3, fattn.sm90.*) "
           "for --convert-fattn-sm90-target-to-nvvm, instead of lowering "
           "them to NVVM">,
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::NVVM::NVVMDialect",
                           "::mlir::gpu::GPUDialect"];
}

def ConvertFAttnSM90TargetToNVVM
    : Pass<"convert-fattn-sm90-target-to-nvvm", "ModuleOp"> {
  let summary = "Lower the sm_90a target ops (fattn.sm90.*) to NVVM";
  let description = [{
    The L3 -> L4 step of the sm_90a back end: every `fattn.sm90.*` op (the
    warpgroups' `setmaxnreg` and `elect_one`, the K/V ring's `ring_stage`,
    `ring_phase` and `ring_barrier`, the mbarrier and named barrier ops,
    `tma_load` and `tma_store` with its bulk groups, `wgmma` and `wgmma_rs`
    with their descriptors, fence, commit and wait, the rows' `quad_reduce`,
    P's `pack_pair`, `pack_e4m3` and `pack_bytes`) becomes the
    NVVM and LLVM operations it stands for (inline PTX for `wgmma_rs`, which
    no NVVM op expresses), by the patterns of
    `populateSM90TargetToNVVMPatterns` in one partial conversion, together
    with upstream's SCF -> ControlFlow, ControlFlow -> LLVM, Arith -> LLVM
    and Math -> LLVM patterns, so that L3 written with loops and arithmetic
    of those dialects around the target ops lowers in the same step; other
    ops (NVVM, LLVM) are left as they are.
    `--convert-fattn-to-nvvm-sm90` runs the same patterns on each kernel it
    builds, unless `keep-target-ops=true`.

    ```mlir
    %stage = fattn.sm90.ring_stage %t, stages = 2
    // becomes
    %c2 = llvm.mlir.constant(2 : i32) : i32
    %stage = llvm.urem %t, %c2 : i32
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::NVVM::NVVMDialect",
                           "::mlir::cf::ControlFlowDialect"];
}

#endif // FATTN_CONVERSION_FATTNTONVVM_SM90_PASSES_TD
