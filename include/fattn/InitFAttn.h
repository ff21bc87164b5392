//===- InitFAttn.h - register fattn with an MLIR context --------*- C++ -*-===//
//
// What a compiler that embeds fattn registers: the dialect (with the dialects
// and external models that its passes and pipelines need) and the passes and
// named pipelines. fattn-opt, the C API (include/fattn-c/FAttn.h) and
// examples/downstream call these.
//
//===----------------------------------------------------------------------===//

#ifndef FATTN_INITFATTN_H
#define FATTN_INITFATTN_H

namespace mlir {
class DialectRegistry;

namespace fattn {

/// Inserts the fattn dialect into `registry`, with the dialects that its
/// passes read and create (func, arith, math, memref, scf, tensor, linalg,
/// bufferization, vector, affine, cf, index, gpu, llvm, nvvm, ub) and the
/// external models that the CPU pipeline's bufferization and the GPU
/// pipelines query (BufferizableOpInterface, ValueBoundsOpInterface, ...).
/// Translation to LLVM IR and gpu-module-to-binary's NVVM target are left to
/// the embedder, as upstream registers them separately.
void registerFAttnDialects(DialectRegistry &registry);

/// Registers every fattn pass and the named pipelines (fattn-cpu-pipeline,
/// fattn-sm80-pipeline, fattn-sm90-pipeline) with the global registry, so
/// that textual pipelines (`parsePassPipeline`, `--pass-pipeline`) name them.
/// Idempotent.
void registerFAttnPassesAndPipelines();

} // namespace fattn
} // namespace mlir

#endif // FATTN_INITFATTN_H
