// RUN: fattn-opt %s --fattn-sm90-pipeline="kernel-name=k persistent=true" -o %t.mlir
// RUN: FileCheck %s --check-prefix=DESC < %t.mlir
// RUN: mlir-opt %t.mlir --convert-nvvm-to-llvm --reconcile-unrealized-casts --gpu-module-to-binary=format=isa -o %t.isa.mlir
// RUN: %python %fattn_src_root/bench/sm90/extract_ptx.py %t.isa.mlir %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: fattn-opt %s --fattn-sm90-pipeline="kernel-name=k" | FileCheck %s --check-prefix=GRID
// RUN: fattn-opt %s --fattn-sm90-pipeline="kernel-name=k persistent=true pingpong=true" -o %t.pp.mlir
// RUN: mlir-opt %t.pp.mlir --convert-nvvm-to-llvm --reconcile-unrealized-casts --gpu-module-to-binary=format=isa -o %t.pp.isa.mlir
// RUN: %python %fattn_src_root/bench/sm90/extract_ptx.py %t.pp.isa.mlir %t.pp.ptx
// RUN: FileCheck %s --check-prefix=PP --implicit-check-not="bar.arrive 1," --implicit-check-not="bar.sync 1," < %t.pp.ptx

// Persistent CTAs (--fattn-persistent-tiles), head dim 96 (held out of the
// library): one CTA per SM, which the runtime reads off the description.
// DESC: \22grid\22:{{\[\[}}\22num_sms\22,1]]
// Without the pass: one CTA per (Q tile, head, batch).
// GRID: \22grid\22:{{\[\[}}\22seq_q\22,128],[\22heads_q\22,1],[\22batch\22,1]]

// Q's full barrier, the barrier on which the consumers hand Q back (every
// consumer thread arrives), and the 2-stage ring's eight barriers.
// CHECK: mbarrier.init.shared.b64 [{{.*}}], 1;
// CHECK-NOT: mbarrier.init
// CHECK: mbarrier.init.shared.b64 [{{.*}}], 256;
// CHECK-COUNT-8: mbarrier.init.shared.b64
// CHECK-NOT: mbarrier.init
// The producer walks the rounds of the grid (ctaid, nctaid); before the
// first copy of an item (Q) it waits until the consumers handed the
// previous item's Q back.
// CHECK: mov.u32 {{.*}}, %ctaid.x;
// CHECK: mov.u32 {{.*}}, %nctaid.x;
// CHECK-NOT: mbarrier.arrive.expect_tx
// CHECK: mbarrier.try_wait.parity
// CHECK: mbarrier.arrive.expect_tx
// The consumers walk the same items.
// CHECK: setmaxnreg.inc.sync.aligned.u32 240;
// CHECK: mov.u32 {{.*}}, %ctaid.x;
// CHECK: mov.u32 {{.*}}, %nctaid.x;

// With pingpong the turns alternate across work items: the second consumer
// warpgroup's first arrival comes once, before the loop over items (per
// item, it could arrive twice on a barrier that the first warpgroup has not
// taken: a hang, measured at 8k causal), and the first warpgroup takes the
// last pending arrival once, after the loop, past every O store.
// PP: setmaxnreg.inc.sync.aligned.u32 240;
// PP: bar.arrive 1, 256;
// PP-NOT: mbarrier.try_wait
// PP: mov.u32 {{.*}}, %ctaid.x;
// PP: bar.sync {{%r[0-9]+}}, 256;
// PP: st.global
// PP: bar.sync 1, 256;
// PP-NOT: st.global
// PP: ret;
func.func @attn(%q: memref<?x?x?x96xbf16>, %k: memref<?x?x?x96xbf16>, %v: memref<?x?x?x96xbf16>, %o: memref<?x?x?x96xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x96xbf16>, memref<?x?x?x96xbf16>, memref<?x?x?x96xbf16>) outs(%o : memref<?x?x?x96xbf16>)
  return
}
