//===- Passes.td - fattn sm_80 passes ----------------------*- tablegen -*-===//

#ifndef FATTN_DIALECT_FATTN_TRANSFORMS_SM80_PASSES_TD
#define FATTN_DIALECT_FATTN_TRANSFORMS_SM80_PASSES_TD

include "mlir/Pass/PassBase.td"

def FAttnSM80AsyncCopy : Pass<"fattn-sm80-async-copy"> {
  let summary = "Plan the cp.async shared-memory ring of the sm_80 kernel";
  let description = [{
    On each fattn.tiled_attention: checks that the configuration fits sm_80
    (f16/bf16, head dims 64/96/128/256 equal for Q/K and V, the tiles divisible
    by the 16-byte copies of 128 threads) and records the shared-memory plan as
    `fattn.sm80.smem = #fattn.sm80_smem_plan<stages, row_pitch, q_offset,
    kv_offset, stage_bytes, bytes>`: Q once, then `stages` slots of one K and
    one V tile, rows padded by 16 bytes (conflict-free ldmatrix). Q is
    copied once and each K/V tile through the ring, by 16-byte cp.async.cg
    copies (zero-fill past the sequence end) in a commit group of its own,
    tile j + stages - 1 in flight while tile j is computed.
  }];
  let options = [
    Option<"stages", "stages", "int64_t", /*default=*/"2",
           "K/V slots in the shared-memory ring (>= 2)">,
  ];
}

def FAttnSM80Mma : Pass<"fattn-sm80-mma"> {
  let summary = "Assign mma.sync m16n8k16 register fragments to the tile ops";
  let description = [{
    Records the warp decomposition `fattn.sm80.mma = #fattn.sm80_mma_plan<
    warps, rows_per_warp, q_operand>` on each fattn.tiled_attention: each
    warp owns whole query rows, in 16-row fragments, so that the softmax
    reduces a row over the 4 lanes that hold it (shfl.bfly). Q·Kᵀ reads Q
    from registers when that costs at most 32 registers per lane
    (`q_operand = registers`), else by ldmatrix for every tile (`ldmatrix`);
    K comes by ldmatrix, V by ldmatrix.trans and P from the accumulator
    registers of Q·Kᵀ. Needs --fattn-sm80-async-copy first.
  }];
  let options = [
    Option<"warps", "warps", "int64_t", /*default=*/"4",
           "Warps per CTA">,
  ];
}

#endif // FATTN_DIALECT_FATTN_TRANSFORMS_SM80_PASSES_TD
