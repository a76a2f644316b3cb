/* Benchmark of reconv gen: generates kernels of N blocks (default 10^6) and prints the time to
 * generate, to verify and to print them, with the kernel's size.
 *   build/bench/bench_gen [N] [--irreducible] [--switches] */
#include "reconv/gen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  rc_gen_opts o;
  rc_gen_opts_init(&o);
  o.blocks = 1000000;
  o.exits = 8;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--irreducible") == 0) o.irreducible = true;
    else if (strcmp(argv[i], "--switches") == 0) o.switches = true;
    else o.blocks = (uint32_t)strtoul(argv[i], NULL, 10);
  }
  o.loops = o.blocks / 8;
  rc_ctx ctx;
  rc_ctx_init(&ctx);
  rc_module *m = rc_module_new(&ctx, "bench");
  rc_gen_info info;
  double t0 = now();
  rc_kernel *k = rc_gen_kernel(m, &o, &info);
  double t1 = now();
  if (!k) return 1;
  uint64_t ninstrs = 0;
  for (uint32_t b = 0; b < k->nblocks; b++)
    for (const rc_instr *i = k->blocks[b]->first; i; i = i->next) ninstrs++;
  int bad = rc_verify_kernel(&ctx, k);
  double t2 = now();
  rc_strbuf sb;
  rc_sb_init(&sb);
  rc_print_module(m, &sb);
  double t3 = now();
  printf("gen: %u blocks, %llu instructions, %u loops (%u uniform, %u irreducible), %u exits\n",
         info.blocks, (unsigned long long)ninstrs, info.loops, info.uniform_loops,
         info.irreducible_loops, info.exits);
  printf("generate %.3f s (%.2f M blocks/s), verify %.3f s%s, print %.3f s (%.1f MB)\n", t1 - t0,
         info.blocks / (t1 - t0) / 1e6, t2 - t1, bad ? " (INVALID)" : "", t3 - t2, sb.len / 1e6);
  printf("arena %.1f MB\n", m->arena.total / 1e6);
  rc_sb_free(&sb);
  rc_module_free(m);
  return bad ? 1 : 0;
}
