// A naive attention kernel that follows docs/KERNEL-ABI.md: one thread per
// query row, two passes over the visible keys in fp32. It is no fattn kernel:
// it lets the GPU tests check the runtime, the Python package and the test
// harness itself without MLIR (FATTN_TEST_BACKEND=naive).
//
// Configuration macros: ELEM (half or __nv_bfloat16), D_QK, D_V, HAS_LSE,
// WINDOW_LEFT, WINDOW_RIGHT (-1 = unbounded; causal is WINDOW_RIGHT = 0).
// scale and softcap arrive as the f32 parameters "scale" and "softcap".
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>

#define ROWS_PER_CTA 128

extern "C" __global__ void __launch_bounds__(ROWS_PER_CTA) naive_attention(
    const ELEM *q, const ELEM *k, const ELEM *v, ELEM *o,
#if HAS_LSE
    float *lse,
#endif
    uint32_t batch, uint32_t heads_q, uint32_t heads_kv, uint32_t seq_q, uint32_t seq_k,
    uint64_t qsb, uint64_t qsh, uint64_t qss, uint64_t ksb, uint64_t ksh, uint64_t kss,
    uint64_t vsb, uint64_t vsh, uint64_t vss, uint64_t osb, uint64_t osh, uint64_t oss,
#if HAS_LSE
    uint64_t lsb, uint64_t lsh,
#endif
    float scale, float softcap) {
  const int64_t row = int64_t(blockIdx.x) * ROWS_PER_CTA + threadIdx.x;
  const uint32_t h = blockIdx.y, b = blockIdx.z;
  if (row >= seq_q || h >= heads_q || b >= batch)
    return; // tail rows, and whole CTAs that only pad a cluster
  const uint32_t hk = h / (heads_q / heads_kv);
  const ELEM *qr = q + b * qsb + h * qsh + row * qss;
  const ELEM *kb = k + b * ksb + hk * ksh;
  const ELEM *vb = v + b * vsb + hk * vsh;
  float qf[D_QK];
  for (int d = 0; d < D_QK; ++d)
    qf[d] = float(qr[d]);
  // Keys visible to this row (FlashAttention-2 masks, aligned bottom-right).
  const int64_t diag = row + int64_t(seq_k) - int64_t(seq_q);
  int64_t lo = WINDOW_LEFT < 0 ? 0 : diag - WINDOW_LEFT;
  int64_t hi = WINDOW_RIGHT < 0 ? int64_t(seq_k) - 1 : diag + WINDOW_RIGHT;
  lo = lo < 0 ? 0 : lo;
  hi = hi > int64_t(seq_k) - 1 ? int64_t(seq_k) - 1 : hi;

  auto score = [&](int64_t j) {
    const ELEM *kr = kb + j * kss;
    float s = 0.f;
    for (int d = 0; d < D_QK; ++d)
      s += qf[d] * float(kr[d]);
    s *= scale;
    return softcap > 0.f ? softcap * tanhf(s / softcap) : s;
  };
  float m = -INFINITY;
  for (int64_t j = lo; j <= hi; ++j)
    m = fmaxf(m, score(j));
  float l = 0.f, acc[D_V];
  for (int d = 0; d < D_V; ++d)
    acc[d] = 0.f;
  for (int64_t j = lo; j <= hi; ++j) {
    float p = __expf(score(j) - m);
    l += p;
    const ELEM *vr = vb + j * vss;
    for (int d = 0; d < D_V; ++d)
      acc[d] += p * float(vr[d]);
  }
  ELEM *orow = o + b * osb + h * osh + row * oss;
  const float inv = l > 0.f ? 1.f / l : 0.f; // a row that sees no key: O = 0
  for (int d = 0; d < D_V; ++d)
    orow[d] = ELEM(acc[d] * inv);
#if HAS_LSE
  lse[b * lsb + h * lsh + row] = l > 0.f ? m + logf(l) : -INFINITY;
#endif
}
