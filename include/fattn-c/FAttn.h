/*===- fattn-c/FAttn.h - C API of the fattn dialect ----------------*- C -*-===*\
|*                                                                            *|
|* The fattn dialect, its passes and its named pipelines for compilers that   *|
|* drive MLIR through its C API (mlir-c/IR.h, mlir-c/Pass.h). A typical       *|
|* embedder:                                                                  *|
|*                                                                            *|
|*   MlirDialectRegistry registry = mlirDialectRegistryCreate();              *|
|*   mlirFAttnRegisterDialects(registry);                                     *|
|*   MlirContext ctx = mlirContextCreateWithRegistry(registry, false);        *|
|*   mlirFAttnRegisterPassesAndPipelines();                                   *|
|*   ... parse or build IR with fattn.attention ...                           *|
|*   MlirPassManager pm = mlirPassManagerCreate(ctx);                         *|
|*   mlirOpPassManagerAddPipeline(mlirPassManagerGetAsOpPassManager(pm),      *|
|*       mlirStringRefCreateFromCString("fattn-cpu-pipeline{block-m=32}"),   *|
|*       onError, NULL);                                                      *|
|*   mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(module));              *|
|*                                                                            *|
|* The pipelines are the ones fattn-opt runs (`fattn-opt --help`):            *|
|* fattn-cpu-pipeline (to the LLVM dialect, for mlir-runner or an execution   *|
|* engine), fattn-sm80-pipeline and fattn-sm90-pipeline (to a gpu.module of   *|
|* NVVM kernels). Single passes: fattn-c/Passes.h.                            *|
\*===----------------------------------------------------------------------===*/

#ifndef FATTN_C_FATTN_H
#define FATTN_C_FATTN_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* mlirGetDialectHandle__fattn__(): the fattn dialect alone. */
MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(FAttn, fattn);

/* Inserts the fattn dialect, the dialects its passes read and create (func,
 * arith, math, memref, scf, tensor, linalg, bufferization, vector, affine,
 * cf, index, gpu, llvm, nvvm, ub) and the external models its pipelines query
 * into `registry`. Translation to LLVM IR and the NVVM target of
 * gpu-module-to-binary are left to the embedder. */
MLIR_CAPI_EXPORTED void mlirFAttnRegisterDialects(MlirDialectRegistry registry);

/* Registers every fattn pass and the named pipelines with the global pass
 * registry, so that textual pipelines name them. Idempotent. */
MLIR_CAPI_EXPORTED void mlirFAttnRegisterPassesAndPipelines(void);

/* The attributes of a fattn.attention (README, "The op"). */
typedef struct MlirFAttnAttentionOptions {
  /* Multiplies Q K^T; 0: 1 / sqrt(head_dim). */
  float scale;
  /* window_right = 0 (with window_left = -1: causal). */
  bool causal;
  /* Query i sees key j iff i + Sk - Sq - windowLeft <= j <= i + Sk - Sq +
   * windowRight; -1: unbounded. */
  int64_t windowLeft;
  int64_t windowRight;
  /* > 0: s = softcap * tanh(s / softcap); 0: none. */
  float softcap;
} MlirFAttnAttentionOptions;

/* No mask, no softcap, the default scale. */
MLIR_CAPI_EXPORTED MlirFAttnAttentionOptions
mlirFAttnAttentionOptionsGetDefault(void);

/* Creates a fattn.attention of `q`, `k`, `v` into `o` (and the log-sum-exp
 * into `lse`; a null value for none) with `options`, detached: insert it
 * into a block (mlirBlockInsertOwnedOperation...). On tensors the op returns
 * the new O (and LSE). A null operation if q, k, v or o is null. The verifier
 * checks the shapes when the IR is verified or a pass manager runs; FP8
 * descales and value_layout: the generic mlirOperationCreate. */
MLIR_CAPI_EXPORTED MlirOperation mlirFAttnAttentionOpCreate(
    MlirLocation location, MlirValue q, MlirValue k, MlirValue v, MlirValue o,
    MlirValue lse, MlirFAttnAttentionOptions options);

/* Whether `op` is a fattn.attention. */
MLIR_CAPI_EXPORTED bool mlirOperationIsAFAttnAttentionOp(MlirOperation op);

#ifdef __cplusplus
}
#endif

#endif /* FATTN_C_FATTN_H */
