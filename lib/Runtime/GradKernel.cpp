//===- GradKernel.cpp - Parse, check and plan the backward's launches -----===//

#include "fattn/Runtime/GradKernel.h"

#include "DescriptionReader.h"

#include <cmath>
#include <cstring>

namespace fattn::runtime {

const char *gradTensorName(int tensor) {
  static const char *names[] = {"q", "k", "v", "o", "do", "lse", "dq", "dk", "dv"};
  return tensor >= 0 && tensor < kNumGradTensors ? names[tensor] : "?";
}

const char *gradWorkspaceName(int workspace) {
  static const char *names[] = {"delta", "dq_accum", "dq_semaphore"};
  return workspace >= 0 && workspace < kNumGradWorkspaces ? names[workspace] : "?";
}

namespace {

using namespace detail;

constexpr const char *kGradRoles[] = {"preprocess", "main", "postprocess"};

/// Maps a parameter name to the value the runtime fills in.
bool resolveGradParam(GradParamSpec &p, ObjectReader &r) {
  auto typeIs = [&](bool pointer) {
    bool ok =
        pointer ? p.type == ParamType::Ptr : p.type == ParamType::U32 || p.type == ParamType::U64;
    if (ok)
      return true;
    return r.fail("parameter \"" + p.name + "\" cannot have type \"" + paramTypeName(p.type) +
                  "\" (expected " + (pointer ? "ptr" : "u32 or u64") + ")");
  };
  for (int t = 0; t < kNumGradTensors; ++t) {
    if (p.name == gradTensorName(t)) {
      p.source = GradParamSource::Pointer;
      p.tensor = t;
      return typeIs(true);
    }
    static const char *dims[] = {"b", "h", "s"};
    for (int d = 0; d < 3; ++d) {
      if (t == kGradLse && d == 2)
        continue; // the LSE's seq stride must be 1: no parameter
      if (p.name == std::string(gradTensorName(t)) + "_stride_" + dims[d]) {
        p.source = GradParamSource::Stride;
        p.tensor = t;
        p.dim = d;
        return typeIs(false);
      }
    }
  }
  for (int w = 0; w < kNumGradWorkspaces; ++w) {
    if (p.name == gradWorkspaceName(w)) {
      p.source = GradParamSource::Workspace;
      p.workspace = w;
      return typeIs(true);
    }
  }
  if (lookupSize(p.name, p.size) && p.size != SizeName::NumSMs) {
    p.source = GradParamSource::Size;
    return typeIs(false);
  }
  return r.fail("unknown parameter name \"" + p.name +
                "\" (the runtime fills q, k, v, o, do, lse, dq, dk, dv, delta, dq_accum, "
                "dq_semaphore, batch, heads_q, heads_kv, seq_q, seq_k, "
                "<tensor>_stride_<b|h|s> and lse_stride_<b|h>)");
}

bool parseGradParam(const Value &v, size_t index, GradKernelDescription &desc, std::string &error) {
  ObjectReader r(v, "params[" + std::to_string(index) + "]: ", error);
  if (v.kind() != Kind::Object)
    return r.fail("must be an object");
  GradParamSpec p;
  if (!r.checkKeys({"name", "type"}) || !r.readString("name", p.name) ||
      !readParamType(r, {ParamType::Ptr, ParamType::U32, ParamType::U64}, p.type) ||
      !resolveGradParam(p, r))
    return false;
  return appendUniqueParam(desc.params, std::move(p), r);
}

/// A workspace's shape as the description writes it: size names and numbers.
std::string shapeText(const Value &shape) {
  std::string s = "[";
  for (const Value &e : shape.asArray()) {
    s += s.size() > 1 ? ", " : "";
    s += e.kind() == Kind::String ? "\"" + e.asString() + "\""
         : e.isInteger()          ? std::to_string(e.asInteger())
                                  : std::string("?");
  }
  return s + "]";
}

/// Why a non-deterministic description cannot have dq_semaphore.
constexpr const char *kSemaphoreNeedsDeterministic =
    " (\"dq_semaphore\" is for the deterministic kernels only, and \"deterministic\" is not true)";

/// Whether an entry of "workspaces" is named dq_semaphore.
bool listsSemaphore(const Value &list) {
  for (const Value &e : list.asArray()) {
    const Value *name = e.kind() == Kind::Object ? e.find("name") : nullptr;
    if (name && name->kind() == Kind::String && name->asString() == gradWorkspaceName(kDQSemaphore))
      return true;
  }
  return false;
}

/// "workspaces": delta and dq_accum, f32, and with "deterministic" the u32
/// dq_semaphore, with the shapes the kernels index (contiguous; the runtime
/// allocates them, so nothing else is accepted).
bool parseWorkspaces(const Value &list, const GradKernelDescription &desc, ObjectReader &top,
                     std::string &error) {
  const auto &entries = list.asArray();
  size_t count = desc.deterministic ? 3 : 2;
  if (entries.size() != count) {
    if (desc.deterministic)
      return top.fail("\"workspaces\" must have 3 entries (delta, dq_accum, dq_semaphore) "
                      "where \"deterministic\" is true, found " +
                      std::to_string(entries.size()));
    return top.fail("\"workspaces\" must have 2 entries (delta, dq_accum), found " +
                    std::to_string(entries.size()) +
                    (listsSemaphore(list) ? kSemaphoreNeedsDeterministic : ""));
  }
  bool seen[kNumGradWorkspaces] = {false, false, false};
  for (size_t i = 0; i < entries.size(); ++i) {
    ObjectReader r(entries[i], "workspaces[" + std::to_string(i) + "]: ", error);
    if (entries[i].kind() != Kind::Object)
      return r.fail("must be an object");
    std::string name, dtype;
    if (!r.checkKeys({"name", "dtype", "shape"}) || !r.readString("name", name) ||
        !r.readString("dtype", dtype))
      return false;
    int w = -1;
    for (int k = 0; k < int(count); ++k)
      if (name == gradWorkspaceName(k))
        w = k;
    if (w < 0 && desc.deterministic)
      return r.fail("\"name\" = \"" + name + "\" is not one of delta, dq_accum, dq_semaphore");
    if (w < 0)
      return r.fail("\"name\" = \"" + name + "\" is not one of delta, dq_accum" +
                    (name == gradWorkspaceName(kDQSemaphore) ? kSemaphoreNeedsDeterministic : ""));
    if (seen[w])
      return r.fail("workspace \"" + name + "\" is listed twice");
    seen[w] = true;
    if (w == kDQSemaphore && dtype != "u32")
      return r.fail("\"dtype\" = \"" + dtype + "\": the dq_semaphore workspace is u32");
    if (w != kDQSemaphore && dtype != "f32")
      return r.fail("\"dtype\" = \"" + dtype + "\": the workspaces are f32");
    const Value *shape = r.get("shape", Kind::Array, true);
    if (!shape)
      return false;
    std::string want = "[\"batch\", \"heads_q\", \"seq_q\"";
    if (w == kDQAccum)
      want += ", " + std::to_string(desc.headDim);
    want += "]";
    if (shapeText(*shape) != want)
      return r.fail("\"shape\" must be " + want + ", found " + shapeText(*shape));
  }
  return true;
}

bool parseGradKernels(const Value &list, GradKernelDescription &desc, ObjectReader &top,
                      std::string &error) {
  const auto &entries = list.asArray();
  if (entries.size() != 3)
    return top.fail("\"kernels\" must have 3 entries (preprocess, main, postprocess), found " +
                    std::to_string(entries.size()));
  for (size_t i = 0; i < entries.size(); ++i) {
    ObjectReader r(entries[i], "kernels[" + std::to_string(i) + "]: ", error);
    if (entries[i].kind() != Kind::Object)
      return r.fail("must be an object");
    GradKernelLaunchSpec k;
    int64_t threads = 0, smem = 0;
    if (!r.checkKeys({"role", "entry", "grid", "threads", "dynamic_smem_bytes"}) ||
        !r.readString("role", k.role) || !r.readString("entry", k.entry) ||
        !r.readInt("threads", threads, 1, 1024) ||
        !r.readInt("dynamic_smem_bytes", smem, 0, INT32_MAX))
      return false;
    if (k.role != kGradRoles[i])
      return r.fail("\"role\" = \"" + k.role + "\", expected \"" + kGradRoles[i] +
                    "\" (the kernels run preprocess, main, postprocess, in that order)");
    if (k.entry.empty())
      return r.fail("\"entry\" must not be empty");
    const Value *grid = r.get("grid", Kind::Array, true);
    if (!grid || !parseGridDims(*grid, k.grid, r))
      return false;
    for (const GridDim &g : k.grid)
      if (g.size == SizeName::NumSMs)
        return r.fail("\"grid\" cannot name num_sms (the backward's grids follow the sizes)");
    k.threads = uint32_t(threads);
    k.dynamicSmemBytes = uint32_t(smem);
    desc.kernels.push_back(std::move(k));
  }
  return true;
}

/// Every tensor and workspace must reach the kernels: one that a kernel
/// ignored would leave a gradient unwritten. dq_semaphore is the
/// deterministic kernels' pointer, and theirs only.
bool checkGradPointers(const GradKernelDescription &desc, ObjectReader &r) {
  for (int t = 0; t < kNumGradTensors + kDQSemaphore; ++t) {
    bool workspace = t >= kNumGradTensors;
    bool found = false;
    for (const GradParamSpec &p : desc.params)
      found |= workspace
                   ? p.source == GradParamSource::Workspace && p.workspace == t - kNumGradTensors
                   : p.source == GradParamSource::Pointer && p.tensor == t;
    if (!found)
      return r.fail(std::string("\"params\" has no \"") +
                    (workspace ? gradWorkspaceName(t - kNumGradTensors) : gradTensorName(t)) +
                    "\" pointer");
  }
  bool semaphore = false;
  for (const GradParamSpec &p : desc.params)
    semaphore |= p.source == GradParamSource::Workspace && p.workspace == kDQSemaphore;
  if (semaphore && !desc.deterministic)
    return r.fail(std::string("\"params\" has a \"dq_semaphore\" pointer") +
                  kSemaphoreNeedsDeterministic);
  if (!semaphore && desc.deterministic)
    return r.fail("\"params\" has no \"dq_semaphore\" pointer (\"deterministic\" is true: the "
                  "kernels order dQ's additions with it)");
  return true;
}

} // namespace

bool parseGradKernelDescription(std::string_view text, GradKernelDescription &desc,
                                std::string &error) {
  desc = GradKernelDescription();
  json::Value root;
  if (!parseDescriptionRoot(text, root, error))
    return false;
  ObjectReader r(root, "", error);
  if (!r.checkKeys({"version", "kind", "arch", "cubin", "ptx", "dtype", "head_dim", "scale",
                    "causal", "window_left", "window_right", "softcap", "deterministic",
                    "block_m", "block_n", "align_bytes", "params", "workspaces", "kernels",
                    "meta"}))
    return false;
  int64_t version = 0, align = 16;
  std::string kind;
  if (!r.readInt("version", version, 1, 1) || !r.readString("kind", kind))
    return false;
  if (kind != "attention_grad")
    return r.fail("\"kind\" = \"" + kind + "\", expected \"attention_grad\"");
  if (!r.readString("arch", desc.arch) || !r.readString("cubin", desc.cubin) ||
      !r.readString("ptx", desc.ptx, false) || !readDType(r, "dtype", desc.dtype, true))
    return false;
  if (!checkArch(desc.arch, r))
    return false;
  if (desc.cubin.empty())
    return r.fail("\"cubin\" must not be empty");
  if (desc.dtype != DType::F16 && desc.dtype != DType::BF16 && desc.dtype != DType::F32)
    return r.fail(std::string("\"dtype\" = \"") + dtypeName(desc.dtype) +
                  "\": the backward takes f16, bf16 or f32");
  if (!r.readInt("head_dim", desc.headDim, 1, 1024) || !r.readNumber("scale", desc.scale) ||
      !r.readBool("causal", desc.causal) ||
      !r.readBool("deterministic", desc.deterministic, false) ||
      !r.readInt("window_left", desc.windowLeft, -1, INT64_MAX) ||
      !r.readInt("window_right", desc.windowRight, -1, INT64_MAX) ||
      !r.readNumber("softcap", desc.softcap) || !r.readInt("block_m", desc.blockM, 1, 1 << 16) ||
      !r.readInt("block_n", desc.blockN, 1, 1 << 16) ||
      !r.readInt("align_bytes", align, 1, 256, false))
    return false;
  desc.alignBytes = uint32_t(align);
  if (!checkAttentionFields(align, desc.scale, desc.softcap, desc.causal, desc.windowRight, r))
    return false;
  const Value *meta = root.find("meta");
  if (meta && meta->kind() != Kind::Object)
    return r.fail("\"meta\" must be an object");

  const Value *params = r.get("params", Kind::Array, true);
  if (!params)
    return false;
  for (size_t i = 0; i < params->asArray().size(); ++i)
    if (!parseGradParam(params->asArray()[i], i, desc, error))
      return false;
  if (!checkGradPointers(desc, r))
    return false;
  const Value *workspaces = r.get("workspaces", Kind::Array, true);
  if (!workspaces || !parseWorkspaces(*workspaces, desc, r, error))
    return false;
  const Value *kernels = r.get("kernels", Kind::Array, true);
  return kernels && parseGradKernels(*kernels, desc, r, error);
}

namespace {

const char *const kGradDimNames[] = {"batch", "heads", "seq", "head_dim"};

class GradTensorChecker {
public:
  GradTensorChecker(const GradKernelDescription &desc, const TensorArg *tensors, std::string &error)
      : desc_(desc), t_(tensors), error_(error) {}

  bool fail(int tensor, const std::string &message) {
    error_ = "tensor '" + std::string(gradTensorName(tensor)) + "': " + message +
             " (backward kernel " + desc_.kernels.front().entry + ")";
    return false;
  }

  /// Rank, dtype, sizes, strides, the contiguous innermost dim, head_dim,
  /// the data pointer and the alignment the kernels' 16-byte copies need.
  bool checkOne(int tensor) {
    const TensorArg &t = t_[tensor];
    bool lse = tensor == kGradLse;
    int rank = lse ? 3 : 4;
    if (t.rank != rank)
      return fail(tensor,
                  "rank is " + std::to_string(t.rank) + ", expected " + std::to_string(rank) +
                      (lse ? " ([batch, heads, seq])" : " ([batch, heads, seq, head_dim])"));
    DType want = lse ? DType::F32 : desc_.dtype;
    if (t.dtype < 0 || t.dtype >= kNumDTypes)
      return fail(tensor, "unknown dtype code " + std::to_string(t.dtype));
    if (DType(t.dtype) != want)
      return fail(tensor, std::string("dtype is ") + dtypeName(DType(t.dtype)) + ", expected " +
                              dtypeName(want));
    bool empty = false;
    for (int i = 0; i < rank; ++i) {
      if (t.sizes[i] < 0 || t.sizes[i] > INT32_MAX)
        return fail(tensor, std::string(kGradDimNames[i]) + " size " + std::to_string(t.sizes[i]) +
                                " is out of range [0, 2^31-1]");
      if (t.strides[i] < 0)
        return fail(tensor, std::string(kGradDimNames[i]) + " stride " +
                                std::to_string(t.strides[i]) + " is negative");
      empty |= t.sizes[i] == 0;
    }
    if (t.sizes[rank - 1] > 1 && t.strides[rank - 1] != 1)
      return fail(tensor, std::string("the ") + kGradDimNames[rank - 1] + " stride is " +
                              std::to_string(t.strides[rank - 1]) +
                              ", it must be 1 (the innermost dim must be contiguous)");
    if (!lse && t.sizes[3] != desc_.headDim)
      return fail(tensor, "head_dim is " + std::to_string(t.sizes[3]) +
                              ", the kernel needs head_dim = " + std::to_string(desc_.headDim));
    if (empty)
      return true;
    if (t.data == 0)
      return fail(tensor, "data pointer is null");
    uint64_t bytes = dtypeBytes(want);
    uint64_t align = lse ? bytes : desc_.alignBytes;
    if (t.data % align != 0)
      return fail(tensor, "data pointer is not " + std::to_string(align) + "-byte aligned");
    for (int i = 0; i < rank - 1; ++i) {
      if (t.sizes[i] <= 1)
        continue;
      if ((uint64_t(t.strides[i]) * bytes) % align != 0)
        return fail(tensor, std::string("the ") + kGradDimNames[i] + " stride (" +
                                std::to_string(t.strides[i]) + " elements) is not a multiple of " +
                                std::to_string(align) + " bytes");
      // dQ, dK and dV are written element by element: a broadcast dim
      // would have several CTAs write one element.
      if (tensor >= kGradDQ && t.strides[i] == 0)
        return fail(tensor, std::string("the ") + kGradDimNames[i] +
                                " stride is 0 (a broadcast view); a gradient needs its own "
                                "memory for every element");
    }
    return true;
  }

  /// `tensor`'s dims [0, rank) equal `like`'s.
  bool sameShape(int like, int tensor, int rank) {
    for (int i = 0; i < rank; ++i)
      if (t_[tensor].sizes[i] != t_[like].sizes[i])
        return fail(tensor, std::string(kGradDimNames[i]) + " size is " +
                                std::to_string(t_[tensor].sizes[i]) + " but tensor '" +
                                gradTensorName(like) + "' has " +
                                std::to_string(t_[like].sizes[i]));
    return true;
  }

private:
  const GradKernelDescription &desc_;
  const TensorArg *t_;
  std::string &error_;
};

} // namespace

bool checkGradTensors(const GradKernelDescription &desc, const TensorArg *tensors, int numTensors,
                      ProblemSizes &sizes, std::string &error) {
  if (!tensors || numTensors != kNumGradTensors) {
    error = "backward kernel " + desc.kernels.front().entry +
            " takes 9 tensors (q, k, v, o, do, lse, dq, dk, dv), got " +
            std::to_string(tensors ? numTensors : 0);
    return false;
  }
  GradTensorChecker c(desc, tensors, error);
  for (int t = 0; t < kNumGradTensors; ++t)
    if (!c.checkOne(t))
      return false;
  // O, dO and dQ are shaped like Q; V, dK and dV like K; LSE like Q's first three.
  if (!c.sameShape(kGradQ, kGradK, 1))
    return false;
  for (int t : {kGradO, kGradDO, kGradDQ})
    if (!c.sameShape(kGradQ, t, 4))
      return false;
  for (int t : {kGradV, kGradDK, kGradDV})
    if (!c.sameShape(kGradK, t, 4))
      return false;
  if (!c.sameShape(kGradQ, kGradLse, 3))
    return false;
  sizes = ProblemSizes();
  std::string heads;
  if (!readQKSizes(tensors[kGradQ], tensors[kGradK], sizes, heads))
    return c.fail(kGradK, heads);
  return true;
}

bool planGradLaunch(const GradKernelDescription &desc, const TensorArg *tensors,
                    const ProblemSizes &sizes, GradLaunchPlan &plan, std::string &error) {
  plan = GradLaunchPlan();
  if (!sizes.batch || !sizes.headsQ || !sizes.seqQ || !sizes.seqK) {
    plan.empty = true;
    return true;
  }
  for (const GradKernelLaunchSpec &k : desc.kernels) {
    GradLaunchPlan::Launch launch;
    if (!computeGrid(k.grid, {1, 1, 1}, sizes, "backward kernel " + k.entry, launch.grid, error))
      return false;
    launch.threads = k.threads;
    launch.dynamicSmemBytes = k.dynamicSmemBytes;
    plan.launches.push_back(launch);
  }
  uint64_t rows = sizes.batch * sizes.headsQ * sizes.seqQ;
  plan.workspaceBytes[kDelta] = rows * sizeof(float);
  plan.workspaceBytes[kDQAccum] = rows * uint64_t(desc.headDim) * sizeof(float);
  if (desc.deterministic)
    plan.workspaceBytes[kDQSemaphore] = rows * sizeof(uint32_t);
  for (int w = 0; w < kNumGradWorkspaces; ++w) {
    plan.workspaceOffsets[w] = plan.totalWorkspaceBytes;
    plan.totalWorkspaceBytes += (plan.workspaceBytes[w] + 255) / 256 * 256;
  }

  plan.params.resize(desc.params.size());
  for (size_t i = 0; i < desc.params.size(); ++i) {
    const GradParamSpec &p = desc.params[i];
    ParamSlot &slot = plan.params[i];
    std::memset(slot.bytes, 0, sizeof(slot.bytes));
    switch (p.source) {
    case GradParamSource::Pointer:
      std::memcpy(slot.bytes, &tensors[p.tensor].data, sizeof(uint64_t));
      break;
    case GradParamSource::Workspace: break; // setGradWorkspace
    case GradParamSource::Size:
      if (!packIntegerParam(slot, p.type, sizes.get(p.size), p.name, error))
        return false;
      break;
    case GradParamSource::Stride:
      if (!packIntegerParam(slot, p.type, uint64_t(tensors[p.tensor].strides[p.dim]), p.name,
                            error))
        return false;
      break;
    }
  }
  return true;
}

bool buildGradLaunchPlan(const GradKernelDescription &desc, const TensorArg *tensors,
                         int numTensors, GradLaunchPlan &plan, std::string &error) {
  ProblemSizes sizes;
  return checkGradTensors(desc, tensors, numTensors, sizes, error) &&
         planGradLaunch(desc, tensors, sizes, plan, error);
}

void setGradWorkspace(const GradKernelDescription &desc, uint64_t base, GradLaunchPlan &plan) {
  for (size_t i = 0; i < desc.params.size() && i < plan.params.size(); ++i) {
    const GradParamSpec &p = desc.params[i];
    if (p.source != GradParamSource::Workspace)
      continue;
    uint64_t address = base + plan.workspaceOffsets[p.workspace];
    std::memcpy(plan.params[i].bytes, &address, sizeof(address));
  }
}

} // namespace fattn::runtime
