//===- FAttnDialect.td - fattn dialect definition ----------*- tablegen -*-===//

#ifndef FATTN_DIALECT_FATTN_IR_FATTNDIALECT_TD
#define FATTN_DIALECT_FATTN_IR_FATTNDIALECT_TD

include "mlir/IR/OpBase.td"

def FAttn_Dialect : Dialect {
  let name = "fattn";
  let summary = "Exact attention and its tiled online-softmax form";
  let description = [{
    The `fattn` dialect expresses exact attention, softmax(scale * Q K^T + mask) V,
    as one op (`fattn.attention`) and the tiled online-softmax form that the
    target passes (CPU, sm_80, sm_90a) rewrite into kernels.
  }];
  let cppNamespace = "::mlir::fattn";
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let extraClassDeclaration = [{
    /// Registers the types of FAttnScheduleOps.td (ScheduleOps.cpp).
    void registerScheduleTypes();
    /// Registers the attributes of FAttnAttrs.td (FAttnAttrs.cpp).
    void registerAttributes();
  }];
  // What the dialect's own ops need loaded; the dialects that a pass creates
  // ops of are that pass's dependentDialects (Passes.td).
  //  - arith, tensor: the fp8 ops' canonicalizations build arith.constant,
  //    tensor.extract and tensor.splat;
  //  - LLVM: the target ops' operands are LLVM pointers and structs, which
  //    their parsers build before any LLVM op may have loaded the dialect;
  //  - NVGPU: fattn.sm80.commit_group's result is upstream's cp.async group
  //    token.
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::nvgpu::NVGPUDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

class FAttn_Op<string mnemonic, list<Trait> traits = []>
    : Op<FAttn_Dialect, mnemonic, traits>;

// Operands of the destination-style ops (fattn.attention, fattn.quantize,
// fattn.hadamard_rotate), which take tensors or memrefs: all of one kind.
// (Rank and element type are the verifiers' to check, with messages that
// name the kind found.)
def FAttn_TensorOrMemRef : AnyTypeOf<[AnyRankedTensor, AnyMemRef],
    "ranked tensor or memref", "::mlir::ShapedType">;

#endif // FATTN_DIALECT_FATTN_IR_FATTNDIALECT_TD
