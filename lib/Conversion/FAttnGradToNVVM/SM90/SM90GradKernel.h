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

/// The main kernel's body (a warpgroup per 64 keys of the KV tile, wgmma);
/// returns its dynamic shared memory in bytes.
int64_t buildSM90MainBody(GradKernelBuilder &k, ValueRange args,
                          QTileRangeOp qTileRange);

} // namespace mlir::fattn::sm80grad

#endif // FATTN_LIB_CONVERSION_FATTNGRADTONVVM_SM90_SM90GRADKERNEL_H
