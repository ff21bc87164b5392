//===- KernelBuilder.h - typed builder of the sm_90a kernel (private) -*- C++
//-*-===//
//
// The instruction vocabulary of the sm_90a kernel emitter: one method per
// LLVM or NVVM operation the kernel uses, creating it through its typed
// builder at the end of the current block. Blocks are named, so that the
// emitter can branch to a block before it places it; a block joins the
// function when it is placed, which keeps the function's blocks in the order
// the emitter places them.
//
//===----------------------------------------------------------------------===//

#ifndef FATTN_LIB_CONVERSION_FATTNTONVVM_SM90_KERNELBUILDER_H
#define FATTN_LIB_CONVERSION_FATTNTONVVM_SM90_KERNELBUILDER_H

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/Builders.h"

#include "llvm/ADT/StringMap.h"

#include <memory>

namespace mlir::fattn::sm90 {

using ICmp = LLVM::ICmpPredicate;
using FCmp = LLVM::FCmpPredicate;

/// The PTX special registers the kernel reads.
enum class SpecialRegister {
  ThreadIdX,
  BlockIdX,
  BlockIdY,
  BlockIdZ,
  GridDimX
};

/// A kernel parameter: its name (for KernelBuilder::arg), its type, and
/// whether it is a TMA tensor map passed by value (__grid_constant__).
struct KernelParam {
  std::string name;
  Type type;
  bool tensorMap = false;
};

class KernelBuilder {
public:
  KernelBuilder(OpBuilder &builder, Location loc);
  ~KernelBuilder();

  /// Creates `llvm.func @name(params)` at the builder's insertion point as a
  /// kernel of `threads` threads per CTA, and places its entry block.
  LLVM::LLVMFuncOp beginFunction(StringRef name, ArrayRef<KernelParam> params,
                                 int64_t threads);
  /// The function's parameter `name`.
  Value arg(StringRef name) const;

  // Types.
  Type i1() { return b.getI1Type(); }
  Type i8() { return b.getI8Type(); }
  Type i32() { return b.getI32Type(); }
  Type i64() { return b.getI64Type(); }
  Type f32() { return b.getF32Type(); }
  /// A pointer in address space `space` (0 generic, 1 global, 3 shared, 7
  /// shared::cluster).
  Type ptr(unsigned space = 0);
  Type vector(int64_t n, Type element) { return VectorType::get({n}, element); }
  /// A literal struct of `n` fields of type `element`.
  Type structOf(int64_t n, Type element);

  // Constants.
  /// An i1 `true` or `false`.
  Value i1(bool v);
  Value i32(int64_t v);
  Value i64(int64_t v);
  Value f32(float v);
  Value poison(Type type);
  Value zero(Type type);

  // Integer and float arithmetic (the type of the operands).
  Value add(Value a, Value b);
  Value sub(Value a, Value b);
  Value mul(Value a, Value b);
  Value udiv(Value a, Value b);
  Value urem(Value a, Value b);
  Value sdiv(Value a, Value b);
  Value srem(Value a, Value b);
  Value andI(Value a, Value b);
  Value orI(Value a, Value b);
  Value xorI(Value a, Value b);
  Value shl(Value a, Value b);
  Value lshr(Value a, Value b);
  Value fadd(Value a, Value b);
  Value fsub(Value a, Value b);
  Value fmul(Value a, Value b);
  Value fneg(Value a);
  Value fdiv(Value a, Value b);
  Value icmp(ICmp predicate, Value a, Value b);
  Value fcmp(FCmp predicate, Value a, Value b);
  Value select(Value condition, Value a, Value b);
  Value smin(Value a, Value b) { return select(icmp(ICmp::slt, a, b), a, b); }
  Value smax(Value a, Value b) { return select(icmp(ICmp::sgt, a, b), a, b); }
  Value fmax(Value a, Value b);
  Value fma(Value a, Value b, Value c);
  /// fma.rn.sat.f32: a * b + c clamped to [0, 1] (NaN to 0).
  Value fmaSat(Value a, Value b, Value c);
  /// tanh.approx.f32.
  Value tanh(Value x);
  /// ex2.approx.ftz.f32.
  Value ex2(Value x);
  /// prmt.b32: the bytes of {b, a} (a's 0-3, b's 4-7) that the four nibbles
  /// of `selector` pick, low byte first.
  Value prmt(Value a, Value b, Value selector);
  /// The high 32 bits of the unsigned product.
  Value mulhiU(Value a, Value b);
  Value ctlz(Value x);

  // Casts.
  Value zext(Value x, Type type);
  Value zext64(Value x) { return zext(x, i64()); }
  Value trunc(Value x, Type type);
  Value bitcast(Value x, Type type);
  Value fptrunc(Value x, Type type);
  Value addrspacecast(Value x, Type type);
  Value ptrtoint(Value x, Type type);

  // Aggregates and vectors.
  Value extractValue(Value aggregate, int64_t index);
  Value insertValue(Value aggregate, Value value, int64_t index);
  Value extractElement(Value vector, Value index);
  Value insertElement(Value vector, Value value, Value index);

  // Memory.
  /// The byte address `base + offset` (offset i32 for shared, i64 for
  /// global memory).
  Value byteOffset(Value base, Value offset);
  /// The address of element `index` (i64 for global memory) of an array of
  /// `element` at `base`.
  Value elementAddress(Value base, Type element, Value index);
  Value load(Type type, Value address, unsigned alignment = 0);
  void store(Value value, Value address, unsigned alignment = 0);
  Value addressOf(StringRef global, Type type);

  /// Inline PTX (AT&T dialect) returning `result` (null: nothing).
  Value inlineAsm(Type result, StringRef text, StringRef constraints,
                  ValueRange operands, bool sideEffects);
  Value callIntrinsic(StringRef name, Type result, ValueRange args);

  // Threads and warps.
  Value specialRegister(SpecialRegister reg);
  Value shuffle(NVVM::ShflKind kind, Value value, Value offset, Value clamp,
                Value mask);
  Value voteAny(Value mask, Value predicate);
  Value electSync();
  void barrier0();
  void namedBarrier(Value id, Value threads);
  void namedBarrierArrive(Value id, Value threads);
  void setMaxRegisters(int64_t count, bool increase);

  // mbarriers and fences.
  void mbarrierInit(Value barrier, Value count, Value predicate);
  void mbarrierArrive(Value barrier);
  void mbarrierArriveExpectTx(Value barrier, Value bytes);
  void mbarrierTryWaitParity(Value barrier, Value phase, Value ticks);
  void fenceMbarrierInit();
  /// fence.proxy.async.shared::cta: shared-memory writes of this thread made
  /// visible to the async proxy (TMA, wgmma).
  void fenceProxyAsyncShared();

  // wgmma.
  void wgmmaFence();
  void wgmmaCommitGroup();
  void wgmmaWaitGroup(int64_t pending);
  /// wgmma.mma_async m64nNk(kStep) with both operands in shared memory
  /// (descriptors), A row-major, B column-major; `accumulate` false for the
  /// first step (scale-d 0).
  Value wgmmaSS(Value descA, Value descB, Value acc, int64_t n, int64_t k,
                NVVM::WGMMATypes type, bool accumulate);

  // TMA.
  /// A TMA load of one box of `map` at `coordinates` (innermost first) into
  /// shared memory `dst`, completing on `barrier`.
  void tmaLoad(Value dst, Value map, Value barrier, ValueRange coordinates);
  /// A TMA store of one box at `coordinates` from shared memory `src`.
  void tmaStore(Value map, Value src, ValueRange coordinates);
  void bulkCommitGroup();
  /// Waits until at most `pending` bulk groups still read shared memory.
  void bulkWaitGroupRead(int64_t pending);

  // Blocks and control flow.
  /// The block `name`: made on first use, placed by `place`.
  Block *block(StringRef name);
  /// Appends block `name` (with arguments of `argTypes`) to the function and
  /// moves the insertion point to it; returns its arguments.
  ValueRange place(StringRef name, TypeRange argTypes = {});
  void br(StringRef dest, ValueRange args = {});
  void condBr(Value condition, StringRef trueDest, StringRef falseDest);
  void condBr(Value condition, StringRef trueDest, ValueRange trueArgs,
              StringRef falseDest, ValueRange falseArgs);
  void ret();

  OpBuilder &builder() { return b; }
  /// The location of every operation it builds.
  Location location() const { return loc; }

private:
  OpBuilder &b;
  Location loc;
  LLVM::LLVMFuncOp func;
  llvm::StringMap<Value> args;
  /// Blocks made by `block` and not yet placed (owned here until then).
  llvm::StringMap<std::unique_ptr<Block>> pending;
  llvm::StringMap<Block *> placed;
};

} // namespace mlir::fattn::sm90

#endif // FATTN_LIB_CONVERSION_FATTNTONVVM_SM90_KERNELBUILDER_H
