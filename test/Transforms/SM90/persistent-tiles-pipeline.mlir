// fattn-sm90-pipeline's `persistent` option runs --fattn-persistent-tiles
// after the other scheduling passes, and its work loop reaches the lowering.
// RUN: fattn-opt %s --fattn-sm90-pipeline="persistent=true" --mlir-print-ir-before=convert-fattn-to-nvvm-sm90 -o /dev/null 2>&1 | FileCheck %s --check-prefix=ON
// RUN: fattn-opt %s --fattn-sm90-pipeline --mlir-print-ir-before=convert-fattn-to-nvvm-sm90 -o /dev/null 2>&1 | FileCheck %s --check-prefix=OFF
// Without warp specialization the pass does not run (like the overlap and
// pingpong passes, it needs the warpgroups).
// RUN: fattn-opt %s --fattn-sm90-pipeline="persistent=true warp-specialize=false" --mlir-print-ir-before=convert-fattn-to-nvvm-sm90 -o /dev/null 2>&1 | FileCheck %s --check-prefix=OFF
// RUN: fattn-opt %s --fattn-sm90-pipeline="persistent=true pingpong=true" --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=ORDER
// RUN: fattn-opt %s --fattn-sm90-pipeline="persistent=true warp-specialize=false" --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=ORDERNOWS

// ON: IR Dump Before ConvertFAttnToNVVMSM90
// ON: fattn.tiled_attention {{.*}}attributes {{{.*}}fattn.sm90.tma = #fattn.sm90_tma_plan<{{.*}}>{{.*}} {
// ON: fattn.work_loop {
// ON: fattn.warp_specialize

// OFF: IR Dump Before ConvertFAttnToNVVMSM90
// OFF-NOT: fattn.work_loop
// OFF: fattn.store_tile

// ORDER: fattn-warp-specialize
// ORDER-NEXT: fattn-intra-wg-overlap
// ORDER-NEXT: fattn-pingpong
// ORDER-NEXT: fattn-persistent-tiles
// ORDER-NEXT: fattn-fp8-layout
// ORDER-NEXT: convert-fattn-to-nvvm-sm90

// ORDERNOWS: fattn-sm90-tma
// ORDERNOWS-NEXT: fattn-fp8-layout
// ORDERNOWS-NOT: fattn-persistent-tiles

func.func @causal(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>, %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>) outs(%o : memref<?x?x?x128xbf16>) {causal = true}
  return
}
