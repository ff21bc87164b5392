/*===- fattn-c/Runtime.h - C API of the fattn kernel runtime -------*- C -*-===*\
|*                                                                            *|
|* Loads a kernel that fattn-compile wrote (a JSON description and a cubin)   *|
|* and launches it on caller-owned device tensors through the CUDA driver     *|
|* API. docs/KERNEL-ABI.md describes the description and kernel parameters.   *|
|*                                                                            *|
|* Errors: every function returns a fattnStatus; on failure,                  *|
|* fattnGetLastError() gives a message for the calling thread that names the  *|
|* failing check or CUDA call and its CUresult (e.g. "cuModuleLoadData:       *|
|* CUDA_ERROR_NO_BINARY_FOR_GPU ...").                                        *|
|*                                                                            *|
|* Threads: a kernel handle may be launched from several threads at once.     *|
|* Contexts: a launch runs in the primary context of the device that owns     *|
|* the q tensor (the one CUDA runtime users such as PyTorch use); the module  *|
|* is loaded there on the first launch on that device.                        *|
\*===----------------------------------------------------------------------===*/

#ifndef FATTN_C_RUNTIME_H
#define FATTN_C_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define FATTN_RUNTIME_API __declspec(dllexport)
#else
#define FATTN_RUNTIME_API __attribute__((visibility("default")))
#endif

/* Bumped when a struct layout or a signature below changes. */
#define FATTN_RUNTIME_ABI_VERSION 1

typedef enum fattnStatus {
  FATTN_STATUS_SUCCESS = 0,
  FATTN_STATUS_INVALID_ARGUMENT = 1,    /* tensors do not match the kernel */
  FATTN_STATUS_INVALID_DESCRIPTION = 2, /* malformed JSON or description */
  FATTN_STATUS_IO_ERROR = 3,            /* a file could not be read */
  FATTN_STATUS_CUDA_ERROR = 4,          /* a CUDA driver call failed */
  FATTN_STATUS_INTERNAL_ERROR = 5
} fattnStatus;

typedef enum fattnDType {
  FATTN_DTYPE_F16 = 0,
  FATTN_DTYPE_BF16 = 1,
  FATTN_DTYPE_F32 = 2,
  FATTN_DTYPE_E4M3 = 3,
  FATTN_DTYPE_E5M2 = 4
} fattnDType;

/* Positions in the tensor array passed to a launch. A kernel with FP8
   descale factors (its description has "descale") takes all 8; slot 4 then
   has rank 0 and data 0 when the kernel writes no LSE. Others take 4, or 5
   with the LSE. */
typedef enum fattnTensorIndex {
  FATTN_TENSOR_Q = 0,
  FATTN_TENSOR_K = 1,
  FATTN_TENSOR_V = 2,
  FATTN_TENSOR_O = 3,
  FATTN_TENSOR_LSE = 4,
  FATTN_TENSOR_Q_DESCALE = 5,
  FATTN_TENSOR_K_DESCALE = 6,
  FATTN_TENSOR_V_DESCALE = 7
} fattnTensorIndex;

/* A strided device tensor. q, k, v, o have rank 4 with logical dims
   [batch, heads, seq, head_dim]; lse has rank 3, [batch, heads, seq]. Strides
   are in elements; the innermost stride must be 1. A descale (dtype F32) has
   rank 0 (one factor), 2 ([batch, heads_kv]) or 3 ([batch, heads, blocks],
   heads of q for q_descale, of k/v for the others), as the description's
   "descale" key says (docs/KERNEL-ABI.md). */
typedef struct fattnTensor {
  uint64_t data; /* device pointer to element [0, 0, 0, 0] */
  int32_t rank;
  int32_t dtype; /* a fattnDType */
  int64_t sizes[4];
  int64_t strides[4];
} fattnTensor;

/* Launch geometry that a launch with given tensors would use. */
typedef struct fattnLaunchConfig {
  uint32_t grid[3];
  uint32_t block[3];
  uint32_t cluster[3]; /* {1, 1, 1} without a cluster */
  uint32_t dynamic_smem_bytes;
  int32_t empty; /* 1 when there is nothing to compute and no launch happens */
} fattnLaunchConfig;

typedef struct fattnKernel_ *fattnKernel;

/* The message of the last failed call on this thread ("" if none). Valid
   until the next fattn call on this thread. */
FATTN_RUNTIME_API const char *fattnGetLastError(void);

FATTN_RUNTIME_API int32_t fattnRuntimeAbiVersion(void);

/* Reads a description file and the cubin it names (relative to the
   description's folder), and the optional "ptx" fallback. Does no CUDA work:
   modules are loaded on the first launch on each device. */
FATTN_RUNTIME_API fattnStatus fattnKernelLoadFile(const char *description_path,
                                                  fattnKernel *kernel);

/* The same from memory: `image` is a cubin, a fatbin or PTX text for
   cuModuleLoadData (copied; the caller may free it afterwards). */
FATTN_RUNTIME_API fattnStatus fattnKernelLoadData(const char *description_json,
                                                  size_t description_size, const void *image,
                                                  size_t image_size, fattnKernel *kernel);

/* Unloads the kernel's modules, frees its workspaces and itself. NULL is ignored. */
FATTN_RUNTIME_API void fattnKernelDestroy(fattnKernel kernel);

/* The kernel's entry name and whether it writes the LSE. */
FATTN_RUNTIME_API const char *fattnKernelEntry(fattnKernel kernel);
FATTN_RUNTIME_API int32_t fattnKernelHasLse(fattnKernel kernel);

/* Checks the tensors as a launch would and computes the launch geometry,
   without a GPU. `num_sms` stands in for the device's multiprocessor count
   (used by grids over "num_sms"). */
FATTN_RUNTIME_API fattnStatus fattnKernelGetLaunchConfig(fattnKernel kernel,
                                                         const fattnTensor *tensors,
                                                         int32_t num_tensors, uint32_t num_sms,
                                                         fattnLaunchConfig *config);

/* The value a launch passes as the kernel's "tail_pairs" parameter (the
   work order of persistent kernels of masked attention, docs/KERNEL-ABI.md),
   from the same checks and `num_sms` as fattnKernelGetLaunchConfig; 0 for a
   kernel without one. For launchers that fill the parameters themselves. */
FATTN_RUNTIME_API fattnStatus fattnKernelGetTailPairs(fattnKernel kernel,
                                                      const fattnTensor *tensors,
                                                      int32_t num_tensors, uint32_t num_sms,
                                                      uint32_t *tail_pairs);

/* Checks the tensors (q, k, v, o, and lse when the kernel writes it, then the
   three descales when it reads them, in that order), encodes tensor maps and
   launches asynchronously on `stream` (a CUstream; NULL is the legacy default
   stream of that device's primary context). Returns without launching when
   batch, heads or seq_q is 0. A kernel whose description has
   "workspace_bytes_per_cta" gets a zeroed scratch buffer that the runtime
   allocates on its first launch on each (device, stream) and frees in
   fattnKernelDestroy (docs/KERNEL-ABI.md). */
FATTN_RUNTIME_API fattnStatus fattnKernelLaunch(fattnKernel kernel, const fattnTensor *tensors,
                                                int32_t num_tensors, void *stream);

/* A launch's scale and softcap. A kernel whose description lists them in
   "runtime_scalars" takes them from here (each a positive finite number: a
   runtime softcap is on, 0 does not turn it off); for a kernel that compiled
   them in they must equal its values (to f32 precision; softcap 0 without
   one). */
typedef struct fattnScalars {
  double scale;
  double softcap;
} fattnScalars;

/* fattnKernelLaunch with the launch's scalars; `scalars` NULL is
   fattnKernelLaunch (the description's values: a kernel with a runtime
   softcap then fails). */
FATTN_RUNTIME_API fattnStatus fattnKernelLaunchWithScalars(fattnKernel kernel,
                                                           const fattnTensor *tensors,
                                                           int32_t num_tensors,
                                                           const fattnScalars *scalars,
                                                           void *stream);

/* Which scalars the caller passes at launch: bit 0 the scale, bit 1 the
   softcap ("runtime_scalars"). */
FATTN_RUNTIME_API int32_t fattnKernelRuntimeScalars(fattnKernel kernel);

/*===----------------------------------------------------------------------===*\
|* The backward pass (docs/KERNEL-ABI.md, "Backward"): a description of      *|
|* "kind": "attention_grad" names the kernels of fattn.attention_grad, which  *|
|* one launch runs in order on one stream.                                    *|
\*===----------------------------------------------------------------------===*/

/* The tensors of a backward launch, in this order: the forward's q, k, v,
   its output o and f32 lse [batch, heads_q, seq_q] (natural log), the
   output's gradient do (o's shape and dtype), and the gradients written, dq,
   dk, dv (q's, k's and v's shapes and dtype). */
typedef enum fattnGradTensorIndex {
  FATTN_GRAD_TENSOR_Q = 0,
  FATTN_GRAD_TENSOR_K = 1,
  FATTN_GRAD_TENSOR_V = 2,
  FATTN_GRAD_TENSOR_O = 3,
  FATTN_GRAD_TENSOR_DO = 4,
  FATTN_GRAD_TENSOR_LSE = 5,
  FATTN_GRAD_TENSOR_DQ = 6,
  FATTN_GRAD_TENSOR_DK = 7,
  FATTN_GRAD_TENSOR_DV = 8
} fattnGradTensorIndex;

typedef struct fattnGradKernel_ *fattnGradKernel;

/* As fattnKernelLoadFile / fattnKernelLoadData, for a backward description. */
FATTN_RUNTIME_API fattnStatus fattnGradKernelLoadFile(const char *description_path,
                                                      fattnGradKernel *kernel);
FATTN_RUNTIME_API fattnStatus fattnGradKernelLoadData(const char *description_json,
                                                      size_t description_size, const void *image,
                                                      size_t image_size, fattnGradKernel *kernel);

/* Unloads the modules, frees the cached workspaces and the handle. NULL is ignored. */
FATTN_RUNTIME_API void fattnGradKernelDestroy(fattnGradKernel kernel);

/* The bytes of the workspaces a launch with these tensors needs (the f32
   delta and dq_accum, and for a "deterministic" description the u32
   dq_semaphore), from the same checks as the launch, without a GPU; 0 when
   there is nothing to launch. */
FATTN_RUNTIME_API fattnStatus fattnGradKernelWorkspaceBytes(fattnGradKernel kernel,
                                                            const fattnTensor *tensors,
                                                            int32_t num_tensors,
                                                            uint64_t *bytes);

/* Checks the nine tensors (fattnGradTensorIndex) and launches the kernels in
   order on `stream`, asynchronously. `workspace`: a device buffer of at least
   fattnGradKernelWorkspaceBytes bytes, 256-byte aligned, that the launches
   may overwrite (no initialization needed) and that no other work uses until
   they finish; `workspace` 0 uses one that the runtime allocates on the
   first launch on each (device, stream), grows when a launch needs more
   (after synchronizing the stream) and frees in fattnGradKernelDestroy. A
   launch that allocates nothing (a caller's workspace, or a cached one large
   enough) may be captured into a CUDA graph. Launches nothing when batch,
   heads_q, seq_q or seq_k is 0: dq, dk and dv are then left as they are. */
FATTN_RUNTIME_API fattnStatus fattnGradKernelLaunch(fattnGradKernel kernel,
                                                    const fattnTensor *tensors,
                                                    int32_t num_tensors, uint64_t workspace,
                                                    uint64_t workspace_bytes, void *stream);

#ifdef __cplusplus
}
#endif

#endif /* FATTN_C_RUNTIME_H */
