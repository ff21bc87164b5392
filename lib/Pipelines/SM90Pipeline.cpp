//===- SM90Pipeline.cpp - fattn-sm90-pipeline -----------------------------===//
//
// fattn.attention -> tiled form -> TMA plan -> schedule (warp
// specialization, intra-warpgroup overlap, pingpong, persistent tiles) -> fp8
// layout -> sm_90a kernel (LLVM + NVVM in a gpu.module). gpu-module-to-binary
// (or fattn-compile) takes it from there.
//
//===----------------------------------------------------------------------===//

#include "fattn/Pipelines/SM90Pipeline.h"

#include "fattn/Conversion/FAttnToNVVM/SM90/Passes.h"
#include "fattn/Conversion/Passes.h"
#include "fattn/Conversion/FAttnToNVVM/SM90/SM90Lowering.h"
#include "fattn/Dialect/FAttn/Transforms/Passes.h"
#include "fattn/Dialect/FAttn/Transforms/SM90/Passes.h"

#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::fattn;

void mlir::fattn::buildSM90Pipeline(OpPassManager &pm,
                                    const SM90PipelineOptions &options) {
  if (options.hostLaunch)
    pm.addPass(createFAttnOutlineAttention());
  pm.addPass(createFAttnTile(FAttnTileOptions{options.blockM, options.blockN}));
  pm.addPass(createFAttnSM90TMA(
      FAttnSM90TMAOptions{options.stages, options.tmaStore}));
  // The schedule, decided in the IR; the overlap, pingpong and persistent
  // passes work on the warpgroups that warp specialization creates.
  if (options.warpSpecialize) {
    SM90Options registers;
    registers.consumerWarpgroups = options.consumers;
    setDefaultRegisters(registers, options.setmaxnreg);
    FAttnWarpSpecializeOptions specialize;
    specialize.consumers = options.consumers;
    specialize.producerRegisters = registers.producerRegisters;
    specialize.consumerRegisters = registers.consumerRegisters;
    if (options.setmaxnreg && options.producerRegisters > 0)
      specialize.producerRegisters = options.producerRegisters;
    if (options.setmaxnreg && options.consumerRegisters > 0)
      specialize.consumerRegisters = options.consumerRegisters;
    pm.addPass(createFAttnWarpSpecialize(specialize));
    if (options.intraWgOverlap)
      pm.addPass(createFAttnIntraWarpgroupOverlap());
    if (options.pingpong)
      pm.addPass(createFAttnPingpong());
    if (options.persistent)
      pm.addPass(createFAttnPersistentTiles());
  }
  // fp8 only (a no-op otherwise): the e4m3 wgmma layout of P V, after the
  // schedule, whose passes expect P V as --fattn-tile builds it.
  pm.addPass(createFAttnFP8Layout());
  // The lowering choices, each recorded in the IR by its pass where the
  // option asks for other than the lowering's default; the work plan's
  // first (the consumers' warpgroup KV ranges read its tail).
  if (!options.reverseQTiles)
    pm.addPass(createFAttnSM90QTileOrder(
        FAttnSM90QTileOrderOptions{SM90QTileOrder::Forward}));
  if (options.qBuffers != 1)
    pm.addPass(createFAttnSM90QBuffers(FAttnSM90QBuffersOptions{options.qBuffers}));
  if (options.splitTail)
    pm.addPass(createFAttnSM90WorkTail(
        FAttnSM90WorkTailOptions{SM90WorkTail::Split}));
  if (options.workOrderTail)
    pm.addPass(createFAttnSM90WorkTail(
        FAttnSM90WorkTailOptions{SM90WorkTail::Pairs}));
  if (!options.wideValueMma)
    pm.addPass(createFAttnSM90ValueMma(
        FAttnSM90ValueMmaOptions{SM90ValueMma::PerAtom}));
  if (options.rowSumMma)
    pm.addPass(createFAttnSM90RowSumMma());
  if (options.linearExp2)
    pm.addPass(createFAttnSM90LinearExp2());
  if (options.rescaleThreshold != 0.0f)
    pm.addPass(createFAttnSM90RescaleThreshold(
        FAttnSM90RescaleThresholdOptions{options.rescaleThreshold}));
  if (options.narrowTail != 0)
    pm.addPass(createFAttnSM90NarrowTail(
        FAttnSM90NarrowTailOptions{options.narrowTail}));
  if (options.warpgroupKVRanges)
    pm.addPass(createFAttnSM90WarpgroupKVRanges());
  ConvertFAttnToNVVMSM90Options convert;
  convert.kernelName = options.kernelName;
  convert.keepTargetOps = options.keepTargetOps;
  pm.addPass(createConvertFAttnToNVVMSM90(convert));
  if (options.hostLaunch) {
    // The kernels' inline-PTX NVVM ops as LLVM, as gpu-module-to-binary
    // needs them (fattn-compile does the same after this pipeline).
    pm.addNestedPass<gpu::GPUModuleOp>(createConvertNVVMToLLVMPass());
    pm.addPass(createFAttnGPULaunch());
    pm.addNestedPass<func::FuncOp>(createCanonicalizerPass());
    pm.addNestedPass<func::FuncOp>(createCSEPass());
  }
}

void mlir::fattn::registerSM90Pipeline() {
  PassPipelineRegistration<SM90PipelineOptions>(
      "fattn-sm90-pipeline",
      "Lower fattn.attention to an sm_90a kernel (TMA, mbarrier ring, "
      "warp-specialized wgmma) in a gpu.module",
      buildSM90Pipeline);
}
