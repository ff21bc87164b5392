// RUN: fattn-opt %s --fattn-sm80-pipeline="host-launch=true" | FileCheck %s
// RUN: fattn-opt %s --fattn-sm90-pipeline="host-launch=true" | FileCheck %s

// Static shapes launch as dynamic ones do: the kernel is a GPU-dialect kernel
// (gpu.kernel) as well as an NVVM one, which gpu.launch_func requires.
// CHECK-LABEL: func.func @f(
// CHECK: gpu.launch_func @{{[a-z0-9_]+}}::@{{[a-z0-9_]+}} blocks in
// CHECK: gpu.module
// CHECK: llvm.func @{{.*}} attributes {{{.*}}gpu.kernel{{.*}}nvvm.kernel
func.func @f(%q: memref<1x2x100x64xbf16>, %k: memref<1x2x100x64xbf16>, %v: memref<1x2x100x64xbf16>, %o: memref<1x2x100x64xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<1x2x100x64xbf16>, memref<1x2x100x64xbf16>, memref<1x2x100x64xbf16>) outs(%o : memref<1x2x100x64xbf16>)
  return
}
