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
    sm_90a hook).
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_80\"",
           "Target chip: sm_80 (sm_90a once its builder is registered)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::gpu::GPUDialect",
    "::mlir::LLVM::LLVMDialect", "::mlir::NVVM::NVVMDialect",
    "::mlir::scf::SCFDialect",
  ];
}

#endif // FATTN_CONVERSION_PASSES_TD
