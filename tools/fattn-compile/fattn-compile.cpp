//===- fattn-compile.cpp - fattn.attention functions -> PTX / cubin / JSON ===//
//
//   fattn-compile FILE.mlir --arch sm_80|sm_90a --emit ptx|cubin|json -o OUT
//
// Compiles every func.func of FILE whose body is one fattn.attention into a
// kernel named after the function (one whose body is one
// fattn.attention_grad into the three backward kernels <function>_preprocess,
// _main and _postprocess of fattn-sm80-grad-pipeline or
// fattn-sm90-grad-pipeline, in one PTX / cubin with one description): the target pipeline (fattn-sm80-pipeline
// or fattn-sm90-pipeline) with the options that Tuning.h chooses for the
// function's configuration, then
// gpu-module-to-binary{format=isa} for the PTX, then ptxas (--ptxas, else
// $CUDA_HOME/bin/ptxas, else /usr/local/cuda/bin/ptxas, else PATH) for the
// cubin. With one kernel, OUT is the .ptx/.cubin file; with several (and
// always for json) OUT is a directory receiving <entry>.ptx / <entry>.cubin
// and, for json, <entry>.json (docs/KERNEL-ABI.md).
//
//   fattn-compile --print-tuning
//
// prints Tuning.h's tables that pick a kernel (tuningRulesJSON).
//
//===----------------------------------------------------------------------===//

#include "fattn/Conversion/FAttnGradToNVVM/FAttnGradToNVVM.h"
#include "fattn/Conversion/FAttnToNVVM/FAttnToNVVM.h"
#include "fattn/Conversion/FAttnToNVVM/KernelDescription.h"
#include "fattn/Conversion/FAttnToNVVM/KernelSymbol.h"
#include "fattn/Conversion/FAttnToNVVM/SM90/SM90Lowering.h"
#include "fattn/Dialect/FAttn/IR/FAttnDialect.h"
#include "fattn/Dialect/FAttn/IR/FAttnGradOps.h"
#include "fattn/Dialect/FAttn/IR/FAttnOps.h"
#include "fattn/Pipelines/SM80GradPipeline.h"
#include "fattn/Pipelines/SM80Pipeline.h"
#include "fattn/Pipelines/SM90GradPipeline.h"
#include "fattn/Pipelines/SM90Pipeline.h"
#include "fattn/Pipelines/Tuning.h"

#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
namespace cl = llvm::cl;

// fattn-compile's own options: --help lists only these, not the ones that
// LLVM's libraries register (still accepted).
static cl::OptionCategory compileCategory("fattn-compile options");

static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<input .mlir>"),
                                      cl::cat(compileCategory));
static cl::opt<std::string> arch("arch", cl::desc("Target: sm_80 or sm_90a"),
                                 cl::init("sm_80"), cl::cat(compileCategory));
static cl::opt<std::string> emit("emit", cl::desc("ptx, cubin or json"),
                                 cl::init("json"), cl::cat(compileCategory));
static cl::opt<std::string> output("o", cl::desc("Output file or directory"),
                                   cl::cat(compileCategory));
static cl::opt<std::string> ptxasPath("ptxas", cl::desc("Path to ptxas"),
                                      cl::init(""), cl::cat(compileCategory));
static cl::opt<int64_t> blockM("block-m", cl::desc("Override block_m"),
                               cl::init(0), cl::cat(compileCategory));
static cl::opt<int64_t> blockN("block-n", cl::desc("Override block_n"),
                               cl::init(0), cl::cat(compileCategory));
static cl::opt<int64_t> stages("stages", cl::desc("Override the K/V stages"),
                               cl::init(0), cl::cat(compileCategory));
static cl::opt<std::string> pipelineOptions(
    "pipeline-options",
    cl::desc("Options of the target's pipeline (fattn-sm90-pipeline or "
             "fattn-sm80-pipeline, as fattn-opt --help lists them), applied "
             "over the tuned defaults and the tile options above, e.g. "
             "\"tma-store=true stages=2\""),
    cl::init(""), cl::cat(compileCategory));
static cl::opt<bool> verbose("v", cl::desc("Print ptxas's -v report"),
                             cl::init(false), cl::cat(compileCategory));
static cl::opt<bool> shortSeqs(
    "short-seqs",
    cl::desc("Tune the kernel for short sequences (flash_attn_func runs it "
             "up to 4096 queries and keys, or 1024 where only the 16-bit tile "
             "shape changes; the description's meta says \"tuned_for\": "
             "\"short_seqs\"); it stays correct for any length"),
    cl::init(false), cl::cat(compileCategory));

static cl::opt<bool> linearExp2(
    "linear-exp2",
    cl::desc("FP8 head-dim-128 kernels without an LSE take P's e4m3 bytes "
             "from a linear 2^x, without MUFU.EX2, and the row sums on the "
             "tensor cores (docs/FP8.md); =false keeps the exp2s"),
    cl::init(true), cl::cat(compileCategory));

static cl::opt<bool> printTuning(
    "print-tuning",
    cl::desc("Print the tables that pick a kernel for a configuration (which "
             "have a --short-seqs kernel, up to what length it runs, which "
             "descales run on another kernel) as JSON and exit; "
             "python/fattn/tuning.json is this output"),
    cl::init(false), cl::cat(compileCategory));

static cl::opt<bool> runtimeScalars(
    "runtime-scalars",
    cl::desc("Make the scale, and the softcap of an op that has one, kernel "
             "parameters that the caller passes at each launch (the "
             "description's \"runtime_scalars\"), so that one kernel serves "
             "every value: each becomes an f32 argument of the function"),
    cl::init(false), cl::cat(compileCategory));

/// The value of a description's "tuned_for" (meta) under --short-seqs.
constexpr llvm::StringLiteral kShortSeqsTuning = "short_seqs";

namespace {
struct Kernel {
  std::string entry;
  std::string ptx;
  DictionaryAttr info;     // sm_80: the facts the description is made of
  std::string description; // sm_90a: the whole description, from the lowering
  /// A backward function's kernels (entry, fattn.grad_kernel) in launch
  /// order.
  SmallVector<std::pair<std::string, DictionaryAttr>> gradKernels;
};

/// The attribute in which the sm_90a lowering leaves the kernel's complete
/// description (docs/KERNEL-ABI.md, tensor maps included).
constexpr llvm::StringLiteral kSM90DescriptionAttrName =
    "fattn.kernel_description";

int fail(const Twine &message) {
  llvm::errs() << "fattn-compile: error: " << message << "\n";
  return 1;
}

/// The fattn.attention that is the body of `func`, or null.
fattn::AttentionOp attentionBody(func::FuncOp func) {
  fattn::AttentionOp found;
  int ops = 0;
  func.walk([&](Operation *op) {
    if (auto attention = dyn_cast<fattn::AttentionOp>(op))
      found = attention;
    if (!isa<func::FuncOp, func::ReturnOp>(op))
      ++ops;
  });
  return ops == 1 ? found : fattn::AttentionOp();
}

/// The fattn.attention_grad that is the body of `func`, or null.
fattn::AttentionGradOp attentionGradBody(func::FuncOp func) {
  fattn::AttentionGradOp found;
  int ops = 0;
  func.walk([&](Operation *op) {
    if (auto grad = dyn_cast<fattn::AttentionGradOp>(op))
      found = grad;
    if (!isa<func::FuncOp, func::ReturnOp>(op))
      ++ops;
  });
  return ops == 1 ? found : fattn::AttentionGradOp();
}

/// --runtime-scalars: `op`'s scale attribute (or default), and its softcap
/// attribute when positive, become f32 arguments of `func` appended last,
/// passed to the op as its `scale(...)` and `softcap(...)` operands.
void makeScalarsRuntime(func::FuncOp func, fattn::AttentionOp op) {
  Type f32 = Float32Type::get(func.getContext());
  auto appendArgument = [&]() {
    unsigned index = func.getNumArguments();
    (void)func.insertArgument(index, f32, DictionaryAttr(), op.getLoc());
    return func.getArgument(index);
  };
  if (!op.getDynamicScale()) {
    op.getDynamicScaleMutable().assign(appendArgument());
    op.removeScaleAttr();
  }
  if (!op.getDynamicSoftcap() && op.getEffectiveSoftcap() > 0.0f) {
    op.getDynamicSoftcapMutable().assign(appendArgument());
    op.removeSoftcapAttr();
  }
}

/// The PTX of the gpu.module of `module` (gpu-module-to-binary).
FailureOr<std::string> serializeToPTX(ModuleOp module, func::FuncOp func) {
  PassManager serialize(module.getContext());
  GpuModuleToBinaryPassOptions binaryOptions;
  binaryOptions.compilationTarget = "isa";
  serialize.addPass(createGpuModuleToBinaryPass(binaryOptions));
  if (failed(serialize.run(module)))
    return failure();
  std::string ptx;
  module.walk([&](gpu::BinaryOp binary) {
    for (Attribute object : binary.getObjects())
      if (auto obj = dyn_cast<gpu::ObjectAttr>(object))
        ptx = obj.getObject().getValue().str();
  });
  if (ptx.empty())
    return func.emitError("gpu-module-to-binary produced no PTX"), failure();
  return ptx;
}

/// The backward pipeline `name` with --pipeline-options, into `pm`.
template <typename Options>
LogicalResult addGradPipeline(PassManager &pm, func::FuncOp func,
                              void (*buildPipeline)(OpPassManager &,
                                                    const Options &),
                              StringRef name) {
  Options options;
  if (!pipelineOptions.empty()) {
    std::string error;
    llvm::raw_string_ostream os(error);
    if (failed(options.parseFromString(pipelineOptions, os)))
      return emitError(func.getLoc())
             << "--pipeline-options '" << pipelineOptions
             << "' is not valid for " << name << ": " << error;
  }
  if constexpr (std::is_same_v<Options, fattn::SM90GradPipelineOptions>) {
    // The tile that is faster at this head dim, unless the options give one.
    if (!options.blockN.hasValue())
      if (fattn::AttentionGradOp grad = attentionGradBody(func))
        options.blockN = fattn::sm90GradBlockN(
            cast<ShapedType>(grad.getQuery().getType()).getShape().back());
  }
  buildPipeline(pm, options);
  return success();
}

/// The three backward kernels of `func` (fattn-sm80-grad-pipeline or
/// fattn-sm90-grad-pipeline, by --arch) in one PTX.
FailureOr<Kernel> compileGradFunction(func::FuncOp func) {
  OwningOpRef<ModuleOp> module = ModuleOp::create(func.getLoc());
  module->getBody()->push_back(func.clone());
  Kernel kernel;
  kernel.entry = func.getSymName().str();
  if (failed(fattn::checkKernelSymbol(func, "kernel name", kernel.entry)))
    return failure();
  PassManager pm(func.getContext());
  if (failed(arch == "sm_80"
                 ? addGradPipeline<fattn::SM80GradPipelineOptions>(
                       pm, func, fattn::buildSM80GradPipeline,
                       "fattn-sm80-grad-pipeline")
                 : addGradPipeline<fattn::SM90GradPipelineOptions>(
                       pm, func, fattn::buildSM90GradPipeline,
                       "fattn-sm90-grad-pipeline")))
    return failure();
  if (failed(pm.run(*module)))
    return failure();
  module->walk([&](LLVM::LLVMFuncOp kernelFunc) {
    if (auto info = kernelFunc->getAttrOfType<DictionaryAttr>(
            fattn::kGradKernelInfoAttrName)) {
      kernel.gradKernels.push_back({kernelFunc.getSymName().str(), info});
      kernelFunc->removeAttr(fattn::kGradKernelInfoAttrName);
    }
  });
  if (kernel.gradKernels.size() != 3)
    return func.emitError("the pipeline produced no backward kernels"),
           failure();
  FailureOr<std::string> ptx = serializeToPTX(*module, func);
  if (failed(ptx))
    return failure();
  kernel.ptx = std::move(*ptx);
  return kernel;
}

/// Runs the pipeline on a module holding just `func` and extracts the PTX.
FailureOr<Kernel> compileFunction(func::FuncOp func, fattn::AttentionOp op) {
  MLIRContext *ctx = func.getContext();
  OpBuilder b(ctx);
  OwningOpRef<ModuleOp> module = ModuleOp::create(func.getLoc());
  module->getBody()->push_back(func.clone());
  std::string entry = func.getSymName().str();
  // The function's name is the kernel's symbol and its files' names.
  if (failed(fattn::checkKernelSymbol(func, "kernel name", entry)))
    return failure();

  // The tuned options (Tuning.h), with the command line's tiles.
  fattn::AttentionFacts facts = fattn::AttentionFacts::of(op);
  fattn::TuningRequest request;
  request.shortSeqs = shortSeqs;
  request.linearExp2 = linearExp2;
  request.blockM = blockM;
  request.blockN = blockN;
  request.stages = stages;
  // --pipeline-options goes last, over every default chosen from the tiles.
  auto applyPipelineOptions = [&](auto &options) -> LogicalResult {
    std::string error;
    llvm::raw_string_ostream os(error);
    if (pipelineOptions.empty() ||
        succeeded(options.parseFromString(pipelineOptions, os)))
      return success();
    // A bad value is reported by llvm::cl itself, with an empty `error`.
    InFlightDiagnostic diag = emitError(op.getLoc())
                              << "--pipeline-options '" << pipelineOptions
                              << "' is not valid";
    if (StringRef reason = StringRef(error).trim(); !reason.empty())
      diag << ": " << reason;
    return diag;
  };
  PassManager pm(ctx);
  if (arch == "sm_80") {
    fattn::SM80PipelineOptions options;
    fattn::tuneSM80(facts, request).applyTo(options);
    if (failed(applyPipelineOptions(options)))
      return failure();
    fattn::buildSM80Pipeline(pm, options);
  } else {
    fattn::SM90PipelineOptions options;
    options.kernelName = entry;
    fattn::tuneSM90(facts, request).applyTo(options);
    if (failed(applyPipelineOptions(options)))
      return failure();
    fattn::buildSM90Pipeline(pm, options);
    pm.addPass(createConvertNVVMToLLVMPass());
    pm.addPass(createReconcileUnrealizedCastsPass());
  }
  if (failed(pm.run(*module)))
    return failure();

  // Read and strip the description before serialization.
  Kernel kernel;
  kernel.entry = entry;
  module->walk([&](LLVM::LLVMFuncOp kernelFunc) {
    if (auto info = kernelFunc->getAttrOfType<DictionaryAttr>(
            fattn::kKernelInfoAttrName)) {
      kernel.info = info;
      kernelFunc->removeAttr(fattn::kKernelInfoAttrName);
    }
    if (auto text =
            kernelFunc->getAttrOfType<StringAttr>(kSM90DescriptionAttrName)) {
      kernel.description = text.str();
      kernelFunc->removeAttr(kSM90DescriptionAttrName);
    }
  });
  if (!kernel.info && kernel.description.empty())
    return func.emitError("the pipeline produced no kernel"), failure();

  FailureOr<std::string> ptx = serializeToPTX(*module, func);
  if (failed(ptx))
    return failure();
  kernel.ptx = std::move(*ptx);
  return kernel;
}

std::string findPtxas() {
  if (!ptxasPath.empty())
    return ptxasPath;
  SmallVector<std::string> candidates;
  if (const char *home = std::getenv("CUDA_HOME"))
    candidates.push_back(std::string(home) + "/bin/ptxas");
  candidates.push_back("/usr/local/cuda/bin/ptxas");
  for (const std::string &c : candidates)
    if (llvm::sys::fs::can_execute(c))
      return c;
  if (auto onPath = llvm::sys::findProgramByName("ptxas"))
    return *onPath;
  return "";
}

LogicalResult writeFile(StringRef path, StringRef data) {
  std::string error;
  auto file = openOutputFile(path, &error);
  if (!file) {
    llvm::errs() << "fattn-compile: error: " << error << "\n";
    return failure();
  }
  file->os() << data;
  file->keep();
  return success();
}

/// The bytes of spill stores in ptxas -v's report (0 when none).
int64_t spillStoreBytes(StringRef report) {
  int64_t total = 0;
  for (StringRef line : llvm::split(report, '\n')) {
    size_t at = line.find(" bytes spill stores");
    if (at == StringRef::npos)
      continue;
    StringRef number = line.take_front(at).rsplit(' ').second;
    int64_t bytes = 0;
    if (!number.getAsInteger(10, bytes))
      total += bytes;
  }
  return total;
}

/// ptx -> cubin with ptxas. ptxas always runs with -v: a kernel that spills
/// registers gets a warning (it runs, slower), and --v prints the report.
LogicalResult assemble(StringRef ptxFile, StringRef cubinFile) {
  std::string ptxas = findPtxas();
  if (ptxas.empty()) {
    llvm::errs() << "fattn-compile: error: ptxas not found (use --ptxas, "
                    "$CUDA_HOME or /usr/local/cuda/bin)\n";
    return failure();
  }
  SmallString<128> reportFile;
  if (llvm::sys::fs::createTemporaryFile("fattn-ptxas", "txt", reportFile)) {
    llvm::errs() << "fattn-compile: error: cannot create a temporary file\n";
    return failure();
  }
  llvm::FileRemover removeReport(reportFile);
  SmallVector<StringRef> args = {ptxas, "-arch", arch, "-O3", "-v",
                                 ptxFile, "-o", cubinFile};
  // ptxas writes its report (and any error) to stderr.
  std::optional<StringRef> redirects[] = {std::nullopt, std::nullopt,
                                          StringRef(reportFile)};
  std::string error;
  int rc = llvm::sys::ExecuteAndWait(ptxas, args, std::nullopt, redirects, 0,
                                     0, &error);
  auto report = llvm::MemoryBuffer::getFile(reportFile);
  StringRef text = report ? (*report)->getBuffer() : StringRef();
  if (verbose || rc != 0)
    llvm::errs() << text;
  if (rc != 0) {
    llvm::errs() << "fattn-compile: error: ptxas failed on " << ptxFile
                 << " (exit " << rc << ") " << error << "\n";
    return failure();
  }
  if (int64_t spilled = spillStoreBytes(text))
    llvm::errs() << "fattn-compile: warning: " << ptxFile << ": ptxas spills "
                 << spilled << " bytes of registers (the kernel runs slower; "
                    "smaller tiles avoid it)\n";
  return success();
}

llvm::json::Value sm80Description(const Kernel &k) {
  fattn::KernelDescription d = fattn::describeSM80Kernel(k.info, k.entry);
  d.arch = arch;
  d.ptx = k.entry + ".ptx";
  d.meta.compiler = "fattn-compile";
  return fattn::toJSON(d);
}
/// The kernel's description, with the PTX named beside the cubin (the
/// runtime falls back to it where the cubin does not load).
FailureOr<llvm::json::Value> sourceDescription(const Kernel &k) {
  if (!k.gradKernels.empty())
    return llvm::json::Value(
        fattn::describeGradKernels(k.gradKernels, k.entry, arch));
  if (k.description.empty())
    return sm80Description(k);
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(k.description);
  if (!parsed) {
    llvm::errs() << "fattn-compile: error: the sm_90a description of "
                 << k.entry << " is not JSON: "
                 << llvm::toString(parsed.takeError()) << "\n";
    return failure();
  }
  if (llvm::json::Object *object = parsed->getAsObject())
    (*object)["ptx"] = k.entry + ".ptx";
  return std::move(*parsed);
}

/// The description, with what the kernel is tuned for: a library keeps a
/// --short-seqs kernel apart from the default one of its configuration.
FailureOr<llvm::json::Value> description(const Kernel &k) {
  FailureOr<llvm::json::Value> desc = sourceDescription(k);
  if (failed(desc) || !shortSeqs)
    return desc;
  if (llvm::json::Object *object = desc->getAsObject()) {
    llvm::json::Value &meta = (*object)["meta"];
    if (!meta.getAsObject())
      meta = llvm::json::Object{};
    (*meta.getAsObject())["tuned_for"] = kShortSeqsTuning;
  }
  return desc;
}
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM y(argc, argv);
  cl::HideUnrelatedOptions(compileCategory);
  cl::ParseCommandLineOptions(argc, argv, "fattn kernel compiler\n");
  if (printTuning) {
    llvm::outs() << llvm::formatv(
                        "{0:2}", llvm::json::Value(fattn::tuningRulesJSON()))
                 << "\n";
    return 0;
  }
  if (inputFile.empty() || output.empty())
    return fail("an input file and -o are required (see --help)");
  if (arch != "sm_80" && arch != "sm_90a")
    return fail("--arch " + arch + " is not supported (sm_80, sm_90a)");
  if (emit != "ptx" && emit != "cubin" && emit != "json")
    return fail("--emit must be ptx, cubin or json, found '" + emit + "'");

  DialectRegistry registry;
  registry.insert<fattn::FAttnDialect, func::FuncDialect, memref::MemRefDialect,
                  arith::ArithDialect, math::MathDialect, scf::SCFDialect,
                  gpu::GPUDialect, LLVM::LLVMDialect, NVVM::NVVMDialect>();
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerGPUDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();

  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(inputFile, sourceMgr, &context);
  if (!module)
    return 1;

  SmallVector<Kernel> kernels;
  for (auto func : module->getOps<func::FuncOp>()) {
    if (attentionGradBody(func)) {
      FailureOr<Kernel> kernel = compileGradFunction(func);
      if (failed(kernel))
        return 1;
      kernels.push_back(std::move(*kernel));
      continue;
    }
    fattn::AttentionOp op = attentionBody(func);
    if (!op)
      continue;
    if (runtimeScalars)
      makeScalarsRuntime(func, op);
    FailureOr<Kernel> kernel = compileFunction(func, op);
    if (failed(kernel))
      return 1;
    kernels.push_back(std::move(*kernel));
  }
  if (kernels.empty())
    return fail("no func.func in " + inputFile +
                " has a single fattn.attention or fattn.attention_grad as "
                "its body");

  bool toDirectory = emit == "json" || kernels.size() > 1;
  if (toDirectory)
    if (std::error_code ec = llvm::sys::fs::create_directories(output))
      return fail("cannot create directory " + output + ": " + ec.message());
  for (const Kernel &k : kernels) {
    auto pathFor = [&](StringRef ext) {
      if (!toDirectory)
        return std::string(output);
      SmallString<256> p(output);
      llvm::sys::path::append(p, k.entry + ext);
      return std::string(p);
    };
    if (emit == "ptx") {
      if (failed(writeFile(pathFor(".ptx"), k.ptx)))
        return 1;
      continue;
    }
    // ptxas reads the PTX from a file: beside the cubin in a directory,
    // else a temporary.
    std::string ptxFile;
    if (toDirectory) {
      ptxFile = pathFor(".ptx");
    } else {
      SmallString<128> tmp;
      if (llvm::sys::fs::createTemporaryFile("fattn", "ptx", tmp))
        return fail("cannot create a temporary file");
      ptxFile = std::string(tmp);
    }
    if (failed(writeFile(ptxFile, k.ptx)) ||
        failed(assemble(ptxFile, pathFor(".cubin"))))
      return 1;
    if (!toDirectory)
      llvm::sys::fs::remove(ptxFile);
    if (emit == "json") {
      std::string text;
      llvm::raw_string_ostream os(text);
      FailureOr<llvm::json::Value> json = description(k);
      if (failed(json))
        return 1;
      os << llvm::formatv("{0:2}", *json) << "\n";
      if (failed(writeFile(pathFor(".json"), text)))
        return 1;
    }
  }
  return 0;
}
