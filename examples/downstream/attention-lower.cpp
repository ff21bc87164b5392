//===- attention-lower.cpp - a compiler's driver that embeds fattn --------===//
//
// What a compiler that takes fattn as its attention lowering does: register
// fattn's dialect (with what its pipelines need) and passes, then lower its
// own module, with fattn.attention among ordinary code, through one of
// fattn's pipelines, built either in C++ (fattn::buildCPUPipeline, the
// default here) or from a textual pipeline that names fattn's passes:
//
//   attention-lower in.mlir                          CPU pipeline, C++ API
//   attention-lower in.mlir --block-m=32 --block-n=16
//   attention-lower in.mlir --pass-pipeline='builtin.module(fattn-tile)'
//
//===----------------------------------------------------------------------===//

#include "fattn/InitFAttn.h"
#include "fattn/Pipelines/Pipelines.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/FileUtilities.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

namespace cl = llvm::cl;

static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<input.mlir>"),
                                      cl::init("-"));
static cl::opt<std::string> outputFile("o", cl::desc("Output file"),
                                       cl::init("-"));
static cl::opt<std::string> textualPipeline(
    "pass-pipeline",
    cl::desc("A textual pipeline instead of the CPU pipeline, e.g. "
             "'builtin.module(fattn-tile{block-m=64})'"),
    cl::init(""));
static cl::opt<int64_t> blockM("block-m", cl::desc("CPU pipeline: Q rows per tile"),
                               cl::init(64));
static cl::opt<int64_t> blockN("block-n",
                               cl::desc("CPU pipeline: K/V rows per tile"),
                               cl::init(64));

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::ParseCommandLineOptions(argc, argv, "lowers attention with fattn\n");

  mlir::DialectRegistry registry;
  mlir::fattn::registerFAttnDialects(registry);
  mlir::fattn::registerFAttnPassesAndPipelines();
  mlir::MLIRContext context(registry);

  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input =
      mlir::openInputFile(inputFile, &error);
  if (!input) {
    llvm::errs() << error << "\n";
    return 1;
  }
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(sourceMgr, &context);
  if (!module)
    return 1;

  mlir::PassManager pm(&context);
  if (!textualPipeline.empty()) {
    // The whole pipeline with its anchor, as mlir-opt's --pass-pipeline.
    mlir::FailureOr<mlir::OpPassManager> parsed =
        mlir::parsePassPipeline(textualPipeline, llvm::errs());
    if (mlir::failed(parsed))
      return 1;
    if (parsed->getOpAnchorName() != mlir::ModuleOp::getOperationName()) {
      llvm::errs() << "expected a pipeline on builtin.module, found one on "
                   << parsed->getOpAnchorName() << "\n";
      return 1;
    }
    static_cast<mlir::OpPassManager &>(pm) = *parsed;
  } else {
    mlir::fattn::CPUPipelineOptions options;
    options.blockM = blockM;
    options.blockN = blockN;
    mlir::fattn::buildCPUPipeline(pm, options);
  }
  if (mlir::failed(pm.run(*module)))
    return 1;

  std::unique_ptr<llvm::ToolOutputFile> output =
      mlir::openOutputFile(outputFile, &error);
  if (!output) {
    llvm::errs() << error << "\n";
    return 1;
  }
  module->print(output->os());
  output->os() << "\n";
  output->keep();
  return 0;
}
