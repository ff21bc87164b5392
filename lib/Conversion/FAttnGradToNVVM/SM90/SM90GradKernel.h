//===- SM90GradKernel.h - the sm_90a backward's main kernel -----*- C++ -*-===//
//
// The sm_90a main kernel of the backward (MainKernel.cpp); the preprocess
// and postprocess kernels are the sm_80 ones (GradKernels.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef FATTN_LIB_CONVERSION_FATTNGRADTONVVM_SM90_SM90GRADKERNEL_H
#define FATTN_LIB_CONVERSION_FATTNGRADTONVVM_SM90_SM90GRADKERNEL_H

#include "../GradKernelBuilder.h"

namespace mlir::fattn::sm80grad {

/// Warpgroups of the main kernel's CTA, each owning 64 keys of its KV tile.
constexpr int64_t kSM90Warpgroups = 2;
/// Keys per KV tile of the main kernel (the tiled op's block_n).
constexpr int64_t kSM90BlockN = 64 * kSM90Warpgroups;

/// The main kernel's body (two warpgroups, wgmma); returns its dynamic
/// shared memory in bytes.
int64_t buildSM90MainBody(GradKernelBuilder &k, ValueRange args,
                          QTileRangeOp qTileRange);

} // namespace mlir::fattn::sm80grad

#endif // FATTN_LIB_CONVERSION_FATTNGRADTONVVM_SM90_SM90GRADKERNEL_H
