/*===- fattn-c/Passes.h - C API of the fattn passes ----------------*- C -*-===*\
|*                                                                            *|
|* One creation and one registration function per fattn pass, and one        *|
|* registration function per group, generated from the passes' ODS:          *|
|*   mlirCreate<Group><Pass>() / mlirRegister<Group><Pass>()                  *|
|*   mlirRegister<Group>Passes()                                              *|
|* with the groups FAttn (target-independent: FAttnTile, ...), FAttnSM80,     *|
|* FAttnSM90, FAttnConversion and FAttnSM90Conversion. The passes take their *|
|* default options; textual pipelines (mlirOpPassManagerAddPipeline, after    *|
|* mlirFAttnRegisterPassesAndPipelines) set any option.                      *|
\*===----------------------------------------------------------------------===*/

#ifndef FATTN_C_PASSES_H
#define FATTN_C_PASSES_H

#include "mlir-c/Pass.h"

#include "fattn-c/FAttnConversionPasses.capi.h.inc"
#include "fattn-c/FAttnPasses.capi.h.inc"
#include "fattn-c/FAttnSM80Passes.capi.h.inc"
#include "fattn-c/FAttnSM90ConversionPasses.capi.h.inc"
#include "fattn-c/FAttnSM90Passes.capi.h.inc"

#endif /* FATTN_C_PASSES_H */
