// The C API (include/fattn-c) driven from C: registration, building a
// fattn.attention on memrefs and on tensors, its verifier's diagnostics, a
// single pass, the CPU pipeline and bufferization.
// RUN: %fattn_capi_test 2>&1 | FileCheck %s

#include "fattn-c/FAttn.h"
#include "fattn-c/Passes.h"

#include "mlir-c/Diagnostics.h"
#include "mlir-c/Dialect/Bufferization.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"

#include <stdio.h>
#include <stdlib.h>

static void printToStdout(MlirStringRef text, void *userData) {
  (void)userData;
  fwrite(text.data, 1, text.length, stdout);
}

static MlirLogicalResult printDiagnostic(MlirDiagnostic diagnostic,
                                         void *userData) {
  (void)userData;
  printf("diagnostic: ");
  mlirDiagnosticPrint(diagnostic, printToStdout, NULL);
  printf("\n");
  return mlirLogicalResultSuccess();
}

static MlirModule parse(MlirContext ctx, const char *source) {
  MlirModule module =
      mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(source));
  if (mlirModuleIsNull(module)) {
    fprintf(stderr, "cannot parse the test's module\n");
    exit(1);
  }
  return module;
}

// The first operation of the first function's body.
static MlirBlock firstFunctionBody(MlirModule module) {
  MlirOperation func = mlirBlockGetFirstOperation(mlirModuleGetBody(module));
  return mlirRegionGetFirstBlock(mlirOperationGetFirstRegion(func));
}

// Appends fattn.attention(args 0..4) with `options` before the terminator.
static MlirOperation buildAttention(MlirContext ctx, MlirModule module,
                                    MlirFAttnAttentionOptions options) {
  MlirBlock body = firstFunctionBody(module);
  MlirOperation attention = mlirFAttnAttentionOpCreate(
      mlirLocationUnknownGet(ctx), mlirBlockGetArgument(body, 0),
      mlirBlockGetArgument(body, 1), mlirBlockGetArgument(body, 2),
      mlirBlockGetArgument(body, 3), mlirBlockGetArgument(body, 4), options);
  mlirBlockInsertOwnedOperationBefore(body, mlirBlockGetTerminator(body),
                                      attention);
  return attention;
}

static int runPipeline(MlirContext ctx, MlirModule module,
                       const char *pipeline) {
  MlirPassManager pm = mlirPassManagerCreate(ctx);
  MlirLogicalResult parsed = mlirOpPassManagerAddPipeline(
      mlirPassManagerGetAsOpPassManager(pm),
      mlirStringRefCreateFromCString(pipeline), printToStdout, NULL);
  int ok = mlirLogicalResultIsSuccess(parsed) &&
           mlirLogicalResultIsSuccess(
               mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(module)));
  mlirPassManagerDestroy(pm);
  return ok;
}

static const char *kFunction =
    "func.func @attention(%q: memref<1x4x6x8xf32>, %k: memref<1x2x6x8xf32>,\n"
    "                     %v: memref<1x2x6x8xf32>, %o: memref<1x4x6x8xf32>,\n"
    "                     %lse: memref<1x4x6xf32>) {\n"
    "  return\n"
    "}\n";

int main(void) {
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  mlirFAttnRegisterDialects(registry);
  MlirContext ctx = mlirContextCreateWithRegistry(registry, false);
  mlirDialectRegistryDestroy(registry);
  mlirContextAttachDiagnosticHandler(ctx, printDiagnostic, NULL, NULL);
  mlirFAttnRegisterPassesAndPipelines();
  mlirFAttnRegisterPassesAndPipelines();

  // The dialect handle names the dialect.
  MlirStringRef ns =
      mlirDialectHandleGetNamespace(mlirGetDialectHandle__fattn__());
  printf("namespace: %.*s\n", (int)ns.length, ns.data);
  // CHECK: namespace: fattn

  // A causal GQA attention with an LSE, built from C.
  MlirModule module = parse(ctx, kFunction);
  MlirFAttnAttentionOptions options = mlirFAttnAttentionOptionsGetDefault();
  options.scale = 0.5f;
  options.causal = true;
  options.softcap = 30.0f;
  MlirOperation attention = buildAttention(ctx, module, options);
  printf("is attention: %d, verifies: %d\n",
         mlirOperationIsAFAttnAttentionOp(attention),
         mlirOperationVerify(mlirModuleGetOperation(module)));
  mlirOperationPrint(mlirModuleGetOperation(module), printToStdout, NULL);
  printf("\n");
  // CHECK: is attention: 1, verifies: 1
  // CHECK-LABEL: func.func @attention
  // CHECK-SAME: (%[[Q:.*]]: memref<1x4x6x8xf32>, %[[K:.*]]: memref<1x2x6x8xf32>, %[[V:.*]]: memref<1x2x6x8xf32>, %[[O:.*]]: memref<1x4x6x8xf32>, %[[LSE:.*]]: memref<1x4x6xf32>)
  // CHECK-NEXT: fattn.attention ins(%[[Q]], %[[K]], %[[V]] : memref<1x4x6x8xf32>, memref<1x2x6x8xf32>, memref<1x2x6x8xf32>) outs(%[[O]] : memref<1x4x6x8xf32>) lse(%[[LSE]] : memref<1x4x6xf32>)
  // CHECK-SAME: causal = true
  // CHECK-SAME: scale = 5.000000e-01 : f32
  // CHECK-SAME: softcap = 3.000000e+01 : f32
  // CHECK-NOT: window
  // CHECK-NEXT: return

  // A single pass, created through fattn-c/Passes.h.
  MlirPassManager pm = mlirPassManagerCreate(ctx);
  mlirPassManagerAddOwnedPass(pm, mlirCreateFAttnFAttnTile());
  printf("fattn-tile: %d\n",
         mlirLogicalResultIsSuccess(
             mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(module))));
  mlirPassManagerDestroy(pm);
  mlirOperationPrint(mlirModuleGetOperation(module), printToStdout, NULL);
  printf("\n");
  // CHECK: fattn-tile: 1
  // CHECK-LABEL: func.func @attention
  // CHECK-NOT: fattn.attention
  // CHECK: fattn.tiled_attention
  // CHECK: fattn.kv_tile_range
  // CHECK: fattn.finalize
  mlirModuleDestroy(module);

  // The CPU pipeline, named in a textual pipeline with options.
  module = parse(ctx, kFunction);
  options = mlirFAttnAttentionOptionsGetDefault();
  options.windowLeft = 2;
  options.windowRight = 1;
  buildAttention(ctx, module, options);
  printf("fattn-cpu-pipeline: %d\n",
         runPipeline(ctx, module, "fattn-cpu-pipeline{block-m=4 block-n=2}"));
  mlirOperationPrint(mlirModuleGetOperation(module), printToStdout, NULL);
  printf("\n");
  // CHECK: fattn-cpu-pipeline: 1
  // CHECK-NOT: {{fattn\.(tiled_)?attention}}
  // CHECK: llvm.func @attention
  // CHECK-NOT: {{fattn\.(tiled_)?attention}}
  mlirModuleDestroy(module);

  // The verifier's diagnostic reaches the C handler: K's head dim is not Q's.
  module = parse(
      ctx,
      "func.func @bad(%q: memref<1x4x6x8xf32>, %k: memref<1x2x6x4xf32>,\n"
      "               %v: memref<1x2x6x8xf32>, %o: memref<1x4x6x8xf32>,\n"
      "               %lse: memref<1x4x6xf32>) {\n"
      "  return\n"
      "}\n");
  buildAttention(ctx, module, mlirFAttnAttentionOptionsGetDefault());
  printf("verifies: %d\n", mlirOperationVerify(mlirModuleGetOperation(module)));
  // CHECK: diagnostic: 'fattn.attention' op expected key head dim (4) to match query head dim (8)
  // CHECK-NEXT: verifies: 0
  mlirModuleDestroy(module);

  // The tensor form: the op returns the new O and LSE, and bufferizes.
  module = parse(
      ctx,
      "func.func @attention(%q: tensor<1x4x6x8xf32>, %k: tensor<1x2x6x8xf32>,\n"
      "                     %v: tensor<1x2x6x8xf32>, %o: tensor<1x4x6x8xf32>,\n"
      "                     %lse: tensor<1x4x6xf32>)\n"
      "    -> (tensor<1x4x6x8xf32>, tensor<1x4x6xf32>) {\n"
      "  return %o, %lse : tensor<1x4x6x8xf32>, tensor<1x4x6xf32>\n"
      "}\n");
  options = mlirFAttnAttentionOptionsGetDefault();
  options.causal = true;
  attention = buildAttention(ctx, module, options);
  MlirOperation ret = mlirBlockGetTerminator(firstFunctionBody(module));
  mlirOperationSetOperand(ret, 0, mlirOperationGetResult(attention, 0));
  mlirOperationSetOperand(ret, 1, mlirOperationGetResult(attention, 1));
  printf("tensor results: %d, verifies: %d\n",
         (int)mlirOperationGetNumResults(attention),
         mlirOperationVerify(mlirModuleGetOperation(module)));
  mlirOperationPrint(mlirModuleGetOperation(module), printToStdout, NULL);
  printf("\n");
  // CHECK: tensor results: 2, verifies: 1
  // CHECK-LABEL: func.func @attention
  // CHECK-NEXT: %[[R:.*]]:2 = fattn.attention ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<1x4x6x8xf32>, tensor<1x2x6x8xf32>, tensor<1x2x6x8xf32>) outs(%{{.*}} : tensor<1x4x6x8xf32>) lse(%{{.*}} : tensor<1x4x6xf32>) {causal = true} -> tensor<1x4x6x8xf32>, tensor<1x4x6xf32>
  // CHECK-NEXT: return %[[R]]#0, %[[R]]#1
  // Upstream's bufferization pass, through upstream's C API: fattn's
  // registration brings the op's BufferizableOpInterface.
  mlirRegisterBufferizationOneShotBufferizePass();
  printf("one-shot-bufferize: %d\n",
         runPipeline(ctx, module,
                     "one-shot-bufferize{bufferize-function-boundaries=true}"));
  mlirOperationPrint(mlirModuleGetOperation(module), printToStdout, NULL);
  printf("\n");
  // CHECK: one-shot-bufferize: 1
  // CHECK-LABEL: func.func @attention
  // CHECK-NEXT: fattn.attention ins(%{{.*}}, %{{.*}}, %{{.*}} : memref<1x4x6x8xf32, {{.*}}>, memref<1x2x6x8xf32, {{.*}}>, memref<1x2x6x8xf32, {{.*}}>) outs(%[[O:.*]] : memref<1x4x6x8xf32, {{.*}}>) lse(%[[LSE:.*]] : memref<1x4x6xf32, {{.*}}>) {causal = true}
  // CHECK-NEXT: return %[[O]], %[[LSE]]
  mlirModuleDestroy(module);

  // A missing operand gives a null operation, not a crash.
  MlirValue none = {NULL};
  printf("null operand: %d\n",
         mlirOperationIsNull(mlirFAttnAttentionOpCreate(
             mlirLocationUnknownGet(ctx), none, none, none, none, none,
             mlirFAttnAttentionOptionsGetDefault())));
  // CHECK: null operand: 1

  // An unknown pipeline option is an error, not a crash.
  module = parse(ctx, kFunction);
  printf("bad option: %d\n",
         runPipeline(ctx, module, "fattn-cpu-pipeline{block-x=4}"));
  // CHECK: bad option: 0
  mlirModuleDestroy(module);

  mlirContextDestroy(ctx);
  return 0;
}
