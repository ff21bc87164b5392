// REQUIRES: ptxas
// RUN: fattn-opt %s --fattn-sm90-pipeline="block-n=128 kernel-name=kphase persistent=true" -o %t.mlir
// RUN: mlir-opt %t.mlir --convert-nvvm-to-llvm --reconcile-unrealized-casts --gpu-module-to-binary=format=isa -o %t.isa.mlir
// RUN: %python %fattn_src_root/bench/sm90/extract_ptx.py %t.isa.mlir %t.ptx
// RUN: %python %fattn_src_root/bench/sm90/phase_timer.py instrument %t.ptx %t.phase.ptx
// RUN: FileCheck %s --input-file=%t.phase.ptx
// RUN: %ptxas -arch=sm_90a -v %t.phase.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: env PH_TRACE=1 %python %fattn_src_root/bench/sm90/phase_timer.py instrument %t.ptx %t.trace.ptx
// RUN: FileCheck %s --check-prefix=TRACE --input-file=%t.trace.ptx
// RUN: %ptxas -arch=sm_90a -v %t.trace.ptx -o %t.trace.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS

// bench/sm90/phase_timer.py reads the SM clock around the phases of the
// consumer's KV loop (the innermost loop with the softmax's shuffles and the
// wait for P V, not the persistent work loop around it) and adds the counters
// of each warpgroup's thread 0 to a global array before the kernel returns.

// CHECK: .global .align 8 .u64 fattn_phase[32];
// CHECK: .visible .entry kphase(
// CHECK: mov.u32 {{.*}}%phl, %clock;
// The loop's top counts the iterations.
// CHECK: // phase_timer: KV loop [[TOP:\$L__BB[0-9_]+]]
// CHECK-NEXT: // phase_timer: end of other
// CHECK-NEXT: mov.u32 {{.*}}%phn, %clock;
// CHECK: add.u32 {{.*}}%pha7, %pha7, 1;
// CHECK: shfl.sync.bfly
// CHECK: // phase_timer: end of softmax
// CHECK: add.u32 {{.*}}%pha1, %pha1, %pht;
// CHECK-NEXT: mov.u32
// CHECK-NEXT: wgmma.wait_group.sync.aligned {{.*}}0;
// CHECK-NEXT: // phase_timer: end of pv-wait
// CHECK: // phase_timer: end of rescale
// CHECK: mbarrier.try_wait
// CHECK: // phase_timer: end of ring
// CHECK: wgmma.mma_async
// CHECK: // phase_timer: end of issue
// CHECK: add.u32 {{.*}}%pha5, %pha5, %pht;
// CHECK-NEXT: mov.u32
// CHECK-NEXT: wgmma.wait_group.sync.aligned {{.*}}1;
// CHECK-NEXT: // phase_timer: end of s-wait
// CHECK: bra{{.*}} [[TOP]];
// CHECK: red.global.add.u64 {{.*}}[%phaddr+56], %phw;
// CHECK-NEXT: PH_SKIP:
// CHECK-NEXT: ret;

// With PH_TRACE=1 every point stores (point, clock) to the warpgroup's slice
// of fattn_trace instead of adding to a sum, while the slice has room, and only
// in thread 0 of each warpgroup of CTA 0.
// TRACE: .global .align 8 .u32 fattn_trace[32768];
// TRACE: .visible .entry kphase(
// TRACE: mov.u32 {{.*}}%phn, %ctaid.x;
// TRACE-NEXT: or.b32 {{.*}}%pht, %pht, %phn;
// TRACE-NEXT: setp.eq.u32 {{.*}}%phtr, %pht, 0;
// TRACE-NEXT: shr.u32 {{.*}}%pht, %phtid, 7;
// TRACE-NEXT: mul.lo.u32 {{.*}}%phto, %pht, 32768;
// TRACE-NEXT: add.u32 {{.*}}%phte, %phto, 32768;
// TRACE: // phase_timer: end of softmax
// TRACE-NEXT: mov.u32 {{.*}}%phn, %clock;
// TRACE-NEXT: setp.lt.and.u32 {{.*}}%phq, %phto, %phte, %phtr;
// TRACE: @%phq st.global.v2.u32 {{.*}}[%phaddr], {1, %phn};
// TRACE-NEXT: @%phq add.u32 {{.*}}%phto, %phto, 8;
// TRACE-NEXT: wgmma.wait_group.sync.aligned {{.*}}0;
// TRACE-NOT: add.u32 {{.*}}%pha1, %pha1

// PTXAS: Compiling entry function 'kphase' for 'sm_90a'
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
func.func @attn(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>, %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>) outs(%o : memref<?x?x?x128xbf16>)
  return
}
