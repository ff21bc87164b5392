//===- RuntimeTests.cpp - CPU-only tests of the runtime core --------------===//
//
// A plain executable (no gtest: the runtime builds where LLVM's gtest is not
// installed). Prints "N passed, N failed" and exits non-zero on a failure.
//
//===----------------------------------------------------------------------===//

#include "Check.h"

#include "fattn/Runtime/Json.h"
#include "fattn/Runtime/KernelDescription.h"
#include "fattn/Runtime/LaunchPlan.h"
#include "fattn/Runtime/TensorMapCheck.h"
#include "fattn/Dialect/FAttn/Utils/WorkOrder.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

using namespace fattn;
using namespace fattn::runtime;

int failures = 0;
int checks = 0;

namespace {

//===--------------------------------------------------------------------===//
// JSON
//===--------------------------------------------------------------------===//

std::string jsonError(const std::string &text) {
  json::Value v;
  std::string error;
  if (json::parse(text, v, error))
    return "(parsed)";
  return error;
}

void testJsonValid() {
  json::Value v;
  std::string error;
  CHECK(json::parse(R"( {"a": [1, -2.5e2, true, false, null], "b": {"c": "x\"\\\/\n\u00e9\ud83d\ude00"},
                         "big": 9007199254740993, "huge": 1e300, "z": 0} )",
                    v, error));
  CHECK(error.empty());
  CHECK(v.kind() == json::Kind::Object);
  const auto &a = v.find("a")->asArray();
  CHECK(a.size() == 5);
  CHECK(a[0].isInteger() && a[0].asInteger() == 1);
  CHECK(!a[1].isInteger() && a[1].asDouble() == -250.0);
  CHECK(a[2].asBool() && !a[3].asBool() && a[4].isNull());
  CHECK(v.find("b")->find("c")->asString() == "x\"\\/\n\xc3\xa9\xf0\x9f\x98\x80");
  // Integers are exact, not rounded through a double.
  CHECK(v.find("big")->asInteger() == 9007199254740993LL);
  CHECK(v.find("huge")->asDouble() == 1e300);
  CHECK(v.find("missing") == nullptr);
  CHECK(json::parse("[]", v, error) && v.asArray().empty());
  CHECK(json::parse("\"\"", v, error) && v.asString().empty());
  // Beyond int64: still a number, no longer an exact integer.
  CHECK(json::parse("123456789012345678901234", v, error) && !v.isInteger());
}

void testJsonStrict() {
  CHECK_CONTAINS(jsonError("{\"a\": 1,}"), "expected a string key");
  CHECK_CONTAINS(jsonError("[1, 2,]"), "unexpected character ']'");
  CHECK_CONTAINS(jsonError("// c\n{}"), "unexpected character '/'");
  CHECK_CONTAINS(jsonError("{\"a\": 01}"), "leading zeros");
  CHECK_CONTAINS(jsonError("[NaN]"), "unexpected character 'N'");
  CHECK_CONTAINS(jsonError("[Infinity]"), "unexpected character 'I'");
  CHECK_CONTAINS(jsonError("{\"a\": 1, \"a\": 2}"), "duplicate key \"a\"");
  CHECK_CONTAINS(jsonError("{} x"), "unexpected characters after the JSON value");
  CHECK_CONTAINS(jsonError("\"abc"), "unterminated string");
  CHECK_CONTAINS(jsonError("\"a\tb\""), "control character");
  CHECK_CONTAINS(jsonError("\"\\x\""), "invalid escape");
  CHECK_CONTAINS(jsonError("\"\\ud800\""), "unpaired UTF-16 surrogate");
  CHECK_CONTAINS(jsonError("[1.]"), "expected a digit after '.'");
  CHECK_CONTAINS(jsonError("[1e]"), "expected a digit in the exponent");
  CHECK_CONTAINS(jsonError("[tru]"), "invalid literal");
  CHECK_CONTAINS(jsonError("[1e999]"), "number out of range");
  CHECK_CONTAINS(jsonError(""), "unexpected end of input");
  CHECK_CONTAINS(jsonError(std::string(100, '[') + std::string(100, ']')), "nesting deeper");
  // Errors carry the line and column of the problem.
  CHECK_CONTAINS(jsonError("{\n  \"a\": 1\n  \"b\": 2}"), "line 3, column 3: expected ',' or '}'");
}

//===--------------------------------------------------------------------===//
// Kernel descriptions
//===--------------------------------------------------------------------===//

// The example of docs/KERNEL-ABI.md, with every parameter.
const char *kDescription = R"({
  "version": 1, "arch": "sm_80", "entry": "fattn_fwd_d128_bf16_causal",
  "cubin": "fattn_fwd_d128_bf16_causal.cubin", "dtype": "bf16",
  "head_dim_qk": 128, "head_dim_v": 128, "scale": 0.08838834764831845,
  "causal": true, "window_left": -1, "window_right": 0, "softcap": 0.0,
  "has_lse": true, "block_m": 128, "block_n": 64, "threads": 128,
  "dynamic_smem_bytes": 49152,
  "grid": [["seq_q", 128], ["heads_q", 1], ["batch", 1]],
  "params": [
    {"name": "q", "type": "ptr"}, {"name": "k", "type": "ptr"}, {"name": "v", "type": "ptr"},
    {"name": "o", "type": "ptr"}, {"name": "lse", "type": "ptr"},
    {"name": "batch", "type": "u32"}, {"name": "heads_q", "type": "u32"},
    {"name": "heads_kv", "type": "u32"}, {"name": "seq_q", "type": "u32"},
    {"name": "seq_k", "type": "u32"},
    {"name": "q_stride_b", "type": "u64"}, {"name": "q_stride_h", "type": "u64"},
    {"name": "q_stride_s", "type": "u64"},
    {"name": "k_stride_b", "type": "u64"}, {"name": "k_stride_h", "type": "u64"},
    {"name": "k_stride_s", "type": "u64"},
    {"name": "v_stride_b", "type": "u64"}, {"name": "v_stride_h", "type": "u64"},
    {"name": "v_stride_s", "type": "u64"},
    {"name": "o_stride_b", "type": "u64"}, {"name": "o_stride_h", "type": "u64"},
    {"name": "o_stride_s", "type": "u64"},
    {"name": "lse_stride_b", "type": "u64"}, {"name": "lse_stride_h", "type": "u64"}
  ]
})";

std::string descError(const std::string &text) {
  KernelDescription desc;
  std::string error;
  if (parseKernelDescription(text, desc, error))
    return "(parsed)";
  return error;
}

void testDescriptionValid() {
  KernelDescription d;
  std::string error;
  CHECK(parseKernelDescription(kDescription, d, error));
  CHECK(error.empty());
  if (!error.empty())
    std::printf("  %s\n", error.c_str());
  CHECK(d.entry == "fattn_fwd_d128_bf16_causal" && d.arch == "sm_80");
  CHECK(d.dtype == DType::BF16 && d.outDtype == DType::BF16);
  CHECK(d.headDimQK == 128 && d.headDimV == 128 && d.causal && d.windowRight == 0);
  CHECK(d.hasLse && d.threads == 128 && d.dynamicSmemBytes == 49152 && !d.hasCluster);
  CHECK(d.grid.size() == 3 && d.grid[0].size == SizeName::SeqQ && d.grid[0].divisor == 128);
  CHECK(d.params.size() == 24);
  CHECK(d.params[4].source == ParamSource::Pointer && d.params[4].tensor == kLse);
  CHECK(d.params[7].source == ParamSource::Size && d.params[7].size == SizeName::HeadsKV);
  CHECK(d.params[14].source == ParamSource::Stride && d.params[14].tensor == kK &&
        d.params[14].dim == 1);
  CHECK(d.alignBytes == 16);
}

void testDescriptionErrors() {
  std::string base = kDescription;
  CHECK_CONTAINS(descError("[1]"), "the top level must be an object");
  CHECK_CONTAINS(descError("{"), "invalid JSON: line 1");
  CHECK_CONTAINS(descError(replaceOnce(base, "\"version\": 1", "\"version\": 2")),
                 "\"version\" = 2 is out of range [1, 1]");
  CHECK_CONTAINS(descError(replaceOnce(base, "\"threads\": 128,", "")),
                 "missing required key \"threads\"");
  CHECK_CONTAINS(descError(replaceOnce(base, "\"threads\": 128", "\"threads\": \"128\"")),
                 "\"threads\" must be a number, found a string");
  CHECK_CONTAINS(descError(replaceOnce(base, "\"threads\": 128", "\"threads\": 1.5")),
                 "\"threads\" must be an integer");
  CHECK_CONTAINS(descError(replaceOnce(base, "\"block_n\": 64,", "\"block_n\": 64, \"clustr\": [2,1,1],")),
                 "unknown key \"clustr\"");
  CHECK_CONTAINS(descError(replaceOnce(base, "\"dtype\": \"bf16\"", "\"dtype\": \"fp16\"")),
                 "\"dtype\" = \"fp16\" is not an element type");
  CHECK_CONTAINS(descError(replaceOnce(base, "\"arch\": \"sm_80\"", "\"arch\": \"ampere\"")),
                 "is not of the form sm_XY");
  CHECK_CONTAINS(descError(replaceOnce(base, "\"scale\": 0.08838834764831845", "\"scale\": 0")),
                 "\"scale\" must be a positive finite number");
  CHECK_CONTAINS(descError(replaceOnce(base, "\"window_right\": 0", "\"window_right\": 3")),
                 "\"causal\" is true, so \"window_right\" must be 0");
  CHECK_CONTAINS(descError(replaceOnce(base, "\"has_lse\": true", "\"has_lse\": false")),
                 "params[4]: parameter \"lse\" is present but \"has_lse\" is false");
  CHECK_CONTAINS(descError(replaceOnce(base, "{\"name\": \"q\", \"type\": \"ptr\"}",
                                       "{\"name\": \"qq\", \"type\": \"ptr\"}")),
                 "params[0]: unknown parameter name \"qq\"");
  CHECK_CONTAINS(descError(replaceOnce(base, "{\"name\": \"k\", \"type\": \"ptr\"}",
                                       "{\"name\": \"q\", \"type\": \"ptr\"}")),
                 "params[1]: duplicate parameter name \"q\"");
  CHECK_CONTAINS(descError(replaceOnce(base, "{\"name\": \"batch\", \"type\": \"u32\"}",
                                       "{\"name\": \"batch\", \"type\": \"f32\"}")),
                 "parameter \"batch\" cannot have type \"f32\"");
  CHECK_CONTAINS(descError(replaceOnce(base, "{\"name\": \"batch\", \"type\": \"u32\"}",
                                       "{\"name\": \"batch\", \"type\": \"i32\"}")),
                 "\"type\" = \"i32\" is not one of");
  CHECK_CONTAINS(descError(replaceOnce(base, "{\"name\": \"batch\", \"type\": \"u32\"}",
                                       "{\"name\": \"batch\", \"type\": \"u32\", \"box\": [1]}")),
                 "params[5]: unknown key \"box\"");
  CHECK_CONTAINS(descError(replaceOnce(base, "[\"seq_q\", 128]", "[\"seqlen\", 128]")),
                 "\"grid\"[0]: \"seqlen\" is not one of");
  CHECK_CONTAINS(descError(replaceOnce(base, "[\"seq_q\", 128]", "[\"seq_q\", 0]")),
                 "the divisor must be in [1, 2^31]");
  CHECK_CONTAINS(descError(replaceOnce(base, "[\"seq_q\", 128], ", "[\"seq_q\"], ")),
                 "\"grid\"[0] must be [size name, divisor]");
  CHECK_CONTAINS(descError(replaceOnce(base, "\"block_n\": 64,", "\"block_n\": 64, \"cluster\": [2, 1],")),
                 "\"cluster\" must have 3 entries, found 2");
  CHECK_CONTAINS(descError(replaceOnce(base, "\"block_n\": 64,", "\"block_n\": 64, \"align_bytes\": 12,")),
                 "\"align_bytes\" must be a power of two");
}

const char *kTmaParam =
    R"({"name": "q_tma", "type": "tensormap", "tensor": "q", "element_type": "bf16",
        "box": [1, 1, 128, 64], "swizzle": "128B"})";

std::string withParam(const std::string &param) {
  return replaceOnce(kDescription, "{\"name\": \"q\", \"type\": \"ptr\"}", param);
}

void testTensorMapDescription() {
  KernelDescription d;
  std::string error;
  CHECK(parseKernelDescription(withParam(kTmaParam), d, error));
  if (!error.empty())
    std::printf("  %s\n", error.c_str());
  const ParamSpec &p = d.params[0];
  CHECK(p.type == ParamType::TensorMap && p.source == ParamSource::TensorMap);
  CHECK(p.tensorMap.tensor == kQ && p.tensorMap.swizzle == Swizzle::B128);
  CHECK((p.tensorMap.box == std::vector<uint32_t>{1, 1, 128, 64}));
  CHECK((p.tensorMap.elementStrides == std::vector<uint32_t>{1, 1, 1, 1}));
  CHECK(p.tensorMap.l2Promotion == L2Promotion::B256 && p.tensorMap.oobFill == OobFill::Zero);

  std::string tma = kTmaParam;
  CHECK_CONTAINS(descError(withParam(replaceOnce(tma, "[1, 1, 128, 64]", "[1, 128, 64]"))),
                 "\"box\" must have 4 entries, found 3");
  CHECK_CONTAINS(descError(withParam(replaceOnce(tma, "[1, 1, 128, 64]", "[1, 1, 128, 128]"))),
                 "spans 256 bytes, more than the swizzle span of 128");
  CHECK_CONTAINS(descError(withParam(replaceOnce(tma, "[1, 1, 128, 64]", "[1, 1, 128, 4]"))),
                 "TMA needs a multiple of 16");
  CHECK_CONTAINS(descError(withParam(replaceOnce(tma, "[1, 1, 128, 64]", "[1, 1, 512, 64]"))),
                 "\"box\" entries must be integers in [1, 256]");
  CHECK_CONTAINS(descError(withParam(replaceOnce(tma, "\"128B\"", "\"96B\""))),
                 "\"swizzle\" = \"96B\" is not one of none, 32B, 64B, 128B");
  CHECK_CONTAINS(descError(withParam(replaceOnce(tma, "\"bf16\"", "\"f32\""))),
                 "has a different size than the tensor's element type bf16");
  CHECK_CONTAINS(descError(withParam(replaceOnce(tma, "\"tensor\": \"q\"", "\"tensor\": \"x\""))),
                 "\"tensor\" = \"x\" is not one of q, k, v, o, lse");
  CHECK_CONTAINS(descError(withParam(replaceOnce(tma, "\"tensor\": \"q\",", ""))),
                 "missing required key \"tensor\"");
}

//===--------------------------------------------------------------------===//
// Launch plans
//===--------------------------------------------------------------------===//

/// A BSHD tensor viewed as [b, h, s, d], at a fake, well-aligned address.
TensorArg bshd(uint64_t data, DType dtype, int64_t b, int64_t s, int64_t h, int64_t d) {
  return TensorArg{data, 4, int32_t(dtype), {b, h, s, d}, {s * h * d, d, h * d, 1}};
}

struct Problem {
  std::vector<TensorArg> tensors;
  Problem(int64_t b, int64_t hq, int64_t hkv, int64_t sq, int64_t sk, int64_t d, bool lse,
          DType dtype = DType::BF16) {
    tensors.push_back(bshd(0x10000, dtype, b, sq, hq, d));
    tensors.push_back(bshd(0x20000, dtype, b, sk, hkv, d));
    tensors.push_back(bshd(0x30000, dtype, b, sk, hkv, d));
    tensors.push_back(bshd(0x40000, dtype, b, sq, hq, d));
    if (lse)
      tensors.push_back(TensorArg{0x50000, 3, int32_t(DType::F32), {b, hq, sq, 0},
                                  {hq * sq, sq, 1, 0}});
  }
};

KernelDescription exampleDescription(const std::string &text = kDescription) {
  KernelDescription d;
  std::string error;
  if (!parseKernelDescription(text, d, error))
    std::printf("  test bug: %s\n", error.c_str());
  return d;
}

std::string planError(const KernelDescription &d, const std::vector<TensorArg> &t) {
  LaunchPlan plan;
  std::string error;
  if (buildLaunchPlan(d, t.data(), int(t.size()), 132, plan, error))
    return "(planned)";
  return error;
}

template <typename T> T slotAs(const LaunchPlan &plan, size_t i) {
  T v;
  std::memcpy(&v, plan.params[i].bytes, sizeof(T));
  return v;
}

void testLaunchPlan() {
  KernelDescription d = exampleDescription();
  Problem p(2, 8, 2, 1000, 2049, 128, true);
  LaunchPlan plan;
  std::string error;
  CHECK(buildLaunchPlan(d, p.tensors.data(), 5, 132, plan, error));
  CHECK(!plan.empty);
  // ceildiv(1000, 128) = 8 Q tiles, 8 heads, 2 batches.
  CHECK(plan.grid[0] == 8 && plan.grid[1] == 8 && plan.grid[2] == 2);
  CHECK(plan.block[0] == 128 && plan.block[1] == 1 && plan.dynamicSmemBytes == 49152);
  CHECK(plan.params.size() == 24);
  CHECK(slotAs<uint64_t>(plan, 0) == 0x10000 && slotAs<uint64_t>(plan, 4) == 0x50000);
  CHECK(slotAs<uint32_t>(plan, 5) == 2 && slotAs<uint32_t>(plan, 6) == 8);
  CHECK(slotAs<uint32_t>(plan, 7) == 2 && slotAs<uint32_t>(plan, 8) == 1000);
  CHECK(slotAs<uint32_t>(plan, 9) == 2049);
  // q BSHD strides as [b, h, s]: s*h*d, d, h*d.
  CHECK(slotAs<uint64_t>(plan, 10) == 1000 * 8 * 128 && slotAs<uint64_t>(plan, 11) == 128 &&
        slotAs<uint64_t>(plan, 12) == 8 * 128);
  CHECK(slotAs<uint64_t>(plan, 13) == 2049 * 2 * 128);
  CHECK(slotAs<uint64_t>(plan, 22) == 8 * 1000 && slotAs<uint64_t>(plan, 23) == 1000);

  // One query row still needs one tile.
  Problem one(1, 1, 1, 1, 1, 128, true);
  CHECK(buildLaunchPlan(d, one.tensors.data(), 5, 132, plan, error));
  CHECK(plan.grid[0] == 1 && plan.grid[1] == 1 && plan.grid[2] == 1);

  // Nothing to do: no launch, no error.
  Problem empty(0, 8, 2, 17, 17, 128, true);
  CHECK(buildLaunchPlan(d, empty.tensors.data(), 5, 132, plan, error) && plan.empty);
  Problem noQueries(2, 8, 2, 0, 17, 128, true);
  CHECK(buildLaunchPlan(d, noQueries.tensors.data(), 5, 132, plan, error) && plan.empty);
}

void testLaunchPlanScalarsAndGridNames() {
  std::string text = replaceOnce(kDescription, "{\"name\": \"batch\", \"type\": \"u32\"}",
                                 "{\"name\": \"batch\", \"type\": \"u64\"}, "
                                 "{\"name\": \"scale_log2\", \"type\": \"f32\"}, "
                                 "{\"name\": \"softcap\", \"type\": \"f32\"}, "
                                 "{\"name\": \"num_sms\", \"type\": \"u32\"}");
  text = replaceOnce(text, "\"softcap\": 0.0", "\"softcap\": 30.0");
  text = replaceOnce(text, "[[\"seq_q\", 128], [\"heads_q\", 1], [\"batch\", 1]]",
                     "[[\"num_sms\", 1]]");
  KernelDescription d = exampleDescription(text);
  Problem p(2, 8, 2, 1000, 2049, 128, true);
  LaunchPlan plan;
  std::string error;
  CHECK(buildLaunchPlan(d, p.tensors.data(), 5, 132, plan, error));
  CHECK(plan.grid[0] == 132 && plan.grid[1] == 1 && plan.grid[2] == 1);
  CHECK(slotAs<uint64_t>(plan, 5) == 2);
  CHECK(std::fabs(slotAs<float>(plan, 6) - float(0.08838834764831845 * M_LOG2E)) < 1e-7f);
  CHECK(slotAs<float>(plan, 7) == 30.0f);
  CHECK(slotAs<uint32_t>(plan, 8) == 132);
}

// "runtime_scalars": the caller's scale and softcap at each launch.
void testLaunchPlanRuntimeScalars() {
  std::string text = replaceOnce(kDescription,
                                 "{\"name\": \"lse_stride_h\", \"type\": \"u64\"}",
                                 "{\"name\": \"lse_stride_h\", \"type\": \"u64\"}, "
                                 "{\"name\": \"scale\", \"type\": \"f32\"}, "
                                 "{\"name\": \"softcap\", \"type\": \"f32\"}");
  auto withScalars = [](const std::string &base, const char *list) {
    return replaceOnce(base, "\"params\":",
                       std::string("\"runtime_scalars\": ") + list + ", \"params\":");
  };
  KernelDescription d = exampleDescription(withScalars(text, "[\"scale\", \"softcap\"]"));
  CHECK(d.runtimeScale && d.runtimeSoftcap);
  Problem p(2, 8, 2, 1000, 2049, 128, true);
  LaunchPlan plan;
  std::string error;
  CHECK(buildLaunchPlan(d, p.tensors.data(), 5, 132, plan, error));
  LaunchScalars scalars{0.25, 30.0};
  CHECK(applyLaunchScalars(d, &scalars, plan, error));
  CHECK(slotAs<float>(plan, 24) == 0.25f && slotAs<float>(plan, 25) == 30.0f);
  // A runtime softcap has no default, and 0 does not turn it off.
  CHECK(!applyLaunchScalars(d, nullptr, plan, error));
  CHECK_CONTAINS(error, "softcap is a runtime value");
  scalars.softcap = 0.0;
  CHECK(!applyLaunchScalars(d, &scalars, plan, error));
  CHECK_CONTAINS(error, "softcap = 0.000000: this kernel's softcap is a runtime value");
  // A compiled-in softcap (0 here) must be the launch's.
  KernelDescription scaleOnly = exampleDescription(withScalars(text, "[\"scale\"]"));
  CHECK(scaleOnly.runtimeScale && !scaleOnly.runtimeSoftcap);
  CHECK(applyLaunchScalars(scaleOnly, &scalars, plan, error));
  scalars.softcap = 5.0;
  CHECK(!applyLaunchScalars(scaleOnly, &scalars, plan, error));
  CHECK_CONTAINS(error, "this kernel's softcap is compiled in");
  CHECK_CONTAINS(descError(withScalars(text, "[\"bias\"]")),
                 "\"runtime_scalars\" entries must be \"scale\" or \"softcap\"");
  CHECK_CONTAINS(descError(withScalars(text, "[\"scale\", \"scale\"]")),
                 "lists \"scale\" twice");
  CHECK_CONTAINS(descError(withScalars(kDescription, "[\"softcap\"]")),
                 "\"runtime_scalars\" lists \"softcap\" but \"params\" has no \"softcap\"");
}

// `rescale_margin`: the rescale threshold of "meta" over scale·log2(e), for
// the launch's scale.
void testLaunchPlanRescaleMargin() {
  std::string text = replaceOnce(kDescription,
                                 "{\"name\": \"lse_stride_h\", \"type\": \"u64\"}",
                                 "{\"name\": \"lse_stride_h\", \"type\": \"u64\"}, "
                                 "{\"name\": \"scale_log2\", \"type\": \"f32\"}, "
                                 "{\"name\": \"rescale_margin\", \"type\": \"f32\"}");
  std::string runtime =
      replaceOnce(text, "\"params\":", "\"runtime_scalars\": [\"scale\"], \"params\":");
  KernelDescription d = exampleDescription(
      replaceOnce(runtime, "\"params\":", "\"meta\": {\"rescale_threshold\": 8}, \"params\":"));
  CHECK(d.rescaleThreshold == 8.0);
  Problem p(2, 8, 2, 1000, 2049, 128, true);
  LaunchPlan plan;
  std::string error;
  CHECK(buildLaunchPlan(d, p.tensors.data(), 5, 132, plan, error));
  LaunchScalars scalars{0.25, 0.0};
  CHECK(applyLaunchScalars(d, &scalars, plan, error));
  CHECK(slotAs<float>(plan, 24) == float(0.25 * M_LOG2E));
  CHECK(slotAs<float>(plan, 25) == float(8.0 / (0.25 * M_LOG2E)));
  CHECK_CONTAINS(descError(runtime), "\"params\" has \"rescale_margin\" but \"meta\" has no "
                                     "positive \"rescale_threshold\"");
  CHECK_CONTAINS(descError(replaceOnce(runtime, "\"params\":",
                                       "\"meta\": {\"rescale_threshold\": -1}, \"params\":")),
                 "\"meta\": \"rescale_threshold\" must be a finite number >= 0");
}

void testLaunchPlanCluster() {
  std::string text =
      replaceOnce(kDescription, "\"block_n\": 64,", "\"block_n\": 64, \"cluster\": [2, 1, 1],");
  KernelDescription d = exampleDescription(text);
  CHECK(d.hasCluster && d.cluster[0] == 2);
  // ceildiv(300, 128) = 3 tiles, rounded up to whole clusters of 2.
  Problem p(1, 4, 4, 300, 300, 128, true);
  LaunchPlan plan;
  std::string error;
  CHECK(buildLaunchPlan(d, p.tensors.data(), 5, 132, plan, error));
  CHECK(plan.grid[0] == 4 && plan.hasCluster && plan.cluster[0] == 2 && plan.cluster[1] == 1);
}

void testLaunchPlanErrors() {
  KernelDescription d = exampleDescription();
  auto err = [&](const std::function<void(std::vector<TensorArg> &)> &mutate, int hkv = 2) {
    Problem p(2, 8, hkv, 113, 1000, 128, true);
    mutate(p.tensors);
    return planError(d, p.tensors);
  };
  CHECK(err([](auto &) {}) == "(planned)");
  CHECK_CONTAINS(err([](auto &t) { t.pop_back(); }),
                 "takes 5 tensors (q, k, v, o, lse), got 4 (this kernel writes the LSE");
  CHECK_CONTAINS(err([](auto &t) { t[1].dtype = int32_t(DType::F16); }),
                 "tensor 'k': dtype is f16, expected bf16 (kernel fattn_fwd_d128_bf16_causal)");
  CHECK_CONTAINS(err([](auto &t) { t[4].dtype = int32_t(DType::BF16); }),
                 "tensor 'lse': dtype is bf16, expected f32");
  CHECK_CONTAINS(err([](auto &t) { t[0].dtype = 42; }), "unknown dtype code 42");
  CHECK_CONTAINS(err([](auto &t) { t[2].rank = 3; }), "tensor 'v': rank is 3, expected 4");
  CHECK_CONTAINS(err([](auto &t) { t[1].sizes[3] = 64; }),
                 "tensor 'k': head_dim is 64, the kernel needs head_dim_qk = 128");
  CHECK_CONTAINS(err([](auto &t) { t[3].sizes[3] = 64; }),
                 "tensor 'o': head_dim is 64, the kernel needs head_dim_v = 128");
  CHECK_CONTAINS(err([](auto &t) { t[0].strides[3] = 2; }),
                 "tensor 'q': the head_dim stride is 2, it must be 1");
  CHECK_CONTAINS(err([](auto &t) { t[4].strides[2] = 2; }),
                 "tensor 'lse': the seq stride is 2, it must be 1");
  CHECK_CONTAINS(err([](auto &t) { t[1].sizes[0] = 3; }),
                 "tensor 'k': batch size is 3 but tensor 'q' has 2");
  CHECK_CONTAINS(err([](auto &t) { t[2].sizes[2] = 999; }),
                 "tensor 'v': seq size is 999 but tensor 'k' has 1000");
  CHECK_CONTAINS(err([](auto &t) { t[3].sizes[1] = 4; }),
                 "tensor 'o': heads size is 4 but tensor 'q' has 8");
  CHECK_CONTAINS(err([](auto &t) { t[4].sizes[2] = 112; }),
                 "tensor 'lse': seq size is 112 but tensor 'q' has 113");
  CHECK_CONTAINS(err([](auto &) {}, 3), "heads_q = 8 is not a multiple of heads_kv = 3");
  CHECK_CONTAINS(err([](auto &t) { t[0].data += 2; }),
                 "tensor 'q': data pointer is not 16-byte aligned");
  CHECK_CONTAINS(err([](auto &t) { t[1].strides[2] = 130; }),
                 "tensor 'k': the seq stride (130 elements) is not a multiple of 16 bytes");
  CHECK_CONTAINS(err([](auto &t) { t[0].strides[0] = -1; }), "batch stride -1 is negative");
  CHECK_CONTAINS(err([](auto &t) { t[0].data = 0; }), "tensor 'q': data pointer is null");
  CHECK_CONTAINS(err([](auto &t) { t[0].sizes[2] = int64_t(1) << 32; }),
                 "seq size 4294967296 is out of range");
  CHECK_CONTAINS(err([](auto &t) { t[1].sizes[2] = t[2].sizes[2] = 0; }),
                 "seq_k is 0 while seq_q is 113");
  // A strided BHSD view and a size-1 dim with an odd stride are fine.
  CHECK(err([](auto &t) {
          t[0].strides[0] = 8 * 113 * 128;
          t[0].strides[1] = 113 * 128;
          t[0].strides[2] = 128;
        }) == "(planned)");
  CHECK(err([](auto &t) {
          for (auto &x : t)
            x.sizes[0] = 1, x.strides[0] = 3;
        }) == "(planned)");

  // A kernel without LSE rejects an lse tensor.
  KernelDescription noLse = exampleDescription(replaceOnce(
      replaceOnce(replaceOnce(kDescription, "\"has_lse\": true", "\"has_lse\": false"),
                  ", {\"name\": \"lse\", \"type\": \"ptr\"}", ""),
      ",\n    {\"name\": \"lse_stride_b\", \"type\": \"u64\"}, {\"name\": \"lse_stride_h\", "
      "\"type\": \"u64\"}",
      ""));
  Problem p(2, 8, 2, 113, 1000, 128, true);
  CHECK_CONTAINS(planError(noLse, p.tensors), "got 5 (this kernel has no LSE output)");
  p.tensors.pop_back();
  CHECK(planError(noLse, p.tensors) == "(planned)");
}

void testTensorMapPlan() {
  KernelDescription d = exampleDescription(withParam(kTmaParam));
  Problem p(2, 8, 2, 1000, 2049, 128, true);
  LaunchPlan plan;
  std::string error;
  CHECK(buildLaunchPlan(d, p.tensors.data(), 5, 132, plan, error));
  CHECK(plan.tensorMaps.size() == 1);
  if (plan.tensorMaps.size() != 1)
    return;
  const TensorMapRequest &r = plan.tensorMaps[0];
  CHECK(r.slot == 0 && r.rank == 4 && r.globalAddress == 0x10000);
  // Innermost first: [d, s, h, b]; byte strides of s, h, b.
  CHECK(r.globalDims[0] == 128 && r.globalDims[1] == 1000 && r.globalDims[2] == 8 &&
        r.globalDims[3] == 2);
  CHECK(r.globalStridesBytes[0] == 8 * 128 * 2 && r.globalStridesBytes[1] == 128 * 2 &&
        r.globalStridesBytes[2] == 1000 * 8 * 128 * 2);
  CHECK(r.box[0] == 64 && r.box[1] == 128 && r.box[2] == 1 && r.box[3] == 1);
  CHECK(r.swizzle == Swizzle::B128 && r.elementType == DType::BF16);

  // TMA's own alignment rule is checked before the driver sees it.
  std::string text = replaceOnce(withParam(kTmaParam), "\"block_n\": 64,",
                                 "\"block_n\": 64, \"align_bytes\": 2,");
  KernelDescription loose = exampleDescription(text);
  p.tensors[0].data += 8;
  CHECK_CONTAINS(planError(loose, p.tensors),
                 "tensormap parameter 'q_tma' of tensor 'q': the data pointer is not 16-byte");

  // A broadcast batch (stride 0 over two entries) is refused, not read as a
  // 16-byte stride.
  p.tensors[0].data -= 8;
  p.tensors[0].strides[0] = 0;
  CHECK_CONTAINS(planError(d, p.tensors),
                 "tensormap parameter 'q_tma' of tensor 'q': the batch stride is 0 (a broadcast");
}

void testGridLimits() {
  std::string text =
      replaceOnce(kDescription, "[[\"seq_q\", 128], [\"heads_q\", 1], [\"batch\", 1]]",
                  "[[\"heads_q\", 1], [\"seq_q\", 1], [\"batch\", 1]]");
  KernelDescription d = exampleDescription(text);
  Problem p(1, 1, 1, 70000, 16, 128, true);
  CHECK_CONTAINS(planError(d, p.tensors), "grid dim y = ceildiv(seq_q = 70000, 1) = 70000 is out");
}


//===--------------------------------------------------------------------===//
// FP8 descale factors
//===--------------------------------------------------------------------===//

// An fp8 kernel without LSE that reads per-block Q and K descales (blocks of
// 128 and 64 rows) and a per-head V descale.
std::string fp8Description() {
  std::string text = replaceOnce(kDescription, "\"dtype\": \"bf16\"",
                                 "\"dtype\": \"e4m3\", \"out_dtype\": \"bf16\", \"descale\": "
                                 "{\"q\": {\"rank\": 3, \"block\": 128}, \"k\": {\"rank\": 3, "
                                 "\"block\": 64}, \"v\": {\"rank\": 2}}");
  text = replaceOnce(text, "\"has_lse\": true", "\"has_lse\": false");
  text = replaceOnce(text, ", {\"name\": \"lse\", \"type\": \"ptr\"}",
                     ", {\"name\": \"q_descale\", \"type\": \"ptr\"}, "
                     "{\"name\": \"k_descale\", \"type\": \"ptr\"}, "
                     "{\"name\": \"v_descale\", \"type\": \"ptr\"}");
  std::string strides;
  for (const char *t : {"q", "k", "v"})
    for (const char *d : {"b", "h", "blk"})
      strides += std::string(", {\"name\": \"") + t + "_descale_stride_" + d +
                 "\", \"type\": \"u64\"}";
  return replaceOnce(text,
                     "{\"name\": \"lse_stride_b\", \"type\": \"u64\"}, {\"name\": "
                     "\"lse_stride_h\", \"type\": \"u64\"}",
                     strides.substr(2));
}

void testDescaleDescription() {
  KernelDescription d;
  std::string error;
  CHECK(parseKernelDescription(fp8Description(), d, error));
  if (!error.empty())
    std::printf("  %s\n", error.c_str());
  CHECK(d.dtype == DType::E4M3 && d.outDtype == DType::BF16 && !d.hasLse && d.hasDescale);
  CHECK(d.descale[0].rank == 3 && d.descale[0].block == 128);
  CHECK(d.descale[1].rank == 3 && d.descale[1].block == 64);
  CHECK(d.descale[2].rank == 2 && d.descale[2].block == 0);
  // q k v o q_descale k_descale v_descale, 5 sizes, 12 + 9 strides.
  CHECK(d.params.size() == 33);
  CHECK(d.params[4].source == ParamSource::Pointer && d.params[4].tensor == kQDescale);
  CHECK(d.params[6].source == ParamSource::Pointer && d.params[6].tensor == kVDescale);
  CHECK(d.params[26].name == "q_descale_stride_blk" && d.params[26].source == ParamSource::Stride &&
        d.params[26].tensor == kQDescale && d.params[26].dim == 2);

  // Old descriptions have no descale and keep taking 4 or 5 tensors.
  CHECK(!exampleDescription().hasDescale);

  std::string fp8 = fp8Description();
  std::string q3 = "\"q\": {\"rank\": 3, \"block\": 128}";
  CHECK_CONTAINS(descError(replaceOnce(fp8, "\"dtype\": \"e4m3\"", "\"dtype\": \"bf16\"")),
                 "\"descale\": descale factors need an fp8 \"dtype\" (e4m3, e5m2), found bf16");
  CHECK_CONTAINS(descError(replaceOnce(fp8, q3, "\"q\": {\"rank\": 1}")),
                 "\"descale\".q: \"rank\" must be 0 (per tensor), 2 ([batch, heads_kv]) or 3");
  CHECK_CONTAINS(descError(replaceOnce(fp8, q3, "\"q\": {\"rank\": 4}")),
                 "\"descale\".q: \"rank\" = 4 is out of range [0, 3]");
  CHECK_CONTAINS(descError(replaceOnce(fp8, q3, "\"q\": {\"rank\": 3}")),
                 "\"descale\".q: a rank-3 (per block) descale needs \"block\"");
  CHECK_CONTAINS(descError(replaceOnce(fp8, "\"v\": {\"rank\": 2}",
                                       "\"v\": {\"rank\": 2, \"block\": 64}")),
                 "\"descale\".v: \"block\" is only for a rank-3 (per block) descale");
  CHECK_CONTAINS(descError(replaceOnce(fp8, q3, "\"q\": {\"rank\": 3, \"block\": 0}")),
                 "\"descale\".q: \"block\" = 0 is out of range");
  CHECK_CONTAINS(descError(replaceOnce(fp8, q3, "\"q\": {\"rank\": 3, \"blocks\": 128}")),
                 "\"descale\".q: unknown key \"blocks\"");
  CHECK_CONTAINS(descError(replaceOnce(fp8, ", \"v\": {\"rank\": 2}", "")),
                 "\"descale\": missing required key \"v\"");
  CHECK_CONTAINS(descError(replaceOnce(fp8, "\"v\": {\"rank\": 2}", "\"o\": {\"rank\": 2}")),
                 "\"descale\": unknown key \"o\"");
  CHECK_CONTAINS(descError(replaceOnce(fp8, "\"v\": {\"rank\": 2}", "\"v\": 2")),
                 "\"descale\": \"v\" must be a object");
  CHECK_CONTAINS(descError(replaceOnce(fp8, "{\"name\": \"k_descale\", \"type\": \"ptr\"}, ", "")),
                 "\"descale\" is present but \"params\" has no \"k_descale\" pointer");
  CHECK_CONTAINS(descError(replaceOnce(fp8, "\"k_descale_stride_blk\"", "\"k_descale_stride_s\"")),
                 "unknown parameter name \"k_descale_stride_s\"");
  CHECK_CONTAINS(descError(replaceOnce(fp8, "{\"name\": \"k_descale\", \"type\": \"ptr\"}",
                                       "{\"name\": \"k_descale\", \"type\": \"u64\"}")),
                 "parameter \"k_descale\" cannot have type \"u64\"");
  // Descale parameters without the key that says how to check the tensors.
  std::string noKey = replaceOnce(fp8, ", \"descale\": {\"q\": {\"rank\": 3, \"block\": 128}, "
                                       "\"k\": {\"rank\": 3, \"block\": 64}, \"v\": {\"rank\": 2}}",
                                  "");
  CHECK_CONTAINS(descError(noKey),
                 "params[4]: parameter \"q_descale\" is present but there is no \"descale\" key");
  CHECK_CONTAINS(descError(withParam(R"({"name": "q_map", "type": "tensormap", "tensor": "q_descale",
                                         "element_type": "f32", "box": [1, 1, 128, 64]})")),
                 "\"tensor\" = \"q_descale\" is not one of q, k, v, o, lse");
}

/// The fp8 problem of fp8Description: e4m3 q, k, v, bf16 o, an empty slot 4,
/// q_descale [b, hq, ceil(sq / 128)], k_descale [b, hkv, ceil(sk / 64)],
/// v_descale [b, hkv] (a transposed view: strides 1, b).
struct Fp8Problem {
  std::vector<TensorArg> tensors;
  Fp8Problem(int64_t b, int64_t hq, int64_t hkv, int64_t sq, int64_t sk, int64_t d) {
    Problem p(b, hq, hkv, sq, sk, d, false, DType::E4M3);
    tensors = p.tensors;
    tensors[kO].dtype = int32_t(DType::BF16);
    tensors.push_back(TensorArg{0, 0, int32_t(DType::F32), {}, {}});
    int64_t nq = (sq + 127) / 128, nk = (sk + 63) / 64;
    tensors.push_back(TensorArg{0x60000, 3, int32_t(DType::F32), {b, hq, nq, 0},
                                {hq * nq, nq, 1, 0}});
    tensors.push_back(TensorArg{0x70004, 3, int32_t(DType::F32), {b, hkv, nk, 0},
                                {hkv * nk, nk, 1, 0}});
    tensors.push_back(TensorArg{0x80000, 2, int32_t(DType::F32), {b, hkv, 0, 0}, {1, b, 0, 0}});
  }
};

void testDescalePlan() {
  KernelDescription d = exampleDescription(fp8Description());
  Fp8Problem p(2, 8, 2, 1000, 2049, 128);
  LaunchPlan plan;
  std::string error;
  CHECK(buildLaunchPlan(d, p.tensors.data(), 8, 132, plan, error));
  if (!error.empty())
    std::printf("  %s\n", error.c_str());
  CHECK(plan.grid[0] == 8 && plan.grid[1] == 8 && plan.grid[2] == 2);
  CHECK(plan.params.size() == 33);
  CHECK(slotAs<uint64_t>(plan, 3) == 0x40000 && slotAs<uint64_t>(plan, 4) == 0x60000 &&
        slotAs<uint64_t>(plan, 5) == 0x70004 && slotAs<uint64_t>(plan, 6) == 0x80000);
  // q_descale [2, 8, 8]: strides 64, 8, 1; k_descale [2, 2, 33]: 66, 33, 1;
  // v_descale [2, 2] (transposed): 1, 2 and 0 for the block dim it lacks.
  CHECK(slotAs<uint64_t>(plan, 24) == 64 && slotAs<uint64_t>(plan, 25) == 8 &&
        slotAs<uint64_t>(plan, 26) == 1);
  CHECK(slotAs<uint64_t>(plan, 27) == 66 && slotAs<uint64_t>(plan, 28) == 33 &&
        slotAs<uint64_t>(plan, 29) == 1);
  CHECK(slotAs<uint64_t>(plan, 30) == 1 && slotAs<uint64_t>(plan, 31) == 2 &&
        slotAs<uint64_t>(plan, 32) == 0);

  // Per-tensor descales: rank 0, every stride parameter 0.
  std::string text = fp8Description();
  text = replaceOnce(text, "{\"q\": {\"rank\": 3, \"block\": 128}, \"k\": {\"rank\": 3, "
                           "\"block\": 64}, \"v\": {\"rank\": 2}}",
                     "{\"q\": {\"rank\": 0}, \"k\": {\"rank\": 0}, \"v\": {\"rank\": 0}}");
  KernelDescription perTensor = exampleDescription(text);
  for (int t = kQDescale; t <= kVDescale; ++t)
    p.tensors[t] = TensorArg{uint64_t(0x90000 + 4 * t), 0, int32_t(DType::F32), {7, 7, 7, 7},
                             {5, 5, 5, 5}};
  CHECK(buildLaunchPlan(perTensor, p.tensors.data(), 8, 132, plan, error));
  for (size_t i = 24; i < 33; ++i)
    CHECK(slotAs<uint64_t>(plan, i) == 0);
  CHECK(slotAs<uint64_t>(plan, 4) == 0x90000 + 4 * kQDescale);

  // With an LSE, slot 4 is the lse tensor.
  text = replaceOnce(fp8Description(), "\"has_lse\": false", "\"has_lse\": true");
  text = replaceOnce(text, "{\"name\": \"q_descale\", \"type\": \"ptr\"}",
                     "{\"name\": \"lse\", \"type\": \"ptr\"}, "
                     "{\"name\": \"q_descale\", \"type\": \"ptr\"}");
  KernelDescription withLse = exampleDescription(text);
  Fp8Problem q(2, 8, 2, 1000, 2049, 128);
  q.tensors[kLse] = TensorArg{0x50000, 3, int32_t(DType::F32), {2, 8, 1000, 0},
                              {8000, 1000, 1, 0}};
  CHECK(buildLaunchPlan(withLse, q.tensors.data(), 8, 132, plan, error));
  CHECK(slotAs<uint64_t>(plan, 4) == 0x50000 && slotAs<uint64_t>(plan, 5) == 0x60000);
  q.tensors[kLse] = TensorArg{0, 0, int32_t(DType::F32), {}, {}};
  CHECK_CONTAINS(planError(withLse, q.tensors), "tensor 'lse': rank is 0, expected 3");
}

void testDescalePlanErrors() {
  KernelDescription d = exampleDescription(fp8Description());
  auto err = [&](const std::function<void(std::vector<TensorArg> &)> &mutate) {
    Fp8Problem p(2, 8, 2, 1000, 2049, 128);
    mutate(p.tensors);
    return planError(d, p.tensors);
  };
  CHECK(err([](auto &) {}) == "(planned)");
  CHECK_CONTAINS(err([](auto &t) { t.resize(5); }),
                 "takes 8 tensors (q, k, v, o, an empty slot 4, q_descale, k_descale, "
                 "v_descale), got 5 (this kernel reads fp8 descale factors in slots 5-7)");
  CHECK_CONTAINS(err([](auto &t) { t[kLse] = t[kQ]; }),
                 "tensor 'lse': this kernel writes no LSE; pass rank 0 and a null data pointer");
  CHECK_CONTAINS(err([](auto &t) { t[kQ].dtype = int32_t(DType::BF16); }),
                 "tensor 'q': dtype is bf16, expected e4m3");
  CHECK_CONTAINS(err([](auto &t) { t[kO].dtype = int32_t(DType::E4M3); }),
                 "tensor 'o': dtype is e4m3, expected bf16");
  CHECK_CONTAINS(err([](auto &t) { t[kQDescale].rank = 2; }),
                 "tensor 'q_descale': rank is 2, the kernel reads rank 3 (per block, [batch, "
                 "heads, blocks])");
  CHECK_CONTAINS(err([](auto &t) { t[kVDescale].rank = 0; }),
                 "tensor 'v_descale': rank is 0, the kernel reads rank 2 (per head, [batch, "
                 "heads_kv])");
  CHECK_CONTAINS(err([](auto &t) { t[kKDescale].dtype = int32_t(DType::BF16); }),
                 "tensor 'k_descale': dtype is bf16, expected f32");
  CHECK_CONTAINS(err([](auto &t) { t[kKDescale].sizes[2] = 32; }),
                 "tensor 'k_descale': shape [2, 2, 32] does not match the kernel's per-block "
                 "descale [batch, heads_kv, ceildiv(seq_k, 64)] = [2, 2, 33]");
  CHECK_CONTAINS(err([](auto &t) { t[kQDescale].sizes[1] = 2; }),
                 "tensor 'q_descale': shape [2, 2, 8] does not match the kernel's per-block "
                 "descale [batch, heads_q, ceildiv(seq_q, 128)] = [2, 8, 8]");
  CHECK_CONTAINS(err([](auto &t) { t[kVDescale].sizes[1] = 8; }),
                 "tensor 'v_descale': shape [2, 8] does not match the kernel's per-head "
                 "descale [batch, heads_kv] = [2, 2]");
  CHECK_CONTAINS(err([](auto &t) { t[kVDescale].data = 0; }),
                 "tensor 'v_descale': data pointer is null");
  CHECK_CONTAINS(err([](auto &t) { t[kVDescale].data += 2; }),
                 "tensor 'v_descale': data pointer is not 4-byte aligned");
  CHECK_CONTAINS(err([](auto &t) { t[kQDescale].strides[2] = -1; }),
                 "tensor 'q_descale': block stride -1 is negative");
  CHECK_CONTAINS(err([](auto &t) { t[kQDescale].sizes[0] = int64_t(1) << 31; }),
                 "tensor 'q_descale': batch size 2147483648 is out of range");
  CHECK_CONTAINS(err([](auto &t) { t[kKDescale].dtype = 9; }),
                 "tensor 'k_descale': unknown dtype code 9");

  // A kernel without descales refuses them.
  KernelDescription bf16 = exampleDescription();
  Problem p(2, 8, 2, 113, 1000, 128, true);
  p.tensors.resize(8, p.tensors[kLse]);
  CHECK_CONTAINS(planError(bf16, p.tensors),
                 "takes 5 tensors (q, k, v, o, lse), got 8 (this kernel reads no descale factors)");
}

//===--------------------------------------------------------------------===//
// FP8 V given pre-transposed ("value_layout")
//===--------------------------------------------------------------------===//

std::string transposedValueDescription() {
  return replaceOnce(fp8Description(), "\"dtype\": \"e4m3\"",
                     "\"dtype\": \"e4m3\", \"value_layout\": \"transposed_wgmma_e4m3_k32\"");
}

void testValueLayoutDescription() {
  KernelDescription d;
  std::string error;
  CHECK(parseKernelDescription(transposedValueDescription(), d, error));
  if (!error.empty())
    std::printf("  %s\n", error.c_str());
  CHECK(d.valueLayout == ValueLayout::TransposedWgmmaE4M3K32);
  CHECK(exampleDescription(fp8Description()).valueLayout == ValueLayout::Default);
  CHECK(exampleDescription().valueLayout == ValueLayout::Default);

  std::string vt = transposedValueDescription();
  const std::string key = "\"value_layout\": \"transposed_wgmma_e4m3_k32\"";
  CHECK_CONTAINS(descError(replaceOnce(vt, key, "\"value_layout\": \"transposed\"")),
                 "kernel description: \"value_layout\" = \"transposed\" is not one of "
                 "transposed_wgmma_e4m3_k32 (omit the key for V as [batch, heads_kv, seq_k, "
                 "head_dim_v])");
  CHECK_CONTAINS(descError(replaceOnce(vt, key, "\"value_layout\": \"\"")),
                 "\"value_layout\" = \"\" is not one of transposed_wgmma_e4m3_k32");
  CHECK_CONTAINS(descError(replaceOnce(vt, key, "\"value_layout\": 1")),
                 "\"value_layout\" must be a string, found a number");
  CHECK_CONTAINS(descError(replaceOnce(vt, "\"dtype\": \"e4m3\"", "\"dtype\": \"e5m2\"")),
                 "kernel description: \"value_layout\" = \"transposed_wgmma_e4m3_k32\" needs "
                 "\"dtype\" e4m3, found e5m2");
  CHECK_CONTAINS(descError(replaceOnce(kDescription, "\"dtype\": \"bf16\"",
                                       "\"dtype\": \"bf16\", " + key)),
                 "\"value_layout\" = \"transposed_wgmma_e4m3_k32\" needs \"dtype\" e4m3, "
                 "found bf16");
}

/// VT [b, hkv, d, keys], keys contiguous, at the V address of Fp8Problem.
TensorArg transposedValue(int64_t b, int64_t hkv, int64_t d, int64_t keys) {
  return TensorArg{0x30000, 4, int32_t(DType::E4M3), {b, hkv, d, keys},
                   {hkv * d * keys, d * keys, keys, 1}};
}

void testTransposedValuePlan() {
  // A V tensor map as the sm_90a kernels declare it: box [1, 1, head_dim_v, 128].
  std::string text = replaceOnce(
      transposedValueDescription(), "{\"name\": \"v_descale_stride_blk\", \"type\": \"u64\"}",
      "{\"name\": \"v_descale_stride_blk\", \"type\": \"u64\"}, {\"name\": \"v_tma\", \"type\": "
      "\"tensormap\", \"tensor\": \"v\", \"element_type\": \"e4m3\", \"box\": [1, 1, 128, 128], "
      "\"swizzle\": \"128B\"}");
  KernelDescription d = exampleDescription(text);
  // seq_k = 2049 keys, padded to 2064 slots.
  Fp8Problem p(2, 8, 2, 1000, 2049, 128);
  p.tensors[kV] = transposedValue(2, 2, 128, 2064);
  LaunchPlan plan;
  std::string error;
  CHECK(buildLaunchPlan(d, p.tensors.data(), 8, 132, plan, error));
  if (!error.empty())
    std::printf("  %s\n", error.c_str());
  // seq_k comes from k, not from V's padded keys.
  CHECK(slotAs<uint32_t>(plan, 11) == 2049);
  // v_stride_b, _h, _s are the strides of VT's dims 0, 1, 2.
  CHECK(slotAs<uint64_t>(plan, 18) == 2 * 128 * 2064 && slotAs<uint64_t>(plan, 19) == 128 * 2064 &&
        slotAs<uint64_t>(plan, 20) == 2064);
  CHECK(plan.tensorMaps.size() == 1);
  if (plan.tensorMaps.size() != 1)
    return;
  // Innermost first: [keys, d, h, b].
  const TensorMapRequest &r = plan.tensorMaps[0];
  CHECK(r.globalAddress == 0x30000 && r.rank == 4 && r.elementType == DType::E4M3);
  CHECK(r.globalDims[0] == 2064 && r.globalDims[1] == 128 && r.globalDims[2] == 2 &&
        r.globalDims[3] == 2);
  CHECK(r.globalStridesBytes[0] == 2064 && r.globalStridesBytes[1] == 128 * 2064 &&
        r.globalStridesBytes[2] == 2 * 128 * 2064);
  CHECK(r.box[0] == 128 && r.box[1] == 128 && r.box[2] == 1 && r.box[3] == 1);

  // No padding needed when seq_k is a multiple of 16; more slots than keys are fine.
  Fp8Problem exact(2, 8, 2, 1000, 2048, 128);
  exact.tensors[kV] = transposedValue(2, 2, 128, 2048);
  CHECK(planError(d, exact.tensors) == "(planned)");
  exact.tensors[kV] = transposedValue(2, 2, 128, 4096);
  CHECK(planError(d, exact.tensors) == "(planned)");

  // A kernel without the key checks V as before and refuses a transposed one.
  CHECK_CONTAINS(planError(exampleDescription(fp8Description()), p.tensors),
                 "tensor 'v': head_dim is 2064, the kernel needs head_dim_v = 128");
}

void testTransposedValuePlanErrors() {
  KernelDescription d = exampleDescription(transposedValueDescription());
  auto err = [&](const std::function<void(TensorArg &)> &mutate) {
    Fp8Problem p(2, 8, 2, 1000, 2049, 128);
    p.tensors[kV] = transposedValue(2, 2, 128, 2064);
    mutate(p.tensors[kV]);
    return planError(d, p.tensors);
  };
  const std::string form =
      "does not match [batch, heads_kv, head_dim_v, keys], value_layout transposed_wgmma_e4m3_k32";
  CHECK(err([](TensorArg &) {}) == "(planned)");
  CHECK_CONTAINS(err([](TensorArg &v) { v.sizes[0] = 3; }),
                 "tensor 'v': shape [3, 2, 128, 2064] " + form +
                     ": batch = 3, expected 2 (batch of tensor 'q') (kernel "
                     "fattn_fwd_d128_bf16_causal)");
  CHECK_CONTAINS(err([](TensorArg &v) { v.sizes[1] = 8; }),
                 "tensor 'v': shape [2, 8, 128, 2064] " + form +
                     ": heads_kv = 8, expected 2 (heads of tensor 'k')");
  CHECK_CONTAINS(err([](TensorArg &v) { v.sizes[2] = 64; }),
                 "tensor 'v': shape [2, 2, 64, 2064] " + form +
                     ": head_dim_v = 64, expected 128 (the kernel's head_dim_v)");
  CHECK_CONTAINS(err([](TensorArg &v) { v.sizes[3] = 2048; }),
                 "tensor 'v': shape [2, 2, 128, 2048] " + form +
                     ": keys = 2048, expected >= 2049 (seq of tensor 'k')");
  // Unpadded keys (the head_dim stride still 16-byte aligned, so this is the first error).
  CHECK_CONTAINS(err([](TensorArg &v) { v.sizes[3] = 2049; }),
                 "tensor 'v': shape [2, 2, 128, 2049] " + form +
                     ": keys = 2049, expected a multiple of 16 (pad to 2064)");
  // V as [batch, heads_kv, seq_k, head_dim_v], not transposed.
  CHECK_CONTAINS(err([](TensorArg &v) { v = bshd(0x30000, DType::E4M3, 2, 2064, 2, 128); }),
                 "tensor 'v': shape [2, 2, 2064, 128] " + form +
                     ": head_dim_v = 2064, expected 128");
  CHECK_CONTAINS(err([](TensorArg &v) { v.rank = 3; }),
                 "tensor 'v': rank is 3, expected 4 ([batch, heads_kv, head_dim_v, keys], "
                 "value_layout transposed_wgmma_e4m3_k32)");
  CHECK_CONTAINS(err([](TensorArg &v) { v.strides[3] = 2; }),
                 "tensor 'v': the keys stride is 2, it must be 1 (the innermost dim must be "
                 "contiguous)");
  CHECK_CONTAINS(err([](TensorArg &v) { v.strides[2] = 2072; }),
                 "tensor 'v': the head_dim stride (2072 elements) is not a multiple of 16 bytes");
  CHECK_CONTAINS(err([](TensorArg &v) { v.sizes[3] = -16; }),
                 "tensor 'v': keys size -16 is out of range");
  CHECK_CONTAINS(err([](TensorArg &v) { v.dtype = int32_t(DType::BF16); }),
                 "tensor 'v': dtype is bf16, expected e4m3");
}
} // namespace

// A persistent kernel with the split tail's workspace (sm_90a split-tail).
std::string workspaceDescription() {
  std::string text = replaceOnce(kDescription, "{\"name\": \"lse\", \"type\": \"ptr\"}",
                                 "{\"name\": \"lse\", \"type\": \"ptr\"}, "
                                 "{\"name\": \"workspace\", \"type\": \"ptr\"}");
  text = replaceOnce(text, "[[\"seq_q\", 128], [\"heads_q\", 1], [\"batch\", 1]]",
                     "[[\"num_sms\", 1]]");
  return replaceOnce(text, "\"block_n\": 64,",
                     "\"block_n\": 64, \"workspace_bytes_per_cta\": 69888,");
}

void testWorkspace() {
  KernelDescription d = exampleDescription(workspaceDescription());
  CHECK(d.workspaceBytesPerCta == 69888);
  CHECK(d.params.size() == 25 && d.params[5].source == ParamSource::Workspace);
  Problem p(2, 8, 2, 1000, 2049, 128, true);
  LaunchPlan plan;
  std::string error;
  CHECK(buildLaunchPlan(d, p.tensors.data(), 5, 132, plan, error));
  // One slot per CTA of the grid; the pointer is the launcher's to fill.
  CHECK(plan.workspaceSlot == 5 && plan.workspaceBytes == 132ull * 69888);
  CHECK(slotAs<uint64_t>(plan, 5) == 0 && slotAs<uint32_t>(plan, 6) == 2);
  // Without the key, nothing to allocate.
  CHECK(buildLaunchPlan(exampleDescription(), p.tensors.data(), 5, 132, plan, error) &&
        plan.workspaceBytes == 0);

  // The key and the parameter come together.
  std::string text = workspaceDescription();
  CHECK_CONTAINS(descError(replaceOnce(text, "\"workspace_bytes_per_cta\": 69888,", "")),
                 "params[5]: parameter \"workspace\" is present but there is no "
                 "\"workspace_bytes_per_cta\" key");
  CHECK_CONTAINS(descError(replaceOnce(text, ", {\"name\": \"workspace\", \"type\": \"ptr\"}",
                                       "")),
                 "\"workspace_bytes_per_cta\" is present but \"params\" has no "
                 "\"workspace\" pointer");
  CHECK_CONTAINS(descError(replaceOnce(text, "69888", "0")),
                 "\"workspace_bytes_per_cta\" = 0 is out of range");
  CHECK_CONTAINS(descError(replaceOnce(text, "{\"name\": \"workspace\", \"type\": \"ptr\"}",
                                       "{\"name\": \"workspace\", \"type\": \"u64\"}")),
                 "parameter \"workspace\" cannot have type \"u64\"");
}

// A persistent kernel of causal attention with the work order's tail.
std::string tailPairsDescription() {
  std::string text = replaceOnce(kDescription, "{\"name\": \"seq_k\", \"type\": \"u32\"}",
                                 "{\"name\": \"seq_k\", \"type\": \"u32\"}, "
                                 "{\"name\": \"tail_pairs\", \"type\": \"u32\"}");
  text = replaceOnce(text, "[[\"seq_q\", 128], [\"heads_q\", 1], [\"batch\", 1]]",
                     "[[\"num_sms\", 1]]");
  return replaceOnce(text, "\"block_n\": 64,",
                     "\"block_n\": 64, \"work_order\": {\"ctas_per_pair\": 2, "
                     "\"reverse_q_tiles\": true},");
}

void testTailPairs() {
  KernelDescription d = exampleDescription(tailPairsDescription());
  CHECK(d.hasWorkOrder && d.ctasPerPair == 2 && d.reverseQTiles);
  CHECK(d.params.size() == 25 && d.params[10].source == ParamSource::TailPairs);
  // 16 x 16 pairs of 8 Q tiles (1k, 128-row tiles of 64-key tiles): the
  // runtime passes WorkOrder.h's choice for its grid, a real tail, within
  // the K and V that L2 keeps (1024 keys x 256 values x 2 bytes = 512 KiB a
  // pair, so at most 48 pairs).
  Problem p(16, 16, 16, 1024, 1024, 128, true);
  LaunchPlan plan;
  std::string error;
  CHECK(buildLaunchPlan(d, p.tensors.data(), 5, 132, plan, error));
  auto kv = [](int64_t t) { return 2 * t + 2; };
  int64_t expected = mlir::fattn::chooseTailPairs(8, 256, 132, {true, true, 2}, kv, 48);
  CHECK(expected > 1 && expected <= 48);
  CHECK(slotAs<uint32_t>(plan, 10) == uint32_t(expected));
  CHECK(tailPairsFor(d, ProblemSizes{16, 16, 16, 1024, 1024, 132}, 132) == expected);
  // At 2k (1 MiB a pair, at most 24) no tail of 8 x 16 pairs fits in L2
  // and beats the order without one.
  CHECK(tailPairsFor(d, ProblemSizes{8, 16, 16, 2048, 2048, 132}, 132) == 1);
  // Few pairs (2 x 16 x 2 CTAs <= 132): all pairs are the tail, nothing to
  // choose; and the same without "work_order".
  Problem few(2, 16, 16, 2048, 2048, 128, true);
  CHECK(buildLaunchPlan(d, few.tensors.data(), 5, 132, plan, error) &&
        slotAs<uint32_t>(plan, 10) == 0);
  CHECK(tailPairsFor(exampleDescription(), ProblemSizes{8, 16, 16, 2048, 2048, 132}, 132) == 0);

  // The key and the parameter come together, with a mask.
  std::string text = tailPairsDescription();
  CHECK_CONTAINS(descError(replaceOnce(text, "\"work_order\": {\"ctas_per_pair\": 2, "
                                             "\"reverse_q_tiles\": true},", "")),
                 "params[10]: parameter \"tail_pairs\" is present but there is no "
                 "\"work_order\" key");
  CHECK_CONTAINS(descError(replaceOnce(text, ", {\"name\": \"tail_pairs\", \"type\": \"u32\"}",
                                       "")),
                 "\"work_order\" is present but \"params\" has no \"tail_pairs\"");
  CHECK_CONTAINS(descError(replaceOnce(replaceOnce(text, "\"causal\": true", "\"causal\": false"),
                                       "\"window_right\": 0", "\"window_right\": -1")),
                 "\"work_order\": needs a mask");
  CHECK_CONTAINS(descError(replaceOnce(text, "\"ctas_per_pair\": 2", "\"ctas_per_pair\": 0")),
                 "\"work_order\": \"ctas_per_pair\" = 0 is out of range");
  CHECK_CONTAINS(descError(replaceOnce(text, "\"reverse_q_tiles\"", "\"reverse\"")),
                 "\"work_order\": unknown key \"reverse\"");
  CHECK_CONTAINS(descError(replaceOnce(text, "{\"name\": \"tail_pairs\", \"type\": \"u32\"}",
                                       "{\"name\": \"tail_pairs\", \"type\": \"u64\"}")),
                 "parameter \"tail_pairs\" cannot have type \"u64\"");
}

// mgpuTensorMapEncodeTiled's explanation of a refused map: a bf16 BSHD view
// [2, 1000, 8, 128] as the sm_90a kernels' 128B-swizzled box [1, 1, 128, 64].
void testTiledTensorMapProblem() {
  uint64_t dims[4] = {128, 1000, 8, 2};
  uint64_t strides[3] = {8 * 128 * 2, 128 * 2, 1000 * 8 * 128 * 2};
  uint32_t box[4] = {64, 128, 1, 1};
  uint32_t steps[4] = {1, 1, 1, 1};
  TiledTensorMapArgs a;
  a.rank = 4;
  a.address = 1 << 20;
  a.dims = dims;
  a.stridesBytes = strides;
  a.box = box;
  a.elementStrides = steps;
  a.elementBytes = 2;
  a.swizzleBytes = 128;
  CHECK(tiledTensorMapProblem(a).empty());
  CHECK_CONTAINS(describeTiledTensorMap(a),
                 "dims [128, 1000, 8, 2], strides [2048, 256, 2048000] bytes, box [64, 128, 1, 1]");

  TiledTensorMapArgs b = a;
  b.address += 8;
  CHECK_CONTAINS(tiledTensorMapProblem(b), "not 16-byte aligned");
  uint64_t oddStrides[3] = {2048, 100, 2048000};
  b = a;
  b.stridesBytes = oddStrides;
  CHECK_CONTAINS(tiledTensorMapProblem(b),
                 "dim 2's stride is 100 bytes; it must be a multiple of 16 below 2^40");
  uint32_t wideBox[4] = {128, 128, 1, 1}; // 256 bytes of bf16 in a 128B swizzle
  b = a;
  b.box = wideBox;
  CHECK_CONTAINS(tiledTensorMapProblem(b), "spans 256 bytes, more than the 128-byte swizzle");
  b.swizzleBytes = 0;
  CHECK(tiledTensorMapProblem(b).empty());
  uint32_t narrowBox[4] = {4, 128, 1, 1}; // 8 bytes
  b = a;
  b.box = narrowBox;
  CHECK_CONTAINS(tiledTensorMapProblem(b), "spans 8 bytes; it must span a multiple of 16");
  uint32_t bigBox[4] = {64, 512, 1, 1};
  b = a;
  b.box = bigBox;
  CHECK_CONTAINS(tiledTensorMapProblem(b), "dim 1's box is 512; it must be 1 to 256");
  uint64_t emptyDims[4] = {128, 0, 8, 2};
  b = a;
  b.dims = emptyDims;
  CHECK_CONTAINS(tiledTensorMapProblem(b), "dim 1's size is 0; it must be 1 to 2^32");
  uint32_t badSteps[4] = {1, 9, 1, 1};
  b = a;
  b.elementStrides = badSteps;
  CHECK_CONTAINS(tiledTensorMapProblem(b), "dim 1's element stride is 9; it must be 1 to 8");
  b = a;
  b.rank = 6;
  CHECK_CONTAINS(tiledTensorMapProblem(b), "rank 6; it must be 1 to 5");
  b = a;
  b.box = nullptr;
  CHECK_CONTAINS(tiledTensorMapProblem(b), "a null dims, strides, box");
}

// GradRuntimeTests.cpp
void testGradDescriptionValid();
void testGradDescriptionErrors();
void testGradLaunchPlan();
void testGradLaunchPlanErrors();
void testGradDeterministicDescription();
void testGradDeterministicErrors();

int main() {
  struct Test {
    const char *name;
    void (*fn)();
  } tests[] = {
      {"JsonValid", testJsonValid},
      {"JsonStrict", testJsonStrict},
      {"DescriptionValid", testDescriptionValid},
      {"DescriptionErrors", testDescriptionErrors},
      {"TensorMapDescription", testTensorMapDescription},
      {"LaunchPlan", testLaunchPlan},
      {"LaunchPlanScalarsAndGridNames", testLaunchPlanScalarsAndGridNames},
      {"LaunchPlanRuntimeScalars", testLaunchPlanRuntimeScalars},
      {"LaunchPlanRescaleMargin", testLaunchPlanRescaleMargin},
      {"LaunchPlanCluster", testLaunchPlanCluster},
      {"LaunchPlanErrors", testLaunchPlanErrors},
      {"TensorMapPlan", testTensorMapPlan},
      {"GridLimits", testGridLimits},
      {"DescaleDescription", testDescaleDescription},
      {"DescalePlan", testDescalePlan},
      {"DescalePlanErrors", testDescalePlanErrors},
      {"ValueLayoutDescription", testValueLayoutDescription},
      {"TransposedValuePlan", testTransposedValuePlan},
      {"TransposedValuePlanErrors", testTransposedValuePlanErrors},
      {"Workspace", testWorkspace},
      {"TailPairs", testTailPairs},
      {"TiledTensorMapProblem", testTiledTensorMapProblem},
      {"GradDescriptionValid", testGradDescriptionValid},
      {"GradDescriptionErrors", testGradDescriptionErrors},
      {"GradLaunchPlan", testGradLaunchPlan},
      {"GradLaunchPlanErrors", testGradLaunchPlanErrors},
      {"GradDeterministicDescription", testGradDeterministicDescription},
      {"GradDeterministicErrors", testGradDeterministicErrors},
  };
  int passed = 0, failed = 0;
  for (const Test &t : tests) {
    int before = failures;
    t.fn();
    bool ok = failures == before;
    std::printf("%s %s\n", ok ? "PASS" : "FAIL", t.name);
    (ok ? passed : failed)++;
  }
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
