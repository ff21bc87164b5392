// RUN: fattn-opt %s --fattn-sm90-pipeline --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=DEFAULT
// RUN: fattn-opt %s --fattn-sm90-pipeline="persistent=true reverse-q-tiles=false q-buffers=2 split-tail=true wide-value-mma=false row-sum-mma=true rescale-threshold=8 narrow-tail=32" --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=FIRST
// RUN: fattn-opt %s --fattn-sm90-pipeline="persistent=true work-order-tail=true row-sum-mma=true linear-exp2=true warpgroup-kv-ranges=true" --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=SECOND

// fattn-sm90-pipeline's options of the lowering choices add their passes
// (docs/SCHEDULING.md, "Lowering choices"), after the schedule and the FP8
// layout, the work plan's first; at its defaults it adds none, and the
// conversion takes no choice as an option.
// DEFAULT: fattn-fp8-layout
// DEFAULT-NOT: fattn-sm90-q-tile-order
// DEFAULT-NOT: fattn-sm90-q-buffers
// DEFAULT-NOT: fattn-sm90-work-tail
// DEFAULT-NOT: fattn-sm90-value-mma
// DEFAULT-NOT: fattn-sm90-row-sum-mma
// DEFAULT-NOT: fattn-sm90-linear-exp2
// DEFAULT-NOT: fattn-sm90-rescale-threshold
// DEFAULT-NOT: fattn-sm90-narrow-tail
// DEFAULT-NOT: fattn-sm90-warpgroup-kv-ranges
// DEFAULT: convert-fattn-to-nvvm-sm90{keep-target-ops=false kernel-name= module-name=fattn_sm90}

// FIRST: fattn-persistent-tiles
// FIRST: fattn-fp8-layout
// FIRST-NEXT: fattn-sm90-q-tile-order{order=forward}
// FIRST-NEXT: fattn-sm90-q-buffers{count=2}
// FIRST-NEXT: fattn-sm90-work-tail{tail=split}
// FIRST-NEXT: fattn-sm90-value-mma{form=per_atom}
// FIRST-NEXT: fattn-sm90-row-sum-mma
// FIRST-NEXT: fattn-sm90-rescale-threshold{threshold=8.000000e+00}
// FIRST-NEXT: fattn-sm90-narrow-tail{keys=32}
// FIRST-NEXT: convert-fattn-to-nvvm-sm90

// SECOND: fattn-sm90-work-tail{tail=pairs}
// SECOND-NEXT: fattn-sm90-row-sum-mma
// SECOND-NEXT: fattn-sm90-linear-exp2
// SECOND-NEXT: fattn-sm90-warpgroup-kv-ranges
// SECOND-NEXT: convert-fattn-to-nvvm-sm90
func.func @nothing_to_lower() {
  return
}
