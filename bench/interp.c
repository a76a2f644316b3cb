/* Benchmark of the thread-level interpreter: a loop-heavy kernel built with the builder (a hash
 * loop with a divergent if-else inside, a phi-carried accumulator and a store per iteration) run
 * on many threads. Prints millions of instructions per second (target: > 50 M/s on one core).
 *
 *   bench_interp [THREADS [ITERATIONS]]     default 4096 threads, 2000 iterations each
 */
#include "reconv/sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* for (i = 0; i < n; i++) { h = h * 1664525 + 1013904223 ^ i;
 *   if (h & 1) h = h >> 3; else h = h + (h << 2);  out[tid] = h; } */
static rc_kernel *build(rc_module *m) {
  rc_kernel *k = rc_kernel_new(m, "hashloop");
  rc_value *out = rc_kernel_add_param(k, RC_PTR, "out");
  rc_value *n = rc_kernel_add_param(k, RC_I32, "n");
  rc_block *entry = rc_block_new(k, "entry"), *head = rc_block_new(k, "head");
  rc_block *body = rc_block_new(k, "body"), *odd = rc_block_new(k, "odd");
  rc_block *even = rc_block_new(k, "even"), *latch = rc_block_new(k, "latch");
  rc_block *exit = rc_block_new(k, "exit");
  rc_builder b;
  rc_builder_at_end(&b, entry);
  rc_value *dim0 = rc_const_int(k, RC_I32, 0);
  rc_value *tid = &rc_build_call(&b, RC_BI_GLOBAL_ID, RC_I32, &dim0, 1, "tid")->v;
  rc_value *slot = rc_build_gep(&b, out, tid, 4, "slot");
  rc_build_jmp(&b, head);

  rc_builder_at_end(&b, head);
  rc_instr *i = rc_phi_new(head, RC_I32, "i");
  rc_instr *h = rc_phi_new(head, RC_I32, "h");
  rc_value *more = rc_build_cmp(&b, RC_CMP_SLT, &i->v, n, "more");
  rc_build_br(&b, more, body, exit);

  rc_builder_at_end(&b, body);
  rc_value *h1 = rc_build_binop(&b, RC_OP_MUL, &h->v, rc_const_int(k, RC_I32, 1664525), "h1");
  rc_value *h2 = rc_build_binop(&b, RC_OP_ADD, h1, rc_const_int(k, RC_I32, 1013904223), "h2");
  rc_value *h3 = rc_build_binop(&b, RC_OP_XOR, h2, &i->v, "h3");
  rc_value *bit = rc_build_binop(&b, RC_OP_AND, h3, rc_const_int(k, RC_I32, 1), "bit");
  rc_value *isodd = rc_build_cmp(&b, RC_CMP_NE, bit, rc_const_int(k, RC_I32, 0), "isodd");
  rc_build_br(&b, isodd, odd, even);

  rc_builder_at_end(&b, odd);
  rc_value *ho = rc_build_binop(&b, RC_OP_LSHR, h3, rc_const_int(k, RC_I32, 3), "ho");
  rc_build_jmp(&b, latch);

  rc_builder_at_end(&b, even);
  rc_value *sh = rc_build_binop(&b, RC_OP_SHL, h3, rc_const_int(k, RC_I32, 2), "sh");
  rc_value *he = rc_build_binop(&b, RC_OP_ADD, h3, sh, "he");
  rc_build_jmp(&b, latch);

  rc_builder_at_end(&b, latch);
  rc_instr *hn = rc_phi_new(latch, RC_I32, "hn");
  rc_phi_add_incoming(hn, ho, odd);
  rc_phi_add_incoming(hn, he, even);
  rc_build_store(&b, &hn->v, slot);
  rc_value *i1 = rc_build_binop(&b, RC_OP_ADD, &i->v, rc_const_int(k, RC_I32, 1), "i1");
  rc_build_jmp(&b, head);

  rc_phi_add_incoming(i, rc_const_int(k, RC_I32, 0), entry);
  rc_phi_add_incoming(i, i1, latch);
  rc_phi_add_incoming(h, tid, entry);
  rc_phi_add_incoming(h, &hn->v, latch);

  rc_builder_at_end(&b, exit);
  rc_build_ret(&b);
  return k;
}

int main(int argc, char **argv) {
  unsigned threads = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 4096;
  unsigned iters = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : 2000;
  if (threads < 1 || threads > (1u << 24) || iters < 1) {
    fprintf(stderr, "usage: bench_interp [THREADS [ITERATIONS]]\n");
    return 2;
  }
  rc_ctx ctx;
  rc_ctx_init(&ctx);
  rc_module *m = rc_module_new(&ctx, "bench");
  rc_kernel *k = build(m);
  if (rc_verify_kernel(&ctx, k) != 0) return 1;
  char text[200];
  snprintf(text, sizeof text, "--global %u --steps %llu --arg out=i32[N] --arg n=%u", threads,
           (unsigned long long)iters * 20 + 100, iters);
  rc_run_spec s;
  rc_run_spec_init(&s);
  rc_memory mem;
  rc_run_stats st;
  rc_fault fault;
  if (rc_run_spec_parse_string(&ctx, &s, text) != 0 || rc_memory_init(&ctx, &mem, &s, k) != 0) return 1;
  double t0 = now();
  int r = rc_interp_run(&ctx, k, &s, &mem, NULL, &st, &fault);
  double t1 = now();
  if (r != 0) {
    fprintf(stderr, "bench_interp: %s\n", fault.happened ? fault.message : "error");
    return 1;
  }
  printf("interp: %u threads x %u iterations: %llu instructions, %llu blocks in %.3f s\n", threads,
         iters, (unsigned long long)st.instructions, (unsigned long long)st.blocks, t1 - t0);
  printf("interp: %.1f M instructions/s, %.1f M blocks/s (checksum 0x%016llx)\n",
         (double)st.instructions / (t1 - t0) * 1e-6, (double)st.blocks / (t1 - t0) * 1e-6,
         (unsigned long long)rc_memory_checksum(&mem));
  /* with traces, as equiv runs it */
  rc_memory_free(&mem);
  rc_traces tr;
  if (rc_memory_init(&ctx, &mem, &s, k) != 0) return 1;
  t0 = now();
  r = rc_interp_run(&ctx, k, &s, &mem, &tr, &st, &fault);
  t1 = now();
  if (r != 0) return 1;
  printf("interp with traces: %.1f M instructions/s (%llu trace entries)\n",
         (double)st.instructions / (t1 - t0) * 1e-6, (unsigned long long)tr.len);
  rc_traces_free(&tr);
  rc_run_stats_free(&st);
  rc_memory_free(&mem);
  rc_run_spec_free(&s);
  rc_module_free(m);
  return 0;
}
