// A naive FP8 attention kernel that follows docs/KERNEL-ABI.md's "descale"
// section: e4m3 q, k, v, bf16 o, one thread per query row, exact softmax in
// fp32 (P is not rounded to e4m3). It is no fattn kernel: it lets the GPU tests
// check the runtime's descale slots and parameters and the Python package's
// fp8 path without MLIR or fattn's sm_90a kernel.
//
// Configuration macros: D (head dim), CAUSAL (0/1), Q_RANK, K_RANK, V_RANK
// (0, 2 or 3), Q_BLOCK, KV_BLOCK (rows per factor of a rank-3 descale).
// Descale strides arrive for every dim; the runtime passes 0 for a dim the
// tensor lacks, so a rank-0 or rank-2 factor is read with the same formula.
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <stdint.h>

#define ROWS_PER_CTA 128

__device__ float descaleAt(const float *t, uint64_t sb, uint64_t sh, uint64_t sblk, int rank,
                           int64_t block, uint32_t b, uint32_t h, uint32_t hk, int64_t row) {
  uint32_t head = rank == 2 ? hk : h; // rank 2 is [batch, heads_kv], for q too
  int64_t blk = rank == 3 ? row / block : 0;
  return t[b * sb + head * sh + blk * sblk];
}

extern "C" __global__ void __launch_bounds__(ROWS_PER_CTA) naive_attention_fp8(
    const __nv_fp8_e4m3 *q, const __nv_fp8_e4m3 *k, const __nv_fp8_e4m3 *v, __nv_bfloat16 *o,
    const float *qd, const float *kd, const float *vd, uint32_t batch, uint32_t heads_q,
    uint32_t heads_kv, uint32_t seq_q, uint32_t seq_k, uint64_t qsb, uint64_t qsh, uint64_t qss,
    uint64_t ksb, uint64_t ksh, uint64_t kss, uint64_t vsb, uint64_t vsh, uint64_t vss,
    uint64_t osb, uint64_t osh, uint64_t oss, uint64_t qdb, uint64_t qdh, uint64_t qdk,
    uint64_t kdb, uint64_t kdh, uint64_t kdk, uint64_t vdb, uint64_t vdh, uint64_t vdk,
    float scale) {
  const int64_t row = int64_t(blockIdx.x) * ROWS_PER_CTA + threadIdx.x;
  const uint32_t h = blockIdx.y, b = blockIdx.z;
  if (row >= seq_q || h >= heads_q || b >= batch)
    return;
  const uint32_t hk = h / (heads_q / heads_kv);
  const __nv_fp8_e4m3 *qr = q + b * qsb + h * qsh + row * qss;
  const __nv_fp8_e4m3 *kb = k + b * ksb + hk * ksh;
  const __nv_fp8_e4m3 *vb = v + b * vsb + hk * vsh;
  const float dq = descaleAt(qd, qdb, qdh, qdk, Q_RANK, Q_BLOCK, b, h, hk, row);
  float qf[D];
  for (int d = 0; d < D; ++d)
    qf[d] = float(qr[d]) * dq;
  const int64_t diag = row + int64_t(seq_k) - int64_t(seq_q);
  int64_t hi = CAUSAL ? diag : int64_t(seq_k) - 1;
  hi = hi > int64_t(seq_k) - 1 ? int64_t(seq_k) - 1 : hi;

  auto score = [&](int64_t j) {
    const __nv_fp8_e4m3 *kr = kb + j * kss;
    float s = 0.f;
    for (int d = 0; d < D; ++d)
      s += qf[d] * float(kr[d]);
    return s * scale * descaleAt(kd, kdb, kdh, kdk, K_RANK, KV_BLOCK, b, hk, hk, j);
  };
  float m = -INFINITY;
  for (int64_t j = 0; j <= hi; ++j)
    m = fmaxf(m, score(j));
  float l = 0.f, acc[D];
  for (int d = 0; d < D; ++d)
    acc[d] = 0.f;
  for (int64_t j = 0; j <= hi; ++j) {
    float p = __expf(score(j) - m);
    l += p;
    p *= descaleAt(vd, vdb, vdh, vdk, V_RANK, KV_BLOCK, b, hk, hk, j);
    const __nv_fp8_e4m3 *vr = vb + j * vss;
    for (int d = 0; d < D; ++d)
      acc[d] += p * float(vr[d]);
  }
  __nv_bfloat16 *orow = o + b * osb + h * osh + row * oss;
  const float inv = l > 0.f ? 1.f / l : 0.f;
  for (int d = 0; d < D; ++d)
    orow[d] = __float2bfloat16(acc[d] * inv);
}
