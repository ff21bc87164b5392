//===- BufferizableOpInterfaceImpl.h - fattn bufferization ------*- C++ -*-===//

#ifndef FATTN_DIALECT_FATTN_TRANSFORMS_BUFFERIZABLEOPINTERFACEIMPL_H
#define FATTN_DIALECT_FATTN_TRANSFORMS_BUFFERIZABLEOPINTERFACEIMPL_H

namespace mlir {
class DialectRegistry;

namespace fattn {
/// Attaches BufferizableOpInterface to fattn.attention, fattn.quantize and
/// fattn.hadamard_rotate, so that --one-shot-bufferize turns their tensor
/// form into the memref form. Every tool that bufferizes IR holding these
/// ops registers it (fattn-opt does).
void registerBufferizableOpInterfaceExternalModels(DialectRegistry &registry);
} // namespace fattn
} // namespace mlir

#endif // FATTN_DIALECT_FATTN_TRANSFORMS_BUFFERIZABLEOPINTERFACEIMPL_H
