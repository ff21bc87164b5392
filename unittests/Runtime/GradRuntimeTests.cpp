//===- GradRuntimeTests.cpp - The backward's descriptions and launch plans ===//

#include "Check.h"

#include "fattn/Runtime/GradKernel.h"

#include <cstring>
#include <string>
#include <vector>

using namespace fattn::runtime;

namespace {

/// What fattn-compile --arch sm_80 writes for a causal bf16 backward of head
/// dim 64 (test/Pipelines/SM80/grad-compile.mlir).
std::string gradDescription() {
  std::string params;
  for (const char *p : {"q", "k", "v", "o", "do", "lse", "dq", "dk", "dv", "delta", "dq_accum"})
    params += std::string(R"({"name": ")") + p + R"(", "type": "ptr"}, )";
  for (const char *p : {"batch", "heads_q", "heads_kv", "seq_q", "seq_k"})
    params += std::string(R"({"name": ")") + p + R"(", "type": "u32"}, )";
  for (const char *t : {"q", "k", "v", "o", "do", "dq", "dk", "dv"})
    for (const char *d : {"b", "h", "s"})
      params += std::string(R"({"name": ")") + t + "_stride_" + d + R"(", "type": "u64"}, )";
  params += R"({"name": "lse_stride_b", "type": "u64"}, {"name": "lse_stride_h", "type": "u64"})";
  return R"({"align_bytes": 16, "arch": "sm_80", "block_m": 64, "block_n": 64, "causal": true,
    "cubin": "bwd.cubin", "dtype": "bf16", "head_dim": 64,
    "kernels": [
      {"dynamic_smem_bytes": 0, "entry": "bwd_preprocess",
       "grid": [["seq_q", 64], ["heads_q", 1], ["batch", 1]], "role": "preprocess", "threads": 128},
      {"dynamic_smem_bytes": 46592, "entry": "bwd_main",
       "grid": [["seq_k", 64], ["heads_kv", 1], ["batch", 1]], "role": "main", "threads": 128},
      {"dynamic_smem_bytes": 0, "entry": "bwd_postprocess",
       "grid": [["seq_q", 64], ["heads_q", 1], ["batch", 1]], "role": "postprocess", "threads": 128}],
    "kind": "attention_grad", "params": [)" +
         params + R"(], "ptx": "bwd.ptx", "scale": 0.125, "softcap": 0, "version": 1,
    "window_left": -1, "window_right": 0,
    "workspaces": [{"dtype": "f32", "name": "delta", "shape": ["batch", "heads_q", "seq_q"]},
                   {"dtype": "f32", "name": "dq_accum", "shape": ["batch", "heads_q", "seq_q", 64]}]})";
}

/// The same backward with `deterministic`: the key, the dq_semaphore
/// parameter after the others and its u32 workspace, one counter per query row.
std::string deterministicGradDescription() {
  std::string text = replaceOnce(gradDescription(), R"("causal": true,)",
                                 R"("causal": true, "deterministic": true,)");
  text = replaceOnce(text, R"({"name": "lse_stride_h", "type": "u64"})",
                     R"({"name": "lse_stride_h", "type": "u64"}, )"
                     R"({"name": "dq_semaphore", "type": "ptr"})");
  return replaceOnce(text, R"("seq_q", 64]})",
                     R"("seq_q", 64]}, )"
                     R"({"dtype": "u32", "name": "dq_semaphore", "shape": ["batch", "heads_q", )"
                     R"("seq_q"]})");
}

std::string gradError(const std::string &json) {
  GradKernelDescription desc;
  std::string error;
  if (parseGradKernelDescription(json, desc, error))
    return "(parsed)";
  return error;
}

/// `json` with `from` replaced by `to` must fail with `needle` in the message.
#define CHECK_GRAD_ERROR(from, to, needle)                                                         \
  CHECK_CONTAINS(gradError(replaceOnce(gradDescription(), from, to)), needle)

/// `json` (the deterministic description) with `from` replaced by `to` must
/// fail with `needle` in the message.
#define CHECK_DETERMINISTIC_ERROR(from, to, needle)                                                \
  CHECK_CONTAINS(gradError(replaceOnce(deterministicGradDescription(), from, to)), needle)

GradKernelDescription parsedGradDescription(bool deterministic = false) {
  GradKernelDescription desc;
  std::string error;
  CHECK(parseGradKernelDescription(
      deterministic ? deterministicGradDescription() : gradDescription(), desc, error));
  CHECK(error.empty());
  return desc;
}

/// Contiguous BSHD storage viewed as [batch, heads, seq, head_dim].
TensorArg bshd(uint64_t data, int64_t b, int64_t s, int64_t h, int64_t d,
               DType dtype = DType::BF16) {
  return TensorArg{data, 4, int32_t(dtype), {b, h, s, d}, {s * h * d, d, h * d, 1}};
}

struct GradProblem {
  int64_t b = 2, sq = 100, sk = 300, hq = 8, hkv = 2, d = 64;
  std::vector<TensorArg> tensors() const {
    std::vector<TensorArg> t;
    t.push_back(bshd(0x10000, b, sq, hq, d));  // q
    t.push_back(bshd(0x20000, b, sk, hkv, d)); // k
    t.push_back(bshd(0x30000, b, sk, hkv, d)); // v
    t.push_back(bshd(0x40000, b, sq, hq, d));  // o
    t.push_back(bshd(0x50000, b, sq, hq, d));  // do
    t.push_back(TensorArg{0x60000, 3, int32_t(DType::F32), {b, hq, sq, 0}, {hq * sq, sq, 1, 0}});
    t.push_back(bshd(0x70000, b, sq, hq, d));  // dq
    t.push_back(bshd(0x80000, b, sk, hkv, d)); // dk
    t.push_back(bshd(0x90000, b, sk, hkv, d)); // dv
    return t;
  }
};

std::string gradPlanError(const std::vector<TensorArg> &tensors, int count = kNumGradTensors) {
  GradKernelDescription desc = parsedGradDescription();
  GradLaunchPlan plan;
  std::string error;
  if (buildGradLaunchPlan(desc, tensors.data(), count, plan, error))
    return "(planned)";
  return error;
}

uint64_t slotValue(const GradLaunchPlan &plan, const GradKernelDescription &desc,
                   const std::string &name) {
  for (size_t i = 0; i < desc.params.size(); ++i) {
    if (desc.params[i].name != name)
      continue;
    uint64_t v = 0;
    std::memcpy(&v, plan.params[i].bytes,
                desc.params[i].type == ParamType::U32 ? sizeof(uint32_t) : sizeof(uint64_t));
    return v;
  }
  ++failures;
  std::printf("  test bug: no parameter %s\n", name.c_str());
  return 0;
}

} // namespace

void testGradDescriptionValid() {
  GradKernelDescription desc = parsedGradDescription();
  CHECK(desc.arch == "sm_80" && desc.cubin == "bwd.cubin" && desc.ptx == "bwd.ptx");
  CHECK(desc.dtype == DType::BF16 && desc.headDim == 64 && desc.scale == 0.125);
  CHECK(desc.causal && desc.windowLeft == -1 && desc.windowRight == 0);
  CHECK(desc.blockM == 64 && desc.blockN == 64 && desc.alignBytes == 16);
  CHECK(!desc.deterministic);
  CHECK(desc.params.size() == 42);
  CHECK(desc.params[4].source == GradParamSource::Pointer && desc.params[4].tensor == kGradDO);
  CHECK(desc.params[10].source == GradParamSource::Workspace &&
        desc.params[10].workspace == kDQAccum);
  CHECK(desc.params[11].source == GradParamSource::Size && desc.params[11].size == SizeName::Batch);
  CHECK(desc.params[40].source == GradParamSource::Stride && desc.params[40].tensor == kGradLse &&
        desc.params[40].dim == 0);
  CHECK(desc.kernels.size() == 3);
  CHECK(desc.kernels[1].role == "main" && desc.kernels[1].entry == "bwd_main");
  CHECK(desc.kernels[1].dynamicSmemBytes == 46592 && desc.kernels[1].threads == 128);
  CHECK(desc.kernels[1].grid.size() == 3 && desc.kernels[1].grid[0].size == SizeName::SeqK &&
        desc.kernels[1].grid[0].divisor == 64);
  // Optional keys: no ptx, no align_bytes (16), a meta object, u32 strides.
  std::string text = replaceOnce(gradDescription(), R"("ptx": "bwd.ptx", )", "");
  text = replaceOnce(text, R"("align_bytes": 16, )", R"("meta": {"by": "test"}, )");
  text = replaceOnce(text, R"("q_stride_b", "type": "u64")", R"("q_stride_b", "type": "u32")");
  GradKernelDescription other;
  std::string error;
  CHECK(parseGradKernelDescription(text, other, error));
  CHECK(other.ptx.empty() && other.alignBytes == 16 && other.params[16].type == ParamType::U32);
  // "deterministic": false is its absence.
  CHECK(parseGradKernelDescription(replaceOnce(gradDescription(), R"("causal": true,)",
                                               R"("causal": true, "deterministic": false,)"),
                                   other, error));
  CHECK(!other.deterministic && other.params.size() == 42);
  // The forward's parser names the backward's loader.
  KernelDescription forward;
  CHECK(!parseKernelDescription(gradDescription(), forward, error));
  CHECK_CONTAINS(error, "\"kind\" is a key of the backward's descriptions");
}

void testGradDescriptionErrors() {
  CHECK_CONTAINS(gradError("{"), "kernel description: invalid JSON");
  CHECK_CONTAINS(gradError("[]"), "the top level must be an object");
  CHECK_GRAD_ERROR(R"("version": 1)", R"("version": 1, "entry": "x")",
                   "unknown key \"entry\" (known keys: version, kind");
  CHECK_GRAD_ERROR(R"("version": 1)", R"("version": 2)", "\"version\" = 2 is out of range [1, 1]");
  CHECK_GRAD_ERROR(R"("kind": "attention_grad", )", "", "missing required key \"kind\"");
  CHECK_GRAD_ERROR(R"("kind": "attention_grad")", R"("kind": "attention")",
                   "\"kind\" = \"attention\", expected \"attention_grad\"");
  CHECK_GRAD_ERROR(R"("kind": "attention_grad")", R"("kind": 1)",
                   "\"kind\" must be a string, found a number");
  CHECK_GRAD_ERROR(R"("arch": "sm_80")", R"("arch": "ampere")",
                   "\"arch\" = \"ampere\" is not of the form sm_XY or sm_XYa");
  CHECK_GRAD_ERROR(R"("cubin": "bwd.cubin")", R"("cubin": "")", "\"cubin\" must not be empty");
  CHECK_GRAD_ERROR(R"("dtype": "bf16")", R"("dtype": "e4m3")",
                   "\"dtype\" = \"e4m3\": the backward takes f16, bf16 or f32");
  CHECK_GRAD_ERROR(R"("dtype": "bf16")", R"("dtype": "fp16")",
                   "\"dtype\" = \"fp16\" is not an element type");
  CHECK_GRAD_ERROR(R"("head_dim": 64)", R"("head_dim": 0)",
                   "\"head_dim\" = 0 is out of range [1, 1024]");
  CHECK_GRAD_ERROR(R"("scale": 0.125)", R"("scale": -1)",
                   "\"scale\" must be a positive finite number");
  CHECK_GRAD_ERROR(R"("softcap": 0)", R"("softcap": -2)",
                   "\"softcap\" must be a finite number >= 0");
  CHECK_GRAD_ERROR(R"("window_right": 0)", R"("window_right": 5)",
                   "\"causal\" is true, so \"window_right\" must be 0");
  CHECK_GRAD_ERROR(R"("causal": true)", R"("causal": 1)", "\"causal\" must be a bool");
  CHECK_GRAD_ERROR(R"("align_bytes": 16)", R"("align_bytes": 12)",
                   "\"align_bytes\" must be a power of two");
  CHECK_GRAD_ERROR(R"("version": 1)", R"("version": 1, "meta": [])", "\"meta\" must be an object");
  // Parameters.
  CHECK_GRAD_ERROR(R"({"name": "q", "type": "ptr"})", "7", "params[0]: must be an object");
  CHECK_GRAD_ERROR(R"({"name": "q", "type": "ptr"})", R"({"name": "q", "type": "ptr", "x": 1})",
                   "params[0]: unknown key \"x\" (known keys: name, type)");
  CHECK_GRAD_ERROR(R"({"name": "q", "type": "ptr"})", R"({"name": "q", "type": "f32"})",
                   "params[0]: \"type\" = \"f32\" is not one of ptr, u32, u64");
  CHECK_GRAD_ERROR(R"({"name": "q", "type": "ptr"})", R"({"name": "q", "type": "u64"})",
                   "params[0]: parameter \"q\" cannot have type \"u64\" (expected ptr)");
  CHECK_GRAD_ERROR(R"("q_stride_b", "type": "u64")", R"("q_stride_b", "type": "ptr")",
                   "parameter \"q_stride_b\" cannot have type \"ptr\" (expected u32 or u64)");
  CHECK_GRAD_ERROR(R"("lse_stride_h", "type": "u64"})",
                   R"("lse_stride_h", "type": "u64"}, {"name": "lse_stride_s", "type": "u64"})",
                   "unknown parameter name \"lse_stride_s\"");
  CHECK_GRAD_ERROR(R"("lse_stride_h", "type": "u64"})",
                   R"("lse_stride_h", "type": "u64"}, {"name": "num_sms", "type": "u32"})",
                   "unknown parameter name \"num_sms\"");
  CHECK_GRAD_ERROR(R"("lse_stride_h", "type": "u64"})",
                   R"("lse_stride_h", "type": "u64"}, {"name": "scale", "type": "u64"})",
                   "unknown parameter name \"scale\" (the runtime fills q, k, v, o, do, lse");
  CHECK_GRAD_ERROR(R"("lse_stride_h", "type": "u64"})",
                   R"("lse_stride_h", "type": "u64"}, {"name": "seq_k", "type": "u32"})",
                   "duplicate parameter name \"seq_k\"");
  CHECK_GRAD_ERROR(R"({"name": "dv", "type": "ptr"}, )", "", "\"params\" has no \"dv\" pointer");
  CHECK_GRAD_ERROR(R"({"name": "dq_accum", "type": "ptr"}, )", "",
                   "\"params\" has no \"dq_accum\" pointer");
  CHECK_GRAD_ERROR(R"("params": [)", R"("params": 3, "x": [)", "unknown key \"x\"");
  // Workspaces.
  const std::string delta =
      R"({"dtype": "f32", "name": "delta", "shape": ["batch", "heads_q", "seq_q"]})";
  CHECK_GRAD_ERROR(delta + ",", "",
                   "\"workspaces\" must have 2 entries (delta, dq_accum), found 1");
  CHECK_GRAD_ERROR(delta, "[]", "workspaces[0]: must be an object");
  CHECK_GRAD_ERROR(R"("dtype": "f32", "name": "delta")",
                   R"("dtype": "f32", "name": "delta", "bytes": 4)",
                   "workspaces[0]: unknown key \"bytes\" (known keys: name, dtype, shape)");
  CHECK_GRAD_ERROR(R"("name": "delta", "shape")", R"("name": "d", "shape")",
                   "workspaces[0]: \"name\" = \"d\" is not one of delta, dq_accum");
  CHECK_GRAD_ERROR(R"("name": "dq_accum", "shape")", R"("name": "delta", "shape")",
                   "workspaces[1]: workspace \"delta\" is listed twice");
  CHECK_GRAD_ERROR(R"("dtype": "f32", "name": "delta")", R"("dtype": "bf16", "name": "delta")",
                   "workspaces[0]: \"dtype\" = \"bf16\": the workspaces are f32");
  CHECK_GRAD_ERROR(R"("seq_q", 64]})", R"("seq_q", 128]})",
                   "workspaces[1]: \"shape\" must be [\"batch\", \"heads_q\", \"seq_q\", 64], "
                   "found [\"batch\", \"heads_q\", \"seq_q\", 128]");
  CHECK_GRAD_ERROR(R"("shape": ["batch", "heads_q", "seq_q"]})", R"("shape": "rows"})",
                   "workspaces[0]: \"shape\" must be a array, found a string");
  // Kernels.
  CHECK_GRAD_ERROR(R"("kernels": [)", R"("kernels": [{"role": "main"}, )",
                   "\"kernels\" must have 3 entries (preprocess, main, postprocess), found 4");
  CHECK_GRAD_ERROR("{\"dynamic_smem_bytes\": 0, \"entry\": \"bwd_preprocess\",\n       \"grid\": "
                   "[[\"seq_q\", 64], [\"heads_q\", 1], [\"batch\", 1]], \"role\": "
                   "\"preprocess\", \"threads\": 128}",
                   "7", "kernels[0]: must be an object");
  CHECK_GRAD_ERROR(R"("entry": "bwd_preprocess")",
                   R"("entry": "bwd_preprocess", "cluster": [1, 1, 1])",
                   "kernels[0]: unknown key \"cluster\" (known keys: role, entry, grid, threads, "
                   "dynamic_smem_bytes)");
  CHECK_GRAD_ERROR(R"("role": "main")", R"("role": "postprocess")",
                   "kernels[1]: \"role\" = \"postprocess\", expected \"main\" (the kernels run "
                   "preprocess, main, postprocess, in that order)");
  CHECK_GRAD_ERROR(R"("entry": "bwd_main")", R"("entry": "")",
                   "kernels[1]: \"entry\" must not be empty");
  CHECK_GRAD_ERROR(R"([["seq_k", 64], ["heads_kv", 1], ["batch", 1]])", R"([["seq_k", 0]])",
                   "kernels[1]: \"grid\"[0]: the divisor must be in [1, 2^31]");
  CHECK_GRAD_ERROR(R"([["seq_k", 64], ["heads_kv", 1], ["batch", 1]])", R"([["num_sms", 1]])",
                   "kernels[1]: \"grid\" cannot name num_sms");
  CHECK_GRAD_ERROR(R"("role": "main", "threads": 128)", R"("role": "main", "threads": 2048)",
                   "kernels[1]: \"threads\" = 2048 is out of range [1, 1024]");
  CHECK_GRAD_ERROR(R"({"dynamic_smem_bytes": 46592)", R"({"dynamic_smem_bytes": -1)",
                   "kernels[1]: \"dynamic_smem_bytes\" = -1 is out of range");
}

void testGradLaunchPlan() {
  GradKernelDescription desc = parsedGradDescription();
  GradProblem p;
  std::vector<TensorArg> t = p.tensors();
  GradLaunchPlan plan;
  std::string error;
  CHECK(buildGradLaunchPlan(desc, t.data(), kNumGradTensors, plan, error));
  CHECK(error.empty() && !plan.empty);
  CHECK(plan.launches.size() == 3);
  // Preprocess and postprocess per Q tile, the main kernel per KV tile of a KV head.
  CHECK((plan.launches[0].grid == std::array<uint32_t, 3>{2, 8, 2}));
  CHECK((plan.launches[1].grid == std::array<uint32_t, 3>{5, 2, 2}));
  CHECK((plan.launches[2].grid == std::array<uint32_t, 3>{2, 8, 2}));
  CHECK(plan.launches[1].threads == 128 && plan.launches[1].dynamicSmemBytes == 46592);
  CHECK(slotValue(plan, desc, "do") == 0x50000 && slotValue(plan, desc, "dv") == 0x90000);
  CHECK(slotValue(plan, desc, "heads_kv") == 2 && slotValue(plan, desc, "seq_k") == 300);
  // Strides of the logical [b, h, s, d] view of BSHD storage.
  CHECK(slotValue(plan, desc, "k_stride_b") == 300 * 2 * 64);
  CHECK(slotValue(plan, desc, "k_stride_h") == 64);
  CHECK(slotValue(plan, desc, "k_stride_s") == 2 * 64);
  CHECK(slotValue(plan, desc, "lse_stride_b") == 8 * 100 &&
        slotValue(plan, desc, "lse_stride_h") == 100);
  // Workspaces: delta [2, 8, 100] and dq_accum [2, 8, 100, 64] in f32, 256-byte aligned.
  CHECK(plan.workspaceBytes[kDelta] == 2 * 8 * 100 * 4);
  CHECK(plan.workspaceBytes[kDQAccum] == 2 * 8 * 100 * 64 * 4);
  CHECK(plan.workspaceOffsets[kDelta] == 0 && plan.workspaceOffsets[kDQAccum] == 6400);
  CHECK(plan.totalWorkspaceBytes == 6400 + 409600);
  CHECK(slotValue(plan, desc, "delta") == 0 && slotValue(plan, desc, "dq_accum") == 0);
  setGradWorkspace(desc, 0x1000000, plan);
  CHECK(slotValue(plan, desc, "delta") == 0x1000000);
  CHECK(slotValue(plan, desc, "dq_accum") == 0x1000000 + 6400);
  // 7 rows: delta takes 28 bytes, rounded up to 256.
  p.b = 1, p.hq = 1, p.hkv = 1, p.sq = 7;
  t = p.tensors();
  CHECK(buildGradLaunchPlan(desc, t.data(), kNumGradTensors, plan, error));
  CHECK(plan.workspaceOffsets[kDQAccum] == 256 && plan.totalWorkspaceBytes == 256 + 1792);
  // Nothing to launch when a size is 0 (the caller zeroes the gradients).
  for (int which = 0; which < 4; ++which) {
    GradProblem e;
    (which == 0 ? e.b : which == 1 ? e.hq : which == 2 ? e.sq : e.sk) = 0;
    if (which == 1)
      e.hkv = 0;
    t = e.tensors();
    CHECK(buildGradLaunchPlan(desc, t.data(), kNumGradTensors, plan, error));
    CHECK(plan.empty && plan.launches.empty() && plan.totalWorkspaceBytes == 0);
  }
  // Empty tensors may have null data.
  GradProblem e;
  e.sk = 0;
  t = e.tensors();
  t[kGradK].data = t[kGradV].data = t[kGradDK].data = t[kGradDV].data = 0;
  CHECK(buildGradLaunchPlan(desc, t.data(), kNumGradTensors, plan, error) && plan.empty);
}

void testGradLaunchPlanErrors() {
  GradProblem p;
  std::vector<TensorArg> t = p.tensors();
  CHECK_CONTAINS(gradPlanError(t, 8), "backward kernel bwd_preprocess takes 9 tensors (q, k, v, "
                                      "o, do, lse, dq, dk, dv), got 8");
  auto with = [&](int tensor, auto change) {
    std::vector<TensorArg> u = p.tensors();
    change(u[tensor]);
    return gradPlanError(u);
  };
  CHECK_CONTAINS(with(kGradDO, [](TensorArg &a) { a.rank = 3; }),
                 "tensor 'do': rank is 3, expected 4 ([batch, heads, seq, head_dim]) (backward "
                 "kernel bwd_preprocess)");
  CHECK_CONTAINS(with(kGradLse, [](TensorArg &a) { a.rank = 4; }),
                 "tensor 'lse': rank is 4, expected 3 ([batch, heads, seq])");
  CHECK_CONTAINS(with(kGradDK, [](TensorArg &a) { a.dtype = int32_t(DType::F16); }),
                 "tensor 'dk': dtype is f16, expected bf16");
  CHECK_CONTAINS(with(kGradLse, [](TensorArg &a) { a.dtype = int32_t(DType::BF16); }),
                 "tensor 'lse': dtype is bf16, expected f32");
  CHECK_CONTAINS(with(kGradQ, [](TensorArg &a) { a.dtype = 9; }),
                 "tensor 'q': unknown dtype code 9");
  CHECK_CONTAINS(with(kGradV, [](TensorArg &a) { a.sizes[2] = -1; }),
                 "tensor 'v': seq size -1 is out of range [0, 2^31-1]");
  CHECK_CONTAINS(with(kGradO, [](TensorArg &a) { a.strides[1] = -64; }),
                 "tensor 'o': heads stride -64 is negative");
  CHECK_CONTAINS(with(kGradDQ, [](TensorArg &a) { a.strides[3] = 2; }),
                 "tensor 'dq': the head_dim stride is 2, it must be 1");
  CHECK_CONTAINS(with(kGradLse, [](TensorArg &a) { a.strides[2] = 2; }),
                 "tensor 'lse': the seq stride is 2, it must be 1");
  CHECK_CONTAINS(with(kGradDV, [](TensorArg &a) { a.sizes[3] = 128; }),
                 "tensor 'dv': head_dim is 128, the kernel needs head_dim = 64");
  CHECK_CONTAINS(with(kGradO, [](TensorArg &a) { a.data = 0; }),
                 "tensor 'o': data pointer is null");
  CHECK_CONTAINS(with(kGradDQ, [](TensorArg &a) { a.data += 8; }),
                 "tensor 'dq': data pointer is not 16-byte aligned");
  CHECK_CONTAINS(with(kGradLse, [](TensorArg &a) { a.data += 2; }),
                 "tensor 'lse': data pointer is not 4-byte aligned");
  CHECK_CONTAINS(with(kGradK, [](TensorArg &a) { a.strides[2] = 132; }),
                 "tensor 'k': the seq stride (132 elements) is not a multiple of 16 bytes");
  CHECK_CONTAINS(with(kGradDK, [](TensorArg &a) { a.strides[1] = 0; }),
                 "tensor 'dk': the heads stride is 0 (a broadcast view); a gradient needs its "
                 "own memory for every element");
  // A broadcast input is fine.
  CHECK(with(kGradV, [](TensorArg &a) { a.strides[0] = 0; }) == "(planned)");
  CHECK_CONTAINS(with(kGradO, [](TensorArg &a) { a.sizes[2] = 99; }),
                 "tensor 'o': seq size is 99 but tensor 'q' has 100");
  CHECK_CONTAINS(with(kGradDV, [](TensorArg &a) { a.sizes[1] = 4; }),
                 "tensor 'dv': heads size is 4 but tensor 'k' has 2");
  CHECK_CONTAINS(with(kGradLse, [](TensorArg &a) { a.sizes[1] = 2; }),
                 "tensor 'lse': heads size is 2 but tensor 'q' has 8");
  CHECK_CONTAINS(with(kGradK, [](TensorArg &a) { a.sizes[0] = 1; }),
                 "tensor 'k': batch size is 1 but tensor 'q' has 2");
  GradProblem gqa;
  gqa.hkv = 3;
  CHECK_CONTAINS(gradPlanError(gqa.tensors()), "tensor 'k': heads_q = 8 is not a multiple of "
                                               "heads_kv = 3");
  GradProblem wide;
  wide.hq = wide.hkv = 70000;
  wide.sq = wide.sk = 1;
  CHECK_CONTAINS(gradPlanError(wide.tensors()),
                 "backward kernel bwd_preprocess: grid dim y = ceildiv(heads_q = 70000, 1) = "
                 "70000 is out of range [1, 65535]");
  // A u32 stride parameter that its value does not fit.
  GradKernelDescription desc;
  std::string error;
  CHECK(parseGradKernelDescription(replaceOnce(gradDescription(), R"("q_stride_b", "type": "u64")",
                                               R"("q_stride_b", "type": "u32")"),
                                   desc, error));
  t = p.tensors();
  t[kGradQ].strides[0] = int64_t(1) << 33;
  GradLaunchPlan plan;
  CHECK(!buildGradLaunchPlan(desc, t.data(), kNumGradTensors, plan, error));
  CHECK_CONTAINS(error, "parameter 'q_stride_b' = 8589934592 does not fit in u32");
}

void testGradDeterministicDescription() {
  GradKernelDescription desc = parsedGradDescription(/*deterministic=*/true);
  CHECK(desc.deterministic && desc.causal);
  CHECK(desc.params.size() == 43);
  CHECK(desc.params[42].name == "dq_semaphore");
  CHECK(desc.params[42].source == GradParamSource::Workspace &&
        desc.params[42].workspace == kDQSemaphore);
  CHECK(std::string(gradWorkspaceName(kDQSemaphore)) == "dq_semaphore");
  // A third workspace of one u32 per query row, after delta and dq_accum:
  // [2, 8, 100] u32 at 6400 + 409600.
  GradProblem p;
  std::vector<TensorArg> t = p.tensors();
  GradLaunchPlan plan;
  std::string error;
  CHECK(buildGradLaunchPlan(desc, t.data(), kNumGradTensors, plan, error));
  CHECK(error.empty() && !plan.empty && plan.launches.size() == 3);
  CHECK(plan.workspaceBytes[kDelta] == 2 * 8 * 100 * 4);
  CHECK(plan.workspaceBytes[kDQAccum] == 2 * 8 * 100 * 64 * 4);
  CHECK(plan.workspaceBytes[kDQSemaphore] == 2 * 8 * 100 * 4);
  CHECK(plan.workspaceOffsets[kDQAccum] == 6400 && plan.workspaceOffsets[kDQSemaphore] == 416000);
  CHECK(plan.totalWorkspaceBytes == 416000 + 6400);
  CHECK(slotValue(plan, desc, "dq_semaphore") == 0);
  setGradWorkspace(desc, 0x1000000, plan);
  CHECK(slotValue(plan, desc, "delta") == 0x1000000);
  CHECK(slotValue(plan, desc, "dq_accum") == 0x1000000 + 6400);
  CHECK(slotValue(plan, desc, "dq_semaphore") == 0x1000000 + 416000);
  // The other parameters are those of the non-deterministic description.
  CHECK(slotValue(plan, desc, "seq_k") == 300 && slotValue(plan, desc, "dv") == 0x90000);
  // 7 rows: each workspace rounded up to 256 bytes.
  p.b = 1, p.hq = 1, p.hkv = 1, p.sq = 7;
  t = p.tensors();
  CHECK(buildGradLaunchPlan(desc, t.data(), kNumGradTensors, plan, error));
  CHECK(plan.workspaceBytes[kDQSemaphore] == 28);
  CHECK(plan.workspaceOffsets[kDQSemaphore] == 256 + 1792);
  CHECK(plan.totalWorkspaceBytes == 256 + 1792 + 256);
  // Nothing to launch, no workspace.
  p.sk = 0;
  t = p.tensors();
  CHECK(buildGradLaunchPlan(desc, t.data(), kNumGradTensors, plan, error));
  CHECK(plan.empty && plan.totalWorkspaceBytes == 0);
  // Without "deterministic" the semaphore takes no bytes and sits at the end.
  GradKernelDescription plain = parsedGradDescription();
  p = GradProblem();
  t = p.tensors();
  CHECK(buildGradLaunchPlan(plain, t.data(), kNumGradTensors, plan, error));
  CHECK(plan.workspaceBytes[kDQSemaphore] == 0 && plan.workspaceOffsets[kDQSemaphore] == 416000);
  CHECK(plan.totalWorkspaceBytes == 416000);
}

void testGradDeterministicErrors() {
  const std::string semaphoreParam = R"(, {"name": "dq_semaphore", "type": "ptr"})";
  const std::string semaphoreWorkspace =
      R"(, {"dtype": "u32", "name": "dq_semaphore", "shape": ["batch", "heads_q", "seq_q"]})";
  CHECK_DETERMINISTIC_ERROR(R"("deterministic": true)", R"("deterministic": 1)",
                            "\"deterministic\" must be a bool");
  // "deterministic" with the parameter or the workspace missing.
  CHECK_DETERMINISTIC_ERROR(
      semaphoreParam, "",
      "kernel description: \"params\" has no \"dq_semaphore\" pointer "
      "(\"deterministic\" is true: the kernels order dQ's additions with it)");
  CHECK_DETERMINISTIC_ERROR(semaphoreWorkspace, "",
                            "kernel description: \"workspaces\" must have 3 entries (delta, "
                            "dq_accum, dq_semaphore) where \"deterministic\" is true, found 2");
  // The parameter or the workspace without "deterministic".
  CHECK_DETERMINISTIC_ERROR(R"(, "deterministic": true)", "",
                            "kernel description: \"params\" has a \"dq_semaphore\" pointer "
                            "(\"dq_semaphore\" is for the deterministic kernels only, and "
                            "\"deterministic\" is not true)");
  CHECK_GRAD_ERROR(R"("lse_stride_h", "type": "u64"})",
                   R"("lse_stride_h", "type": "u64"})" + semaphoreParam,
                   "\"params\" has a \"dq_semaphore\" pointer (\"dq_semaphore\" is for the "
                   "deterministic kernels only");
  CHECK_GRAD_ERROR(R"("seq_q", 64]})", R"("seq_q", 64]})" + semaphoreWorkspace,
                   "kernel description: \"workspaces\" must have 2 entries (delta, dq_accum), "
                   "found 3 (\"dq_semaphore\" is for the deterministic kernels only, and "
                   "\"deterministic\" is not true)");
  CHECK_GRAD_ERROR(R"("name": "dq_accum", "shape": ["batch", "heads_q", "seq_q", 64])",
                   R"("name": "dq_semaphore", "shape": ["batch", "heads_q", "seq_q"])",
                   "workspaces[1]: \"name\" = \"dq_semaphore\" is not one of delta, dq_accum "
                   "(\"dq_semaphore\" is for the deterministic kernels only");
  // The workspace's own checks.
  CHECK_DETERMINISTIC_ERROR(
      R"("dtype": "u32", "name": "dq_semaphore")", R"("dtype": "f32", "name": "dq_semaphore")",
      "workspaces[2]: \"dtype\" = \"f32\": the dq_semaphore workspace is u32");
  CHECK_DETERMINISTIC_ERROR(R"("dtype": "f32", "name": "delta")",
                            R"("dtype": "u32", "name": "delta")",
                            "workspaces[0]: \"dtype\" = \"u32\": the workspaces are f32");
  CHECK_DETERMINISTIC_ERROR(R"("name": "dq_semaphore", "shape": ["batch", "heads_q", "seq_q"])",
                            R"("name": "dq_semaphore", "shape": ["batch", "heads_q", "seq_q", 1])",
                            "workspaces[2]: \"shape\" must be [\"batch\", \"heads_q\", "
                            "\"seq_q\"], found [\"batch\", \"heads_q\", \"seq_q\", 1]");
  CHECK_DETERMINISTIC_ERROR(R"("name": "dq_semaphore", "shape")", R"("name": "sem", "shape")",
                            "workspaces[2]: \"name\" = \"sem\" is not one of delta, dq_accum, "
                            "dq_semaphore");
  CHECK_DETERMINISTIC_ERROR(R"("name": "dq_semaphore", "shape")", R"("name": "delta", "shape")",
                            "workspaces[2]: workspace \"delta\" is listed twice");
  CHECK_DETERMINISTIC_ERROR(semaphoreParam, semaphoreParam + semaphoreParam,
                            "duplicate parameter name \"dq_semaphore\"");
  CHECK_DETERMINISTIC_ERROR(R"("dq_semaphore", "type": "ptr")", R"("dq_semaphore", "type": "u64")",
                            "parameter \"dq_semaphore\" cannot have type \"u64\" (expected ptr)");
}
