//===- Passes.td - fattn sm_90a transforms -----------------*- tablegen -*-===//

#ifndef FATTN_DIALECT_FATTN_TRANSFORMS_SM90_PASSES_TD
#define FATTN_DIALECT_FATTN_TRANSFORMS_SM90_PASSES_TD

include "mlir/Pass/PassBase.td"

def FAttnSM90TMA : Pass<"fattn-sm90-tma"> {
  let summary = "Plan TMA bulk tensor copies and the mbarrier ring of the tiled form";
  let description = [{
    Decides how the tiles of each `fattn.tiled_attention` reach shared memory
    on sm_90a: Q, K and V tiles arrive by `cp.async.bulk.tensor` in boxes of
    64 columns (one 128-byte swizzle atom) into 128B-swizzled shared memory;
    K and V use a ring of `stages` buffers, each guarded by a full barrier
    (arrive.expect_tx, one for K and one for V so that S = Q K^T starts before
    V lands) and an empty barrier (the consumers' release); O leaves from
    registers with row-predicated stores (tails). The plan is recorded as
    attributes (`fattn.sm90.tma` on the op, `fattn.sm90.tma_load` on each
    load, `fattn.sm90.store` on each store) that the sm_90a lowering
    implements.
  }];
  let options = [
    Option<"stages", "stages", "int64_t", /*default=*/"2",
           "Buffers in the K/V ring (>= 2: the next tile's copy is in flight "
           "during the current tile's math)">,
  ];
}

#endif // FATTN_DIALECT_FATTN_TRANSFORMS_SM90_PASSES_TD
