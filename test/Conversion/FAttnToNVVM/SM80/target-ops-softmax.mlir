// RUN: fattn-opt %s --fattn-tile="block-m=128 block-n=64" --fattn-sm80-async-copy --fattn-sm80-mma --convert-fattn-to-nvvm="keep-target-ops=true" | FileCheck %s --enable-var-scope --implicit-check-not=llvm.call_intrinsic --implicit-check-not=nvvm.inline_ptx --implicit-check-not=llvm.store --implicit-check-not=nvvm.barrier0
// RUN: fattn-opt %s --fattn-tile="block-m=128 block-n=64" --fattn-sm80-async-copy --fattn-sm80-mma --convert-fattn-to-nvvm="keep-target-ops=true" -o %t.l3.mlir
// RUN: fattn-opt %t.l3.mlir --convert-fattn-sm80-target-to-nvvm -o %t.split.mlir
// RUN: fattn-opt %s --fattn-tile="block-m=128 block-n=64" --fattn-sm80-async-copy --fattn-sm80-mma --convert-fattn-to-nvvm -o %t.whole.mlir
// RUN: diff %t.split.mlir %t.whole.mlir
// RUN: FileCheck %s --check-prefix=L4 --implicit-check-not=math. --implicit-check-not=fattn.sm80 < %t.split.mlir

// The sm_80 kernel's barriers, masks, softmax and LSE at L3 (a softcap and
// the LSE, causal): upstream's gpu.barrier, arith and math ops and
// fattn.sm80.store_lse, which --convert-fattn-sm80-target-to-nvvm lowers
// to the kernel that --convert-fattn-to-nvvm builds in one step (the diff):
// exp2, log2 and tanh as the approximate instructions.

func.func @attn(%q: memref<1x1x128x64xbf16>, %k: memref<1x1x128x64xbf16>, %v: memref<1x1x128x64xbf16>, %o: memref<1x1x128x64xbf16>, %lse: memref<1x1x128xf32>) {
  fattn.attention ins(%q, %k, %v : memref<1x1x128x64xbf16>, memref<1x1x128x64xbf16>, memref<1x1x128x64xbf16>) outs(%o : memref<1x1x128x64xbf16>) lse(%lse : memref<1x1x128xf32>) {causal = true, softcap = 30.0 : f32}
  return
}

// CHECK-LABEL: llvm.func @attn(
// Q in registers once its copies landed: the CTA's barrier.
// CHECK: nvgpu.device_async_wait %{{.*}} {numGroups = 1 : i32}
// CHECK-NEXT: gpu.barrier
// The unmasked tiles: S capped, softcap tanh(scale S / softcap).
// CHECK: scf.for
// CHECK: gpu.barrier
// CHECK: fattn.sm80.mma_m16n8k16
// CHECK: %[[IN:.*]] = arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT: %[[T:.*]] = math.tanh %[[IN]] : f32
// CHECK-NEXT: arith.mulf %[[T]], %{{.*}} : f32
// Row max over the quad, the probabilities and the rescale factor.
// CHECK: arith.maxnumf
// CHECK: gpu.shuffle  xor
// CHECK: %[[E:.*]] = math.fma %{{.*}}, %{{.*}}, %{{.*}} : f32
// CHECK-NEXT: math.exp2 %[[E]] : f32
// CHECK: scf.yield
// The diagonal tile: each score compared with the row's last visible key,
// -inf past it; a row without a key yet takes its probabilities against 0.
// CHECK: scf.for
// CHECK: math.tanh
// CHECK: %[[VISIBLE:.*]] = arith.cmpi sle, %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: arith.select %[[VISIBLE]], %{{.*}}, %{{.*}} : f32
// CHECK: %[[NOKEY:.*]] = arith.cmpf oeq, %{{.*}}, %{{.*}} : f32
// CHECK-NEXT: arith.select %[[NOKEY]], %{{.*}}, %{{.*}} : f32
// CHECK: math.exp2
// CHECK: scf.yield
// The epilogue: LSE = max + ln l (the softcap's scale is 1), -inf without
// keys, stored by the quad's first lane for rows before seq_q.
// CHECK: gpu.barrier
// CHECK: %[[LG:.*]] = math.log2 %{{.*}} : f32
// CHECK-NEXT: %[[LN:.*]] = arith.mulf %[[LG]], %{{.*}} : f32
// CHECK: %[[LSE:.*]] = arith.addf %{{.*}}, %[[LN]] : f32
// CHECK-NEXT: %[[VALUE:.*]] = arith.select %{{.*}}, %[[LSE]], %{{.*}} : f32
// CHECK: fattn.sm80.store_lse %[[VALUE]], %arg4[%{{.*}}]
// CHECK: fattn.sm80.sync_warp
// CHECK: fattn.sm80.store_rows

// L4-LABEL: llvm.func @attn(
// L4: nvvm.barrier0
// L4: nvvm.inline_ptx "tanh.approx.f32 $0, $1;"
// L4: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
// L4: llvm.call_intrinsic "llvm.nvvm.lg2.approx.f"
// L4: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr<1>
// L4: nvvm.bar.warp.sync
