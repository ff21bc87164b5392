//===- LoweringChoices.cpp - the sm_90a lowering choices in the IR --------===//
//
// The plans' getters, the facts of the op that the rules read, and the
// check of every recorded choice for the lowering. The setters and their
// rules sit beside their passes (QBuffers.cpp, WorkTail.cpp, ...).
//
//===----------------------------------------------------------------------===//

#include "fattn/Dialect/FAttn/Transforms/SM90/LoweringChoices.h"
#include "fattn/Dialect/FAttn/Transforms/SM90/TMAPlan.h"

using namespace mlir;
using namespace mlir::fattn;

/// The attribute `name` of `op` as an `AttrT`, or null without one.
template <typename AttrT>
static FailureOr<AttrT> getPlan(TiledAttentionOp op, StringRef name) {
  Attribute attr = op->getAttr(name);
  if (!attr)
    return AttrT();
  if (auto plan = dyn_cast<AttrT>(attr))
    return plan;
  return op.emitOpError() << "expected " << name << " to be a #fattn."
                          << AttrT::getMnemonic() << ", found " << attr;
}

FailureOr<SM90ConsumerChoices>
mlir::fattn::getSM90ConsumerChoices(TiledAttentionOp op) {
  auto plan = getPlan<SM90ConsumerPlanAttr>(op, kConsumerPlanAttrName);
  if (failed(plan))
    return failure();
  if (!*plan)
    return SM90ConsumerChoices();
  return SM90ConsumerChoices{plan->getValueMma(), plan->getRowSums(),
                             plan->getExp2(), plan->getRescaleThreshold().convertToFloat(),
                             plan->getNarrowTail(), plan->getKvRanges()};
}

FailureOr<SM90WorkChoices> mlir::fattn::getSM90WorkChoices(TiledAttentionOp op) {
  auto plan = getPlan<SM90WorkPlanAttr>(op, kWorkPlanAttrName);
  if (failed(plan))
    return failure();
  if (!*plan)
    return SM90WorkChoices();
  return SM90WorkChoices{plan->getQTileOrder(), plan->getQBuffers(),
                         plan->getTail()};
}

void mlir::fattn::setSM90ConsumerChoices(TiledAttentionOp op,
                                         const SM90ConsumerChoices &c) {
  op->setAttr(kConsumerPlanAttrName,
              SM90ConsumerPlanAttr::get(op.getContext(), c.valueMma, c.rowSums,
                                        c.exp2, APFloat(c.rescaleThreshold),
                                        c.narrowTail, c.kvRanges));
}

void mlir::fattn::setSM90WorkChoices(TiledAttentionOp op,
                                     const SM90WorkChoices &c) {
  op->setAttr(kWorkPlanAttrName,
              SM90WorkPlanAttr::get(op.getContext(), c.qTileOrder, c.qBuffers,
                                    c.tail));
}

LogicalResult mlir::fattn::updateSM90ConsumerChoices(
    TiledAttentionOp op, function_ref<void(SM90ConsumerChoices &)> change) {
  FailureOr<SM90ConsumerChoices> choices = getSM90ConsumerChoices(op);
  if (failed(choices))
    return failure();
  change(*choices);
  setSM90ConsumerChoices(op, *choices);
  return success();
}

LogicalResult mlir::fattn::updateSM90WorkChoices(
    TiledAttentionOp op, function_ref<void(SM90WorkChoices &)> change) {
  FailureOr<SM90WorkChoices> choices = getSM90WorkChoices(op);
  if (failed(choices))
    return failure();
  change(*choices);
  setSM90WorkChoices(op, *choices);
  return success();
}

bool mlir::fattn::hasE4M3Inputs(TiledAttentionOp op) {
  return isa<Float8E4M3FNType>(
      cast<MemRefType>(op.getQuery().getType()).getElementType());
}

bool mlir::fattn::isMaskedAttention(TiledAttentionOp op) {
  return static_cast<int64_t>(op.getWindowLeft()) >= 0 ||
         static_cast<int64_t>(op.getWindowRight()) >= 0;
}

int64_t mlir::fattn::descaleRank(Value descale) {
  return descale ? cast<MemRefType>(descale.getType()).getRank() : -1;
}

std::optional<StringRef>
mlir::fattn::sm90RowSumsNeedThreads(TiledAttentionOp op) {
  if (op.getLse())
    return StringRef("the LSE needs the sums of the unrounded probabilities");
  if (descaleRank(op.getVDescale()) == 3)
    return StringRef("per-block V descales rescale O by V's factor, which l "
                     "must not take");
  return std::nullopt;
}

LogicalResult mlir::fattn::verifySM90LoweringChoices(TiledAttentionOp op) {
  FailureOr<SM90ConsumerChoices> consumers = getSM90ConsumerChoices(op);
  FailureOr<SM90WorkChoices> work = getSM90WorkChoices(op);
  if (failed(consumers) || failed(work))
    return failure();
  if (failed(checkSM90QBuffers(op, work->qBuffers)))
    return failure();
  // 16-bit O goes out through the work item's Q buffer, which only a second
  // buffer keeps free past the item's last S = Q K^T. FP8's Q rows are
  // e4m3: O gets a buffer of its own.
  FailureOr<TMAPlan> tma = getTMAPlan(op);
  if (succeeded(tma) && tma->store == SM90OutputStore::TMA &&
      !hasE4M3Inputs(op) && work->qBuffers != 2)
    return op.emitOpError() << "tma-store needs q-buffers=2 for 16-bit "
                               "element types (O goes out through the work "
                               "item's Q buffer)";
  if (work->tail != SM90WorkTail::None &&
      failed(checkSM90WorkTail(op, work->tail)))
    return failure();
  if (consumers->exp2 != SM90Exp2::Mufu &&
      failed(checkSM90Exp2(op, consumers->exp2)))
    return failure();
  if (failed(checkSM90RescaleThreshold(op, consumers->rescaleThreshold)))
    return failure();
  if (consumers->narrowTail != 0 &&
      failed(checkSM90NarrowTail(op, consumers->narrowTail)))
    return failure();
  if (consumers->kvRanges != SM90KVRanges::WorkItem &&
      failed(checkSM90KVRanges(op, consumers->kvRanges)))
    return failure();
  return success();
}

LogicalResult mlir::fattn::forEachTiledAttention(
    Operation *root, function_ref<LogicalResult(TiledAttentionOp)> set) {
  bool failedAny = false;
  root->walk([&](TiledAttentionOp op) { failedAny |= failed(set(op)); });
  return failure(failedAny);
}
