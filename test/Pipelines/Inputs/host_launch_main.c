// Calls examples/host-launch/attention.mlir's functions, compiled by a
// host-launch pipeline, through their C interface on host memory: BSHD
// tensors as [batch, heads, seq, head_dim] views, with mgpu_recorder.c as
// the runtime.
#include <stdint.h>
#include <stdio.h>

typedef struct { void *allocated, *aligned; int64_t offset, sizes[4], strides[4]; } MemRef4;
typedef struct { void *allocated, *aligned; int64_t offset, sizes[3], strides[3]; } MemRef3;

void _mlir_ciface_attention_full(MemRef4 *, MemRef4 *, MemRef4 *, MemRef4 *, MemRef3 *);
void _mlir_ciface_attention_causal(MemRef4 *, MemRef4 *, MemRef4 *, MemRef4 *, MemRef3 *);

static char buffer[1 << 16] __attribute__((aligned(128)));
char *host_launch_base = buffer;

static MemRef4 bshd(int64_t at, int64_t b, int64_t s, int64_t h, int64_t d) {
  MemRef4 m = {buffer, buffer, at, {b, h, s, d}, {s * h * d, d, h * d, 1}};
  return m;
}

int main(void) {
  // GQA: 8 query heads, 2 KV heads; 1000 queries, 700 keys; head dim 128.
  MemRef4 q = bshd(0, 2, 1000, 8, 128), k = bshd(4096, 2, 700, 2, 128);
  MemRef4 v = bshd(8192, 2, 700, 2, 128), o = bshd(12288, 2, 1000, 8, 128);
  MemRef3 lse = {buffer, buffer, 4096, {2, 8, 1000}, {8000, 1000, 1}};
  printf("causal\n");
  _mlir_ciface_attention_causal(&q, &k, &v, &o, &lse);
  printf("full, no queries\n");
  q.sizes[2] = o.sizes[2] = lse.sizes[2] = 0;
  _mlir_ciface_attention_full(&q, &k, &v, &o, &lse);
  printf("done\n");
  return 0;
}
