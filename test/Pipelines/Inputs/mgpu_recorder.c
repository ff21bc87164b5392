// Stands in for a CUDA runtime of upstream's mgpu* entry points: prints what
// the host code of a host-launch pipeline asks of it (module loads, the
// launch's shape and parameters, the tensor maps' encodings), so that lit
// checks the generated host code on a machine without a GPU. Pointers are
// printed as offsets from host_launch_base (host_launch_main.c's buffer).
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

extern char *host_launch_base;

static long offset(const void *p) { return (long)((const char *)p - host_launch_base); }

void *mgpuModuleLoad(void *data, size_t bytes) {
  (void)data;
  printf("module load: %s\n", bytes > 0 ? "cubin" : "empty");
  return (void *)1;
}
void *mgpuModuleLoadJIT(void *data, int optLevel) {
  printf("module load: ptx %s, O%d\n", strstr((const char *)data, ".entry") ? "with a kernel" : "empty",
         optLevel);
  return (void *)1;
}
void mgpuModuleUnload(void *module) { (void)module; }
void *mgpuModuleGetFunction(void *module, const char *name) {
  (void)module;
  printf("kernel %s\n", name);
  return (void *)2;
}
void *mgpuStreamCreate(void) { return (void *)3; }
void mgpuStreamDestroy(void *stream) { (void)stream; }
void mgpuStreamSynchronize(void *stream) {
  (void)stream;
  printf("synchronize\n");
}

// The kernel ABI's parameter order (docs/KERNEL-ABI.md): 5 pointers (with an
// LSE), 5 u32 sizes, 14 u64 strides, then the tensor maps (128 bytes each).
void mgpuLaunchKernel(void *function, intptr_t gx, intptr_t gy, intptr_t gz, intptr_t bx,
                      intptr_t by, intptr_t bz, int32_t smem, void *stream, void **params,
                      void **extra, size_t count) {
  (void)function;
  (void)stream;
  printf("launch grid (%ld, %ld, %ld) block (%ld, %ld, %ld) smem %d params %zu extra %s\n",
         (long)gx, (long)gy, (long)gz, (long)bx, (long)by, (long)bz, smem, count,
         extra ? "set" : "null");
  printf("pointers");
  for (int i = 0; i < 5; ++i)
    printf(" %ld", offset(*(void **)params[i]));
  printf("\nsizes");
  for (int i = 5; i < 10; ++i)
    printf(" %u", *(uint32_t *)params[i]);
  printf("\nstrides");
  for (size_t i = 10; i < 24 && i < count; ++i)
    printf(" %llu", (unsigned long long)*(uint64_t *)params[i]);
  printf("\n");
  for (size_t i = 24; i < count; ++i)
    printf("tensor map %zu: %s\n", i, (const char *)params[i]);
}

// Writes a description of its arguments into the map, which the launch then
// prints: the 128 bytes must arrive by value.
void mgpuTensorMapEncodeTiled(void *map, int dataType, unsigned rank, void *address,
                              const uint64_t *dims, const uint64_t *strides, const uint32_t *box,
                              const uint32_t *elementStrides, int interleave, int swizzle,
                              int l2Promotion, int oobFill) {
  char text[128];
  int n = snprintf(text, sizeof text, "type %d at %ld dims", dataType, offset(address));
  for (unsigned i = 0; i < rank; ++i)
    n += snprintf(text + n, sizeof text - n, " %llu", (unsigned long long)dims[i]);
  n += snprintf(text + n, sizeof text - n, " strides");
  for (unsigned i = 0; i + 1 < rank; ++i)
    n += snprintf(text + n, sizeof text - n, " %llu", (unsigned long long)strides[i]);
  n += snprintf(text + n, sizeof text - n, " box");
  for (unsigned i = 0; i < rank; ++i)
    n += snprintf(text + n, sizeof text - n, " %u/%u", box[i], elementStrides[i]);
  snprintf(text + n, sizeof text - n, " %d%d%d%d", interleave, swizzle, l2Promotion, oobFill);
  memcpy(map, text, sizeof text);
}
