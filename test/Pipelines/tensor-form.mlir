// The pipelines and fattn-compile take the memref form of fattn.attention:
// on the tensor form they stop with a diagnostic that says to bufferize.
// RUN: not fattn-opt %s --fattn-cpu-pipeline 2>&1 | FileCheck %s
// RUN: not fattn-opt %s --fattn-sm80-pipeline 2>&1 | FileCheck %s
// RUN: not fattn-opt %s --fattn-sm90-pipeline 2>&1 | FileCheck %s
// RUN: not fattn-compile %s --arch sm_90a --emit ptx -o %t 2>&1 | FileCheck %s
// And once bufferized, the CPU pipeline lowers it.
// RUN: fattn-opt %s --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --fattn-cpu-pipeline | FileCheck %s --check-prefix=LLVM

// CHECK: error: 'fattn.attention' op on tensors: --fattn-tile takes the memref form (run --one-shot-bufferize first)
// LLVM: llvm.func @k(
// LLVM-NOT: fattn.
func.func @k(%q: tensor<1x2x128x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x64xf16>, %o: tensor<1x2x128x64xf16>) -> tensor<1x2x128x64xf16> {
  %r = fattn.attention ins(%q, %k, %v : tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16>) outs(%o : tensor<1x2x128x64xf16>) -> tensor<1x2x128x64xf16>
  return %r : tensor<1x2x128x64xf16>
}
