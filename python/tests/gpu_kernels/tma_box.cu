// Loads one box of q with TMA (the tensor map the runtime encoded from a
// "tensormap" parameter) and writes it, densely, to o. Checks the encoding
// (dims, strides, box, element type) and the by-value, 128-byte-aligned
// parameter passing end to end. sm_90 only.
#include <cuda.h>
#include <stdint.h>

// Box coordinates, innermost first: head_dim, seq, heads, batch (separate
// macros: nvcc splits -D values at commas).
#ifndef COORD_S
#define COORD_D 0
#define COORD_S 80
#define COORD_H 1
#define COORD_B 1
#endif

extern "C" __global__ void tma_box(const __grid_constant__ CUtensorMap q_map, uint16_t *o) {
  // Dynamic smem: BOX_BYTES + 1024 + 16 bytes. The box starts 1024-aligned, where
  // the 128B swizzle pattern repeats; the mbarrier follows it.
  extern __shared__ __align__(128) unsigned char dyn[];
  const uint32_t base = uint32_t(__cvta_generic_to_shared(dyn));
  const uint32_t buf_addr = (base + 1023) & ~1023u;
  const uint32_t bar_addr = buf_addr + BOX_BYTES;
  unsigned char *smem = dyn + (buf_addr - base);
  const int coords[4] = {COORD_D, COORD_S, COORD_H, COORD_B};
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar_addr));
    asm volatile("fence.proxy.async.shared::cta;");
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar_addr),
                 "r"(BOX_BYTES));
    asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2, %3, %4, %5}], [%6];" ::"r"(buf_addr),
                 "l"(reinterpret_cast<uint64_t>(&q_map)), "r"(coords[0]), "r"(coords[1]),
                 "r"(coords[2]), "r"(coords[3]), "r"(bar_addr)
                 : "memory");
    asm volatile("{\n .reg .pred p;\n WAIT_%=:\n"
                 " mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\n"
                 " @!p bra WAIT_%=;\n}" ::"r"(bar_addr)
                 : "memory");
  }
  __syncthreads();
  const uint16_t *buf = reinterpret_cast<const uint16_t *>(smem);
  for (int i = threadIdx.x; i < BOX_BYTES / 2; i += blockDim.x)
    o[i] = buf[i];
}
