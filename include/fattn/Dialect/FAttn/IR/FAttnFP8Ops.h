//===- FAttnFP8Ops.h - the sm_90a FP8 operand layout ------------*- C++ -*-===//
//
// fattn.permute_keys and fattn.transpose_tile, and the key permutations they
// name (pure functions, shared by the ops' CPU lowering, the sm_90a lowering
// and the unit tests).
//
//===----------------------------------------------------------------------===//

#ifndef FATTN_DIALECT_FATTN_IR_FATTNFP8OPS_H
#define FATTN_DIALECT_FATTN_IR_FATTNFP8OPS_H

#include "fattn/Dialect/FAttn/IR/FAttnDialect.h"
#include "fattn/KernelABI.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <optional>

namespace mlir::fattn {

/// The key order of an sm_90a f32 wgmma accumulator read as the A operand of
/// an e4m3 `wgmma ... k32` from registers (fattn.permute_keys describes it).
inline constexpr llvm::StringLiteral kWgmmaE4M3K32KeyPermutation =
    "wgmma_e4m3_k32";

/// The `value_layout` of an FP8 V stored as V^T ([batch, kv_heads, head_dim,
/// keys]) with its keys in kWgmmaE4M3K32KeyPermutation order per 16.
/// (The runtime reads the same name: fattn/KernelABI.h.)
inline constexpr llvm::StringLiteral kTransposedValueLayout =
    ::fattn_abi::kTransposedValueLayout;

/// The number that the key count of a tile must be a multiple of for the
/// permutation `name`, or nullopt when `name` is not a known permutation.
std::optional<int64_t> getKeyPermutationMultiple(StringRef name);

/// pi(slot) of "wgmma_e4m3_k32": the key whose value k slot `slot` holds.
/// Within every 16 keys, slots 4q .. 4q + 3 hold keys 2q, 2q + 1, 2q + 8,
/// 2q + 9 (q = lane % 4: the accumulator columns one thread owns).
int64_t wgmmaE4M3K32KeySource(int64_t slot);

/// pi(slot) of the known permutation `name`.
int64_t getKeySource(StringRef name, int64_t slot);

/// acc + P V as e4m3 wgmma reads it: fattn.mma(fattn.permute_keys(p), vt)
/// {transpose_rhs} with the "wgmma_e4m3_k32" permutation, where vt is V^T
/// with its keys in that order. `valueRowScale` (V's factors per key, may be
/// null) must be one value for the whole tile: it moves to the product's
/// columns. --fattn-fp8-layout rewrites P V into this form; --fattn-tile
/// builds it for a V stored as V^T.
Value createPermutedValueProduct(OpBuilder &b, Location loc, Type resultType,
                                 Value p, Value vt, Value acc, Value lhsScale,
                                 Value valueRowScale);

/// Whether V's descale `vDescale` (null: none) is one factor per KV tile of
/// `blockN` keys, as createPermutedValueProduct needs: per tensor, per head,
/// or per block (`block` rows) of whole tiles.
bool hasOneValueFactorPerTile(Value vDescale, std::optional<uint64_t> block,
                              int64_t blockN);

} // namespace mlir::fattn

#define GET_OP_CLASSES
#include "fattn/Dialect/FAttn/IR/FAttnFP8Ops.h.inc"

#endif // FATTN_DIALECT_FATTN_IR_FATTNFP8OPS_H
