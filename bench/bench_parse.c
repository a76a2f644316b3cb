/* bench_parse: how fast the .rir parser and the verifier are on a big kernel.
 *
 *   build/bench/bench_parse [NBLOCKS] [REPEATS] [SAVE.rir]   (default 1,000,000 blocks, best of 3;
 *                                                             SAVE.rir receives the generated text)
 *
 * Generates, as text, one thread-level kernel of NBLOCKS blocks made of a repeating mix of
 * shapes threaded by one SSA value: if-then-else diamonds with a phi at the join, counted loops
 * with a loop-carried phi, 3-way switches joining with a phi, and straight-line blocks. Then it
 * parses the text (without verifying), verifies the module, and prints it again, reporting each
 * time and the parser's throughput in MB/s. The target (docs/ir.md, "Performance"): parse + verify
 * of 10^6 blocks in under 2 s. */
#define _POSIX_C_SOURCE 200809L
#include "reconv/ir.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Wall-clock time, and the CPU time of this process (the fairer figure on a shared machine). */
static double clock_s(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct stamp {
  double wall, cpu;
} stamp;

static stamp now(void) {
  stamp s = {clock_s(CLOCK_MONOTONIC), clock_s(CLOCK_PROCESS_CPUTIME_ID)};
  return s;
}

/* best[] keeps the smallest wall and CPU times seen for a phase */
static void keep_best(stamp *best, stamp from, stamp to) {
  if (to.wall - from.wall < best->wall) best->wall = to.wall - from.wall;
  if (to.cpu - from.cpu < best->cpu) best->cpu = to.cpu - from.cpu;
}

/* Append shape number i: its first block is u<i>, it reads %v<i> and defines %v<i+1>, and it
 * ends with a jump to u<i+1>. The text is in the printer's canonical form, so that printing the
 * parsed kernel must give it back byte for byte. Returns the number of blocks written. */
static unsigned emit_shape(rc_strbuf *sb, unsigned i, unsigned shape) {
  unsigned o = i + 1;
  switch (shape) {
  case 0: /* if-then-else with a phi at the join */
    rc_sb_printf(sb, "u%u:\n  %%c%u = icmp slt i32 %%v%u, %%n\n  br %%c%u, t%u, f%u\n", i, i, i, i, i, i);
    rc_sb_printf(sb, "t%u:\n  %%a%u = add i32 %%v%u, 1\n  jmp j%u\n", i, i, i, i);
    rc_sb_printf(sb, "f%u:\n  %%b%u = mul i32 %%v%u, 3\n  jmp j%u\n", i, i, i, i);
    rc_sb_printf(sb, "j%u:\n  %%v%u = phi i32 [%%a%u, t%u], [%%b%u, f%u]\n  jmp u%u\n", i, o, i, i, i, i, o);
    return 4;
  case 1: /* a counted loop with a loop-carried value */
    rc_sb_printf(sb, "u%u:\n  jmp h%u\n", i, i);
    rc_sb_printf(sb, "h%u:\n  %%i%u = phi i32 [0, u%u], [%%j%u, h%u]\n", i, i, i, i, i);
    rc_sb_printf(sb, "  %%s%u = phi i32 [%%v%u, u%u], [%%t%u, h%u]\n", i, i, i, i, i);
    rc_sb_printf(sb, "  %%j%u = add i32 %%i%u, 1\n  %%t%u = xor i32 %%s%u, %%j%u\n", i, i, i, i, i);
    rc_sb_printf(sb, "  %%l%u = icmp ult i32 %%j%u, 4\n  br %%l%u, h%u, x%u\n", i, i, i, i, i);
    rc_sb_printf(sb, "x%u:\n  %%v%u = add i32 %%t%u, 0\n  jmp u%u\n", i, o, i, o);
    return 3;
  case 2: /* a switch whose cases join with a phi */
    rc_sb_printf(sb, "u%u:\n  %%w%u = and i32 %%v%u, 3\n  switch i32 %%w%u, d%u [0: a%u, 1: b%u, 2: a%u]\n",
                 i, i, i, i, i, i, i, i);
    rc_sb_printf(sb, "a%u:\n  jmp d%u\n", i, i);
    rc_sb_printf(sb, "b%u:\n  %%e%u = sub i32 %%v%u, 7\n  jmp d%u\n", i, i, i, i);
    rc_sb_printf(sb, "d%u:\n  %%v%u = phi i32 [%%v%u, u%u], [%%w%u, a%u], [%%e%u, b%u]\n  jmp u%u\n",
                 i, o, i, i, i, i, i, i, o);
    return 4;
  default: /* straight-line code */
    rc_sb_printf(sb, "u%u:\n  %%v%u = add i32 %%v%u, %%n\n  jmp u%u\n", i, o, i, o);
    return 1;
  }
}

/* The kernel: entry, shapes until NBLOCKS is (nearly) reached, and a last block storing the
 * value. The shapes cycle diamond, loop, switch, diamond, straight line. */
static char *generate(unsigned nblocks, size_t *len, unsigned *made) {
  rc_strbuf sb;
  rc_sb_init(&sb);
  rc_sb_puts(&sb, "kernel @big(ptr %out, i32 %n) {\nentry:\n  %v0 = call i32 @global_id(i32 0)\n  jmp u0\n");
  static const unsigned cycle[] = {0, 1, 2, 0, 3};
  unsigned blocks = 2, i = 0; /* entry and the last block */
  while (blocks + 4 <= nblocks) {
    blocks += emit_shape(&sb, i, cycle[i % 5]);
    i++;
  }
  rc_sb_printf(&sb, "u%u:\n  store i32 %%v%u, %%out\n  ret\n}\n", i, i);
  *len = sb.len;
  *made = blocks;
  return sb.data;
}

int main(int argc, char **argv) {
  unsigned nblocks = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 1000000;
  int repeats = argc > 2 ? atoi(argv[2]) : 3;
  if (nblocks < 8 || repeats < 1) {
    fprintf(stderr, "usage: bench_parse [NBLOCKS >= 8] [REPEATS >= 1] [SAVE.rir]\n");
    return 2;
  }
  stamp t0 = now();
  size_t len;
  unsigned made;
  char *text = generate(nblocks, &len, &made);
  double tgen = now().wall - t0.wall;
  if (argc > 3) {
    FILE *f = fopen(argv[3], "wb");
    if (!f || fwrite(text, 1, len, f) != len || fclose(f) != 0) {
      fprintf(stderr, "bench_parse: cannot write %s\n", argv[3]);
      return 1;
    }
  }
  stamp best_parse = {1e30, 1e30}, best_verify = {1e30, 1e30}, best_print = {1e30, 1e30};
  for (int r = 0; r < repeats; r++) {
    rc_ctx ctx;
    rc_ctx_init(&ctx);
    stamp a = now();
    rc_module *m = rc_parse_module_unverified(&ctx, "big.rir", text, len);
    stamp b = now();
    if (!m) {
      fprintf(stderr, "bench_parse: the generated kernel does not parse\n");
      return 1;
    }
    int bad = rc_verify_module(&ctx, m);
    stamp c = now();
    if (bad) {
      fprintf(stderr, "bench_parse: the generated kernel does not verify\n");
      return 1;
    }
    rc_strbuf out;
    rc_sb_init(&out);
    rc_print_module(m, &out);
    stamp d = now();
    if (out.len != len || memcmp(out.data, text, len) != 0) {
      fprintf(stderr, "bench_parse: printing the parsed kernel does not give the text back\n");
      return 1;
    }
    rc_sb_free(&out);
    if (r == 0) {
      uint64_t ninstr = 0;
      for (uint32_t bi = 0; bi < m->kernels[0]->nblocks; bi++)
        for (rc_instr *i = m->kernels[0]->blocks[bi]->first; i; i = i->next) ninstr++;
      printf("instructions:    %llu\n", (unsigned long long)ninstr);
      printf("IR memory:       %.1f MB in the module's arena\n", (double)m->arena.total / 1e6);
    }
    rc_module_free(m);
    keep_best(&best_parse, a, b);
    keep_best(&best_verify, b, c);
    keep_best(&best_print, c, d);
  }
  double mb = (double)len / 1e6;
  printf("blocks:          %u\n", made);
  printf("text:            %.1f MB (generated in %.3f s)\n", mb, tgen);
  printf("                 wall      cpu      (best of %d)\n", repeats);
  printf("parse:           %.3f s  %.3f s  %.1f MB/s\n", best_parse.wall, best_parse.cpu, mb / best_parse.wall);
  printf("verify:          %.3f s  %.3f s\n", best_verify.wall, best_verify.cpu);
  printf("parse + verify:  %.3f s  %.3f s\n", best_parse.wall + best_verify.wall,
         best_parse.cpu + best_verify.cpu);
  printf("print:           %.3f s  %.3f s  %.1f MB/s\n", best_print.wall, best_print.cpu, mb / best_print.wall);
  free(text);
  return 0;
}
