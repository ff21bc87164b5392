//===- SM90Ops.cpp - sm_90a target ops (L3) -------------------------------===//

#include "fattn/Dialect/FAttn/IR/FAttnSM90Ops.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::fattn;

#include "fattn/Dialect/FAttn/IR/FAttnSM90Enums.cpp.inc"

#define GET_OP_CLASSES
#include "fattn/Dialect/FAttn/IR/FAttnSM90Ops.cpp.inc"

/// The most an mbarrier's arrival count or transaction count holds
/// (PTX: 2^20 - 1).
static constexpr int64_t kMaxMBarrierCount = (int64_t(1) << 20) - 1;

LogicalResult SM90SetMaxNRegOp::verify() {
  int64_t count = getCount();
  if (count < 24 || count > 256 || count % 8 != 0)
    return emitOpError() << "expected a register count that is a multiple of "
                            "8 in [24, 256], found "
                         << count;
  return success();
}

/// The bytes of dynamic shared memory a region may reach from the aligned
/// base: an sm_90a CTA's 227 KiB, less the base's alignment (1024).
static constexpr int64_t kMaxAlignedSharedBytes = 227 * 1024 - 1024;

LogicalResult SM90SmemRegionOp::verify() {
  int64_t offset = getOffset(), bytes = getBytes();
  SM90SharedRegion region = getRegion();
  int64_t alignment = region == SM90SharedRegion::KeyFactors ||
                              region == SM90SharedRegion::Barriers
                          ? 8
                          : 1024;
  if (offset < 0 || offset % alignment != 0)
    return emitOpError() << "expected the offset of region "
                         << stringifySM90SharedRegion(region)
                         << " a non-negative multiple of " << alignment
                         << ", found " << offset;
  if (bytes <= 0 || offset + bytes > kMaxAlignedSharedBytes)
    return emitOpError() << "expected region "
                         << stringifySM90SharedRegion(region)
                         << " to be non-empty and to end within "
                         << kMaxAlignedSharedBytes
                         << " bytes (227 KiB less the base's alignment), "
                            "found bytes "
                         << offset << " to " << offset + bytes;
  return success();
}

/// The 16-bit float type of packed pairs (P's or O's).
static LogicalResult verifyPairElementType(Operation *op, Type element) {
  if (!element.isBF16() && !element.isF16())
    return op->emitOpError() << "expected element_type bf16 or f16, found "
                              << element;
  return success();
}

LogicalResult SM90PackPairOp::verify() {
  return verifyPairElementType(*this, getElementType());
}

/// A thread's values of an accumulator row, stored as packed pairs.
static LogicalResult verifyFragmentValues(Operation *op, size_t values,
                                          Type element) {
  if (values == 0 || values % 2 != 0)
    return op->emitOpError() << "expected a positive, even number of values "
                                "(pairs of adjacent columns), found "
                             << values;
  return verifyPairElementType(op, element);
}

/// The bytes of a 64-column atom of a 128-byte-swizzled tile: whole
/// 1024-byte swizzle patterns (8 rows of 128 bytes).
static LogicalResult verifyAtomBytes(Operation *op, int64_t bytes) {
  if (bytes <= 0 || bytes % 1024 != 0 || bytes > INT32_MAX)
    return op->emitOpError() << "expected atom_bytes a positive 32-bit "
                                "multiple of 1024 (8 rows of 128 bytes), found "
                             << bytes;
  return success();
}

LogicalResult SM90StoreFragmentOp::verify() {
  return verifyFragmentValues(*this, getValues().size(), getElementType());
}

LogicalResult SM90StageFragmentOp::verify() {
  if (failed(verifyFragmentValues(*this, getValues().size(),
                                  getElementType())))
    return failure();
  return verifyAtomBytes(*this, getAtomBytes());
}

LogicalResult SM90LoadSwizzledUnitOp::verify() {
  return verifyAtomBytes(*this, getAtomBytes());
}

static LogicalResult verifyStages(Operation *op, int64_t stages) {
  if (stages < 1)
    return op->emitOpError() << "expected at least one stage, found " << stages;
  return success();
}

LogicalResult SM90RingStageOp::verify() {
  return verifyStages(*this, getStages());
}

LogicalResult SM90RingPhaseOp::verify() {
  return verifyStages(*this, getStages());
}

LogicalResult SM90WorkItemOp::verify() {
  ArrayRef<bool> fast = getFastDivisors();
  if (fast.size() != 2)
    return emitOpError() << "expected 2 fast_divisors (one each for q_tiles "
                            "and heads), found "
                         << fast.size();
  int64_t magic = getMagic().size();
  int64_t expected = 2 * llvm::count(fast, true);
  if (magic != expected)
    return emitOpError() << "expected " << expected
                         << " magic operands (a multiplier and a shift for "
                            "each of the "
                         << expected / 2 << " fast divisors), found " << magic;
  // The order compares pairs x ctas_per_pair with the grid in 32 bits.
  int64_t ctasPerPair = getCtasPerPair();
  if (ctasPerPair < 1 || ctasPerPair > INT32_MAX)
    return emitOpError() << "expected ctas_per_pair in [1, 2^31 - 1], found "
                         << ctasPerPair;
  if (getTailPairs() && !getMasked())
    return emitOpError() << "expected tail_pairs only with masked (unmasked "
                            "items are all of one length, in one order)";
  return success();
}

LogicalResult SM90RingBarrierOp::verify() {
  int64_t offset = getOffset();
  if (offset < 0 || offset % 8 != 0 || offset > INT32_MAX)
    return emitOpError() << "expected a non-negative 32-bit byte offset that "
                            "is a multiple of 8 (mbarriers are 8 bytes, "
                            "8-byte aligned), found "
                         << offset;
  return success();
}

/// An arrival or transaction count of an mbarrier: `what` in [1, 2^20 - 1]
/// (`unit`: what it counts, or empty).
static LogicalResult verifyMBarrierCount(Operation *op, int64_t count,
                                         StringRef what, StringRef unit) {
  if (count >= 1 && count <= kMaxMBarrierCount)
    return success();
  InFlightDiagnostic diag = op->emitOpError()
                            << "expected " << what << " in [1, "
                            << kMaxMBarrierCount << "]";
  if (!unit.empty())
    diag << " " << unit;
  return diag << ", found " << count;
}

LogicalResult SM90MBarrierInitOp::verify() {
  return verifyMBarrierCount(*this, getCount(), "an arrival count", "");
}

LogicalResult SM90MBarrierArriveExpectTxOp::verify() {
  return verifyMBarrierCount(*this, getBytes(), "a transaction count", "bytes");
}

static LogicalResult verifyNamedBarrierThreads(Operation *op, int64_t threads) {
  if (threads <= 0 || threads % 32 != 0 || threads > 1024)
    return op->emitOpError() << "expected a thread count that is a positive "
                                "multiple of 32 (at most 1024), found "
                             << threads;
  return success();
}

LogicalResult SM90NamedBarrierOp::verify() {
  return verifyNamedBarrierThreads(*this, getThreads());
}

LogicalResult SM90NamedBarrierArriveOp::verify() {
  return verifyNamedBarrierThreads(*this, getThreads());
}

/// The coordinates of a TMA copy: one per dim of its tensor map.
static LogicalResult verifyTmaCoordinates(Operation *op, size_t dims) {
  if (dims < 1 || dims > 5)
    return op->emitOpError() << "expected 1 to 5 coordinates (one per dim of "
                                "the tensor map), found "
                             << dims;
  return success();
}

LogicalResult SM90TmaLoadOp::verify() {
  return verifyTmaCoordinates(*this, getCoordinates().size());
}

LogicalResult SM90TmaStoreOp::verify() {
  return verifyTmaCoordinates(*this, getCoordinates().size());
}

LogicalResult SM90BulkReduceAddOp::verify() {
  // A size known here is checked; the PTX requires a multiple of 16.
  APInt bytes;
  if (matchPattern(getBytes(), m_ConstantInt(&bytes)) &&
      (bytes.getSExtValue() <= 0 || bytes.getSExtValue() % 16 != 0))
    return emitOpError() << "expected bytes a positive multiple of 16, found "
                         << bytes.getSExtValue();
  return success();
}

/// A number of pending groups (wgmma or bulk copies) to wait for.
static LogicalResult verifyPending(Operation *op, int64_t pending) {
  if (pending < 0)
    return op->emitOpError() << "expected a non-negative number of pending "
                                "groups, found "
                             << pending;
  return success();
}

LogicalResult SM90BulkWaitGroupReadOp::verify() {
  return verifyPending(*this, getPending());
}

LogicalResult SM90WgmmaDescriptorOp::verify() {
  int64_t bytes = getLeadingBytes();
  // A 14-bit field of 16-byte units.
  constexpr int64_t kMaxLeadingBytes = ((int64_t(1) << 14) - 1) * 16;
  if (bytes < 16 || bytes > kMaxLeadingBytes || bytes % 16 != 0)
    return emitOpError() << "expected leading_bytes a multiple of 16 in [16, "
                         << kMaxLeadingBytes
                         << "] (14 bits of 16-byte units), found " << bytes;
  return success();
}

LogicalResult SM90WgmmaWaitGroupOp::verify() {
  return verifyPending(*this, getPending());
}

int64_t SM90WgmmaOp::getN() {
  auto acc = cast<LLVM::LLVMStructType>(getAccumulator().getType());
  return 2 * static_cast<int64_t>(acc.getBody().size());
}

/// k of a wgmma step: 32 bytes of the operands' element type.
static int64_t wgmmaK(Type element) {
  return 256 / static_cast<int64_t>(element.getIntOrFloatBitWidth());
}

int64_t SM90WgmmaOp::getK() { return wgmmaK(getElementType()); }

int64_t SM90WgmmaRsOp::getK() { return wgmmaK(getElementType()); }

/// What both wgmma ops need: operands of a type wgmma multiplies, and N / 2
/// accumulator registers for an N that m64nNk has.
static LogicalResult verifyWgmma(Operation *op, Type element, int64_t n) {
  if (!element.isBF16() && !element.isF16() && !isa<Float8E4M3FNType>(element))
    return op->emitOpError() << "expected element_type bf16, f16 or "
                                "f8E4M3FN, found "
                             << element;
  if (n < 8 || n > 256 || n % 8 != 0)
    return op->emitOpError() << "expected N / 2 accumulator registers with N "
                                "a multiple of 8 in [8, 256] (m64nNk), found "
                             << n / 2;
  return success();
}

LogicalResult SM90WgmmaOp::verify() {
  auto acc = cast<LLVM::LLVMStructType>(getAccumulator().getType());
  if (acc.isIdentified() ||
      !llvm::all_of(acc.getBody(), [](Type t) { return t.isF32(); }))
    return emitOpError() << "expected a literal struct of f32 accumulator "
                            "registers, found "
                         << acc;
  return verifyWgmma(*this, getElementType(), getN());
}

LogicalResult SM90WgmmaRsOp::verify() {
  if (failed(verifyWgmma(*this, getElementType(), getN())))
    return failure();
  if (getA().size() != 4)
    return emitOpError() << "expected 4 i32 registers of A (its m64k "
                            "fragment per thread), found "
                         << getA().size();
  Type expected = LLVM::LLVMStructType::getLiteral(
      getContext(), SmallVector<Type>(getAccumulator().size(),
                                      Float32Type::get(getContext())));
  if (getResult().getType() != expected)
    return emitOpError() << "expected result type " << expected
                         << " (the accumulator's registers), found "
                         << getResult().getType();
  if (getTransposeB() && isa<Float8E4M3FNType>(getElementType()))
    return emitOpError("expected no transpose_b with f8E4M3FN (e4m3 wgmma "
                       "reads B K-major only)");
  return success();
}
