//===- KernelSymbol.h - names that may become kernel symbols ----*- C++ -*-===//
//
// Kernel and gpu.module names reach PTX (the kernel's .entry), the MLIR text
// the sm_90a lowering parses, and fattn-compile's file names. One rule for
// every target and tool: a PTX identifier that MLIR prints unquoted, and not
// a symbol the lowerings create themselves.
//
//===----------------------------------------------------------------------===//

#ifndef FATTN_CONVERSION_FATTNTONVVM_KERNELSYMBOL_H
#define FATTN_CONVERSION_FATTNTONVVM_KERNELSYMBOL_H

#include "mlir/IR/Operation.h"

#include <string>

namespace mlir::fattn {

/// The extern shared-memory global that both kernel builders add to the
/// gpu.module: no kernel may take its name.
inline constexpr llvm::StringLiteral kSharedMemorySymbol = "fattn_smem";

/// Why `name` cannot name a kernel or its gpu.module, or empty when it can.
/// Accepted: [A-Za-z_][A-Za-z0-9_$]*, except `_` alone and reserved names.
std::string kernelSymbolError(StringRef name);

/// Emits an error on `op` naming `what` (e.g. "kernel name") and the rule
/// when `name` is not a valid kernel symbol.
LogicalResult checkKernelSymbol(Operation *op, StringRef what,
                                StringRef name);

} // namespace mlir::fattn

#endif // FATTN_CONVERSION_FATTNTONVVM_KERNELSYMBOL_H
