//===- OutlineAttention.cpp - --fattn-outline-attention -------------------===//
//
// Each fattn.attention moves into a private function of its own and a call
// takes its place, so that the target pipeline turns the function into a
// kernel while the caller stays host code (the first half of the
// host-complete pipelines; GPULaunch.h).
//
//===----------------------------------------------------------------------===//

#include "fattn/Conversion/GPULaunch/GPULaunch.h"
#include "fattn/Conversion/Passes.h"

#include "mlir/IR/SymbolTable.h"

#define DEBUG_TYPE "fattn-outline-attention"

namespace mlir::fattn {
#define GEN_PASS_DEF_FATTNOUTLINEATTENTION
#include "fattn/Conversion/Passes.h.inc"
} // namespace mlir::fattn

using namespace mlir;
using namespace mlir::fattn;

/// The op's operands with their kernel-ABI names, in operand order (Q, K,
/// V, O, then the optional LSE, descales and runtime scalars).
static SmallVector<std::pair<StringRef, Value>> namedOperands(AttentionOp op) {
  SmallVector<std::pair<StringRef, Value>> named = {{"q", op.getQuery()},
                                                    {"k", op.getKey()},
                                                    {"v", op.getValue()},
                                                    {"o", op.getOutput()}};
  for (auto [name, value] :
       {std::pair<StringRef, Value>{"lse", op.getLse()},
        {"q_descale", op.getQDescale()},
        {"k_descale", op.getKDescale()},
        {"v_descale", op.getVDescale()},
        {"scale", op.getDynamicScale()},
        {"softcap", op.getDynamicSoftcap()}})
    if (value)
      named.push_back({name, value});
  return named;
}

FailureOr<func::CallOp> mlir::fattn::outlineAttention(RewriterBase &rewriter,
                                                      AttentionOp op) {
  if (!op.getResultTensors().empty() ||
      !isa<MemRefType>(op.getQuery().getType()))
    return op.emitOpError("outlining needs the memref form: bufferize the "
                          "tensor form first (--one-shot-bufferize)");
  auto parent = op->getParentOfType<func::FuncOp>();
  Operation *symbolTableOp =
      parent ? SymbolTable::getNearestSymbolTable(parent) : nullptr;
  if (!parent || !symbolTableOp)
    return op.emitOpError(
        "outlining needs the op inside a func.func of a symbol table");

  SmallVector<std::pair<StringRef, Value>> operands = namedOperands(op);
  SmallVector<Type> types;
  SmallVector<Value> values;
  SmallVector<Attribute> names;
  for (auto [name, value] : operands) {
    types.push_back(value.getType());
    values.push_back(value);
    names.push_back(rewriter.getStringAttr(name));
  }

  OpBuilder::InsertionGuard guard(rewriter);
  auto callee = func::FuncOp::create(
      op.getLoc(), (parent.getSymName() + "_attention").str(),
      rewriter.getFunctionType(types, {}));
  callee.setPrivate();
  // Renames the callee on a clash (`_0`, `_1`, ...).
  SymbolTable(symbolTableOp).insert(callee, Block::iterator(parent));
  Block *body = callee.addEntryBlock();
  rewriter.setInsertionPointToStart(body);
  // namedOperands lists the op's operands in order: each becomes an
  // argument of its own, even where the caller passes one value twice.
  Operation *inner = rewriter.clone(*op);
  inner->setOperands(body->getArguments());
  func::ReturnOp::create(rewriter, op.getLoc());

  rewriter.setInsertionPoint(op);
  auto call = func::CallOp::create(rewriter, op.getLoc(), callee, values);
  call->setAttr(kLaunchTensorsAttrName, rewriter.getArrayAttr(names));
  rewriter.eraseOp(op);
  return call;
}

namespace {
struct FAttnOutlineAttentionPass
    : public fattn::impl::FAttnOutlineAttentionBase<FAttnOutlineAttentionPass> {
  void runOnOperation() override {
    SmallVector<AttentionOp> ops;
    getOperation()->walk([&](AttentionOp op) { ops.push_back(op); });
    IRRewriter rewriter(&getContext());
    for (AttentionOp op : ops)
      if (failed(outlineAttention(rewriter, op)))
        return signalPassFailure();
  }
};
} // namespace
