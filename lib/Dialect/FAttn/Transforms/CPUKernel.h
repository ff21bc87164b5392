//===- CPUKernel.h - grids outlined into CPU kernels ------------*- C++ -*-===//
//
// The CPU lowerings of the tiled forms (fattn-lower-tiled-to-linalg,
// fattn-lower-tiled-grad-to-linalg) run each grid of a grid op as a loop
// nest inside a private function of its own, a CPU "kernel", so that the
// temporaries of the tile math stay in functions that the CPU pipeline
// alone owns and frees (fattn-deallocate-cpu-kernels).
//
//===----------------------------------------------------------------------===//

#ifndef FATTN_LIB_DIALECT_FATTN_TRANSFORMS_CPUKERNEL_H
#define FATTN_LIB_DIALECT_FATTN_TRANSFORMS_CPUKERNEL_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/SymbolTable.h"

#include <functional>

namespace mlir::fattn {

/// One grid of a grid op: its body (a single block whose three index
/// arguments are a grid point) and its extents, built at the kernel's entry
/// from the kernel's arguments (the first ones are the op's operands, in
/// order).
struct CPUGrid {
  Region *body;
  std::function<SmallVector<Value>(OpBuilder &, Location, ValueRange args)>
      extents;
};

/// The extents (batch, heads, tiles) of a grid over the rows of `rows`
/// ([batch, heads, seq, ...]) in tiles of `block` rows: dims 0 and 1, and
/// ceildiv(dim 2, block).
SmallVector<Value> buildGridExtents(OpBuilder &b, Location loc, Value rows,
                                    int64_t block);

/// Moves `grids` (regions of `op`) into a new private function named `name`
/// (made unique in `symbolTable`) and marked kCPUKernelAttrName, as one loop
/// nest per grid in order, and replaces `op` with a call to it. The
/// function's arguments are `op`'s operands, then the values the grids use
/// from above.
func::FuncOp outlineCPUKernel(Operation *op, StringRef name,
                              ArrayRef<CPUGrid> grids,
                              SymbolTable &symbolTable);

} // namespace mlir::fattn

#endif // FATTN_LIB_DIALECT_FATTN_TRANSFORMS_CPUKERNEL_H
