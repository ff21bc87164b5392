// Where the pipelines run --fattn-fp8-layout. fattn-sm90-pipeline: always
// (a no-op for bf16/f16), after the schedule passes, which expect P V as
// --fattn-tile builds it, and before the lowering that reads it back.
// RUN: fattn-opt %s --fattn-sm90-pipeline="pingpong=true" --dump-pass-pipeline 2>&1 | FileCheck %s --check-prefix=SM90
// SM90: fattn-warp-specialize
// SM90-NEXT: fattn-intra-wg-overlap
// SM90-NEXT: fattn-pingpong
// SM90-NEXT: fattn-fp8-layout
// SM90-NEXT: convert-fattn-to-nvvm-sm90
// RUN: fattn-opt %s --fattn-sm90-pipeline="warp-specialize=false" --dump-pass-pipeline 2>&1 | FileCheck %s --check-prefix=NOWS
// NOWS: fattn-sm90-tma
// NOWS-NEXT: fattn-fp8-layout
// NOWS-NEXT: convert-fattn-to-nvvm-sm90

// fattn-cpu-pipeline lowers the layout ops always, and runs the pass itself
// only with fp8-layout=1 (to execute the sm_90a order on the CPU).
// RUN: fattn-opt %s --fattn-cpu-pipeline --dump-pass-pipeline 2>&1 | FileCheck %s --check-prefix=CPU
// CPU: fattn-tile
// CPU-NEXT: fattn-lower-fp8-layout
// CPU-NEXT: fattn-lower-tiled-to-linalg
// RUN: fattn-opt %s --fattn-cpu-pipeline="fp8-layout=1" --dump-pass-pipeline 2>&1 | FileCheck %s --check-prefix=CPU-FP8
// CPU-FP8: fattn-tile
// CPU-FP8-NEXT: fattn-fp8-layout
// CPU-FP8-NEXT: fattn-lower-fp8-layout
// CPU-FP8-NEXT: fattn-lower-tiled-to-linalg
module {}
