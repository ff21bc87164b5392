//===- Passes.td - fattn conversion passes -----------------*- tablegen -*-===//

#ifndef FATTN_CONVERSION_PASSES_TD
#define FATTN_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertFAttnToNVVM : Pass<"convert-fattn-to-nvvm", "ModuleOp"> {
  let summary = "Turn target-annotated tiled attention functions into NVVM kernels";
  let description = [{
    Every func.func whose body is a fattn.tiled_attention (annotated by the
    target passes, e.g. --fattn-sm80-async-copy and --fattn-sm80-mma) becomes
    an llvm.func kernel with the parameters of docs/KERNEL-ABI.md inside
    `gpu.module @fattn_kernels [#nvvm.target<chip = ...>]`; the kernel body
    uses the nvvm, llvm, arith and scf dialects (the SM80 pipeline lowers the
    last two). `chip` selects the kernel builder (see FAttnToNVVM.h for the
    sm_90a hook). The function is erased, or, when something calls it (the
    host-launch pipelines' outlined attention), kept empty and marked
    `fattn.kernel_ref = @fattn_kernels::@<kernel>` for --fattn-gpu-launch.
    An untiled fattn.attention, a fattn.tiled_attention_grad (the backward
    conversions') or a function holding two tiled ops is a diagnostic that
    names the pass to run; an untiled fattn.attention_grad is left to the
    backward pipeline.

    The sm_80 kernel is built at the target level (L3: the `fattn.sm80.*`
    ops of the cp.async ring and its commit groups, ldmatrix, mma.sync, P's
    packing, O's and the LSE's stores and the warp barrier, with
    `nvgpu.device_async_wait`, `gpu.barrier`, `gpu.shuffle`, and the masks
    and the softmax in arith and math), which the patterns of
    `--convert-fattn-sm80-target-to-nvvm` then lower (L4).
    `keep-target-ops=true` stops at L3.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_80\"",
           "Target chip: sm_80 (sm_90a once its builder is registered)">,
    Option<"keepTargetOps", "keep-target-ops", "bool", /*default=*/"false",
           "sm_80: leave the kernel at its target ops (L3: fattn.sm80.*, "
           "nvgpu.device_async_wait, gpu.barrier, gpu.shuffle, math) for "
           "--convert-fattn-sm80-target-to-nvvm, "
           "instead of lowering them">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::gpu::GPUDialect",
    "::mlir::LLVM::LLVMDialect", "::mlir::math::MathDialect",
    "::mlir::NVVM::NVVMDialect", "::mlir::nvgpu::NVGPUDialect",
    "::mlir::scf::SCFDialect",
  ];
}

def ConvertFAttnSM80TargetToNVVM
    : Pass<"convert-fattn-sm80-target-to-nvvm", "ModuleOp"> {
  let summary = "Lower the sm_80 target ops (fattn.sm80.*) to NVVM";
  let description = [{
    The L3 -> L4 step of the sm_80 back end: every `fattn.sm80.*` op (the
    ring's `copy_tile` and `commit_group`, `ldmatrix_x4`, `mma_m16n8k16`,
    P's `pack_pair`, O's `stage_row` and `store_rows`, the LSE's
    `store_lse`, `sync_warp`) becomes the NVVM, LLVM, arith and scf
    operations it stands for, and each f32 math op the kernel's instruction
    for it (`math.exp2` ex2.approx.ftz, `math.log2` lg2.approx, `math.tanh`
    tanh.approx, `math.fma` llvm.intr.fma), by the patterns of
    `populateSM80TargetToNVVMPatterns`, and the upstream ops of the sm_80
    L3 (`nvgpu.device_async_wait`, `gpu.barrier` and `gpu.shuffle`) by
    upstream's patterns, in one partial conversion; the commit groups'
    tokens become i32, also where loops carry them. Other ops are left as
    they are; math on other types goes to upstream's GPU patterns
    (libdevice calls).
    `--convert-fattn-to-nvvm` runs the same conversion on each sm_80 kernel
    it builds, unless `keep-target-ops=true`.

    ```mlir
    %w0, %w1, %w2, %w3 = fattn.sm80.ldmatrix_x4 %p trans
    // becomes
    %0 = nvvm.ldmatrix %p {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<col>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
    %w0 = llvm.extractvalue %0[0] : !llvm.struct<(i32, i32, i32, i32)>
    ...
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::LLVM::LLVMDialect",
    "::mlir::NVVM::NVVMDialect", "::mlir::scf::SCFDialect",
  ];
}

def FAttnOutlineAttention : Pass<"fattn-outline-attention", "ModuleOp"> {
  let summary = "Move each fattn.attention into a function of its own, called "
                "where the op was";
  let description = [{
    The first half of the host-complete GPU pipelines (`host-launch=true`):
    every `fattn.attention` on memrefs, wherever it is, moves into a new
    private `func.func @<function>_attention` whose arguments are the op's
    operands (Q, K, V, O, then LSE and the descales when present), and a
    `func.call` of it takes the op's place. The call carries
    `fattn.launch_tensors`, the names of its operands in the kernel ABI
    (docs/KERNEL-ABI.md). The target pipeline then turns the new function
    into a kernel, and `--fattn-gpu-launch` replaces the call with the
    launch.

    ```mlir
    func.func @f(%q: memref<...>, ...) {
      fattn.attention ins(%q, %k, %v : ...) outs(%o : ...) {causal = true}
      return
    }
    // becomes
    func.func private @f_attention(%q: memref<...>, ...) {
      fattn.attention ins(...) outs(...) {causal = true}
      return
    }
    func.func @f(%q: memref<...>, ...) {
      call @f_attention(%q, %k, %v, %o) {fattn.launch_tensors = ["q", "k", "v", "o"]} : (...) -> ()
      return
    }
    ```

    The tensor form is a diagnostic (bufferize first).
  }];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

def FAttnGPULaunch : Pass<"fattn-gpu-launch", "ModuleOp"> {
  let summary = "Replace calls of converted attention functions with host "
                "code that launches their kernels";
  let description = [{
    The second half of the host-complete GPU pipelines: each `func.call`
    carrying `fattn.launch_tensors` whose callee the sm_80 or sm_90a
    conversion turned into a kernel (the callee is then marked
    `fattn.kernel = @module::@kernel`) becomes host code that launches that
    kernel with `gpu.launch_func`, computed from the call's memrefs by the
    kernel's own description (docs/KERNEL-ABI.md, the JSON fattn-compile
    writes): the grid from the sizes, the dynamic shared memory, every
    parameter (data pointers, sizes, strides, constants) and the TMA tensor
    maps, encoded on the host by `mgpuTensorMapEncodeTiled` into 128-byte
    values passed by value. A launch with no work (batch, heads or queries
    0) is skipped; keys 0 with queries is a runtime error (`cf.assert`), as
    are inconsistent sizes of the operands, sizes of 2^31 or more and grids
    past CUDA's limits. What static shapes decide of these (and u32
    parameters, TMA strides below 2^40 bytes) is a diagnostic instead. The
    emptied callee is erased.

    Upstream's `gpu-module-to-binary` and `gpu-to-llvm` (with the usual
    conversions to LLVM) finish the module; it runs with any library of
    upstream's `mgpu*` CUDA entry points (fattn's
    `libfattn_mlir_cuda_runtime.so` or MLIR's `libmlir_cuda_runtime.so`;
    docs/EMBEDDING.md). Kernels that need the device's multiprocessor count
    or a runtime workspace (persistent, split-tail, work-order-tail) are a
    diagnostic: fattn's runtime launches those.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::cf::ControlFlowDialect",
    "::mlir::gpu::GPUDialect", "::mlir::LLVM::LLVMDialect",
    "::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect",
  ];
}

#endif // FATTN_CONVERSION_PASSES_TD
