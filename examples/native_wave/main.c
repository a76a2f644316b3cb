/* A C program that runs a kernel compiled by reconv's native wave backend (docs/native.md,
 * "A wave kernel in your program").
 *
 * The kernel is examples/kernels/collatz.cl: work-item g counts the Collatz steps from g + 1 down to
 * 1, a loop whose exit diverges between neighbouring work-items. The Makefile next to this file
 * makes `collatz.o` with
 *
 *   reconv opt -p reconverge,lower --wave 16 ../kernels/collatz.cl -o collatz.o
 *
 * (a wave of 16 lanes in AVX-512 registers where the CPU has them, AVX2 or SSE elsewhere), which
 * defines `reconv_wave_collatz`, and links it with libreconv, whose runtime runs the launch. The
 * program checks every work-item against the same loop in C. */
#include "reconv/native_wave.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

extern const rc_wave_kernel reconv_wave_collatz;

static int32_t steps_in_c(uint32_t x) {
  int32_t steps = 0;
  for (; x != 1; steps++) x = x & 1 ? 3 * x + 1 : x / 2;
  return steps;
}

int main(int argc, char **argv) {
  uint32_t n = argc > 1 ? (uint32_t)atoi(argv[1]) : 1000;
  int32_t *out = calloc(n ? n : 1, sizeof *out);
  if (!out || n == 0) return 2;
  /* one 64-bit slot per kernel parameter: the buffer's address for `__global int *out` */
  uint64_t args[1] = {(uint64_t)(uintptr_t)out};
  rc_wave_launch launch = {0};
  launch.dims = 1;
  launch.global[0] = n;
  launch.local[0] = 64; /* work-groups of 64: 4 waves of 16 */
  launch.args = args;
  if (rc_wave_run_launch(&reconv_wave_collatz, &launch) != 0) {
    fprintf(stderr, "the launch failed: %s\n", launch.error);
    return 1;
  }
  uint32_t wrong = 0;
  int64_t sum = 0;
  for (uint32_t g = 0; g < n; g++) {
    wrong += out[g] != steps_in_c(g + 1);
    sum += out[g];
  }
  printf("%s: %u work-items in waves of %u lanes: %lld steps in all, %u differ from C\n",
         reconv_wave_collatz.name, n, reconv_wave_collatz.wave, (long long)sum, wrong);
  free(out);
  return wrong != 0;
}
