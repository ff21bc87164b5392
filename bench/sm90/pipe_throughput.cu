// Issue rate of the softmax's instructions on one SM sub-partition (SMSP):
// which execution pipe each one uses, and whether two of them share one.
//
// Each kernel body runs CH independent chains of one inline-asm instruction
// (or a mix) N_IT times in one CTA per SM; the result is warp-level
// instructions per clock per SMSP, with one warp per SMSP (128 threads) and
// with eight (1024). A mix "A + B (2:1) [count A]" counts A only: if A's rate
// is the same as alone, B runs on another pipe.
//
// Build and run on the GPU machine (docs/PERF.md has the H200's numbers):
//   nvcc -O3 -arch=sm_90a -o pipe_throughput bench/sm90/pipe_throughput.cu
//   ./pipe_throughput
//   cuobjdump -sass pipe_throughput | grep -cE "MUFU|F2FP"   # the SASS ops
#include <cstdio>
#include <cuda_runtime.h>

constexpr int N_IT = 256;
constexpr int CH = 8;

#define REPEAT(stmt)                                                           \
  _Pragma("unroll") for (int c = 0; c < CH; ++c) { stmt; }
#define EX2 asm volatile("ex2.approx.ftz.f32 %0, %0;" : "+f"(x[c]))

template <int K>
__device__ __forceinline__ void body(float (&x)[CH], unsigned (&u)[CH]) {
  if constexpr (K == 0) {
    REPEAT(EX2);
  } else if constexpr (K == 1) { // result fed back as the next input's bits
    REPEAT(asm volatile("{.reg .b16 h; cvt.rn.satfinite.e4m3x2.f32 h, %0, %1; "
                        "mov.b32 %0, {h, h};}"
                        : "+f"(x[c])
                        : "f"(x[(c + 1) % CH])));
  } else if constexpr (K == 2) {
    REPEAT(asm volatile("cvt.rn.f16x2.f32 %0, %0, %1;" : "+r"(u[c]) : "f"(x[c])));
  } else if constexpr (K == 3) {
    REPEAT(asm volatile("cvt.rn.bf16x2.f32 %0, %0, %1;" : "+r"(u[c]) : "f"(x[c])));
  } else if constexpr (K == 4) {
    REPEAT(asm volatile("{.reg .b16 h; cvt.rn.satfinite.e4m3x2.f16x2 h, %0; "
                        "mov.b32 %0, {h, h};}"
                        : "+r"(u[c])));
  } else if constexpr (K == 5) { // the FP8 softmax's mix: two exp2, one cvt
    REPEAT(EX2);
    _Pragma("unroll") for (int c = 0; c < CH; c += 2)
      asm volatile("{.reg .b16 h; cvt.rn.satfinite.e4m3x2.f32 h, %1, %2; "
                   "mov.b32 %0, {h, h};}"
                   : "+r"(u[c])
                   : "f"(x[c]), "f"(x[c + 1]));
  } else if constexpr (K == 6) { // the 16-bit softmax's mix
    REPEAT(EX2);
    _Pragma("unroll") for (int c = 0; c < CH; c += 2)
      asm volatile("cvt.rn.f16x2.f32 %0, %1, %2;"
                   : "=r"(u[c])
                   : "f"(x[c]), "f"(x[c + 1]));
  } else if constexpr (K == 7) {
    REPEAT(asm volatile("fma.rn.f32 %0, %0, 0f3F7FFFFF, 0f3A000000;" : "+f"(x[c])));
  } else if constexpr (K == 8) {
    REPEAT(EX2);
    REPEAT(asm volatile("fma.rn.f32 %0, %0, 0f3F7FFFFF, 0f3A000000;"
                        : "+f"(*reinterpret_cast<float *>(&u[c]))));
  } else if constexpr (K == 9) {
    REPEAT(asm volatile("prmt.b32 %0, %0, %1, 0x6420;"
                        : "+r"(u[c])
                        : "r"(u[(c + 1) % CH])));
  } else if constexpr (K == 10) {
    REPEAT(asm volatile("max.f32 %0, %0, %1;" : "+f"(x[c]) : "f"(x[(c + 3) % CH])));
  } else if constexpr (K == 11) {
    REPEAT(asm volatile("cvt.rmi.f32.f32 %0, %0;" : "+f"(x[c])));
  } else if constexpr (K == 12) {
    REPEAT(asm volatile("mul.rn.f32 %0, %0, 0f3F800001;" : "+f"(x[c])));
  } else if constexpr (K == 13) {
    REPEAT(asm volatile("mad.lo.u32 %0, %0, 8388608, %1;"
                        : "+r"(u[c])
                        : "r"(u[(c + 1) % CH])));
  }
}

template <int K>
__global__ void kern(float *out, long long *clocks, float seed) {
  float x[CH];
  unsigned u[CH];
  // Inputs differ per thread and chain (never zeros).
  for (int c = 0; c < CH; ++c) {
    x[c] = seed * (threadIdx.x + c + 1) * 1e-3f;
    u[c] = __float_as_uint(x[c]);
  }
  __syncthreads();
  long long t0 = clock64();
  for (int i = 0; i < N_IT; ++i)
    body<K>(x, u);
  __syncthreads();
  long long t1 = clock64();
  float s = 0;
  for (int c = 0; c < CH; ++c)
    s += x[c] + __uint_as_float(u[c]);
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
  if (threadIdx.x == 0)
    clocks[blockIdx.x] = t1 - t0;
}

template <int K>
void run(const char *name, int threads, int sms) {
  float *out;
  long long *clocks;
  cudaMalloc(&out, sizeof(float) * sms * threads);
  cudaMalloc(&clocks, sizeof(long long) * sms);
  for (int warmup = 0; warmup < 2; ++warmup)
    kern<K><<<sms, threads>>>(out, clocks, 1.0f);
  if (cudaDeviceSynchronize() != cudaSuccess) {
    printf("%s: launch failed\n", name);
    return;
  }
  long long host[1024];
  cudaMemcpy(host, clocks, sizeof(long long) * sms, cudaMemcpyDeviceToHost);
  double cycles = 0;
  for (int i = 0; i < sms; ++i)
    cycles += host[i];
  cycles /= sms;
  double warpInstructions = threads / 32.0 * N_IT * CH;
  printf("%-34s threads %4d: %.3f warp instructions / clock / SMSP (%.2f clocks each)\n",
         name, threads, warpInstructions / cycles / 4, cycles * 4 / warpInstructions);
  cudaFree(out);
  cudaFree(clocks);
}

int main() {
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  for (int t : {128, 1024}) {
    run<0>("ex2.approx.ftz.f32", t, sms);
    run<1>("cvt.rn.satfinite.e4m3x2.f32", t, sms);
    run<2>("cvt.rn.f16x2.f32", t, sms);
    run<3>("cvt.rn.bf16x2.f32", t, sms);
    run<4>("cvt.rn.satfinite.e4m3x2.f16x2", t, sms);
    run<5>("ex2 + e4m3x2.f32 (2:1) [count ex2]", t, sms);
    run<6>("ex2 + f16x2.f32 (2:1) [count ex2]", t, sms);
    run<7>("fma.rn.f32", t, sms);
    run<8>("ex2 + fma (1:1) [count ex2]", t, sms);
    run<9>("prmt.b32", t, sms);
    run<10>("max.f32", t, sms);
    run<11>("cvt.rmi.f32.f32", t, sms);
    run<12>("mul.rn.f32", t, sms);
    run<13>("mad.lo.u32", t, sms);
  }
}
