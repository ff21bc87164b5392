//===- CPUKernel.cpp - grids outlined into CPU kernels --------------------===//

#include "CPUKernel.h"

#include "fattn/Dialect/FAttn/Transforms/Transforms.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/RegionUtils.h"

using namespace mlir;
using namespace mlir::fattn;

SmallVector<Value> mlir::fattn::buildGridExtents(OpBuilder &b, Location loc,
                                                 Value rows, int64_t block) {
  Value batch = memref::DimOp::create(b, loc, rows, 0);
  Value heads = memref::DimOp::create(b, loc, rows, 1);
  Value seq = memref::DimOp::create(b, loc, rows, 2);
  Value tiles = arith::CeilDivUIOp::create(
      b, loc, seq, arith::ConstantIndexOp::create(b, loc, block));
  return {batch, heads, tiles};
}

func::FuncOp mlir::fattn::outlineCPUKernel(Operation *op, StringRef name,
                                           ArrayRef<CPUGrid> grids,
                                           SymbolTable &symbolTable) {
  Location loc = op->getLoc();
  MLIRContext *ctx = op->getContext();
  SmallVector<Value> args(op->getOperands());
  llvm::SetVector<Value> captured;
  for (const CPUGrid &grid : grids)
    getUsedValuesDefinedAbove(*grid.body, captured);
  for (Value v : captured)
    if (!llvm::is_contained(args, v))
      args.push_back(v);

  OpBuilder b(ctx);
  b.setInsertionPoint(op->getParentOfType<func::FuncOp>());
  auto kernel = func::FuncOp::create(
      b, loc, name,
      FunctionType::get(ctx, ValueRange(args).getTypes(), TypeRange{}));
  kernel.setPrivate();
  kernel->setAttr(kCPUKernelAttrName, UnitAttr::get(ctx));
  symbolTable.insert(kernel); // uniquifies the name
  Block *entry = kernel.addEntryBlock();
  b.setInsertionPointToStart(entry);
  IRMapping mapping;
  mapping.map(args, entry->getArguments());

  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  SmallVector<SmallVector<Value>> extents;
  for (const CPUGrid &grid : grids)
    extents.push_back(grid.extents(b, loc, entry->getArguments()));
  for (auto [grid, upper] : llvm::zip(grids, extents)) {
    // One loop per grid dimension; the body is cloned into the innermost.
    scf::LoopNest nest =
        scf::buildLoopNest(b, loc, SmallVector<Value>(upper.size(), zero),
                           upper, SmallVector<Value>(upper.size(), one));
    Block &body = grid.body->front();
    for (auto [loop, arg] : llvm::zip(nest.loops, body.getArguments()))
      mapping.map(arg, loop.getInductionVar());
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(nest.loops.back().getBody()->getTerminator());
    for (Operation &nested : body)
      b.clone(nested, mapping);
  }
  func::ReturnOp::create(b, loc);

  b.setInsertionPoint(op);
  func::CallOp::create(b, loc, kernel, args);
  op->erase();
  return kernel;
}
