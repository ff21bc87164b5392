//===- LaunchPlan.cpp - Check tensors, compute the grid, pack parameters --===//

#include "fattn/Runtime/LaunchPlan.h"

#include "fattn/Dialect/FAttn/Utils/WorkOrder.h"

#include <cmath>
#include <cstring>
#include <map>
#include <mutex>
#include <tuple>

namespace fattn::runtime {

uint64_t ProblemSizes::get(SizeName name) const {
  switch (name) {
  case SizeName::Batch: return batch;
  case SizeName::HeadsQ: return headsQ;
  case SizeName::HeadsKV: return headsKV;
  case SizeName::SeqQ: return seqQ;
  case SizeName::SeqK: return seqK;
  case SizeName::NumSMs: return numSMs;
  }
  return 0;
}

namespace {

// Kernels index with 32-bit arithmetic on sizes: keep them in int32 range.
constexpr int64_t kMaxSize = INT32_MAX;
const char *const kDimNames[] = {"batch", "heads", "seq", "head_dim"};
// V under value_layout transposed_wgmma_e4m3_k32: the keys are innermost.
const char *const kTransposedValueDimNames[] = {"batch", "heads", "head_dim", "keys"};

bool isTransposedValue(const KernelDescription &desc, int tensor) {
  return tensor == kV && desc.valueLayout == ValueLayout::TransposedWgmmaE4M3K32;
}

/// The names of `tensor`'s logical dims, for error messages.
const char *const *dimNames(const KernelDescription &desc, int tensor) {
  return isTransposedValue(desc, tensor) ? kTransposedValueDimNames : kDimNames;
}

std::string shapeString(const TensorArg &t) {
  std::string s = "[";
  for (int i = 0; i < t.rank && i < 4; ++i)
    s += (i ? ", " : "") + std::to_string(t.sizes[i]);
  return s + "]";
}

class TensorChecker {
public:
  TensorChecker(const KernelDescription &desc, const TensorArg *tensors, std::string &error)
      : desc_(desc), t_(tensors), error_(error) {}

  bool fail(int tensor, const std::string &message) {
    error_ = "tensor '" + std::string(tensorName(tensor)) + "': " + message + " (kernel " +
             desc_.entry + ")";
    return false;
  }

  /// The dtype (`want`) and the sizes (in [0, 2^31-1]) and strides
  /// (non-negative) of the `t.rank` dims of `tensor`, named by `dims`;
  /// `empty` tells whether a size is 0.
  bool checkElements(int tensor, DType want, const char *const *dims, bool &empty) {
    const TensorArg &t = t_[tensor];
    if (t.dtype < 0 || t.dtype >= kNumDTypes)
      return fail(tensor, "unknown dtype code " + std::to_string(t.dtype));
    if (DType(t.dtype) != want)
      return fail(tensor, std::string("dtype is ") + dtypeName(DType(t.dtype)) + ", expected " +
                              dtypeName(want));
    empty = false;
    for (int i = 0; i < t.rank; ++i) {
      if (t.sizes[i] < 0 || t.sizes[i] > kMaxSize)
        return fail(tensor, std::string(dims[i]) + " size " + std::to_string(t.sizes[i]) +
                                " is out of range [0, 2^31-1]");
      if (t.strides[i] < 0)
        return fail(tensor, std::string(dims[i]) + " stride " + std::to_string(t.strides[i]) +
                                " is negative");
      empty |= t.sizes[i] == 0;
    }
    return true;
  }

  /// Rank, dtype, non-negative sizes and strides, unit inner stride,
  /// null pointers and alignment of one tensor.
  bool checkOne(int tensor) {
    const TensorArg &t = t_[tensor];
    int rank = tensor == kLse ? 3 : 4;
    bool transposed = isTransposedValue(desc_, tensor);
    const char *const *dims = dimNames(desc_, tensor);
    if (t.rank != rank)
      return fail(tensor, "rank is " + std::to_string(t.rank) + ", expected " +
                              std::to_string(rank) +
                              (transposed  ? " (" + transposedValueForm() + ")"
                               : rank == 4 ? " ([batch, heads, seq, head_dim])"
                                           : " ([batch, heads, seq])"));
    DType want = tensor == kLse ? DType::F32 : tensor == kO ? desc_.outDtype : desc_.dtype;
    bool emptyTensor;
    if (!checkElements(tensor, want, dims, emptyTensor))
      return false;
    if (t.sizes[rank - 1] > 1 && t.strides[rank - 1] != 1)
      return fail(tensor, std::string("the ") + dims[rank - 1] + " stride is " +
                              std::to_string(t.strides[rank - 1]) +
                              ", it must be 1 (the innermost dim must be contiguous)");
    // Before the alignment of the head_dim stride, which unpadded keys break
    // with a less helpful message.
    if (transposed && !transposedValueKeysPadded())
      return false;
    if (emptyTensor)
      return true;
    if (t.data == 0)
      return fail(tensor, "data pointer is null");
    uint64_t bytes = dtypeBytes(want);
    uint64_t align = tensor == kLse ? bytes : desc_.alignBytes;
    if (t.data % align != 0)
      return fail(tensor, "data pointer is not " + std::to_string(align) + "-byte aligned");
    for (int i = 0; i < rank - 1; ++i)
      if (t.sizes[i] > 1 && (uint64_t(t.strides[i]) * bytes) % align != 0)
        return fail(tensor, std::string("the ") + dims[i] + " stride (" +
                                std::to_string(t.strides[i]) +
                                " elements) is not a multiple of " + std::to_string(align) +
                                " bytes");
    return true;
  }

  /// Slot 4 of a kernel that takes descales but writes no LSE: rank 0, no data.
  bool emptySlot(int tensor) {
    const TensorArg &t = t_[tensor];
    if (t.rank == 0 && t.data == 0)
      return true;
    return fail(tensor, "this kernel writes no LSE; pass rank 0 and a null data pointer in "
                        "slot 4 (found rank " + std::to_string(t.rank) + ")");
  }

  /// Rank (the description's), dtype f32, sizes, strides, data and its
  /// alignment of one FP8 descale tensor; its shape is checked by descaleShape.
  bool checkDescale(int tensor) {
    const TensorArg &t = t_[tensor];
    const DescaleSpec &spec = desc_.descale[tensor - kQDescale];
    static const char *forms[] = {"per tensor, []", "", "per head, [batch, heads_kv]",
                                  "per block, [batch, heads, blocks]"};
    if (t.rank != spec.rank)
      return fail(tensor, "rank is " + std::to_string(t.rank) + ", the kernel reads rank " +
                              std::to_string(spec.rank) + " (" + forms[spec.rank] + ")");
    static const char *const dims[] = {"batch", "heads", "block"};
    bool emptyTensor;
    if (!checkElements(tensor, DType::F32, dims, emptyTensor))
      return false;
    if (emptyTensor)
      return true;
    if (t.data == 0)
      return fail(tensor, "data pointer is null");
    if (t.data % 4 != 0)
      return fail(tensor, "data pointer is not 4-byte aligned (f32)");
    return true;
  }

  /// The descale's sizes against the problem's: [batch, heads_kv] for rank 2,
  /// [batch, heads, ceildiv(seq, block)] for rank 3.
  bool descaleShape(int tensor, const ProblemSizes &sizes) {
    const TensorArg &t = t_[tensor];
    const DescaleSpec &spec = desc_.descale[tensor - kQDescale];
    if (spec.rank == 0)
      return true;
    bool isQ = tensor == kQDescale;
    std::vector<uint64_t> want = {sizes.batch, sizes.headsKV};
    std::string form = "[batch, heads_kv]";
    if (spec.rank == 3) {
      uint64_t seq = isQ ? sizes.seqQ : sizes.seqK;
      uint64_t block = uint64_t(spec.block);
      want = {sizes.batch, isQ ? sizes.headsQ : sizes.headsKV, (seq + block - 1) / block};
      form = std::string("[batch, ") + (isQ ? "heads_q, ceildiv(seq_q, " : "heads_kv, "
                                                                         "ceildiv(seq_k, ") +
             std::to_string(block) + ")]";
    }
    std::string expected = "[";
    bool ok = true;
    for (int i = 0; i < spec.rank; ++i) {
      expected += (i ? ", " : "") + std::to_string(want[i]);
      ok &= uint64_t(t.sizes[i]) == want[i];
    }
    expected += "]";
    if (ok)
      return true;
    return fail(tensor, "shape " + shapeString(t) + " does not match the kernel's " +
                            (spec.rank == 3 ? "per-block" : "per-head") + " descale " + form +
                            " = " + expected);
  }

  bool same(int a, int b, int dim) {
    if (t_[a].sizes[dim] == t_[b].sizes[dim])
      return true;
    return fail(b, std::string(kDimNames[dim]) + " size is " + std::to_string(t_[b].sizes[dim]) +
                       " but tensor '" + tensorName(a) + "' has " +
                       std::to_string(t_[a].sizes[dim]) + " (shapes " + shapeString(t_[a]) +
                       " and " + shapeString(t_[b]) + ")");
  }

  /// V under value_layout transposed_wgmma_e4m3_k32: [batch, heads_kv,
  /// head_dim_v, keys] with keys >= seq_k. The kernel reads every key slot of
  /// its last tile, so the slots past seq_k must exist (the caller pads).
  bool transposedValue() {
    const TensorArg &v = t_[kV];
    const TensorArg &q = t_[kQ], &k = t_[kK];
    if (v.sizes[0] != q.sizes[0])
      return badTransposedValue("batch = " + std::to_string(v.sizes[0]) + ", expected " +
                                std::to_string(q.sizes[0]) + " (batch of tensor 'q')");
    if (v.sizes[1] != k.sizes[1])
      return badTransposedValue("heads_kv = " + std::to_string(v.sizes[1]) + ", expected " +
                                std::to_string(k.sizes[1]) + " (heads of tensor 'k')");
    if (v.sizes[2] != desc_.headDimV)
      return badTransposedValue("head_dim_v = " + std::to_string(v.sizes[2]) + ", expected " +
                                std::to_string(desc_.headDimV) + " (the kernel's head_dim_v)");
    if (v.sizes[3] < k.sizes[2])
      return badTransposedValue("keys = " + std::to_string(v.sizes[3]) + ", expected >= " +
                                std::to_string(k.sizes[2]) + " (seq of tensor 'k')");
    return true;
  }

  /// The keys are permuted within groups of 16, so they come in whole groups.
  bool transposedValueKeysPadded() {
    int64_t keys = t_[kV].sizes[3];
    if (keys % 16 == 0)
      return true;
    return badTransposedValue("keys = " + std::to_string(keys) +
                              ", expected a multiple of 16 (pad to " +
                              std::to_string((keys + 15) / 16 * 16) + ")");
  }

  bool headDim(int tensor, int64_t want, const char *field) {
    if (t_[tensor].sizes[3] == want)
      return true;
    return fail(tensor, "head_dim is " + std::to_string(t_[tensor].sizes[3]) +
                            ", the kernel needs " + field + " = " + std::to_string(want));
  }

private:
  static std::string transposedValueForm() {
    return std::string("[batch, heads_kv, head_dim_v, keys], value_layout ") +
           kTransposedWgmmaE4M3K32;
  }

  bool badTransposedValue(const std::string &what) {
    return fail(kV, "shape " + shapeString(t_[kV]) + " does not match " +
                        transposedValueForm() + ": " + what);
  }

  const KernelDescription &desc_;
  const TensorArg *t_;
  std::string &error_;
};

void putBytes(ParamSlot &slot, const void *value, size_t size) {
  std::memset(slot.bytes, 0, sizeof(slot.bytes));
  std::memcpy(slot.bytes, value, size);
}

/// Generic over the logical dims (the box is given in the same order), so a
/// transposed V needs nothing special beyond the names in messages.
bool makeTensorMapRequest(const KernelDescription &desc, const ParamSpec &p, const TensorArg &t,
                          size_t slot, TensorMapRequest &req, std::string &error) {
  const TensorMapSpec &spec = p.tensorMap;
  const char *const *dims = dimNames(desc, spec.tensor);
  uint32_t rank = uint32_t(t.rank);
  uint64_t bytes = dtypeBytes(spec.elementType);
  req.slot = slot;
  req.paramName = p.name;
  req.elementType = spec.elementType;
  req.rank = rank;
  req.globalAddress = t.data;
  req.swizzle = spec.swizzle;
  req.l2Promotion = spec.l2Promotion;
  req.oobFill = spec.oobFill;
  auto fail = [&](const std::string &m) {
    error = "tensormap parameter '" + p.name + "' of tensor '" + tensorName(spec.tensor) +
            "': " + m;
    return false;
  };
  if (t.data % 16 != 0)
    return fail("the data pointer is not 16-byte aligned (TMA needs 16)");
  for (uint32_t i = 0; i < rank; ++i) {
    uint32_t logical = rank - 1 - i; // cuTensorMap lists the innermost dim first
    req.globalDims[i] = uint64_t(t.sizes[logical]);
    if (req.globalDims[i] == 0)
      return fail(std::string("the ") + dims[logical] + " size is 0 (TMA needs >= 1)");
    req.box[i] = spec.box[logical];
    req.elementStrides[i] = spec.elementStrides[logical];
    if (i > 0) {
      uint64_t stride = uint64_t(t.strides[logical]) * bytes;
      // A size-1 dim's stride is never used; torch may report anything there.
      if (t.sizes[logical] == 1)
        stride = (stride + 15) / 16 * 16;
      // A broadcast dim (stride 0 over several indices): TMA strides are
      // nonzero, so the box would step through other data.
      else if (stride == 0)
        return fail(std::string("the ") + dims[logical] +
                    " stride is 0 (a broadcast view); TMA needs a nonzero stride: pass a copy");
      if (stride % 16 != 0 || stride >= (uint64_t(1) << 40))
        return fail(std::string("the ") + dims[logical] + " stride is " +
                    std::to_string(stride) + " bytes; TMA needs a multiple of 16 below 2^40");
      req.globalStridesBytes[i - 1] = stride == 0 ? 16 : stride;
    }
  }
  return true;
}

/// Why a launch got the wrong number of tensors, as far as it can be told.
std::string tensorCountHint(const KernelDescription &desc, int numTensors) {
  if (desc.hasDescale)
    return " (this kernel reads fp8 descale factors in slots 5-7)";
  if (numTensors == 8)
    return " (this kernel reads no descale factors)";
  if (desc.hasLse)
    return " (this kernel writes the LSE: pass an lse tensor)";
  return numTensors == 5 ? " (this kernel has no LSE output)" : "";
}

} // namespace

bool packIntegerParam(ParamSlot &slot, ParamType type, uint64_t value, const std::string &name,
                std::string &error) {
  if (type == ParamType::U32) {
    if (value > UINT32_MAX) {
      error = "parameter '" + name + "' = " + std::to_string(value) + " does not fit in u32";
      return false;
    }
    uint32_t v = uint32_t(value);
    putBytes(slot, &v, sizeof(v));
  } else {
    putBytes(slot, &value, sizeof(value));
  }
  return true;
}

bool readQKSizes(const TensorArg &q, const TensorArg &k, ProblemSizes &sizes,
                 std::string &error) {
  sizes.batch = uint64_t(q.sizes[0]);
  sizes.headsQ = uint64_t(q.sizes[1]);
  sizes.seqQ = uint64_t(q.sizes[2]);
  sizes.headsKV = uint64_t(k.sizes[1]);
  sizes.seqK = uint64_t(k.sizes[2]);
  if (sizes.headsKV == 0 ? sizes.headsQ == 0 : sizes.headsQ % sizes.headsKV == 0)
    return true;
  error = "heads_q = " + std::to_string(sizes.headsQ) +
          " is not a multiple of heads_kv = " + std::to_string(sizes.headsKV);
  return false;
}

bool checkTensors(const KernelDescription &desc, const TensorArg *tensors, int numTensors,
                  ProblemSizes &sizes, std::string &error) {
  int expected = desc.hasDescale ? 8 : desc.hasLse ? 5 : 4;
  if (!tensors || numTensors != expected) {
    std::string list = desc.hasDescale
                           ? std::string(desc.hasLse ? ", lse" : ", an empty slot 4") +
                                 ", q_descale, k_descale, v_descale"
                           : (desc.hasLse ? ", lse" : "");
    error = "kernel " + desc.entry + " takes " + std::to_string(expected) + " tensors (q, k, v, o" +
            list + "), got " + std::to_string(tensors ? numTensors : 0) +
            tensorCountHint(desc, numTensors);
    return false;
  }
  TensorChecker c(desc, tensors, error);
  for (int t = 0; t < numTensors; ++t) {
    bool ok = t == kLse && !desc.hasLse ? c.emptySlot(t)
              : isDescaleTensor(t)      ? c.checkDescale(t)
                                        : c.checkOne(t);
    if (!ok)
      return false;
  }
  // V shaped like K is checked with K; a transposed V on its own, after.
  bool vLikeK = !isTransposedValue(desc, kV);
  if (!c.headDim(kQ, desc.headDimQK, "head_dim_qk") ||
      !c.headDim(kK, desc.headDimQK, "head_dim_qk") ||
      (vLikeK && !c.headDim(kV, desc.headDimV, "head_dim_v")) ||
      !c.headDim(kO, desc.headDimV, "head_dim_v"))
    return false;
  for (int t : {kK, kV, kO})
    if ((vLikeK || t != kV) && !c.same(kQ, t, 0))
      return false;
  if (!c.same(kQ, kO, 1) || !c.same(kQ, kO, 2) ||
      (vLikeK && (!c.same(kK, kV, 1) || !c.same(kK, kV, 2))))
    return false;
  if (!vLikeK && !c.transposedValue())
    return false;
  if (desc.hasLse && (!c.same(kQ, kLse, 0) || !c.same(kQ, kLse, 1) || !c.same(kQ, kLse, 2)))
    return false;
  std::string heads;
  if (!readQKSizes(tensors[kQ], tensors[kK], sizes, heads))
    return c.fail(kK, heads);
  if (desc.hasDescale)
    for (int t = kQDescale; t <= kVDescale; ++t)
      if (!c.descaleShape(t, sizes))
        return false;
  bool work = sizes.batch && sizes.headsQ && sizes.seqQ;
  if (work && sizes.seqK == 0)
    return c.fail(kK, "seq_k is 0 while seq_q is " + std::to_string(sizes.seqQ) +
                          "; kernels need at least one key (the output would be all zeros)");
  return true;
}

uint32_t tailPairsFor(const KernelDescription &desc, const ProblemSizes &sizes,
                      uint64_t grid) {
  using Key = std::tuple<uint64_t, uint64_t, uint64_t, uint64_t, int64_t, int64_t, int64_t,
                         int64_t, int64_t, bool, int64_t>;
  if (!desc.hasWorkOrder || !desc.blockM || !desc.blockN)
    return 0;
  uint64_t pairs = sizes.batch * sizes.headsQ;
  // The bytes of one pair's K and V.
  int64_t pairBytes = int64_t(sizes.seqK) * (desc.headDimQK + desc.headDimV) *
                      int64_t(dtypeBytes(desc.dtype));
  Key key{sizes.seqQ,       sizes.seqK,         pairs,           grid,
          desc.blockM,      desc.blockN,        desc.windowLeft, desc.windowRight,
          desc.ctasPerPair, desc.reverseQTiles, pairBytes};
  // The choice walks every work item (about a millisecond for 10^6); launches
  // of one shape reuse it.
  static std::mutex mutex;
  static std::map<Key, uint32_t> chosen;
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = chosen.find(key); it != chosen.end())
    return it->second;
  mlir::fattn::KVTileRangeParams range{desc.blockM, desc.blockN, desc.windowLeft,
                                       desc.windowRight};
  mlir::fattn::Int64Ops ops;
  auto kvTiles = [&](int64_t qTile) {
    auto r = mlir::fattn::computeKVTileRange(ops, qTile, int64_t(sizes.seqQ),
                                             int64_t(sizes.seqK), range);
    return r.hi - r.lo;
  };
  int64_t numQTiles = (int64_t(sizes.seqQ) + desc.blockM - 1) / desc.blockM;
  int64_t tail = mlir::fattn::chooseTailPairs(
      numQTiles, int64_t(pairs), int64_t(grid),
      {true, desc.reverseQTiles, desc.ctasPerPair, true}, kvTiles,
      mlir::fattn::kMaxTailBytes / std::max<int64_t>(pairBytes, 1));
  if (chosen.size() >= 4096)
    chosen.clear();
  chosen.emplace(key, uint32_t(tail));
  return uint32_t(tail);
}

bool applyLaunchScalars(const KernelDescription &desc, const LaunchScalars *scalars,
                        LaunchPlan &plan, std::string &error) {
  if (!scalars) {
    if (desc.runtimeSoftcap)
      error = "this kernel's softcap is a runtime value: pass it (fattnKernelLaunchWithScalars)";
    return error.empty();
  }
  // A value the kernel compiled in cannot change at launch.
  auto check = [&](const char *name, double given, double compiled, bool runtime) {
    if (runtime) {
      if (std::isfinite(given) && given > 0.0)
        return true;
      error = std::string(name) + " = " + std::to_string(given) +
              ": this kernel's " + name + " is a runtime value, expected a positive finite number";
      return false;
    }
    if (float(given) == float(compiled))
      return true;
    error = std::string("this kernel's ") + name + " is compiled in (" +
            std::to_string(compiled) + "); the launch asks for " + std::to_string(given);
    return false;
  };
  if (!check("scale", scalars->scale, desc.scale, desc.runtimeScale) ||
      !check("softcap", scalars->softcap, desc.softcap, desc.runtimeSoftcap))
    return false;
  for (size_t i = 0; i < desc.params.size() && !plan.empty; ++i) {
    const ParamSpec &p = desc.params[i];
    if (p.source != ParamSource::Scalar)
      continue;
    float f = float(scalarParamValue(desc, p.scalar, scalars->scale, scalars->softcap));
    std::memcpy(plan.params[i].bytes, &f, sizeof(f));
  }
  return true;
}

bool buildLaunchPlan(const KernelDescription &desc, const TensorArg *tensors, int numTensors,
                     uint64_t numSMs, LaunchPlan &plan, std::string &error) {
  ProblemSizes sizes;
  if (!checkTensors(desc, tensors, numTensors, sizes, error))
    return false;
  sizes.numSMs = numSMs;
  return planLaunch(desc, tensors, sizes, plan, error);
}

bool computeGrid(const std::vector<GridDim> &dims, const std::array<uint32_t, 3> &cluster,
                 const ProblemSizes &sizes, const std::string &kernel,
                 std::array<uint32_t, 3> &grid, std::string &error) {
  grid = {1, 1, 1};
  for (size_t i = 0; i < dims.size() && i < 3; ++i) {
    uint64_t value = sizes.get(dims[i].size);
    uint64_t n = (value + dims[i].divisor - 1) / dims[i].divisor;
    // A cluster launch needs whole clusters; the extra CTAs find no tile.
    n = (n + cluster[i] - 1) / cluster[i] * cluster[i];
    if (n == 0 || n > kMaxGrid[i]) {
      error = kernel + ": grid dim " + "xyz"[i] + " = ceildiv(" + sizeName(dims[i].size) +
              " = " + std::to_string(value) + ", " + std::to_string(dims[i].divisor) + ") = " +
              std::to_string(n) + " is out of range [1, " + std::to_string(kMaxGrid[i]) + "]";
      return false;
    }
    grid[i] = uint32_t(n);
  }
  return true;
}

bool planLaunch(const KernelDescription &desc, const TensorArg *tensors,
                const ProblemSizes &sizes, LaunchPlan &plan, std::string &error) {
  plan = LaunchPlan();
  if (!sizes.batch || !sizes.headsQ || !sizes.seqQ) {
    plan.empty = true;
    return true;
  }

  if (!computeGrid(desc.grid, desc.cluster, sizes, "kernel " + desc.entry, plan.grid, error))
    return false;
  plan.block = {desc.threads, 1, 1};
  plan.cluster = desc.cluster;
  plan.hasCluster = desc.hasCluster;
  plan.dynamicSmemBytes = desc.dynamicSmemBytes;

  plan.params.resize(desc.params.size());
  for (size_t i = 0; i < desc.params.size(); ++i) {
    const ParamSpec &p = desc.params[i];
    ParamSlot &slot = plan.params[i];
    switch (p.source) {
    case ParamSource::Pointer:
      putBytes(slot, &tensors[p.tensor].data, sizeof(uint64_t));
      break;
    case ParamSource::Size:
      if (!packIntegerParam(slot, p.type, sizes.get(p.size), p.name, error))
        return false;
      break;
    case ParamSource::Stride: {
      // A descale of rank 0 or 2 has no block (or any) dim there: its stride is 0.
      const TensorArg &t = tensors[p.tensor];
      uint64_t stride = p.dim < t.rank ? uint64_t(t.strides[p.dim]) : 0;
      if (!packIntegerParam(slot, p.type, stride, p.name, error))
        return false;
      break;
    }
    case ParamSource::Scalar: {
      float f = float(scalarParamValue(desc, p.scalar, desc.scale, desc.softcap));
      putBytes(slot, &f, sizeof(f));
      break;
    }
    case ParamSource::TensorMap: {
      std::memset(slot.bytes, 0, sizeof(slot.bytes)); // encoded by the driver layer
      TensorMapRequest req;
      if (!makeTensorMapRequest(desc, p, tensors[p.tensorMap.tensor], i, req, error))
        return false;
      plan.tensorMaps.push_back(req);
      break;
    }
    case ParamSource::TailPairs: {
      uint32_t tail = tailPairsFor(desc, sizes, plan.grid[0]);
      putBytes(slot, &tail, sizeof(tail));
      break;
    }
    case ParamSource::Workspace:
      // The launcher's buffer for the device and stream: one slot per CTA.
      std::memset(slot.bytes, 0, sizeof(slot.bytes));
      plan.workspaceSlot = i;
      plan.workspaceBytes = uint64_t(plan.grid[0]) * plan.grid[1] * plan.grid[2] *
                            desc.workspaceBytesPerCta;
      break;
    }
  }
  return true;
}

} // namespace fattn::runtime
