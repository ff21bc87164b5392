//===- FAttn.cpp - C API of the fattn dialect -----------------------------===//

#include "fattn-c/FAttn.h"

#include "fattn/Dialect/FAttn/IR/FAttnDialect.h"
#include "fattn/Dialect/FAttn/IR/FAttnOps.h"
#include "fattn/InitFAttn.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"
#include "mlir/IR/Builders.h"

using namespace mlir;

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(FAttn, fattn, fattn::FAttnDialect)

void mlirFAttnRegisterDialects(MlirDialectRegistry registry) {
  fattn::registerFAttnDialects(*unwrap(registry));
}

void mlirFAttnRegisterPassesAndPipelines(void) {
  fattn::registerFAttnPassesAndPipelines();
}

MlirFAttnAttentionOptions mlirFAttnAttentionOptionsGetDefault(void) {
  MlirFAttnAttentionOptions options;
  options.scale = 0.0f;
  options.causal = false;
  options.windowLeft = -1;
  options.windowRight = -1;
  options.softcap = 0.0f;
  return options;
}

MlirOperation mlirFAttnAttentionOpCreate(MlirLocation location, MlirValue q,
                                         MlirValue k, MlirValue v, MlirValue o,
                                         MlirValue lse,
                                         MlirFAttnAttentionOptions options) {
  if (mlirValueIsNull(q) || mlirValueIsNull(k) || mlirValueIsNull(v) ||
      mlirValueIsNull(o))
    return MlirOperation{nullptr};
  Location loc = unwrap(location);
  // Registered is not loaded: IR parsed without fattn ops leaves it unloaded.
  loc.getContext()->getOrLoadDialect<fattn::FAttnDialect>();
  OpBuilder builder(loc.getContext());
  // Absent attributes are the op's defaults.
  FloatAttr scale = options.scale != 0.0f
                        ? builder.getF32FloatAttr(options.scale)
                        : FloatAttr();
  BoolAttr causal = options.causal ? builder.getBoolAttr(true) : BoolAttr();
  IntegerAttr windowLeft = options.windowLeft >= 0
                               ? builder.getI64IntegerAttr(options.windowLeft)
                               : IntegerAttr();
  IntegerAttr windowRight =
      options.windowRight >= 0 ? builder.getI64IntegerAttr(options.windowRight)
                               : IntegerAttr();
  FloatAttr softcap = options.softcap != 0.0f
                          ? builder.getF32FloatAttr(options.softcap)
                          : FloatAttr();
  Value lseValue = mlirValueIsNull(lse) ? Value() : unwrap(lse);
  // Destination style: on tensors the op returns the new O (and LSE).
  SmallVector<Type> resultTypes;
  if (isa<TensorType>(unwrap(o).getType())) {
    resultTypes.push_back(unwrap(o).getType());
    if (lseValue)
      resultTypes.push_back(lseValue.getType());
  }
  OperationState state(loc, fattn::AttentionOp::getOperationName());
  fattn::AttentionOp::build(builder, state, resultTypes, unwrap(q), unwrap(k),
                            unwrap(v), unwrap(o), lseValue,
                            /*q_descale=*/Value(), /*k_descale=*/Value(),
                            /*v_descale=*/Value(), /*dynamic_scale=*/Value(),
                            /*dynamic_softcap=*/Value(), scale, causal,
                            windowLeft,
                            windowRight, softcap,
                            /*descale_block_q=*/IntegerAttr(),
                            /*descale_block_kv=*/IntegerAttr(),
                            /*value_layout=*/StringAttr());
  return wrap(Operation::create(state));
}

bool mlirOperationIsAFAttnAttentionOp(MlirOperation op) {
  return isa<fattn::AttentionOp>(unwrap(op));
}
