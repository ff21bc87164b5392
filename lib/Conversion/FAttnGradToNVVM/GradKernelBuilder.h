//===- GradKernelBuilder.h - building the sm_80 backward kernels -*- C++
//-*-===//
//
// What the three backward kernels share: their configuration (read from the
// tiled op), their parameters (one list for the three, docs/KERNEL-ABI.md),
// flat global views of the tensors, and small builders over upstream ops.
//
//===----------------------------------------------------------------------===//

#ifndef FATTN_LIB_CONVERSION_FATTNGRADTONVVM_GRADKERNELBUILDER_H
#define FATTN_LIB_CONVERSION_FATTNGRADTONVVM_GRADKERNELBUILDER_H

#include "fattn/Dialect/FAttn/IR/FAttnTiledGradOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

#include <array>
#include <functional>
#include <utility>

namespace mlir::fattn::sm80grad {

/// Threads per CTA of the preprocess and postprocess kernels (4 warps).
constexpr int64_t kThreads = 128;
/// Rows of every kernel's Q tiles (block_m), and the 64 rows of the sm_90a
/// main kernel's atoms.
constexpr int64_t kBlockM = 64;
/// The sm_80 main kernel: 8 warps per KV tile of 128 keys (block_n); warp w
/// owns keys 16w.. for dK and dV and, for dQ, 16 rows of each Q tile in
/// half of the head dim.
constexpr int64_t kMainThreads = 256, kMainBlockN = 128;
/// The head dims the kernels take: multiples of 16 up to this.
constexpr int64_t kMaxHeadDim = 128;

/// The configuration of one backward function's kernels.
struct GradConfig {
  int64_t headDim = 0;
  /// bf16 or f16: Q, K, V, O, dO, dQ, dK, dV.
  Type elementType;
  double scale = 1.0;
  /// 0: none; else S = softcap * tanh(scale * Q K^T / softcap).
  double softcap = 0.0;
  int64_t windowLeft = -1, windowRight = -1;
  /// Keys per KV tile of the main kernel (the tiled op's block_n), and its
  /// threads.
  int64_t blockN = 0, mainThreads = 0;
  /// The main kernel adds each Q tile's dQ in increasing KV tile order
  /// (waitForGradQueryTurn, passGradQueryTurn), so that dq_accum's sums are
  /// bit-identical run to run.
  bool deterministic = false;

  bool isBF16() const { return elementType.isBF16(); }
  /// Shared memory row pitch of the Q, dO, K and V tiles, in elements: 8
  /// more than the head dim, so that ldmatrix's 8 rows fall in 8 different
  /// 16-byte bank groups.
  int64_t pitch() const { return headDim + 8; }
};

class GradKernelBuilder;

/// What sets the sm_80 and sm_90a backward kernels apart: the gpu.module's
/// chip, their name in diagnostics, the head dims the main kernel takes
/// (multiples of `headDimGranule` up to kMaxHeadDim), the keys of its KV
/// tiles (the tiled op's block_n) with its threads, and its body, which
/// returns its dynamic shared memory. The preprocess and postprocess
/// kernels are the same on both.
struct GradTarget {
  StringRef chip;
  StringRef features;
  StringRef name;
  int64_t headDimGranule;
  /// The main kernel's threads on KV tiles of `blockN` keys at head dim
  /// `headDim`, or 0 where it takes no such tiles ...
  int64_t (*mainThreads)(int64_t blockN, int64_t headDim);
  /// ... and the tiles it takes, as the diagnostic names them.
  StringRef tiles;
  int64_t (*buildMain)(GradKernelBuilder &k, ValueRange args,
                       QTileRangeOp qTileRange);
};

/// Reads the configuration of `op`'s kernels, or fails with a diagnostic
/// naming what the target's kernels do not support.
FailureOr<GradConfig> readGradConfig(TiledAttentionGradOp op,
                                     const GradTarget &target);

/// Replaces every func.func whose body holds one fattn.tiled_attention_grad
/// by its three kernels for `target` in `gpu.module @fattn_kernels`.
LogicalResult buildGradKernels(ModuleOp module, const GradTarget &target);

/// The tensors of the kernels' parameter list, in order (docs/KERNEL-ABI.md).
enum class GradTensor { Q, K, V, O, DO, LSE, DQ, DK, DV, Delta, DQAccum };
constexpr int64_t kNumGradTensors = 11;
/// The tensors with (b, h, s) strides among the parameters, in order.
constexpr std::array<GradTensor, 8> kStridedTensors = {
    GradTensor::Q,  GradTensor::K,  GradTensor::V,  GradTensor::O,
    GradTensor::DO, GradTensor::DQ, GradTensor::DK, GradTensor::DV};
/// The parameter name of each tensor (and the prefix of its strides).
StringRef gradTensorName(GradTensor t);

/// The kernels' parameters as `index` values and flat global views.
struct GradParams {
  /// memref<?xT, global> over each used tensor's data, T its element type.
  std::array<Value, kNumGradTensors> views;
  Value batch, headsQ, headsKV, seqQ, seqK;
  /// (b, h, s) strides in elements, for kStridedTensors; LSE's (b, h).
  std::array<std::array<Value, 3>, kNumGradTensors> strides;
  /// The deterministic kernels' dq_semaphore (!llvm.ptr<1> to u32
  /// [b, hq, sq], contiguous): per Q tile, at its first row, the KV tiles
  /// whose dQ has been added.
  Value dqSemaphore;

  Value view(GradTensor t) const { return views[static_cast<int>(t)]; }
};

/// The types of the parameter list: 11 pointers, 5 u32 sizes, 26 u64
/// strides, then for deterministic kernels the dq_semaphore pointer.
SmallVector<Type> gradKernelParamTypes(MLIRContext *ctx, bool deterministic);

/// Small builders over upstream ops, at a kernel's insertion point.
class GradKernelBuilder {
public:
  GradKernelBuilder(ImplicitLocOpBuilder &b, const GradConfig &cfg);

  ImplicitLocOpBuilder &b;
  const GradConfig &cfg;
  Type f32, elem;

  Value idx(int64_t v);
  Value f32Const(float v);
  Value add(Value x, Value y);
  Value mul(Value x, Value y);
  Value div(Value x, int64_t d);
  Value rem(Value x, int64_t d);
  Value lt(Value x, Value y);
  Value select(Value c, Value x, Value y);

  /// Reads the kernel's arguments: sizes and strides as `index`, the
  /// pointers of the tensors in `used` as flat global memrefs.
  GradParams readParams(ValueRange args, ArrayRef<GradTensor> used);
  /// The flat offset of (b, h, s, col) in tensor `t`.
  Value offset(const GradParams &p, GradTensor t, Value batch, Value head,
               Value row, Value col);
  /// The flat offset of row `row` of (b, h) in a contiguous f32 workspace
  /// [b, hq, sq(, cols)] (delta with cols = 1, dq_accum with the head dim).
  Value workspaceOffset(const GradParams &p, Value batch, Value head, Value row,
                        int64_t cols);

  /// A view of `rows` x `cols` elements of `type` at `byteOffset` of the
  /// dynamic shared memory.
  Value sharedTile(Value smem, int64_t byteOffset, int64_t rows, int64_t cols,
                   Type type);

  /// scf.for from lb to ub carrying `inits`; `body` returns the yielded
  /// values.
  scf::ForOp forLoop(
      Value lb, Value ub, ValueRange inits,
      llvm::function_ref<SmallVector<Value>(Value iv, ValueRange args)> body);
  /// scf.if with no results.
  void ifThen(Value cond, llvm::function_ref<void()> then);
};

/// LSE·log2(e) of query row `row` of (batch, head) (+inf where no
/// probability survives: rows past seq_q, rows without keys whose LSE is
/// -inf), and D (0 past seq_q).
Value rowLseLog2(GradKernelBuilder &k, const GradParams &p, Value batch,
                 Value head, Value row);
Value rowDelta(GradKernelBuilder &k, const GradParams &p, Value batch,
               Value head, Value row);
/// The items of a main kernel's CTA, one loop over (query head of its KV
/// head's group, Q tile of its q_tile_range): item i is (firstHead +
/// i / qTiles, qTileLo + i % qTiles), `count` of them (none where the range
/// is empty, where qTiles is 1 as a divisor).
struct GradItems {
  Value firstHead, qTileLo, qTiles, count;

  /// Item `index`'s query head and Q tile; those of item `last` past it,
  /// where given, so that a prefetch's addresses stay within the tensors.
  std::pair<Value, Value> at(GradKernelBuilder &k, Value index,
                             Value last) const;
};
GradItems gradItems(GradKernelBuilder &k, const GradParams &p, Value kvHead,
                    QTileRangeOp range);

/// Deterministic dQ: the CTA of KV tile `kvTile` adds its dQ of Q tile
/// `qTile` of `head` after the lower KV tiles that see that Q tile (the Q
/// tile ranges of the main kernel's CTAs: computeKVTileRange of the Q tile at
/// the kernel's tiles, QTileRange.h). Thread `tid` 0 waits until the Q tile's
/// counter equals the CTA's rank among them; the barrier holds the others.
/// Returns the counter's address, for passGradQueryTurn.
Value waitForGradQueryTurn(GradKernelBuilder &k, const GradParams &p,
                           Value tid, Value batch, Value head, Value qTile,
                           Value kvTile);
/// After the CTA's additions into the Q tile's rows: each thread's fence
/// (fence.acq_rel.gpu) makes its own visible, the barrier waits for all, and
/// thread 0 increments the counter after a fence of its own, passing the
/// turn to the next KV tile.
/// Additions that are not the thread's own memory operations (bulk
/// reductions) must be complete before the call.
void passGradQueryTurn(GradKernelBuilder &k, Value tid, Value counter);

/// By the threads below kBlockM: `lse` and `delta`, their rows' values,
/// into memref<kBlockM x f32> `lseTile` and `deltaTile` at the thread's row.
void storeRowStatistics(GradKernelBuilder &k, Value tid, Value lse,
                        Value delta, Value lseTile, Value deltaTile);

/// Builds the kernels' bodies (GradKernels.cpp, MainKernel.cpp).
void buildPreprocessBody(GradKernelBuilder &k, ValueRange args);
void buildPostprocessBody(GradKernelBuilder &k, ValueRange args);
/// The main kernel; `qTileRange` is the body's fattn.q_tile_range, whose
/// attributes the kernel's own takes. Returns its dynamic shared memory.
int64_t buildMainBody(GradKernelBuilder &k, ValueRange args,
                      QTileRangeOp qTileRange);
/// Bytes of dynamic shared memory of the main kernel.
int64_t mainKernelSharedBytes(const GradConfig &cfg);

} // namespace mlir::fattn::sm80grad

#endif // FATTN_LIB_CONVERSION_FATTNGRADTONVVM_GRADKERNELBUILDER_H
