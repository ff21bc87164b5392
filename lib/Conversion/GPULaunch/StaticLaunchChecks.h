//===- StaticLaunchChecks.h - launch checks that static shapes decide -*- C++ -*-===//
//
// The host launch checks its operands at run time (cf.assert), as fattn's
// runtime does before a launch. Where the memref types give the sizes or
// strides that a check reads, it is decided here instead, at compile time.
//
//===----------------------------------------------------------------------===//

#ifndef FATTN_LIB_CONVERSION_GPULAUNCH_STATICLAUNCHCHECKS_H
#define FATTN_LIB_CONVERSION_GPULAUNCH_STATICLAUNCHCHECKS_H

#include "fattn/Runtime/KernelDescription.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace mlir::fattn {

/// Fails with a diagnostic from `error` where the static sizes and strides
/// of `types` (the launch's memref operands by kernel-ABI slot, null where
/// absent) break what `desc`'s kernel takes: a size of 2^31 or more (the
/// kernels' sizes are 32-bit), a grid dim outside CUDA's limits, keys 0 with
/// queries, a u32 parameter that does not fit, or a TMA stride of 0 or of
/// 2^40 bytes or more. A launch whose static sizes leave no
/// work passes (it is skipped at run time).
LogicalResult
checkStaticLaunch(const ::fattn::runtime::KernelDescription &desc,
                  ArrayRef<MemRefType> types,
                  llvm::function_ref<InFlightDiagnostic()> error);

} // namespace mlir::fattn

#endif // FATTN_LIB_CONVERSION_GPULAUNCH_STATICLAUNCHCHECKS_H
