//===- KernelABI.h - Names the compiler and the runtime share ----*- C++ -*-===//
//
// The kernel description (docs/KERNEL-ABI.md) is written by the compiler and
// read by the runtime; the names both sides must spell alike live here.
// Plain C++ (the runtime builds without LLVM), in a namespace of its own
// (a top-level `fattn` would collide with mlir::fattn under `using
// namespace mlir`).
//
//===----------------------------------------------------------------------===//

#ifndef FATTN_KERNELABI_H
#define FATTN_KERNELABI_H

namespace fattn_abi {

/// `value_layout` of an FP8 V stored as V^T ([batch, kv_heads, head_dim,
/// keys]), its keys permuted within every 16 as the e4m3 P V wgmma reads
/// them.
inline constexpr char kTransposedValueLayout[] = "transposed_wgmma_e4m3_k32";

} // namespace fattn_abi

#endif // FATTN_KERNELABI_H
