//===- FP8LayoutFromIR.h - the sm_90a FP8 layout recorded in the IR -*- C++ -*-===//
//
// --fattn-fp8-layout decides how an fp8 tiled attention feeds the e4m3
// wgmma (V transposed with its keys permuted, P's keys permuted the same
// way) and writes it as IR; the sm_90a lowering reads it back here.
//
//===----------------------------------------------------------------------===//

#ifndef FATTN_CONVERSION_FATTNTONVVM_SM90_FP8LAYOUTFROMIR_H
#define FATTN_CONVERSION_FATTNTONVVM_SM90_FP8LAYOUTFROMIR_H

#include "fattn/Dialect/FAttn/IR/FAttnOps.h"

#include <string>

namespace mlir::fattn {

struct SM90FP8Layout {
  /// O += P V reads V^T (keys contiguous), as fp8 wgmma needs.
  bool transposeV = false;
  /// The key order of P and of V^T's columns, e.g. "wgmma_e4m3_k32"
  /// (fattn.permute_keys documents them); empty for non-fp8 ops.
  std::string keyPermutation;
  /// The producer warpgroup transposes V (into the ring the consumers
  /// read); otherwise the consumers transpose each tile themselves.
  bool producerTransposes = false;
  /// V is stored as V^T already (`value_layout`): its tiles are copied as
  /// they are and nobody transposes.
  bool valueStoredTransposed = false;
};

/// Reads the FP8 layout that --fattn-fp8-layout recorded in `op`; fails with
/// a diagnostic on `op` (or the offending op inside it) when `op` is fp8 and
/// the pass has not run, or its IR is inconsistent (a P V product on V
/// untransposed, P not permuted like V, two different permutations). For
/// non-fp8 ops returns a default SM90FP8Layout.
FailureOr<SM90FP8Layout> readSM90FP8Layout(TiledAttentionOp op);

} // namespace mlir::fattn

#endif // FATTN_CONVERSION_FATTNTONVVM_SM90_FP8LAYOUTFROMIR_H
