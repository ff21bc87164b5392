//===- BufferizableOpInterfaceImpl.cpp - bufferization of fattn ops -------===//
//
// The tensor form of the destination-style fattn ops bufferizes to their
// memref form: the same op, with each tensor operand replaced by its buffer
// and the results by the buffers of the inits.
//
//===----------------------------------------------------------------------===//

#include "fattn/Dialect/FAttn/Transforms/BufferizableOpInterfaceImpl.h"
#include "fattn/Dialect/FAttn/IR/FAttnGradOps.h"
#include "fattn/Dialect/FAttn/IR/FAttnOps.h"
#include "fattn/Dialect/FAttn/IR/FAttnQuantOps.h"

#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Bufferization/IR/DstBufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace mlir::bufferization;
using namespace mlir::fattn;

namespace {
/// The inits of these ops are written in full and never read (every row of
/// O and LSE, every element of dQ, dK and dV, every e4m3 value and descale,
/// every rotated row), so a bufferization that allocates them need not copy
/// their old contents.
template <typename OpTy>
struct WriteOnlyInitsModel
    : DstBufferizableOpInterfaceExternalModel<WriteOnlyInitsModel<OpTy>, OpTy> {
  bool bufferizesToMemoryRead(Operation *op, OpOperand &operand,
                              const AnalysisState &) const {
    return !cast<DestinationStyleOpInterface>(op).isDpsInit(&operand);
  }

  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options,
                          BufferizationState &state) const {
    auto dps = cast<DestinationStyleOpInterface>(op);
    if (dps.hasPureBufferSemantics())
      return success();
    // The verifier admits no mix of tensors and memrefs.
    SmallVector<Value> buffers;
    for (Value operand : op->getOperands()) {
      // Scalars (fattn.attention's runtime scale and softcap) stay as they are.
      if (!isa<TensorType>(operand.getType())) {
        buffers.push_back(operand);
        continue;
      }
      FailureOr<Value> buffer = getBuffer(rewriter, operand, options, state);
      if (failed(buffer))
        return failure();
      buffers.push_back(*buffer);
    }
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPoint(op);
    Operation *bufferized =
        cloneWithoutRegions(rewriter, op, /*newResultTypes=*/{}, buffers);
    replaceOpWithBufferizedValues(
        rewriter, op,
        cast<DestinationStyleOpInterface>(bufferized).getDpsInits());
    return success();
  }
};
} // namespace

void mlir::fattn::registerBufferizableOpInterfaceExternalModels(
    DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, FAttnDialect *) {
    AttentionOp::attachInterface<WriteOnlyInitsModel<AttentionOp>>(*ctx);
    AttentionGradOp::attachInterface<WriteOnlyInitsModel<AttentionGradOp>>(
        *ctx);
    QuantizeOp::attachInterface<WriteOnlyInitsModel<QuantizeOp>>(*ctx);
    HadamardRotateOp::attachInterface<WriteOnlyInitsModel<HadamardRotateOp>>(
        *ctx);
  });
}
