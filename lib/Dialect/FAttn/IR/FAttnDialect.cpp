//===- FAttnDialect.cpp - fattn dialect -----------------------------------===//

#include "fattn/Dialect/FAttn/IR/FAttnDialect.h"
#include "fattn/Dialect/FAttn/IR/FAttnAttrs.h"
#include "fattn/Dialect/FAttn/IR/FAttnFP8Ops.h"
#include "fattn/Dialect/FAttn/IR/FAttnGradOps.h"
#include "fattn/Dialect/FAttn/IR/FAttnOps.h"
#include "fattn/Dialect/FAttn/IR/FAttnQuantOps.h"
#include "fattn/Dialect/FAttn/IR/FAttnSM80Ops.h"
#include "fattn/Dialect/FAttn/IR/FAttnSM90Ops.h"
#include "fattn/Dialect/FAttn/IR/FAttnScheduleOps.h"
#include "fattn/Dialect/FAttn/IR/FAttnTiledGradOps.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"

using namespace mlir;
using namespace mlir::fattn;

#include "fattn/Dialect/FAttn/IR/FAttnOpsDialect.cpp.inc"

void FAttnDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "fattn/Dialect/FAttn/IR/FAttnOps.cpp.inc"
      ,
#define GET_OP_LIST
#include "fattn/Dialect/FAttn/IR/FAttnQuantOps.cpp.inc"
      ,
#define GET_OP_LIST
#include "fattn/Dialect/FAttn/IR/FAttnFP8Ops.cpp.inc"
      ,
#define GET_OP_LIST
#include "fattn/Dialect/FAttn/IR/FAttnGradOps.cpp.inc"
      ,
#define GET_OP_LIST
#include "fattn/Dialect/FAttn/IR/FAttnTiledGradOps.cpp.inc"
      ,
#define GET_OP_LIST
#include "fattn/Dialect/FAttn/IR/FAttnScheduleOps.cpp.inc"
      ,
#define GET_OP_LIST
#include "fattn/Dialect/FAttn/IR/FAttnSM80Ops.cpp.inc"
      ,
#define GET_OP_LIST
#include "fattn/Dialect/FAttn/IR/FAttnSM90Ops.cpp.inc"
      >();
  registerScheduleTypes();
  registerAttributes();
}

#define GET_OP_CLASSES
#include "fattn/Dialect/FAttn/IR/FAttnOps.cpp.inc"
