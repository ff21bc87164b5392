// RUN: fattn-compile %s --arch sm_90a --emit ptx -o %t.sm90.ptx
// RUN: FileCheck %s --check-prefixes=COMMON,SM90 --input-file=%t.sm90.ptx
// RUN: FileCheck %s --check-prefix=TURN90 --input-file=%t.sm90.ptx
// RUN: fattn-compile %s --arch sm_80 --emit ptx -o %t.sm80.ptx
// RUN: FileCheck %s --check-prefixes=COMMON,SM80 --input-file=%t.sm80.ptx

// The deterministic backward's PTX on both targets: the counters' zeroing,
// the acquire load of the wait, the fences and the increment; on sm_90a the
// bulk reductions complete (wait_group 0, writes included) and are fenced
// against the generic proxy before the turn passes.
// (Within each kernel the blocks' order is llc's: DAG.)
// COMMON-LABEL: .visible .entry bwd_det_preprocess(
// COMMON: bwd_det_preprocess_param_42
// COMMON: st.global.b32 [%rd{{[0-9]+}}], 0;
// COMMON-LABEL: .visible .entry bwd_det_main(
// COMMON: bwd_det_main_param_42
// COMMON-DAG: ld.acquire.gpu.global.b32 %r{{[0-9]+}}, [%[[COUNTER:rd[0-9]+]]];
// COMMON-DAG: fence.acq_rel.gpu;
// COMMON-DAG: atom.global.add.u32 %r{{[0-9]+}}, [%[[COUNTER]]], 1;
// SM80-DAG: atom.global.add.f32
// SM90-DAG: cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32
// COMMON-LABEL: .visible .entry bwd_det_postprocess(
// TURN90: cp.async.bulk.wait_group 0;
// TURN90-NEXT: fence.proxy.async.global;
// TURN90-NEXT: fence.acq_rel.gpu;

func.func @bwd_det(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>, %v: memref<?x?x?x64xbf16>, %o: memref<?x?x?x64xbf16>, %do: memref<?x?x?x64xbf16>, %lse: memref<?x?x?xf32>, %dq: memref<?x?x?x64xbf16>, %dk: memref<?x?x?x64xbf16>, %dv: memref<?x?x?x64xbf16>) {
  fattn.attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?xf32>) outs(%dq, %dk, %dv : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>) {causal = true, deterministic}
  return
}
